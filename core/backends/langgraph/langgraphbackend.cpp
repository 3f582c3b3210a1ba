// SPDX-License-Identifier: GPL-3.0-or-later
#include "langgraphbackend.h"

#include "backends/langgraph/langgraphconnector.h"
#include "backends/optionchecks.h"
#include "backends/requestauth.h"
#include "langgraphlog.h"
#include "langgraphmapper.h"
#include "langgraphrunstream.h"
#include "net/transportoptions.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QUrlQuery>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "LangGraphConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(LangGraphConnector)
};
} // namespace

Q_LOGGING_CATEGORY(lcLangGraph, "runwatch.backend.langgraph", QtInfoMsg)

using namespace LangGraph;

namespace {

// The runs of one thread read to find its latest (the most the servers give in one page).
constexpr int kMaxThreadRuns = 1000;

std::optional<QJsonObject> jsonObject(const QByteArray &body)
{
    const QJsonDocument doc = QJsonDocument::fromJson(body);
    if (!doc.isObject())
        return std::nullopt;
    return doc.object();
}

QString encoded(const QString &id)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(id));
}

QString runPath(const ContinuationToken &token, const QString &runId)
{
    return u"/threads/%1/runs/%2"_s.arg(encoded(token.remoteId), encoded(runId));
}

// One page of an offset-paged search (GCC 12 mishandles braced temporaries across co_await, so
// the bodies are made here, outside the coroutines).

} // namespace

LangGraphBackend::LangGraphBackend(Connection connection, QObject *parent)
    : RunBackend(parent)
    , m_connection(std::move(connection))
    , m_http(new HttpClient(this))
{
    applyTransportOptions(m_http, m_connection);
    (new RequestAuth(m_connection, this))->attach(m_http);
}

QString LangGraphBackend::kind() const
{
    return u"langgraph"_s;
}

Capabilities LangGraphBackend::capabilities() const
{
    return Capability::Start | Capability::Get | Capability::Stream | Capability::ResumeStream
           | Capability::Cancel | Capability::Delete | Capability::Respond | Capability::List
           | Capability::FollowUp | Capability::Catalog | Capability::StructuredInput;
}

QCoro::Task<> LangGraphBackend::shutdown()
{
    return m_http->shutdown();
}

HttpRequest LangGraphBackend::request(const QByteArray &method, const QString &path) const
{
    QUrl url = m_connection.baseUrl;
    QString base = url.path();
    while (base.endsWith(u'/'))
        base.chop(1);
    const qsizetype q = path.indexOf(u'?');
    url.setPath(base + path.left(q), QUrl::TolerantMode);
    url.setQuery(q < 0 ? QString() : path.mid(q + 1));
    HttpRequest r;
    r.method = method;
    r.url = url;
    r.headers.emplaceBack("User-Agent", "Runwatch/" RUNWATCH_VERSION_STRING);
    r.headers.emplaceBack("Accept", "application/json");
    return r;
}

HttpRequest LangGraphBackend::jsonRequest(const QByteArray &method, const QString &path,
                                          const QJsonObject &body) const
{
    HttpRequest r = request(method, path);
    r.headers.emplaceBack("Content-Type", "application/json");
    r.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return r;
}

QJsonObject LangGraphBackend::runBody(const QString &assistant, const QJsonObject &inputOrCommand,
                                      const QString &clientRunId)
{
    QJsonObject body = inputOrCommand;
    body.insert(u"assistant_id"_s, assistant);
    // The answer token by token, each node's update and the graph's own progress events (§6).
    body.insert(u"stream_mode"_s, QJsonArray{u"messages-tuple"_s, u"updates"_s, u"custom"_s});
    // Without it the run's events cannot be replayed, and a rejoin loses them (§5).
    body.insert(u"stream_resumable"_s, true);
    if (!clientRunId.isEmpty())
        body.insert(u"metadata"_s, QJsonObject{{u"runwatch_client_run_id"_s, clientRunId}});
    return body;
}

QString LangGraphBackend::assistantFor(const QString &requested) const
{
    if (!requested.isEmpty())
        return requested;
    return m_connection.options.value(ConnectionOption::Agent).toString();
}

RunError LangGraphBackend::httpError(const HttpResponse &response)
{
    RunError e = response.error;
    if (const auto body = jsonObject(response.body)) {
        // {"detail": "…"} (Python server), {"message": "…"} / {"error": "…"} (JS server).
        for (const auto key : {"detail"_L1, "message"_L1, "error"_L1}) {
            if (const QString text = body->value(key).toString(); !text.isEmpty()) {
                e.message = text;
                break;
            }
        }
    }
    if (response.status == 422 && e.message.contains(u"already running"_s, Qt::CaseInsensitive))
        e.message = Text::tr("The thread is still busy with another run: %1").arg(e.message);
    return e;
}

