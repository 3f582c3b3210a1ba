// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2abackend.h"
#include "a2alog.h"

#include "a2arunstream.h"
#include "backends/a2a/a2aconnector.h"
#include "backends/requestauth.h"
#include "net/transportoptions.h"
#include "json/jsonschema.h"

#include <QCoreApplication>
#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "A2aConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(A2aConnector)
};
} // namespace

Q_LOGGING_CATEGORY(lcA2a, "runwatch.backend.a2a", QtInfoMsg)

using namespace A2a;

namespace {

constexpr int kDefaultCancelTimeoutMs = 15000;
constexpr int kDefaultHistoryLength = 10;
constexpr int kListPageSize = 100;
constexpr int kMaxListPages = 20;

QCoro::Task<> allDone(QCoro::Task<> first, QCoro::Task<> second)
{
    co_await first;
    co_await second;
}

QString answerText(const InputAnswer &answer)
{
    QString text;
    switch (answer.kind) {
    case InputAnswer::Kind::Text:
        text = answer.text;
        break;
    case InputAnswer::Kind::Approve:
        text = u"approve"_s;
        break;
    case InputAnswer::Kind::Reject:
        text = u"reject"_s;
        break;
    case InputAnswer::Kind::Choice:
        text = answer.choice;
        break;
    case InputAnswer::Kind::Value:
        text = jsonValueText(answer.value);
        break;
    }
    if (!answer.comment.isEmpty())
        text = text.isEmpty() ? answer.comment : text + u"\n\n"_s + answer.comment;
    return text;
}

} // namespace

A2aBackend::A2aBackend(Connection connection, QObject *parent)
    : RunBackend(parent)
    , m_connection(std::move(connection))
    , m_http(new HttpClient(this))
    , m_cancelHttp(new HttpClient(this))
    , m_auth(new RequestAuth(m_connection, this))
{
    applyTransportOptions(m_http, m_connection);
    applyTransportOptions(m_cancelHttp, m_connection);
    m_auth->setPlacement([this](HttpRequest &request, const QByteArray &credential) {
        return applyAgentAuth(request, credential);
    });
    m_auth->attach(m_http);
    m_auth->attach(m_cancelHttp);
    RetryPolicy cancelPolicy = m_http->policy();
    const int cancelMs
        = m_connection.options.value(A2aOption::CancelTimeoutMs).toInt(kDefaultCancelTimeoutMs);
    cancelPolicy.connectTimeout
        = std::chrono::milliseconds(cancelMs > 0 ? cancelMs : kDefaultCancelTimeoutMs);
    // Past the timeout GetTask says what happened; repeating the cancel would wait again.
    cancelPolicy.maxRetries = 0;
    m_cancelHttp->setPolicy(cancelPolicy);
}

QString A2aBackend::kind() const
{
    return u"a2a"_s;
}

Capabilities A2aBackend::capabilities() const
{
    Capabilities caps = Capability::Start | Capability::Get | Capability::Stream | Capability::ResumeStream
                        | Capability::Cancel | Capability::Respond | Capability::List | Capability::FollowUp
                        | Capability::FollowUpWorking | Capability::StructuredInput;
    if (m_card && !m_card->streaming) {
        caps.setFlag(Capability::Stream, false);
        caps.setFlag(Capability::ResumeStream, false);
    }
    if (m_interface && m_interface->version == Version::V03)
        caps.setFlag(Capability::List, false);
    return caps;
}

void A2aBackend::rememberTask(const QString &taskId, const QString &contextId)
{
    if (!taskId.isEmpty() && !contextId.isEmpty())
        m_contexts.insert(taskId, contextId);
}

void A2aBackend::rememberMessageReply(const QString &messageId)
{
    if (!messageId.isEmpty())
        m_messageReplies.insert(messageId);
}

void A2aBackend::dropRepeatedItems(QList<RunEvent> &events)
{
    m_deliveredItems.dropRepeats(events);
}

QList<RunEvent> A2aBackend::eventsForTask(const QJsonValue &result)
{
    QList<RunEvent> events;
    const StreamItem item = classify(result);
    if (item.kind != StreamItem::Kind::Task)
        return events;
    A2aMapper tracker(m_card ? m_card->name : QString(), m_card && m_card->streaming);
    tracker.apply(item, events);
    dropRepeatedItems(events);
    return events;
}

QCoro::Task<> A2aBackend::shutdown()
{
    // Both stop now; the task completes once the requests of both have.
    QCoro::Task<> requests = m_http->shutdown();
    QCoro::Task<> cancels = m_cancelHttp->shutdown();
    return allDone(std::move(requests), std::move(cancels));
}

RunStream *A2aBackend::start(StartRequest request, QObject *parent)
{
    return new A2aRunStream(this, A2aRunStream::Mode::Start, std::move(request), {}, parent);
}

