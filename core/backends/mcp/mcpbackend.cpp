// SPDX-License-Identifier: GPL-3.0-or-later
#include "mcpbackend.h"

#include "backends/requestauth.h"
#include "mcpconnector.h"
#include "mcplog.h"
#include "mcpmapper2026.h"
#include "mcprunstream.h"
#include "net/transportoptions.h"
#include "json/jsonschema.h"

#include <QCoreApplication>
#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace Runwatch {

Q_LOGGING_CATEGORY(lcMcp, "runwatch.backend.mcp", QtInfoMsg)

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "McpConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(McpConnector)
};

ActionResult failed(RunError error, std::optional<qint64> retryAfterMs = std::nullopt)
{
    ActionResult r;
    r.error = std::move(error);
    r.retryAfterMs = retryAfterMs;
    return r;
}

QJsonObject taskIdParams(const QString &taskId)
{
    return {{u"taskId"_s, taskId}};
}

} // namespace

using namespace Mcp;

McpBackend::McpBackend(Connection connection, QObject *parent)
    : RunBackend(parent)
    , m_connection(std::move(connection))
    , m_http(new HttpClient(this))
    , m_transport(nullptr)
{
    applyTransportOptions(m_http, m_connection);
    (new RequestAuth(m_connection, this))->attach(m_http);
    m_transport = new Transport(m_http, m_connection.baseUrl, this);
    const QString version = m_connection.options.value(McpOption::ProtocolVersion).toString();
    if (!version.isEmpty())
        m_transport->setPreferredVersion(version);
}

QString McpBackend::kind() const
{
    return u"mcp"_s;
}

Capabilities McpBackend::capabilities() const
{
    // No Delete: MCP has none; a task expires by its ttl (shown on the run).
    return Capability::Start | Capability::Get | Capability::Stream | Capability::ResumeStream
           | Capability::Cancel | Capability::Respond | Capability::List | Capability::Catalog
           | Capability::StructuredInput;
}

QCoro::Task<> McpBackend::shutdown()
{
    return m_http->shutdown();
}

RunStream *McpBackend::start(StartRequest request, QObject *parent)
{
    McpKickoff kickoff;
    kickoff.tool = request.agent.isEmpty() ? m_connection.options.value(ConnectionOption::Agent).toString()
                                           : request.agent;
    kickoff.arguments = request.input;
    kickoff.stream = request.stream;
    return new McpRunStream(this, std::move(kickoff), parent);
}

RunStream *McpBackend::follow(ContinuationToken token, QObject *parent)
{
    qCDebug(lcMcp) << "follow task" << token.remoteId << "on session"
                   << token.extra.value(kSessionId).toString();
    return new McpRunStream(this, std::move(token), parent);
}

QCoro::Task<ActionResult> McpBackend::finalEvents(ContinuationToken token, Session session, QJsonObject task)
{
    QPointer<McpBackend> self = this;
    ActionResult result;
    const QString status = task.value(u"status"_s).toString();
    const Reply reply = co_await m_transport->call(u"tasks/result"_s, taskIdParams(token.remoteId), session);
    if (!self)
        co_return failed(RunError::cancelled());
    for (const Message &m : reply.serverMessages) {
        if (m.method == "notifications/progress"_L1) {
            if (const auto progress = progressEvent(m.params))
                result.events << *progress;
        }
    }
    if (!reply.ok()) {
        if (status == "failed"_L1 && reply.error.kind != ErrorKind::Network) {
            // A server may fail a task with only a status (§4): its message is what there is.
            result.events << resultEvents({}, status, task.value(u"statusMessage"_s).toString());
            co_return result;
        }
        result.error = reply.error;
        result.retryAfterMs = reply.retryAfterMs;
        co_return result;
    }
    result.events << resultEvents(reply.result.toObject(), status, task.value(u"statusMessage"_s).toString());
    co_return result;
}

