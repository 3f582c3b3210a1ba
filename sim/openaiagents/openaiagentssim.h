// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The OpenAI Agents API simulator on loopback, for tests and `runwatch-sim --openai-agents`.
// Written from docs/protocols/agent-sessions.md §1 and the shipped code of the official client
// (the openai npm package 7.59.0, resources/beta/agents/**, lib/agents, lib/beta/agents) only,
// never from a client of ours.
//
// Endpoints (base URL http://127.0.0.1:PORT/v1, the client's baseURL; every call needs
// OpenAI-Beta: agents=v1):
//   GET    /v1/agents                                    CursorPage {object, data, first_id, last_id, has_more}
//   POST   /v1/agents/sessions {agent_id, environment, input, metadata?, stream?}
//                                                        the session, or (stream: true) its SSE stream
//   GET    /v1/agents/sessions[?limit&after&order&agent_id]   newest first by default
//   GET    /v1/agents/sessions/{id}                      the session
//   DELETE /v1/agents/sessions/{id}                      {id, deleted, object}; 409 while it runs
//   POST   /v1/agents/sessions/{id}/events {events}      202, empty (Idempotency-Key honoured)
//   GET    /v1/agents/sessions/{id}/events               live SSE, no replay (the state first)
//   GET    /v1/agents/sessions/{id}/turns[/{turn}]       CursorPage (desc) / one turn
//   GET    /v1/agents/sessions/{id}/items                CursorPage (desc), the saved history
// With a key configured every request needs Authorization: Bearer K: none or a wrong one → 401.
// Errors are {error:{message, type, param, code}}. Scenarios: openaiagentssimconfig.h.
#include "openaiagentssimsession.h"

#include "server/requestlog.h"
#include "server/simserver.h"

#include <QHash>
#include <QPointer>

#include <optional>

namespace RunwatchSim {

struct OpenAiAgentsRequestRecord : RequestRecord
{
    OpenAiAgentsEndpoint endpoint = OpenAiAgentsEndpoint::Unknown;
    QString sessionId;
};

// A session as the simulator sees it, for assertions.
struct OpenAiAgentsSessionInfo
{
    QString id;
    QString status;
    QString agentId;
    QList<OpenAiAgentsSimTurn> turns;
    int streamConnections = 0;
    bool deleted = false;
};

class OpenAiAgentsSimulator final : public SimServer
{
    Q_OBJECT

public:
    // The protocol it speaks, by the name of the connector that speaks it (demo mode finds it so).
    static constexpr QLatin1StringView kProtocol{"openai-agents"};

    explicit OpenAiAgentsSimulator(QObject *parent = nullptr);
    explicit OpenAiAgentsSimulator(const OpenAiAgentsSimConfig &config, QObject *parent = nullptr);
    ~OpenAiAgentsSimulator() override;

    const OpenAiAgentsSimConfig &config() const { return m_config; }
    // Applies to sessions created afterwards (auth and HTTP faults at once; fault counters restart).
    void setConfig(const OpenAiAgentsSimConfig &config);
    void setStreamFaults(const StreamFaults &faults) { m_config.streamFaults = faults; }
    void addHttpFault(const OpenAiAgentsHttpFault &fault);

    int requestCount() const { return m_requestTotal; }
    int requestCount(OpenAiAgentsEndpoint endpoint) const { return m_endpointCounts.value(endpoint); }
    QList<OpenAiAgentsRequestRecord> requests() const { return m_log.records(); }
    int sessionsCreated() const { return m_created; }
    QString lastSessionId() const { return m_order.isEmpty() ? QString() : m_order.last(); }
    std::optional<OpenAiAgentsSessionInfo> session(const QString &id) const;
    // The answer of a session's turn `index` (-1: its last): its completed assistant messages
    // (not commentary) joined as a client joins a turn's outputs (a blank line between them).
    QString turnText(const QString &id, int index = -1) const;
    // A session started by another client (the console, a script): created on `agentId` with
    // `prompt` as its input. Its id.
    QString startSessionElsewhere(const QString &agentId, const QString &prompt);
    // The next message on session `id` sent by another client: its next turn (queued while one
    // runs). False for an unknown session or a refused message.
    bool sendElsewhere(const QString &id, const QString &prompt);

    static QString helpText();

Q_SIGNALS:
    void requestReceived(const RunwatchSim::OpenAiAgentsRequestRecord &record);
    void requestAnswered(const RunwatchSim::OpenAiAgentsRequestRecord &record);
    void sessionCreated(const QString &id);
    void sessionStatusChanged(const QString &id, const QString &status);
    void turnEnded(const QString &id, int index);
    void streamOpened(const QString &id, int connectionIndex);

private:
    struct Exchange
    {
        QPointer<HttpConnection> connection;
        qint64 serial = 0;
    };

    void route(HttpConnection *connection, const HttpRequest &request) override;
    bool checkHeaders(const Exchange &exchange, const HttpRequest &request);
    void sendJson(const Exchange &exchange, int status, const QJsonObject &body);
    void sendError(const Exchange &exchange, int status, const QString &message,
                   const QString &code = QString());
    void sendFault(const Exchange &exchange, const OpenAiAgentsHttpFault &fault);
    void recordStatus(const Exchange &exchange, int status, bool faulted = false);
    void sendPage(const Exchange &exchange, const HttpRequest &request, QJsonArray all, bool newestFirst);
    OpenAiAgentsSimSession *createSession(const OpenAiAgentsSimAgent &agent, const QJsonObject &environment,
                                          const QJsonObject &metadata);
    void handleCreate(const Exchange &exchange, const HttpRequest &request);
    void handleList(const Exchange &exchange, const HttpRequest &request);
    void handleDelete(const Exchange &exchange, OpenAiAgentsSimSession *session);
    void handleSend(const Exchange &exchange, const HttpRequest &request, OpenAiAgentsSimSession *session);
    void openStream(const Exchange &exchange, OpenAiAgentsSimSession *session, bool withState);

    OpenAiAgentsSimConfig m_config;
    FaultList<OpenAiAgentsHttpFault> m_faults;
    QHash<QString, OpenAiAgentsSimSession *> m_sessions;
    QStringList m_order;
    QHash<QString, OpenAiAgentsSessionInfo> m_deletedInfo;
    RequestLog<OpenAiAgentsRequestRecord> m_log;
    QHash<OpenAiAgentsEndpoint, int> m_endpointCounts;
    int m_requestTotal = 0;
    int m_created = 0;
};

} // namespace RunwatchSim
