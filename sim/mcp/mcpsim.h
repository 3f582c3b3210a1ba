// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The MCP simulator on loopback, for tests and `runwatch-sim --mcp`: a Streamable HTTP MCP server
// whose tools run as tasks. Written from docs/protocols/mcp-tasks.md and the published
// @modelcontextprotocol/sdk 1.32.2 server (its transport, Protocol task handlers, InMemoryTaskStore
// and the simpleStreamableHttp example's session routing) and ext-tasks 0.2.2 (the 2026 shapes)
// only, never from a client of ours. Details the references leave open are marked [guessed].
//
// One endpoint, /mcp (the announced URL):
//   2025-11-25  POST initialize → SSE reply + Mcp-Session-Id; every later request names the
//               session (unknown → 404 -32001, none → 400 -32000); requests get an SSE reply
//               (event: message), notifications and responses 202. GET: the session's
//               standalone stream (notifications/tasks/status); DELETE: ends the session.
//               tools/list, tools/call (+ params.task → CreateTaskResult), tasks/get,
//               tasks/result (blocks; queued progress and the elicitation/create request, once;
//               then the result), tasks/cancel, tasks/list (pages of 10), ping.
//   2026-07-28  (mcp-protocol-version: 2026-07-28, or server/discover) no sessions, plain JSON
//               with resultType; server/discover, tools/list, tools/call (the server decides: a
//               task handle or the result), tasks/get (inputRequests, result, error inline),
//               tasks/update (inputResponses), tasks/cancel; the tasks extension must be declared
//               in _meta (else -32021). Mcp-Method (and Mcp-Name) headers are required.
// With a token configured every request needs Authorization: Bearer T (else 401). Routes,
// replies and inspection: mcpsim.cpp; 2025 methods: mcpsimendpoints.cpp; 2026: mcpsimext.cpp;
// tools and options: mcpsimoptions.h.

#include "mcpsimstore.h"
#include "mcpsimstream.h"
#include "server/requestlog.h"
#include "server/simserver.h"

#include <QHash>
#include <QJsonValue>
#include <QList>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <optional>

namespace RunwatchSim {

struct McpRequestRecord : RequestRecord
{
    McpEndpoint endpoint = McpEndpoint::Unknown;
    QString rpcMethod; // empty for a response, GET and DELETE
    QJsonValue rpcId;  // undefined for notifications, GET and DELETE
    QString sessionId; // the Mcp-Session-Id header
    QString taskId;    // params.taskId
    bool revision2026 = false;
};

// A task as the simulator sees it, for assertions.
struct McpTaskInfo
{
    QString id;
    QString tool;
    QString status;
    QString statusMessage;
    QString sessionId;
    bool revision2026 = false;
    bool hasResult = false;
    QString text; // the stored result's text
    bool waitingForInput = false;
    int inputsAsked = 0;
    int queued = 0;        // messages waiting for tasks/result
    int resultStreams = 0; // tasks/result connections so far
};

class McpSimulator final : public SimServer
{
    Q_OBJECT

public:
    // The protocol it speaks, by the name of the connector that speaks it (demo mode finds it so).
    static constexpr QLatin1StringView kProtocol{"mcp"};

    explicit McpSimulator(QObject *parent = nullptr);
    explicit McpSimulator(const McpSimConfig &config, QObject *parent = nullptr);
    ~McpSimulator() override;

    const McpSimConfig &config() const { return m_config; }
    // Applies to tasks created afterwards (auth, store rule and HTTP faults at once; fault
    // counters restart).
    void setConfig(const McpSimConfig &config);
    void setIntervalMs(int ms);
    void setStreamFaults(const StreamFaults &faults);
    void addHttpFault(const McpHttpFault &fault);
    void clearFaults();

    // Counters and the request log.
    int requestCount() const { return m_requestTotal; }
    int requestCount(McpEndpoint endpoint) const { return m_endpointCounts.value(endpoint); }
    QList<McpRequestRecord> requests() const { return m_log.records(); }
    int tasksCreated() const { return m_created; }
    // Client answers (2025) that matched no pending request of their session, dropped.
    int answersDropped() const { return m_answersDropped; }
    int activeStreamCount() const;
    void resetCounters();

