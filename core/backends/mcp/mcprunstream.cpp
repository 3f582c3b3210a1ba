// SPDX-License-Identifier: GPL-3.0-or-later
#include "mcprunstream.h"

#include "mcpbackend.h"
#include "mcplog.h"
#include "mcpmapper2026.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QNetworkReply>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(McpConnector)
};

constexpr auto kRelatedTask = "io.modelcontextprotocol/related-task"_L1;

} // namespace

using namespace Mcp;

void ResultReader::map(QByteArrayView data, QList<RunEvent> &out, std::optional<StreamEnd> &end)
{
    if (ended || data.trimmed().isEmpty())
        return;
    for (const Message &m : parseMessages(data)) {
        if (ended)
            return;
        switch (m.kind) {
        case Message::Kind::Request: {
            if (m.method != "elicitation/create"_L1)
                break; // ping, sampling: nothing this client offers
            const QString related = m.params.value(u"_meta"_s)
                                        .toObject()
                                        .value(kRelatedTask)
                                        .toObject()
                                        .value(u"taskId"_s)
                                        .toString();
            if (!related.isEmpty() && related != taskId)
                break;
            // Delivered once (§5): stored with the run before anything else happens.
            RunEvent identity = RunEvent::identity(taskId, {}, true);
            identity.tokenExtra.insert(kElicitation, elicitationEntry(m.id, m.params, sessionId));
            out << identity << RunEvent::inputRequired(inputRequestFor(m.id, m.params, sessionId))
                << RunEvent::statusChange(RunStatus::InputRequired, u"input_required"_s);
            ended = true;
            end = StreamEnd{StreamEnd::Reason::Terminal, {}, std::nullopt};
            return;
        }
        case Message::Kind::Notification:
            if (m.method == "notifications/progress"_L1) {
                if (const auto progress = progressEvent(m.params))
                    out << *progress;
            } else if (m.method == "notifications/tasks/status"_L1 && m.params.value(u"taskId"_s) == taskId) {
                if (const QString line = m.params.value(u"statusMessage"_s).toString(); !line.isEmpty()) {
                    statusMessage = line;
                    out << RunEvent::secondarySnapshot(SecondaryKind::Progress, kStatusItem,
                                                       QCoreApplication::translate("McpConnector", "status"),
                                                       line);
                }
            }
            break;
        case Message::Kind::Result:
            if (m.id != requestId)
                break;
            // The result of a task that was not terminal when the read began (its question went
            // elsewhere): the result itself says whether it failed (isError).
            out << resultEvents(m.result.toObject(),
                                isTerminalTaskStatus(taskStatus) ? taskStatus : u"completed"_s,
                                statusMessage);
            ended = true;
            end = StreamEnd{StreamEnd::Reason::Terminal, {}, std::nullopt};
            return;
        case Message::Kind::Error:
            if (m.id != requestId)
                break;
            ended = true;
            if (taskStatus == "failed"_L1) {
                // Failed with only a status (§4): its message is what there is.
                out << resultEvents({}, taskStatus, statusMessage);
                end = StreamEnd{StreamEnd::Reason::Terminal, {}, std::nullopt};
            } else {
                // E.g. cancelled meanwhile ("no result stored"): the next tasks/get says so.
                end = StreamEnd{StreamEnd::Reason::Eof, rpcError(m.errorCode, m.errorMessage), std::nullopt};
            }
            return;
        case Message::Kind::Invalid:
            break;
        }
    }
}

SseRunStream::Options McpRunStream::readOptions(std::chrono::milliseconds stallTimeout)
{
    return {
        .stallTimeout = stallTimeout,
        .stalledMessage = Text::tr("Nothing arrived on the task's result stream for %1 s; asking again."),
        .timedOutMessage = Text::tr("The task's result stream went silent and timed out."),
        .interruptedMessage = Text::tr("The task's result stream was interrupted: %1"),
    };
}

McpRunStream::McpRunStream(McpBackend *backend, McpKickoff kickoff, QObject *parent)
    : SseRunStream(readOptions(stallTimeoutFor(backend->connection())), parent)
    , m_backend(backend)
{
    m_pollTimer.setSingleShot(true);
    // A coarse timer may fire up to 5 % early: never poll before the server's interval.
    m_pollTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_pollTimer, &QTimer::timeout, this, [this] { poll(); });
    // Start on the next event-loop turn so the owner can connect to our signals first.
    QTimer::singleShot(0, this, [this, kickoff] { runKickoff(kickoff); });
}