RunStream *A2aBackend::followUp(ContinuationToken parentToken, StartRequest request, QObject *parent)
{
    QString contextId = parentToken.extra.value(u"contextId"_s).toString();
    if (contextId.isEmpty())
        contextId = m_contexts.value(parentToken.remoteId);
    auto *stream = new A2aRunStream(this, A2aRunStream::Mode::Start, std::move(request), {}, parent);
    // Without a contextId (an agent that never sent one) the turn still goes out, as a new
    // conversation: the agent has nothing to join.
    stream->joinContext(contextId);
    return stream;
}

RunStream *A2aBackend::follow(ContinuationToken token, QObject *parent)
{
    qCDebug(lcA2a) << "follow" << token.remoteId << "after sequence" << token.sequence << "event id"
                   << token.eventId;
    return new A2aRunStream(this, A2aRunStream::Mode::Follow, {}, std::move(token), parent);
}

QCoro::Task<ActionResult> A2aBackend::get(ContinuationToken token)
{
    QPointer<A2aBackend> self = this;
    ActionResult result;
    if (m_messageReplies.contains(token.remoteId) || token.extra.value(u"kind"_s).toString() == u"message") {
        result.note = Text::tr("the agent answered with a message; there is no task to query");
        co_return result;
    }
    const int history = m_connection.options.value(A2aOption::HistoryLength).toInt(kDefaultHistoryLength);
    QJsonObject params{{u"id"_s, token.remoteId}};
    if (history >= 0)
        params.insert(u"historyLength"_s, history);
    const CallResult call = co_await this->call(Operation::GetTask, params);
    if (!self) {
        result.error = RunError::cancelled(kConnectionClosed);
        co_return result;
    }
    result.retryAfterMs = call.retryAfterMs;
    if (!call.ok()) {
        result.error = call.error;
        co_return result;
    }
    result.events = eventsForTask(call.result);
    if (result.events.isEmpty()) {
        result.error = RunError::protocol(
            u"unexpected_reply"_s, Text::tr("The agent answered GetTask with something that is not a Task."));
        co_return result;
    }
    const StreamItem item = classify(call.result);
    rememberTask(token.remoteId, item.object.value(u"contextId"_s).toString());
    co_return result;
}

QCoro::Task<ActionResult> A2aBackend::cancel(ContinuationToken token)
{
    qCDebug(lcA2a) << "cancel" << token.remoteId;
    QPointer<A2aBackend> self = this;
    ActionResult result;
    const int timeoutMs = int(m_cancelHttp->policy().connectTimeout.count());
    // Built outside the co_await: GCC 12 cannot keep an initializer_list across a suspension.
    QJsonObject params;
    params.insert(u"id"_s, token.remoteId);
    const CallResult call = co_await callWith(m_cancelHttp, Operation::CancelTask, params);
    if (!self) {
        result.error = RunError::cancelled(kConnectionClosed);
        co_return result;
    }
    const auto isTerminalIn = [](const QList<RunEvent> &events) {
        for (const RunEvent &e : events) {
            if (e.type == RunEvent::Type::Status && isTerminal(e.status))
                return true;
        }
        return false;
    };
    if (call.ok()) {
        result.events = eventsForTask(call.result);
        if (isTerminalIn(result.events))
            co_return result;
        // Cancellation is a request: the agent may still be winding down. Confirm.
        ActionResult confirm = co_await get(token);
        if (!self)
            co_return result;
        if (confirm.ok())
            result.events += confirm.events;
        co_return result;
    }
    const int code = call.code();
    if (code == -32001) {
        result.error = call.error;
        co_return result;
    }
    // TaskNotCancelable (the task ended meanwhile, or the agent refuses), a timeout or a dropped
    // connection: GetTask tells where the task is.
    ActionResult current = co_await get(token);
    if (!self)
        co_return result;
    if (current.ok() && isTerminalIn(current.events)) {
        result.events = current.events;
        QString state;
        for (const RunEvent &e : std::as_const(current.events)) {
            if (e.type == RunEvent::Type::Status)
                state = statusName(e.status);
        }
        result.note = code == -32002 ? Text::tr("TaskNotCancelable: the task is already %1").arg(state)
                                     : u"already %1"_s.arg(state);
        co_return result;
    }
    result.error = call.error;
    if (code == -32002) {
        result.error.message = Text::tr("TaskNotCancelable: the agent refused to cancel this task (%1)")
                                   .arg(call.protocolError->message);
    } else if (call.error.kind == ErrorKind::Timeout) {
        result.error.message
            = Text::tr("The agent did not confirm the cancel within %1 s; the task is still %2.")
                  .arg(QString::number(timeoutMs / 1000.0), current.ok() && !current.events.isEmpty()
                                                                ? Text::tr("running")
                                                                : Text::tr("in an unknown state"));
    }
    co_return result;
}

