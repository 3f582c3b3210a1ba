// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "a2acard.h"
#include "a2adelivered.h"
#include "a2areply.h"
#include "backends/runbackend.h"
#include "domain/connection.h"
#include "net/httpclient.h"

#include <QHash>
#include <QSet>

#include <chrono>
#include <optional>

namespace Runwatch {

class RequestAuth;

namespace A2a {

// The operations Runwatch uses, independent of version and binding (§4).
enum class Operation {
    SendMessage,
    SendStreamingMessage,
    GetTask,
    CancelTask,
    SubscribeToTask,
    ListTasks,
};

// The JSON-RPC method name for a version, e.g. SendMessage / "message/send" (empty when the
// version has none: ListTasks in 0.3).
QString methodName(Operation operation, Version version);

// What an operation reports (RunError::cancelled) when its backend was destroyed while it waited.
inline constexpr QLatin1StringView kConnectionClosed{"The connection was closed."};

// The agent card and the interface chosen from it, or why there is none.
struct Discovery
{
    std::optional<AgentCard> card;
    std::optional<AgentInterface> interface;
    RunError error;

    bool ok() const { return !error.isError() && card && interface; }
};

// Why an operation cannot go on after awaiting discover(): its backend went away meanwhile
// (`alive` false) or there is no usable agent; nothing when it can.
inline std::optional<RunError> discoveryFailure(bool alive, const Discovery &d)
{
    if (!alive)
        return RunError::cancelled(kConnectionClosed);
    if (!d.ok())
        return d.error;
    return std::nullopt;
}

// The outcome of one non-streaming call: `result` on success; `protocolError` when the agent
// answered with an A2A/JSON-RPC error (then `error` is its unified form); otherwise `error`
// is a transport or HTTP failure.
struct CallResult
{
    QJsonValue result;
    std::optional<ProtocolError> protocolError;
    RunError error;
    std::optional<qint64> retryAfterMs;

    bool ok() const { return !error.isError(); }
    int code() const { return protocolError ? protocolError->code : 0; }
};

// A message sent to a task that has not ended (an answer, a follow-up): the agent's reply, and the
// message's id for the item that records it.
struct TaskMessage
{
    CallResult call;
    QString messageId;
    QString agentName;
    bool streaming = false; // the agent's card says it streams
};

} // namespace A2a

// A2A agents (1.0, and 0.2/0.3 for older agents) over JSON-RPC or HTTP+JSON. Discovers the agent
// card on first use, then starts tasks with SendStreamingMessage (or SendMessage + GetTask polls
// when the agent does not stream), resumes with SubscribeToTask and reconciles from its snapshot,
// answers input-required tasks with a message on the same task, cancels with CancelTask and
// lists with ListTasks. Wire reference: docs/protocols/a2a-and-agent-protocol.md.
//
// Connection::options understood: "binding" ("JSONRPC" / "HTTP+JSON": restrict the interface),
// "protocol_version" ("1.0" / "0.3": restrict the version),
// "stall_timeout_ms" (default 120000), "cancel_timeout_ms" (default 15000),
// "history_length" (GetTask history, default 10).
class A2aBackend final : public RunBackend
{
    Q_OBJECT
public:
    explicit A2aBackend(Connection connection, QObject *parent = nullptr);

    QString kind() const override;
    // Before the card is known: everything A2A can do (FollowUpWorking always: no card says
    // whether a working task takes messages). After: without Stream/ResumeStream for an
    // agent that does not stream, without List for 0.3. Never Delete: A2A has none.
    Capabilities capabilities() const override;

    RunStream *start(StartRequest request, QObject *parent) override;
    RunStream *follow(ContinuationToken token, QObject *parent) override;
    // A new task in the finished task's contextId (a finished task never restarts; the next turn is a
    // new task in its conversation, A2A life-of-a-task): the agent sees the
    // earlier turns. The contextId rides in the parent's token (extra "contextId").
    RunStream *followUp(ContinuationToken parentToken, StartRequest request, QObject *parent) override;
    // A message with the working task's taskId and contextId (A2A §3.4.3: a task that has not
    // ended takes further messages; whether it acts on them is the agent's to decide, and no
    // card field says so in advance). Sent with returnImmediately: the task's stream (or the
    // polls) carry what the agent makes of it. An agent that will not take it answers an error
    // (UnsupportedOperation -32004 with most SDKs), which is the result's error; the task is
    // untouched by a refusal.
    QCoro::Task<ActionResult> followUp(ContinuationToken token, QString prompt) override;