McpRunStream::McpRunStream(McpBackend *backend, ContinuationToken token, QObject *parent)
    : SseRunStream(readOptions(stallTimeoutFor(backend->connection())), parent)
    , m_backend(backend)
    , m_token(std::move(token))
{
    m_pollTimer.setSingleShot(true);
    m_pollTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_pollTimer, &QTimer::timeout, this, [this] { poll(); });
    QTimer::singleShot(0, this, [this] { poll(); });
}

void McpRunStream::endWithError(const RunError &error, std::optional<qint64> retryAfterMs)
{
    endWith({StreamEnd::Reason::Error, error, retryAfterMs});
}

void McpRunStream::schedulePoll(qint64 afterMs)
{
    if (isAborted() || isFinished())
        return;
    m_pollTimer.start(std::chrono::milliseconds(std::max<qint64>(afterMs, 1)));
}

QCoro::Task<> McpRunStream::runKickoff(McpKickoff kickoff)
{
    QPointer<McpRunStream> self = this;
    if (!m_backend || isAborted())
        co_return;
    if (kickoff.tool.isEmpty()) {
        endWithError(RunError::client(u"no_tool"_s, Text::tr("Name the tool to run (--agent TOOL).")));
        co_return;
    }
    if (!kickoff.arguments.isUndefined() && !kickoff.arguments.isObject()) {
        endWithError(RunError::client(u"arguments_not_object"_s,
                                      Text::tr("A tool's arguments are a JSON object (--input).")));
        co_return;
    }
    const McpBackend::Opened opened = co_await m_backend->sessionFor(QJsonObject());
    if (!self || isAborted() || !m_backend)
        co_return;
    if (!opened.ok()) {
        endWithError(opened.error);
        co_return;
    }
    m_session = opened.session;
    // The server's task capabilities, where this process heard them (§2).
    if (!opened.capabilities.isEmpty()) {
        const bool tasks = m_session.is2026() ? opened.capabilities.value(u"extensions"_s)
                                                    .toObject()
                                                    .contains(u"io.modelcontextprotocol/tasks"_s)
                                              : opened.capabilities.value(u"tasks"_s)
                                                    .toObject()
                                                    .value(u"requests"_s)
                                                    .toObject()
                                                    .value(u"tools"_s)
                                                    .toObject()
                                                    .contains(u"call"_s);
        if (!tasks) {
            endWithError(RunError::client(
                u"no_tasks"_s, Text::tr("The MCP server cannot run tool calls as tasks (it declares no "
                                        "tasks capability).")));
            co_return;
        }
    }
    const McpBackend::Tools tools = co_await m_backend->listTools(m_session);
    if (!self || isAborted() || !m_backend)
        co_return;
    if (tools.error.isError()) {
        endWithError(tools.error);
        co_return;
    }
    const auto tool = std::find_if(tools.tools.cbegin(), tools.tools.cend(), [&](const QJsonObject &t) {
        return t.value(u"name"_s).toString() == kickoff.tool;
    });
    if (tool == tools.tools.cend()) {
        endWithError(RunError::client(
            u"unknown_tool"_s, Text::tr("The MCP server has no tool \"%1\" (runwatch-cli agents lists them).")
                                   .arg(kickoff.tool)));
        co_return;
    }
    // The spec forbids a task for such a tool; the SDK server would answer -32602 (§3).
    if (taskSupportOf(*tool) == "forbidden"_L1) {
        endWithError(
            RunError::client(u"task_forbidden"_s,
                             Text::tr("The tool \"%1\" cannot run as a task (its execution.taskSupport is "
                                      "forbidden); nothing was sent.")
                                 .arg(kickoff.tool)));
        co_return;
    }
    QJsonObject params{
        {u"name"_s, kickoff.tool},
        {u"arguments"_s, kickoff.arguments.isObject() ? kickoff.arguments.toObject() : QJsonObject{}}};
    if (!m_session.is2026()) {
        params.insert(u"task"_s, QJsonObject{{u"ttl"_s, kRequestedTtlMs}});
        // Valid for the whole task: its progress comes on tasks/result (§3).
        params.insert(u"_meta"_s,
                      QJsonObject{{u"progressToken"_s,
                                   u"rw-%1"_s.arg(QUuid::createUuid().toString(QUuid::WithoutBraces))}});
    }
    const Reply reply = co_await m_backend->transport()->call(u"tools/call"_s, params, m_session);
    if (!self || isAborted() || !m_backend)
        co_return;
    if (!reply.ok()) {
        endWithError(reply.error, reply.retryAfterMs);
        co_return;
    }
    const QJsonObject result = reply.result.toObject();
    const QJsonObject task = m_session.is2026() ? Mcp2026::taskOf(result) : createdTask(result);
    const QString taskId = task.value(u"taskId"_s).toString();
    if (taskId.isEmpty()) {
        if (!result.contains(u"content"_s)) {
            endWithError(
                RunError::protocol(u"no_task"_s, Text::tr("The MCP server answered the tool call with "
                                                          "neither a task nor a result.")));
            co_return;
        }
        // The server ran the tool at once (a 2026 server decides; an optional tool may): the run is
        // that result, under an id of its own (there is no task to follow).
        const QString id = u"result-%1"_s.arg(QUuid::createUuid().toString(QUuid::WithoutBraces));
        RunEvent identity = RunEvent::identity(id, kickoff.tool, false);
        identity.eventId = id;
        identity.tokenExtra = McpBackend::sessionExtra(m_session);
        identity.tokenExtra.insert(kTool, kickoff.tool);
        QList<RunEvent> events{identity};
        events << resultEvents(result, u"completed");
        deliver(events);
        if (self && !isFinished())
            endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
        co_return;
    }
    qCInfo(lcMcp) << "created task" << taskId << "of tool" << kickoff.tool << "on session" << m_session.id;
    m_token.remoteId = taskId;
    RunEvent identity = RunEvent::identity(taskId, kickoff.tool, kickoff.stream);
    // The run's cursor: the task itself (MCP numbers nothing); `start` returns once it is known.
    identity.eventId = taskId;
    identity.tokenExtra = McpBackend::sessionExtra(m_session);
    identity.tokenExtra.insert(kTool, kickoff.tool);
    const QJsonObject extra = m_session.is2026() ? Mcp2026::taskExtra(task) : taskExtra(task);
    for (auto it = extra.constBegin(); it != extra.constEnd(); ++it)
        identity.tokenExtra.insert(it.key(), it.value());
    m_token.extra = identity.tokenExtra;
    QList<RunEvent> events{identity, ttlEvent(extra.value(kTtlMs).toInteger(-1))};
    events << taskEvents(task, false);
    deliver(events);
    if (!self || isAborted() || isFinished())
        co_return;
    if (!kickoff.stream) {
        endWith(
            {StreamEnd::Reason::ResumeRefused, {}, extra.value(kPollIntervalMs).toInteger(kDefaultPollMs)});
        co_return;
    }
    schedulePoll(extra.value(kPollIntervalMs).toInteger(kDefaultPollMs));
}