RunStream *LangGraphBackend::start(StartRequest request, QObject *parent)
{
    Kickoff kickoff;
    kickoff.assistant = assistantFor(request.agent);
    const QJsonValue input
        = request.input.isUndefined() ? QJsonValue(
              QJsonObject{{u"messages"_s,
                           QJsonArray{QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, request.prompt}}}}})
                                      : request.input;
    kickoff.input = {{u"input"_s, input}};
    kickoff.clientRunId = request.clientRunId;
    kickoff.title = request.prompt.left(200);
    kickoff.stream = request.stream;
    return new LangGraphRunStream(this, std::move(kickoff), parent);
}

RunStream *LangGraphBackend::followUp(ContinuationToken parentToken, StartRequest request, QObject *parent)
{
    Kickoff kickoff;
    kickoff.threadId = parentToken.remoteId;
    kickoff.assistant
        = request.agent.isEmpty() ? parentToken.extra.value(kAssistantId).toString() : request.agent;
    kickoff.assistant = assistantFor(kickoff.assistant);
    const QJsonValue input
        = request.input.isUndefined() ? QJsonValue(
              QJsonObject{{u"messages"_s,
                           QJsonArray{QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, request.prompt}}}}})
                                      : request.input;
    kickoff.input = {{u"input"_s, input}};
    kickoff.clientRunId = request.clientRunId;
    kickoff.stream = request.stream;
    return new LangGraphRunStream(this, std::move(kickoff), parent);
}

RunStream *LangGraphBackend::follow(ContinuationToken token, QObject *parent)
{
    qCDebug(lcLangGraph) << "follow thread" << token.remoteId << "run" << token.extra.value(kRunId).toString()
                         << "after" << token.eventId;
    return new LangGraphRunStream(this, std::move(token), parent);
}

QCoro::Task<LangGraphBackend::Fetched> LangGraphBackend::fetchObject(QString path)
{
    QPointer<LangGraphBackend> self = this;
    Fetched fetched;
    const HttpResponse response = co_await m_http->send(request("GET", path));
    if (!self) {
        fetched.error = RunError::cancelled();
        co_return fetched;
    }
    fetched.httpStatus = response.status;
    if (!response.ok()) {
        fetched.error = httpError(response);
        co_return fetched;
    }
    const auto object = jsonObject(response.body);
    if (!object) {
        fetched.error = response.protocolError(u"unexpected_reply"_s,
                                               Text::tr("The Agent Server's reply is not a JSON object."));
        co_return fetched;
    }
    fetched.object = *object;
    co_return fetched;
}

QCoro::Task<LangGraphBackend::Fetched> LangGraphBackend::currentRun(ContinuationToken token)
{
    QPointer<LangGraphBackend> self = this;
    const QString runId = token.extra.value(kRunId).toString();
    if (!runId.isEmpty()) {
        co_return co_await fetchObject(runPath(token, runId));
    }
    // Attached by thread id: the thread's latest run. The JS server lists a thread's runs oldest
    // first (and misapplies offset), so one page as large as it gives is read and the newest
    // taken by its creation time.
    Fetched fetched;
    HttpRequest latest
        = request("GET", u"/threads/%1/runs?limit=%2"_s.arg(encoded(token.remoteId)).arg(kMaxThreadRuns));
    const HttpResponse response = co_await m_http->send(std::move(latest));
    if (!self) {
        fetched.error = RunError::cancelled();
        co_return fetched;
    }
    fetched.httpStatus = response.status;
    if (!response.ok()) {
        fetched.error = httpError(response);
        co_return fetched;
    }
    const QJsonArray runs = QJsonDocument::fromJson(response.body).array();
    const auto newest
        = std::max_element(runs.begin(), runs.end(), [](const QJsonValue &a, const QJsonValue &b) {
              // ISO 8601 times in UTC compare as text.
              return a.toObject().value(u"created_at"_s).toString()
                     < b.toObject().value(u"created_at"_s).toString();
          });
    if (newest == runs.end() || !(*newest).isObject()) {
        fetched.error = RunError::client(u"no_run"_s,
                                         Text::tr("The thread %1 has no run to follow.").arg(token.remoteId));
        fetched.error.kind = ErrorKind::NotFound;
        co_return fetched;
    }
    fetched.object = (*newest).toObject();
    // Our own run (a start or follow-up whose reply was lost): the latest one is ours only if it
    // carries our client run id — a follow-up's thread also has its parent's runs.
    const QString ours = token.extra.value(kClientRunId).toString();
    const QString tag
        = fetched.object.value(u"metadata"_s).toObject().value(u"runwatch_client_run_id"_s).toString();
    if (!ours.isEmpty() && tag != ours) {
        fetched.object = {};
        fetched.error = RunError::client(
            u"no_run"_s, Text::tr("The run was never created on thread %1.").arg(token.remoteId));
        fetched.error.kind = ErrorKind::NotFound;
    }
    co_return fetched;
}

