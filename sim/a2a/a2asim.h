// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// An A2A agent on loopback for tests and demos: A2A 1.0 over JSON-RPC (0.3 on request), with the
// same kind of scenarios and faults as the OpenAI simulator. Written from
// docs/protocols/a2a-and-agent-protocol.md only; like the rest of runwatch_sim it must never
// include client code (a misunderstanding shared by client and simulator would be invisible).
//
// Endpoints (base URL http://127.0.0.1:PORT):
//   GET  /.well-known/agent-card.json   the agent card (0.3: also /.well-known/agent.json)
//   POST /a2a                           JSON-RPC: SendMessage, SendStreamingMessage, GetTask,
//                                       ListTasks, CancelTask, SubscribeToTask (1.0) or
//                                       message/send, message/stream, tasks/get, tasks/cancel,
//                                       tasks/resubscribe (0.3)
//
// Scenarios and per-task options: a2asimoptions.h.
// The routes, the agent card and the request log are in a2asim.cpp, the JSON-RPC methods in
// a2asimendpoints.cpp, one task in a2asimrun.*, its streams in a2asimstream.*.

#include "a2asimconfig.h"
#include "server/requestlog.h"
#include "server/simserver.h"

#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <optional>

namespace RunwatchSim {

class A2aSimRun;
class A2aSimStream;

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

// One request as received. requestReceived() is emitted for JSON-RPC requests once their method is
// known; status is set for JSON-RPC answers (0 for the card, 401, 404 and 405).
struct A2aRequestRecord : RequestRecord
{
    QString rpcMethod;
};

class A2aSimulator final : public SimServer
{
    Q_OBJECT

public:
    // The protocol it speaks, by the name of the connector that speaks it (demo mode finds it so).
    static constexpr QLatin1StringView kProtocol{"a2a"};

    explicit A2aSimulator(QObject *parent = nullptr);
    explicit A2aSimulator(const A2aSimConfig &config, QObject *parent = nullptr);
    ~A2aSimulator() override;

    // Listening, port and baseUrl() (http://127.0.0.1:PORT, the agent's base URL; the card is
    // under /.well-known/) come from SimServer.

    const A2aSimConfig &config() const { return m_config; }
    void setConfig(const A2aSimConfig &config);
    void setIntervalMs(int ms) { m_config.intervalMs = ms; }
    void setChunks(int chunks) { m_config.chunks = chunks; }
    void addRpcFault(const A2aRpcFault &fault);

    QList<A2aRequestRecord> requests() const { return m_log.records(); }
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
    struct Exchange
    {
        QPointer<HttpConnection> connection;
        QJsonValue rpcId;
        qint64 serial = 0;
    };

    // a2asim.cpp: routes, the card, JSON-RPC framing.
    void route(HttpConnection *connection, const HttpRequest &request) override;
    void handleCard(HttpConnection *connection, bool legacyPath);
    QJsonObject card() const;
    void handleRpc(Exchange exchange, const HttpRequest &request);
    bool authorised(const HttpRequest &request) const;
    bool v03() const { return m_config.protocol == A2aSimConfig::Protocol::V03; }
    // A result in the protocol's shape (`response` is a 1.0 SendMessageResponse or Task).
    QJsonValue shaped(const QJsonObject &response) const;
    void sendResult(const Exchange &exchange, const QJsonValue &result);
    void sendRpcError(const Exchange &exchange, int code, const QString &message, int httpStatus = 200);
    void recordStatus(const Exchange &exchange, int status);

    // a2asimendpoints.cpp: the JSON-RPC methods.
    void handleSend(const Exchange &exchange, const QJsonObject &params, bool streaming);
    void replyWithTask(const Exchange &exchange, A2aSimRun *task, bool streaming, bool blocking);
    void handleGet(const Exchange &exchange, const QJsonObject &params);
    void handleList(const Exchange &exchange, const QJsonObject &params);
    void handleCancel(const Exchange &exchange, const QJsonObject &params);
    void handleSubscribe(const Exchange &exchange, const QJsonObject &params);
    A2aSimRun *findTask(const Exchange &exchange, const QString &id);
    A2aSimStream *openStream(const Exchange &exchange, A2aSimRun *task);
    // A stream that carries `response` (or the error) and ends: no task to follow.
    void sendOnceStream(const Exchange &exchange, const QJsonObject &response);
    void sendErrorStream(const Exchange &exchange, int code, const QString &message);

    A2aSimConfig m_config;
    QHash<QString, A2aSimRun *> m_tasks;
    QStringList m_taskOrder;
    RequestLog<A2aRequestRecord> m_log;
    FaultList<A2aRpcFault> m_faults;
    int m_streamConnections = 0;
    int m_tasksCreated = 0;
    QString m_lastTaskId;
};

} // namespace RunwatchSim
