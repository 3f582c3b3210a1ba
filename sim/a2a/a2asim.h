// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// An A2A agent on loopback for tests and demos: A2A 1.0 over JSON-RPC (0.3 on request), with the
// same kind of scenarios and faults as the OpenAI simulator. Written from
// shared/protocols/a2a-and-agent-protocol.md only; like the rest of runwatch_sim it must never
// include client code (a misunderstanding shared by client and simulator would be invisible).
//
// Endpoints (base URL http://127.0.0.1:PORT):
//   GET  /.well-known/agent-card.json   the agent card (0.3: also /.well-known/agent.json)
//   POST /a2a                           JSON-RPC: SendMessage, SendStreamingMessage, GetTask,
//                                       ListTasks, CancelTask, SubscribeToTask (1.0) or
//                                       message/send, message/stream, tasks/get, tasks/cancel,
//                                       tasks/resubscribe (0.3)
//
// SCENARIOS: the first word of the user's text (case-insensitive), else "normal".
//   normal   WORKING "Working...", `chunks` artifact chunks "tok<i> " (append after the first,
//            lastChunk on the last), COMPLETED
//   long     normal with `longChunks` chunks (for cancel tests)
//   fail     fail_after chunks (default chunks/2), then FAILED with a status message
//   reject   REJECTED with a status message
//   input    WORKING, INPUT_REQUIRED "Which city?"; an answer (a message with the taskId)
//            continues: WORKING, "Weather in <answer>: " + "sunny.", COMPLETED
//   auth     like input, but AUTH_REQUIRED "Please authorize the simulated agent."
//   error    fail_after chunks, then a JSON-RPC error on the stream (`event: error`, -32603);
//            the task becomes FAILED (visible through GetTask)
//   message  answers with a plain Message, no task
//   multi    artifact "report" (chunks chunks), then artifact "summary" (2 chunks)
//   replace  artifact chunk "draft ", then the same artifact replaced by "final answer"
// PER-TASK OPTIONS, as key=value words in the user's text: chunks, interval_ms, fail_after,
//   status_every (a WORKING "step i/n" status every n chunks), drop_after (drop each stream
//   connection after writing that many events), drop_mode (close|reset|mid), fault_connections
//   (only the first N stream connections of the task are faulted), cancel (refuse|slow),
//   cancel_delay_ms.

#include "simconfig.h"

#include <QByteArray>
#include <QHash>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>

class QTcpServer;

namespace RunwatchSim {

class HttpConnection;
struct HttpRequest;
class A2aTask;
class A2aStreamConnection;

// A JSON-RPC error to answer instead of serving a method (HTTP 200, as the JS SDK does).
struct A2aRpcFault
{
    QString method; // JSON-RPC method name; empty = any
    int code = -32603;
    QString message = QStringLiteral("Simulated error.");
    int count = 1; // -1 = every matching request
    int httpStatus = 200;
};

struct A2aSimConfig
{
    enum class Protocol {
        V10, // A2A 1.0 JSON-RPC; requests must carry A2A-Version: 1.0
        V03, // A2A 0.3 JSON-RPC (kind discriminators, kebab-case states, final flag)
    };
    enum class CardMode {
        Normal,
        LegacyPath, // only at /.well-known/agent.json (0.2-era agents)
        Missing,    // 404 on both paths
        Malformed,  // 200 with truncated JSON
        NoName,     // 200 with a JSON object that is not an agent card
        Html,       // 200 text/html (a proxy's page)
    };
    enum class AuthScheme {
        Bearer,       // card: http bearer; requests: Authorization: Bearer K
        ApiKeyHeader, // card: apiKey in header `apiKeyHeader`
    };