QCoro::Task<ActionResult> LangGraphBackend::get(ContinuationToken token)
{
    QPointer<LangGraphBackend> self = this;
    ActionResult result;
    const Fetched run = co_await currentRun(token);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (!run.ok()) {
        result.error = run.error;
        co_return result;
    }
    const QString runId = run.object.value(u"run_id"_s).toString();
    if (token.extra.value(kRunId).toString() != runId) {
        RunEvent identity = RunEvent::identity(token.remoteId, {}, true);
        identity.tokenExtra.insert(kRunId, runId);
        identity.tokenExtra.insert(kAssistantId, run.object.value(u"assistant_id"_s));
        result.events << identity;
        token.extra.insert(kRunId, runId);
    }
    const QString status = run.object.value(u"status"_s).toString();
    if (!isTerminalRunStatus(status)) {
        const RunStatus unified = runStatusFor(status, {});
        result.events << RunEvent::statusChange(
            unified == RunStatus::Unknown ? RunStatus::InProgress : unified, status);
        co_return result;
    }
    const ActionResult final = co_await finalEvents(token, run.object);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    result.events << final.events;
    result.error = final.error;
    co_return result;
}

QCoro::Task<ActionResult> LangGraphBackend::finalEvents(ContinuationToken token, QJsonObject runObject)
{
    QPointer<LangGraphBackend> self = this;
    ActionResult result;
    const QString runStatus = runObject.value(u"status"_s).toString();
    const Fetched thread = co_await fetchObject(u"/threads/%1"_s.arg(encoded(token.remoteId)));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (!thread.ok()) {
        result.error = thread.error;
        co_return result;
    }
    const QString threadStatus = thread.object.value(u"status"_s).toString();
    const RunStatus unified = runStatusFor(runStatus, threadStatus);
    const bool streamed = token.sequence >= 0 || !token.eventId.isEmpty();
    if (unified == RunStatus::Failed || (unified == RunStatus::Completed && !streamed)) {
        const Fetched state = co_await fetchObject(u"/threads/%1/state"_s.arg(encoded(token.remoteId)));
        if (!self) {
            result.error = RunError::cancelled();
            co_return result;
        }
        if (unified == RunStatus::Completed && state.ok()) {
            const QString answer
                = answerFromState(state.object, token.extra.value(kMessagesBefore).toInteger(-1));
            if (!answer.isEmpty())
                result.events << RunEvent::primarySnapshot(answer);
        }
        if (unified == RunStatus::Failed) {
            RunError e;
            e.kind = ErrorKind::Run;
            e.code = u"error"_s;
            for (const QJsonValue &task : state.object.value(u"tasks"_s).toArray()) {
                const QJsonValue error = task.toObject().value(u"error"_s);
                if (error.isString() && !error.toString().isEmpty()) {
                    // The JS server keeps it JSON-encoded: {"message":…,"name":"Error"}.
                    const QJsonObject encoded = QJsonDocument::fromJson(error.toString().toUtf8()).object();
                    e.message = encoded.value(u"message"_s).toString(error.toString());
                    e.code = encoded.value(u"name"_s).toString(e.code);
                } else if (error.isObject()) {
                    e.code = error.toObject().value(u"error"_s).toString(e.code);
                    e.message = error.toObject().value(u"message"_s).toString();
                }
            }
            if (e.message.isEmpty()) {
                e.message
                    = Text::tr("The graph failed (run %1).").arg(runObject.value(u"run_id"_s).toString());
            }
            result.events << RunEvent::failure(e);
        }
    }
    if (unified == RunStatus::InputRequired) {
        const QJsonArray interrupts = pendingInterrupts(thread.object);
        if (!interrupts.isEmpty())
            result.events << RunEvent::inputRequired(inputRequestFor(interrupts));
    }
    result.events << RunEvent::statusChange(unified, runStatus == "success"_L1 ? threadStatus : runStatus);
    co_return result;
}

QCoro::Task<ActionResult> LangGraphBackend::cancel(ContinuationToken token)
{
    QPointer<LangGraphBackend> self = this;
    ActionResult result;
    const QString runId = token.extra.value(kRunId).toString();
    if (runId.isEmpty()) {
        result.error = RunError::client(u"no_run"_s, Text::tr("No run of the thread is known yet."));
        co_return result;
    }
    // interrupt, never rollback: a rollback leaves run and thread in error on the JS server, and
    // no wait= (any value makes the JS server wait for the run to stop, §8).
    HttpRequest r = request("POST", runPath(token, runId) + u"/cancel?action=interrupt"_s);
    const HttpResponse response = co_await m_http->send(std::move(r));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (!response.ok()) {
        result.error = httpError(response);
        co_return result;
    }
    // 202 at once: the run reads `interrupted` when it has stopped; the engine follows it there.
    result.note = Text::tr("cancellation requested; waiting for the run to stop");
    result.events << RunEvent::statusChange(RunStatus::Cancelling, u"cancelling"_s);
    co_return result;
}