QCoro::Task<ActionResult> A2aBackend::remove(ContinuationToken token)
{
    Q_UNUSED(token)
    ActionResult result;
    result.error = RunError::unsupported(
        Text::tr("A2A has no delete: remove the run locally; the task stays on the agent."));
    co_return result;
}

QCoro::Task<TaskMessage> A2aBackend::sendTaskMessage(ContinuationToken token, QString text,
                                                     QLatin1StringView idPrefix, QString refusal)
{
    QPointer<A2aBackend> self = this;
    TaskMessage sent;
    const Discovery d = co_await discover();
    if (std::optional<RunError> failed = discoveryFailure(!self.isNull(), d)) {
        sent.call.error = std::move(*failed);
        co_return sent;
    }
    sent.agentName = d.card->name;
    sent.streaming = d.card->streaming;
    QString contextId = token.extra.value(u"contextId"_s).toString();
    if (contextId.isEmpty())
        contextId = m_contexts.value(token.remoteId);
    // Without a contextId the agent infers it from the taskId (§7).
    const QJsonObject params
        = messageParams(d.interface->version, text, token.remoteId, contextId, idPrefix, true);
    sent.messageId = params.value(u"message"_s).toObject().value(u"messageId"_s).toString();
    sent.call = co_await this->call(Operation::SendMessage, params);
    if (!self) {
        sent.call.error = RunError::cancelled(kConnectionClosed);
        co_return sent;
    }
    if (!sent.call.ok() && sent.call.code() == -32004)
        sent.call.error.message = refusal + sent.call.error.message;
    co_return sent;
}

QCoro::Task<ActionResult> A2aBackend::respond(ContinuationToken token, InputAnswer answer)
{
    QPointer<A2aBackend> self = this;
    ActionResult result;
    const QString text = answerText(answer);
    if (text.trimmed().isEmpty()) {
        result.error = RunError::client(u"empty_answer"_s, Text::tr("The answer is empty."));
        co_return result;
    }
    const TaskMessage sent = co_await sendTaskMessage(
        token, text, kAnswerIdPrefix, Text::tr("The task no longer accepts input (it has ended): "));
    if (!self || !sent.call.ok()) {
        result.error = self ? sent.call.error : RunError::cancelled(kConnectionClosed);
        co_return result;
    }
    const StreamItem item = classify(sent.call.result);
    QList<RunEvent> events;
    if (item.kind == StreamItem::Kind::Task) {
        A2aMapper tracker(sent.agentName, sent.streaming);
        tracker.apply(item, events);
        rememberTask(tracker.taskId(), tracker.contextId());
    }
    events << RunEvent::secondarySnapshot(SecondaryKind::Log, u"a2a-msg:"_s + sent.messageId, u"answer"_s,
                                          text);
    // The agent has the answer: whatever snapshot came back, the task is no longer waiting for
    // this question. If it asks again, the stream says so.
    bool waiting = false;
    for (const RunEvent &e : std::as_const(events)) {
        if (e.type == RunEvent::Type::Status)
            waiting = e.status == RunStatus::InputRequired;
    }
    if (waiting || item.kind != StreamItem::Kind::Task) {
        events.removeIf([](const RunEvent &e) { return e.type == RunEvent::Type::InputRequired; });
        events << RunEvent::statusChange(RunStatus::InProgress, Text::tr("answer sent"));
    }
    dropRepeatedItems(events);
    result.events = events;
    co_return result;
}

QCoro::Task<ActionResult> A2aBackend::followUp(ContinuationToken token, QString prompt)
{
    QPointer<A2aBackend> self = this;
    ActionResult result;
    if (prompt.trimmed().isEmpty()) {
        result.error = RunError::client(u"empty_prompt"_s, Text::tr("A follow-up needs a prompt."));
        co_return result;
    }
    const TaskMessage sent
        = co_await sendTaskMessage(token, prompt, kFollowUpIdPrefix,
                                   Text::tr("The agent does not take messages while this task is working: "));
    if (!self || !sent.call.ok()) {
        result.error = self ? sent.call.error : RunError::cancelled(kConnectionClosed);
        co_return result;
    }
    // Only the message itself is recorded here: the reply's snapshot is what the task's stream
    // delivers anyway, and taken from a second connection it could be older than what that
    // stream already brought.
    result.events << RunEvent::secondarySnapshot(SecondaryKind::Log, u"a2a-msg:"_s + sent.messageId,
                                                 QString(kFollowUpItemTitle), prompt);
    dropRepeatedItems(result.events);
    co_return result;
}