QCoro::Task<> McpRunStream::poll()
{
    QPointer<McpRunStream> self = this;
    if (!m_backend || isAborted() || isFinished())
        co_return;
    Session used;
    bool lost = false;
    QJsonObject params;
    params.insert(u"taskId"_s, m_token.remoteId);
    const Reply reply = co_await m_backend->callForRun(u"tasks/get"_s, params, m_token.extra, &used, &lost);
    if (!self || isAborted() || isFinished() || !m_backend)
        co_return;
    if (lost) {
        const QList<RunEvent> events = McpBackend::sessionLostEvents(m_token, used);
        m_token.extra.insert(kSessionId, used.id);
        m_token.extra.insert(kProtocolVersion, used.version);
        m_token.extra.insert(kElicitation, QJsonValue::Null);
        deliver(events);
        if (!self || isAborted() || isFinished())
            co_return;
    }
    if (!reply.ok()) {
        endWithError(reply.error, reply.retryAfterMs);
        co_return;
    }
    m_session = used;
    if (m_session.is2026()) {
        co_await poll2026(Mcp2026::taskOf(reply.result.toObject()));
        co_return;
    }
    const QJsonObject task = reply.result.toObject();
    const QString status = task.value(u"status"_s).toString();
    const qint64 interval = task.value(u"pollInterval"_s)
                                .toInteger(m_token.extra.value(kPollIntervalMs).toInteger(kDefaultPollMs));
    if (status == "completed"_L1 || status == "failed"_L1) {
        co_await readResult(task);
        co_return;
    }
    if (status == "cancelled"_L1) {
        deliver(taskEvents(task));
        if (self && !isFinished())
            endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
        co_return;
    }
    if (status == "input_required"_L1) {
        if (const std::optional<InputRequest> stored = storedInputRequest(m_token.extra)) {
            // Asked before and held by the run: the operator's turn (the server will not repeat it).
            QList<RunEvent> events = taskEvents(task);
            events << RunEvent::inputRequired(*stored);
            deliver(events);
            if (self && !isFinished())
                endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
            co_return;
        }
        // The spec's advice: collect the request from tasks/result at once (§5, §7).
        deliver(taskEvents(task, false));
        if (!self || isAborted() || isFinished())
            co_return;
        co_await readResult(task);
        co_return;
    }
    deliver(taskEvents(task));
    if (!self || isAborted() || isFinished())
        co_return;
    schedulePoll(std::max<qint64>(interval, 1));
}