    Protocol protocol = Protocol::V10;
    CardMode cardMode = CardMode::Normal;
    QString agentName = QStringLiteral("Runwatch A2A Simulator");
    bool streaming = true;
    QString apiKey; // empty = no auth
    AuthScheme authScheme = AuthScheme::Bearer;
    QString apiKeyHeader = QStringLiteral("X-API-Key");
    int intervalMs = 20;
    int chunks = 8;
    int longChunks = 100000;
    StreamFaults streamFaults; // drop_after / drop_mode / connections; per-task options override
    QList<A2aRpcFault> rpcFaults;
};

// What a test can see of a task.
struct A2aTaskInfo
{
    QString id;
    QString contextId;
    QString state; // 1.0 spelling, e.g. TASK_STATE_WORKING
    QString text;  // all artifact text, artifacts separated by a blank line
    int streamConnections = 0;
    int eventsGenerated = 0;
    bool ended = false;
};

// One JSON-RPC request as received.
struct A2aRequestRecord
{
    QByteArray httpMethod;
    QString path;
    QList<QPair<QByteArray, QByteArray>> headers; // names lower-cased
    QByteArray body;
    QString rpcMethod;
    int status = 0;

    QByteArray header(QByteArrayView name) const;
};

class A2aSimulator final : public QObject
{
    Q_OBJECT

public:
    explicit A2aSimulator(QObject *parent = nullptr);
    explicit A2aSimulator(const A2aSimConfig &config, QObject *parent = nullptr);
    ~A2aSimulator() override;

    bool listen(const QHostAddress &address = QHostAddress::LocalHost, quint16 port = 0);
    void close();
    QString errorString() const;
    quint16 port() const;
    // http://127.0.0.1:PORT (the agent's base URL; the card is under /.well-known/)
    QUrl baseUrl() const;

    const A2aSimConfig &config() const { return m_config; }
    void setConfig(const A2aSimConfig &config);
    void setIntervalMs(int ms) { m_config.intervalMs = ms; }
    void setChunks(int chunks) { m_config.chunks = chunks; }
    void addRpcFault(const A2aRpcFault &fault);

    QList<A2aRequestRecord> requests() const { return m_records; }
    int requestCount(const QString &rpcMethod) const;
    int streamConnectionsOpened() const { return m_streamConnections; }
    int tasksCreated() const { return m_tasksCreated; }
    QString lastTaskId() const { return m_lastTaskId; }
    std::optional<A2aTaskInfo> task(const QString &id) const;
    QStringList taskIds() const;

    // The text of `n` chunks of the normal scenario: "tok0 tok1 … tok<n-1> ".
    static QString chunkText(int chunks);
    static QString helpText();

Q_SIGNALS:
    void requestReceived(const RunwatchSim::A2aRequestRecord &record);
    void taskCreated(const QString &id);
    void taskStateChanged(const QString &id, const QString &state);

private:
    friend class A2aTask;
    friend class A2aStreamConnection;

    struct Exchange
    {
        QPointer<HttpConnection> connection;
        QJsonValue rpcId;
        qsizetype record = -1;
    };

    void onNewConnection();
    void handleRequest(HttpConnection *connection, const HttpRequest &request);
    void handleCard(HttpConnection *connection, const HttpRequest &request, bool legacyPath);
    void handleRpc(const Exchange &incoming, const HttpRequest &request);
    void handleSend(const Exchange &exchange, const QJsonObject &params, bool streaming);
    void handleGet(const Exchange &exchange, const QJsonObject &params);
    void handleList(const Exchange &exchange, const QJsonObject &params);
    void handleCancel(const Exchange &exchange, const QJsonObject &params);
    void handleSubscribe(const Exchange &exchange, const QJsonObject &params);

    void sendResult(const Exchange &exchange, const QJsonValue &result);
    void sendRpcError(const Exchange &exchange, int code, const QString &message, int httpStatus = 200);
    void sendPlain(HttpConnection *connection, int status, const QByteArray &contentType,
                   const QByteArray &body);
    A2aStreamConnection *openStream(const Exchange &exchange, A2aTask *task);
    bool authorised(const HttpRequest &request) const;
    QJsonObject card() const;
    bool v03() const { return m_config.protocol == A2aSimConfig::Protocol::V03; }

    A2aSimConfig m_config;
    QTcpServer *m_server = nullptr;
    QHash<QString, A2aTask *> m_tasks;
    QStringList m_taskOrder;
    QList<A2aRequestRecord> m_records;
    QList<int> m_faultsServed;
    int m_streamConnections = 0;
    int m_tasksCreated = 0;
    QString m_lastTaskId;
};

} // namespace RunwatchSim