QCoro::Task<ActionResult> LangGraphBackend::remove(ContinuationToken token)
{
    QPointer<LangGraphBackend> self = this;
    ActionResult result;
    const QString runId = token.extra.value(kRunId).toString();
    // On request (the connection's delete_thread), the whole thread: the conversation and its runs.
    const bool wholeThread = optionIsYes(m_connection.options.value(LangGraphOption::DeleteThread));
    if (runId.isEmpty() && !wholeThread) {
        result.error = RunError::client(u"no_run"_s, Text::tr("No run of the thread is known yet."));
        co_return result;
    }
    HttpRequest remove = request("DELETE", wholeThread ? u"/threads/%1"_s.arg(encoded(token.remoteId))
                                                       : runPath(token, runId));
    const HttpResponse response = co_await m_http->send(std::move(remove));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (!response.ok() && response.status != 404) {
        result.error = httpError(response);
        co_return result;
    }
    result.events << RunEvent::statusChange(RunStatus::Deleted, u"deleted"_s);
    co_return result;
}

QCoro::Task<ActionResult> LangGraphBackend::respond(ContinuationToken token, InputAnswer answer)
{
    QPointer<LangGraphBackend> self = this;
    ActionResult result;
    // The thread says what it waits for now: an answer goes to that interrupt or nowhere (a
    // second answer, from another window or a teammate, would start a run that does nothing).
    const Fetched thread = co_await fetchObject(u"/threads/%1"_s.arg(encoded(token.remoteId)));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (!thread.ok()) {
        result.error = thread.error;
        co_return result;
    }
    const QJsonArray interrupts = pendingInterrupts(thread.object);
    if (thread.object.value(u"status"_s).toString() != "interrupted"_L1 || interrupts.isEmpty()) {
        result.error = RunError::client(u"not_waiting"_s,
                                        Text::tr("The graph no longer waits for an answer (thread %1).")
                                            .arg(thread.object.value(u"status"_s).toString()));
        result.error.kind = ErrorKind::Conflict;
        co_return result;
    }
    QString problem;
    const std::optional<QJsonValue> value = resumeValue(inputRequestFor(interrupts), answer, &problem);
    if (!value) {
        result.error = RunError::client(u"answer_does_not_fit"_s, problem);
        co_return result;
    }
    // Where this run's messages begin in the thread's state (for an answer read from the state).
    const Fetched state = co_await fetchObject(u"/threads/%1/state"_s.arg(encoded(token.remoteId)));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    const qsizetype before = state.object.value(u"values"_s).toObject().value(u"messages"_s).toArray().size();
    const QString assistant = token.extra.value(kAssistantId).toString(assistantFor({}));
    const QJsonObject command{{u"resume"_s, *value}};
    const QJsonObject resume{{u"command"_s, command}};
    HttpRequest r = jsonRequest("POST", u"/threads/%1/runs"_s.arg(encoded(token.remoteId)),
                                runBody(assistant, resume, {}));
    // Never repeated once it may have arrived: a second resume run would answer nothing, and a
    // busy thread refuses it with 422 anyway.
    r.idempotent = false;
    const HttpResponse response = co_await m_http->send(std::move(r));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (!response.ok()) {
        result.error = httpError(response);
        co_return result;
    }
    const auto created = jsonObject(response.body);
    const QString runId = created ? created->value(u"run_id"_s).toString() : QString();
    if (runId.isEmpty()) {
        result.error
            = response.protocolError(u"no_run_id"_s, Text::tr("The Agent Server's reply names no run."));
        co_return result;
    }
    // The same local run goes on in the new run: its stream starts from its first event, its
    // text after a blank line when the thread has an answer already (the run's text so far).
    if (!answerFromState(state.object, 0).isEmpty())
        result.events << RunEvent::primaryDelta(u"\n\n"_s);
    RunEvent identity = RunEvent::identity(token.remoteId, {}, true);
    identity.continuation = true;
    identity.tokenExtra.insert(kRunId, runId);
    identity.tokenExtra.insert(kAssistantId, assistant);
    identity.tokenExtra.insert(kMessagesBefore, before);
    result.events << identity
                  << RunEvent::statusChange(RunStatus::InProgress, created->value(u"status"_s).toString());
    co_return result;
}

} // namespace Runwatch