QCoro::Task<ActionResult> McpBackend::get(ContinuationToken token)
{
    QPointer<McpBackend> self = this;
    ActionResult result;
    Session used;
    bool lost = false;
    const Reply reply
        = co_await callForRun(u"tasks/get"_s, taskIdParams(token.remoteId), token.extra, &used, &lost);
    if (!self)
        co_return failed(RunError::cancelled());
    if (lost) {
        result.events << sessionLostEvents(token, used);
        token.extra.insert(kElicitation, QJsonValue::Null);
    }
    if (!reply.ok()) {
        result.error = reply.error;
        result.retryAfterMs = reply.retryAfterMs;
        co_return result;
    }
    const QJsonObject task
        = used.is2026() ? Mcp2026::taskOf(reply.result.toObject()) : reply.result.toObject();
    if (!storedSession(token.extra).isValid()) {
        // Attached by task id: from now on every process follows it on this session.
        RunEvent identity = RunEvent::identity(token.remoteId, {}, true);
        identity.tokenExtra = sessionExtra(used);
        const QJsonObject extra = used.is2026() ? Mcp2026::taskExtra(task) : taskExtra(task);
        for (auto it = extra.constBegin(); it != extra.constEnd(); ++it)
            identity.tokenExtra.insert(it.key(), it.value());
        result.events << identity << ttlEvent(extra.value(kTtlMs).toInteger(-1));
    }
    // The engine never polls sooner than the server asks.
    const qint64 poll = task.value(used.is2026() ? u"pollIntervalMs"_s : u"pollInterval"_s).toInteger(0);
    if (poll > 0)
        result.retryAfterMs = poll;
    if (used.is2026()) {
        QStringList answered;
        for (const QJsonValue &key : token.extra.value(Mcp2026::kAnsweredKeys).toArray())
            answered << key.toString();
        result.events << Mcp2026::withStoredRequest(token.remoteId,
                                                    Mcp2026::detailedTaskEvents(task, answered));
        co_return result;
    }
    const QString status = task.value(u"status"_s).toString();
    if (status == "completed"_L1 || status == "failed"_L1) {
        const ActionResult final = co_await finalEvents(token, used, task);
        if (!self)
            co_return failed(RunError::cancelled());
        result.events << final.events;
        result.error = final.error;
        co_return result;
    }
    if (status == "input_required"_L1) {
        if (const std::optional<InputRequest> stored = storedInputRequest(token.extra)) {
            result.events << taskEvents(task) << RunEvent::inputRequired(*stored);
            co_return result;
        }
        // The request is collected by following (tasks/result): until then the task works.
        result.events << taskEvents(task, false);
        co_return result;
    }
    result.events << taskEvents(task);
    co_return result;
}

QCoro::Task<ActionResult> McpBackend::cancel(ContinuationToken token)
{
    QPointer<McpBackend> self = this;
    ActionResult result;
    Session used;
    bool lost = false;
    const Reply reply
        = co_await callForRun(u"tasks/cancel"_s, taskIdParams(token.remoteId), token.extra, &used, &lost);
    if (!self)
        co_return failed(RunError::cancelled());
    if (lost)
        result.events << sessionLostEvents(token, used);
    if (!reply.ok()) {
        if (reply.error.message.contains(u"terminal status"_s, Qt::CaseInsensitive)) {
            // Ended before the cancel arrived: the run says how.
            const ActionResult now = co_await get(token);
            if (!self)
                co_return failed(RunError::cancelled());
            result.events << now.events;
            result.note = Text::tr("the task had already ended");
            co_return result;
        }
        result.error = reply.error;
        result.retryAfterMs = reply.retryAfterMs;
        co_return result;
    }
    if (used.is2026()) {
        // An acknowledgement only (§9): the task's status says when it has stopped.
        result.note = Text::tr("cancellation requested; waiting for the task to stop");
        result.events << RunEvent::statusChange(RunStatus::Cancelling, u"cancelling"_s);
        co_return result;
    }
    // 2025: the reply is the task, cancelled at once (§6) — the server's confirmation.
    const QJsonObject task = reply.result.toObject();
    if (task.value(u"status"_s).toString().isEmpty()) {
        result.events << RunEvent::statusChange(RunStatus::Cancelling, u"cancelling"_s);
        result.note = Text::tr("cancellation requested; waiting for the task to stop");
        co_return result;
    }
    RunEvent clear = RunEvent::identity(token.remoteId, {}, true);
    clear.tokenExtra.insert(kElicitation, QJsonValue::Null);
    result.events << clear << taskEvents(task);
    co_return result;
}

QCoro::Task<ActionResult> McpBackend::remove(ContinuationToken token)
{
    // Never reached from the front ends (no Capability::Delete): MCP has no delete.
    Q_UNUSED(token)
    co_return failed(
        RunError::unsupported(Text::tr("deleting a task on an MCP server (it expires by its ttl)")));
}