QCoro::Task<ListResult> A2aBackend::list()
{
    QPointer<A2aBackend> self = this;
    ListResult result;
    const Discovery d = co_await discover();
    if (std::optional<RunError> failed = discoveryFailure(!self.isNull(), d)) {
        result.error = std::move(*failed);
        co_return result;
    }
    if (d.interface->version == Version::V03) {
        result.error = RunError::unsupported(
            Text::tr("This agent speaks A2A 0.3, which has no ListTasks: tasks started "
                     "elsewhere cannot be discovered."));
        co_return result;
    }
    QString pageToken;
    for (int page = 0; page < kMaxListPages; ++page) {
        QJsonObject params{{u"pageSize"_s, kListPageSize}};
        if (!pageToken.isEmpty())
            params.insert(u"pageToken"_s, pageToken);
        const CallResult call = co_await this->call(Operation::ListTasks, params);
        if (!self) {
            result.error = RunError::cancelled(kConnectionClosed);
            co_return result;
        }
        if (!call.ok()) {
            result.error = call.error;
            if (call.code() == -32601 || call.code() == -32004)
                result.error.message = Text::tr("The agent does not offer ListTasks: ") + call.error.message;
            co_return result;
        }
        const QJsonObject body = call.result.toObject();
        const QJsonArray tasks = body.value(u"tasks"_s).toArray();
        for (const QJsonValue &v : tasks) {
            const QJsonObject task = v.toObject();
            RemoteRunInfo info;
            info.remoteId = task.value(u"id"_s).toString();
            if (info.remoteId.isEmpty())
                continue;
            const QJsonObject status = task.value(u"status"_s).toObject();
            info.rawStatus = status.value(u"state"_s).toString(u"TASK_STATE_UNSPECIFIED"_s);
            info.status = mapState(info.rawStatus);
            info.createdAt
                = QDateTime::fromString(status.value(u"timestamp"_s).toString(), Qt::ISODateWithMs);
            const QJsonArray history = task.value(u"history"_s).toArray();
            for (const QJsonValue &h : history) {
                const MessageInfo m = parseMessage(h.toObject());
                if (m.fromUser && !m.text.isEmpty()) {
                    info.title = Run::summarize(m.text);
                    break;
                }
            }
            rememberTask(info.remoteId, task.value(u"contextId"_s).toString());
            result.runs.append(info);
        }
        pageToken = body.value(u"nextPageToken"_s).toString();
        if (pageToken.isEmpty())
            break;
    }
    co_return result;
}

QCoro::Task<ConnectionInfo> A2aBackend::describe()
{
    QPointer<A2aBackend> self = this;
    ConnectionInfo info;
    info.url = m_connection.baseUrl.toDisplayString();
    const Discovery d = co_await discover();
    if (std::optional<RunError> failed = discoveryFailure(!self.isNull(), d)) {
        info.error = std::move(*failed);
        co_return info;
    }
    const AgentCard &card = *d.card;
    const AgentInterface &iface = *d.interface;
    info.name = card.name;
    info.description = card.description;
    info.version = card.version;
    info.protocol = u"A2A %1 (%2)"_s.arg(versionHeader(iface.version), bindingName(iface.binding));
    info.url = iface.url.toDisplayString();
    for (const AgentSkill &skill : card.skills) {
        const QString name = skill.name.isEmpty() ? skill.id : skill.name;
        info.skills << (skill.description.isEmpty() ? name : name + u": "_s + skill.description);
    }
    info.capabilities << (card.streaming ? Text::tr("streaming")
                                         : Text::tr("no streaming (tasks are polled)"));
    if (card.pushNotifications)
        info.capabilities << Text::tr("push notifications");
    if (card.extendedCard)
        info.capabilities << Text::tr("extended agent card");
    if (iface.version == Version::V10)
        info.capabilities << Text::tr("ListTasks (attach to tasks started elsewhere)");
    for (const QString &uri : card.extensions)
        info.capabilities << u"extension "_s + uri;
    if (!card.streaming)
        info.warnings << Text::tr("The agent does not stream: progress arrives by GetTask polls, not live.");
    if (iface.version == Version::V03) {
        info.warnings << Text::tr("The agent speaks A2A 0.3: it has no ListTasks, so tasks started elsewhere "
                                  "cannot be listed or attached by id discovery.");
    }
    if (card.auth.kind == AuthScheme::Kind::None && !card.auth.note.isEmpty())
        info.warnings << u"Auth: "_s + card.auth.note;
    if (card.auth.kind != AuthScheme::Kind::None && !m_auth->hasCredential()) {
        info.warnings << Text::tr("The card asks for credentials (%1) but the connection has no key.")
                             .arg(card.auth.schemeName.isEmpty() ? card.auth.name : card.auth.schemeName);
    }
    for (const QString &other : card.otherInterfaces)
        info.warnings << Text::tr("Interface not usable by Runwatch: ") + other;
    co_return info;
}

} // namespace Runwatch