    QCoro::Task<ActionResult> get(ContinuationToken token) override;
    QCoro::Task<ActionResult> cancel(ContinuationToken token) override;
    QCoro::Task<ActionResult> remove(ContinuationToken token) override;
    QCoro::Task<ActionResult> respond(ContinuationToken token, InputAnswer answer) override;
    QCoro::Task<ListResult> list() override;
    // Both clients' requests (HttpClient::shutdown).
    QCoro::Task<> shutdown() override;
    // The agent card (discovered on demand): name, description, skills, capabilities, and what
    // will not work with this agent. A missing or malformed card is the info's error.
    QCoro::Task<ConnectionInfo> describe() override;

    // Fetches the agent card (cached after the first success; `refresh` fetches again).
    QCoro::Task<A2a::Discovery> discover(bool refresh = false);
    // The last successfully discovered card, if any.
    const std::optional<A2a::AgentCard> &agentCard() const { return m_card; }
    const std::optional<A2a::AgentInterface> &agentInterface() const { return m_interface; }
    // The card URLs tried, in order, for `baseUrl`.
    static QList<QUrl> cardUrls(const QUrl &baseUrl);

    const Connection &connection() const { return m_connection; }
    HttpClient *httpClient() const { return m_http; }

    // --- for the connector's streams ---
    HttpRequest buildRequest(const A2a::AgentInterface &iface, A2a::Operation operation,
                             const QJsonObject &params, bool useGet = false);
    QCoro::Task<A2a::CallResult> call(A2a::Operation operation, QJsonObject params);
    // SendMessage(-Streaming) params with one text part, and a data part for structured input
    // (`data` not undefined); `idPrefix` marks prompts and answers.
    QJsonObject messageParams(A2a::Version version, const QString &text, const QString &taskId,
                              const QString &contextId, QLatin1StringView idPrefix, bool returnImmediately,
                              const QString &clientRunId = {},
                              const QJsonValue &data = QJsonValue(QJsonValue::Undefined)) const;
    void rememberTask(const QString &taskId, const QString &contextId);
    void rememberMessageReply(const QString &messageId);
    // Drops SecondarySnapshot events this backend already delivered with the same text: every
    // Task snapshot (subscribe, poll, answer) repeats the task's status messages, and printers
    // such as the CLI would show each of them again.
    void dropRepeatedItems(QList<RunEvent> &events);

Q_SIGNALS:
    void agentCardChanged();

private:
    QCoro::Task<A2a::CallResult> callWith(HttpClient *client, A2a::Operation operation, QJsonObject params);
    // SendMessage with the task's taskId and contextId (respond, followUp), returning at once.
    // An agent's -32004 (the task takes no such message) is the call's error, `refusal` in front
    // of the agent's words.
    QCoro::Task<A2a::TaskMessage> sendTaskMessage(ContinuationToken token, QString text,
                                                  QLatin1StringView idPrefix, QString refusal);
    // Puts `credential` on `request` the way the card's scheme says; false when the card names no
    // scheme we know (RequestAuth then uses the connection's style).
    bool applyAgentAuth(HttpRequest &request, const QByteArray &credential) const;
    QList<RunEvent> eventsForTask(const QJsonValue &result);

    Connection m_connection;
    HttpClient *m_http;
    HttpClient *m_cancelHttp; // its own time-to-headers limit: CancelTask waits for the agent
    RequestAuth *m_auth;      // the credential on both clients' requests, in the card's scheme
    std::optional<A2a::AgentCard> m_card;
    std::optional<A2a::AgentInterface> m_interface;
    QHash<QString, QString> m_contexts; // taskId → contextId, learnt from what the agent sent
    QSet<QString> m_messageReplies;     // runs that were a direct Message answer (no task)
    A2a::DeliveredItems m_deliveredItems;
    qint64 m_nextRpcId = 1;
};

} // namespace Runwatch