QCoro::Task<ActionResult> McpBackend::respond(ContinuationToken token, InputAnswer answer)
{
    QPointer<McpBackend> self = this;
    const std::optional<InputRequest> stored = storedInputRequest(token.extra);
    if (!stored) {
        RunError e = RunError::client(
            u"no_pending_request"_s,
            Text::tr(
                "This run holds no question of the server to answer (it was answered, or the server lost "
                "the session it was asked on)."));
        e.kind = ErrorKind::Conflict;
        co_return failed(e);
    }
    if (storedSession(token.extra).is2026()) {
        co_return co_await respond2026(token, answer, *stored);
    }
    QString problem;
    const std::optional<QJsonObject> elicit = elicitResult(*stored, answer, &problem);
    if (!elicit)
        co_return failed(RunError::client(u"answer_does_not_fit"_s, problem));
    // The task says what it waits for now: an answer to a request it no longer waits on would be
    // accepted (202) and dropped.
    const Session session{stored->raw.value(u"session"_s).toString(),
                          token.extra.value(kProtocolVersion).toString(QString(kRevision2025))};
    const Reply now = co_await m_transport->call(u"tasks/get"_s, taskIdParams(token.remoteId), session);
    if (!self)
        co_return failed(RunError::cancelled());
    if (now.sessionLost) {
        ActionResult result = failed(
            RunError::client(u"session_lost"_s,
                             Text::tr("The MCP server lost the session the question was asked on; it can no "
                                      "longer be answered.")));
        result.events << sessionLostEvents(token, Session{});
        co_return result;
    }
    if (!now.ok())
        co_return failed(now.error, now.retryAfterMs);
    const QString status = now.result.toObject().value(u"status"_s).toString();
    if (status != "input_required"_L1) {
        RunError e = RunError::client(
            u"not_waiting"_s, Text::tr("The task no longer waits for an answer (it is %1).").arg(status));
        e.kind = ErrorKind::Conflict;
        co_return failed(e);
    }
    const Reply sent = co_await m_transport->answer(stored->raw.value(u"id"_s), *elicit, session);
    if (!self)
        co_return failed(RunError::cancelled());
    if (!sent.ok())
        co_return failed(sent.error, sent.retryAfterMs);
    qCInfo(lcMcp) << "answered elicitation of task" << token.remoteId << "with" << elicit->value(u"action"_s);
    ActionResult result;
    RunEvent clear = RunEvent::identity(token.remoteId, {}, true);
    clear.tokenExtra.insert(kElicitation, QJsonValue::Null);
    result.events << clear
                  << RunEvent::secondarySnapshot(
                         SecondaryKind::Log, u"answer:%1"_s.arg(jsonValueText(stored->raw.value(u"id"_s))),
                         Text::tr("answer"), elicit->value(u"action"_s).toString())
                  << RunEvent::statusChange(RunStatus::InProgress, u"working"_s);
    co_return result;
}

QCoro::Task<ActionResult> McpBackend::respond2026(ContinuationToken token, InputAnswer answer,
                                                  InputRequest request)
{
    QPointer<McpBackend> self = this;
    QString problem;
    const std::optional<QJsonObject> elicit = elicitResult(request, answer, &problem);
    if (!elicit)
        co_return failed(RunError::client(u"answer_does_not_fit"_s, problem));
    // Read back from the token, the request's stored id is its input key.
    QString key = Mcp2026::inputKeyOf(request);
    if (key.isEmpty())
        key = request.raw.value(u"id"_s).toString();
    const Reply sent = co_await m_transport->call(
        u"tasks/update"_s, Mcp2026::updateParams(token.remoteId, key, *elicit), storedSession(token.extra));
    if (!self)
        co_return failed(RunError::cancelled());
    if (!sent.ok())
        co_return failed(sent.error, sent.retryAfterMs);
    QJsonArray answered = token.extra.value(Mcp2026::kAnsweredKeys).toArray();
    answered.append(key);
    ActionResult result;
    RunEvent identity = RunEvent::identity(token.remoteId, {}, true);
    identity.tokenExtra.insert(kElicitation, QJsonValue::Null);
    identity.tokenExtra.insert(Mcp2026::kAnsweredKeys, answered);
    result.events << identity << RunEvent::statusChange(RunStatus::InProgress, u"working"_s);
    co_return result;
}

} // namespace Runwatch