QCoro::Task<> McpRunStream::poll2026(QJsonObject task)
{
    QPointer<McpRunStream> self = this;
    QStringList answered;
    for (const QJsonValue &key : m_token.extra.value(Mcp2026::kAnsweredKeys).toArray())
        answered << key.toString();
    const QList<RunEvent> events
        = Mcp2026::withStoredRequest(m_token.remoteId, Mcp2026::detailedTaskEvents(task, answered));
    const RunStatus status = events.isEmpty() ? RunStatus::Unknown : events.constLast().status;
    deliver(events);
    if (!self || isAborted() || isFinished())
        co_return;
    if (isTerminal(status) || status == RunStatus::InputRequired) {
        endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
        co_return;
    }
    schedulePoll(task.value(u"pollIntervalMs"_s)
                     .toInteger(m_token.extra.value(kPollIntervalMs).toInteger(kDefaultPollMs)));
}

QCoro::Task<> McpRunStream::readResult(QJsonObject task)
{
    QPointer<McpRunStream> self = this;
    const QJsonObject message = m_backend->transport()->request(
        u"tasks/result"_s, QJsonObject{{u"taskId"_s, m_token.remoteId}}, m_session);
    m_reader = ResultReader{};
    m_reader.requestId = message.value(u"id"_s);
    m_reader.taskId = m_token.remoteId;
    m_reader.sessionId = m_session.id;
    m_reader.taskStatus = task.value(u"status"_s).toString();
    m_reader.statusMessage = task.value(u"statusMessage"_s).toString();
    m_plainBody.clear();
    HttpRequest request = m_backend->transport()->post(message, m_session);
    OpenedStream opened = co_await m_backend->httpClient()->openStream(std::move(request), decoderFactory());
    if (!self || isAborted()) {
        discardReply(opened.reply);
        co_return;
    }
    if (!opened.response.ok() || !opened.reply) {
        RunError error = Transport::httpError(opened.response);
        // A lost session is found and handled by the next tasks/get.
        if (opened.response.status == 404 && !m_session.id.isEmpty())
            error.retryable = true;
        endWithError(error, opened.response.retryAfterMs);
        co_return;
    }
    startReading(opened);
}

std::unique_ptr<SseDecoder> McpRunStream::makeDecoder()
{
    class Decoder final : public SseDecoder
    {
    public:
        explicit Decoder(ResultReader reader)
            : m_reader(std::move(reader))
        {}

    private:
        bool handleEvent(const SseEvent &event, QList<RunEvent> &out) override
        {
            std::optional<StreamEnd> end;
            m_reader.map(event.data, out, end);
            if (end) {
                endAfterBatch(std::move(*end));
                return false;
            }
            return true;
        }

        ResultReader m_reader;
    };
    return std::make_unique<Decoder>(m_reader);
}

bool McpRunStream::consumeBytes(QByteArrayView bytes)
{
    // A JSON answer to tasks/result (allowed by the transport): bounded like any reply.
    m_plainBody.append(bytes.data(), bytes.size());
    if (m_plainBody.size() > 64 * 1024 * 1024) {
        endWithError(RunError::protocol(u"reply_too_large"_s, Text::tr("The task's result is too large.")));
        return false;
    }
    return true;
}

void McpRunStream::bodyEnded()
{
    detachReply();
    if (!m_plainBody.isEmpty()) {
        QList<RunEvent> events;
        std::optional<StreamEnd> end;
        m_reader.map(m_plainBody, events, end);
        m_plainBody.clear();
        deliver(events);
        if (isFinished())
            return;
        endWith(end.value_or(StreamEnd{StreamEnd::Reason::Eof, {}, std::nullopt}));
        return;
    }
    // Closed without the answer (a proxy, a restarted server): the engine follows again.
    endWith({StreamEnd::Reason::Eof,
             RunError::protocol(u"result_stream_closed"_s,
                                Text::tr("The task's result stream closed before the result."), true),
             std::nullopt});
}

} // namespace Runwatch