    // Sessions: the server forgets one as a restarted server would (404 from then on).
    QStringList sessionIds() const { return m_store.sessionIds(); }
    bool hasSession(const QString &id) const { return m_store.sessionIds().contains(id); }
    void forgetSession(const QString &id);

    // Inspection.
    QStringList taskIds() const { return m_store.taskIds(); }
    QString lastTaskId() const { return m_store.taskIds().isEmpty() ? QString() : m_store.taskIds().last(); }
    std::optional<McpTaskInfo> task(const QString &id) const;

    static QString helpText();

Q_SIGNALS:
    void requestReceived(const RunwatchSim::McpRequestRecord &record);
    void requestAnswered(const RunwatchSim::McpRequestRecord &record);
    void sessionCreated(const QString &id);
    void sessionForgotten(const QString &id);
    void taskCreated(const QString &id);
    void taskStatusChanged(const QString &id, const QString &status);
    void taskEnded(const QString &id);
    void inputRequested(const QString &taskId);
    void answerDropped(const QString &sessionId, const QJsonValue &requestId);

private:
    struct Exchange
    {
        QPointer<HttpConnection> connection;
        qint64 serial = 0;
        QJsonValue id; // the JSON-RPC request's id
    };

    // mcpsim.cpp
    void route(HttpConnection *connection, const HttpRequest &request) override;
    bool checkAuth(const Exchange &exchange, const HttpRequest &request);
    bool takeTaskFault(const Exchange &exchange, McpEndpoint endpoint, const QString &taskId);
    void recordStatus(const Exchange &exchange, int status, bool faulted = false);
    // A plain reply (JSON), and the transport-level JSON-RPC error (id null) the SDK writes.
    void sendJson(const Exchange &exchange, int status, const QJsonObject &body,
                  const HeaderList &headers = {});
    void sendHttpError(const Exchange &exchange, int status, int code, const QString &message,
                       const HeaderList &headers = {});
    void sendPlain(const Exchange &exchange, int status, const QByteArray &text);
    void sendFault(const Exchange &exchange, const McpHttpFault &fault);
    // 200 and an SSE head (with the session's id); the stream writes the messages.
    McpSimStream *openReply(const Exchange &exchange, const QString &sessionId,
                            const StreamFaults &faults = {}, bool faulted = false,
                            const McpStreamSettings &settings = {});
    // One message as the whole SSE reply.
    void reply(const Exchange &exchange, const QString &sessionId, const QJsonObject &message);
    McpSimTask *createTask(const McpTaskParams &params, const McpCallOptions &options);
    void notifyStatus(McpSimTask *task);
    // `id` may be the session's own: it is not read after the session is deleted.
    void removeSession(const QString &id);

    // mcpsimendpoints.cpp (2025-11-25)
    void handlePost(const Exchange &exchange, const HttpRequest &request, const QJsonValue &body);
    void handleGet(const Exchange &exchange, const HttpRequest &request);
    void handleDelete(const Exchange &exchange, const HttpRequest &request);
    void dispatch(const Exchange &exchange, McpSimSession *session, const QString &method,
                  const QJsonObject &params);
    void handleToolsCall(const Exchange &exchange, McpSimSession *session, const QJsonObject &params);
    void handleTasksResult(const Exchange &exchange, McpSimSession *session, McpSimTask *task);
    void pumpResult(McpSimStream *stream, McpSimTask *task, bool origin, const QJsonValue &id);
    void handleAnswer(McpSimSession *session, const QJsonObject &message);

    // mcpsimext.cpp (2026-07-28)
    static bool isRevision2026(const HttpRequest &request, const QJsonObject &message);
    void handlePost2026(const Exchange &exchange, const HttpRequest &request, const QJsonObject &message);
    QJsonObject toolsCall2026(const Exchange &exchange, const QJsonObject &message, int *errorCode,
                              QString *errorMessage);

    McpSimConfig m_config;
    McpSimStore m_store;
    FaultList<McpHttpFault> m_faults;
    QHash<QString, int> m_taskFaultsServed;
    QList<QPointer<McpSimStream>> m_streams;
    RequestLog<McpRequestRecord> m_log;
    QHash<McpEndpoint, int> m_endpointCounts;
    int m_requestTotal = 0;
    int m_created = 0;
    int m_answersDropped = 0;
};

} // namespace RunwatchSim
