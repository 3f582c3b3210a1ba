// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Claude Managed Agents simulator on loopback, for tests and `runwatch-sim --claude-agents`.
// Written from docs/protocols/agent-sessions.md §2 and the shipped code of the official client
// (@anthropic-ai/sdk 1.14.0, resources/beta/{agents,environments,sessions}/**, lib/sessions,
// lib/tools/SessionToolRunner.ts) only, never from a client of ours.
//
// Endpoints (base URL http://127.0.0.1:PORT, the client's baseURL; every call needs
// anthropic-beta: managed-agents-2026-04-01 and an anthropic-version):
//   GET    /v1/agents, /v1/environments                 PageCursor {data, next_page}, page=, limit=
//   POST   /v1/sessions {agent, environment_id, title?, metadata?}        → the session (idle)
//   GET    /v1/sessions[?limit&page&order]               {data, next_page, prev_page}, newest first
//   GET    /v1/sessions/{id}                             the session
//   DELETE /v1/sessions/{id}                             {id, type:"session_deleted"}; 404 after
//   POST   /v1/sessions/{id}/events {events:[…]}          {data:[the events with id, processed_at]}
//   GET    /v1/sessions/{id}/events[?limit&page]         the durable log, oldest first
//   GET    /v1/sessions/{id}/events/stream[?event_deltas[]=agent.message]   live SSE, no replay
// With a key configured every request needs it as Authorization: Bearer K (what the SDK sends)
// or x-api-key: K (the docs' curl): none or a wrong one → 401 authentication_error. Errors are
// {type:"error", error:{type, message}, request_id}. Scenarios: claudeagentssimoptions.h.

#include "claudeagentssimrun.h"
#include "server/requestlog.h"
#include "server/simserver.h"

#include <QHash>
#include <QPointer>

#include <optional>

namespace RunwatchSim {

class ClaudeAgentsSimStream;

struct ClaudeAgentsRequestRecord : RequestRecord
{
    ClaudeAgentsEndpoint endpoint = ClaudeAgentsEndpoint::Unknown;
    QString sessionId;
};

// A session as the simulator sees it, for assertions.
struct ClaudeAgentsSessionInfo
{
    QString id;
    QString status;
    QString agentId;
    QString environmentId;
    QList<ClaudeAgentsSimTurn> turns;
    QStringList logTypes; // the log's event types, oldest first
    int streamConnections = 0;
    bool deleted = false;
    bool deletedWhileRunning = false;
};

class ClaudeAgentsSimulator final : public SimServer
{
    Q_OBJECT

public:
    // The protocol it speaks, by the name of the connector that speaks it (demo mode finds it so).
    static constexpr QLatin1StringView kProtocol{"claude-agents"};

    explicit ClaudeAgentsSimulator(QObject *parent = nullptr);
    explicit ClaudeAgentsSimulator(const ClaudeAgentsSimConfig &config, QObject *parent = nullptr);
    ~ClaudeAgentsSimulator() override;

    const ClaudeAgentsSimConfig &config() const { return m_config; }
    // Applies to sessions created afterwards (auth and HTTP faults at once; fault counters restart).
    void setConfig(const ClaudeAgentsSimConfig &config);
    void setStreamFaults(const StreamFaults &faults) { m_config.streamFaults = faults; }
    void addHttpFault(const ClaudeAgentsHttpFault &fault);

    int requestCount() const { return m_requestTotal; }
    int requestCount(ClaudeAgentsEndpoint endpoint) const { return m_endpointCounts.value(endpoint); }
    QList<ClaudeAgentsRequestRecord> requests() const { return m_log.records(); }
    int sessionsCreated() const { return m_created; }

    QStringList sessionIds() const { return m_order; }
    QString lastSessionId() const { return m_order.isEmpty() ? QString() : m_order.last(); }
    std::optional<ClaudeAgentsSessionInfo> session(const QString &id) const;
    // The text of a session's turn `index` (-1: its last): its saved messages joined as a client
    // joins a turn's outputs (a blank line between them).
    QString turnText(const QString &id, int index = -1) const;
    // A session started by another client (the console, a script): created on `agentId` with
    // `prompt` as its first message. Its id.
    QString startSessionElsewhere(const QString &agentId, const QString &prompt);
    // The next user.message on session `id` sent by another client: its next turn (queued while
    // one runs). False for an unknown session or a refused message.
    bool sendElsewhere(const QString &id, const QString &prompt);

    static QString helpText();

Q_SIGNALS:
    void requestReceived(const RunwatchSim::ClaudeAgentsRequestRecord &record);
    void requestAnswered(const RunwatchSim::ClaudeAgentsRequestRecord &record);
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

    // claudeagentssim.cpp
    void route(HttpConnection *connection, const HttpRequest &request) override;
    // True when the request may pass; else the refusal is sent.
    bool checkHeaders(const Exchange &exchange, const HttpRequest &request);
    void sendJson(const Exchange &exchange, int status, const QJsonObject &body);
    void sendError(const Exchange &exchange, int status, const QString &message);
    void sendFault(const Exchange &exchange, const ClaudeAgentsHttpFault &fault);
    void recordStatus(const Exchange &exchange, int status, bool faulted = false);
    ClaudeAgentsSimSession *createSession(const ClaudeAgentsSimAgent &agent, const QString &environmentId,
                                          const QString &title, const QJsonObject &metadata);

    // claudeagentssimendpoints.cpp
    void handleAgents(const Exchange &exchange, const HttpRequest &request);
    void handleEnvironments(const Exchange &exchange, const HttpRequest &request);
    void handleCreate(const Exchange &exchange, const HttpRequest &request);
    void handleList(const Exchange &exchange, const HttpRequest &request);
    void handleDelete(const Exchange &exchange, ClaudeAgentsSimSession *session);
    void handleSend(const Exchange &exchange, const HttpRequest &request, ClaudeAgentsSimSession *session);
    void handleEvents(const Exchange &exchange, const HttpRequest &request, ClaudeAgentsSimSession *session);
    void handleStream(const Exchange &exchange, const HttpRequest &request, ClaudeAgentsSimSession *session);
    void sendPage(const Exchange &exchange, const HttpRequest &request, const QJsonArray &all,
                  int defaultLimit, bool bidirectional);

    ClaudeAgentsSimConfig m_config;
    FaultList<ClaudeAgentsHttpFault> m_faults;
    QHash<QString, ClaudeAgentsSimSession *> m_sessions;
    QStringList m_order;
    QHash<QString, ClaudeAgentsSessionInfo> m_deletedInfo;
    RequestLog<ClaudeAgentsRequestRecord> m_log;
    QHash<ClaudeAgentsEndpoint, int> m_endpointCounts;
    int m_requestTotal = 0;
    int m_created = 0;
};

} // namespace RunwatchSim
