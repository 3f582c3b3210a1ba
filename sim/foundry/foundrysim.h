// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Azure AI Foundry Agent Service simulator on loopback (threads, runs, messages, steps,
// agents), for tests, the GUI's demo mode and `runwatch-sim --foundry`. Written from
// docs/protocols/openai-responses-and-foundry.md §5 only (never from a client of ours).
//
// Endpoints, under the project endpoint …/api/projects/<project>, each with ?api-version=V:
//   GET  /assistants, GET /assistants/{a}, POST /assistants
//   POST /threads, GET /threads/{t}, POST /threads/{t}/messages, GET /threads/{t}/messages
//   POST /threads/runs                     thread + run (JSON, or SSE when stream:true)
//   POST /threads/{t}/runs, GET /threads/{t}/runs
//   GET  /threads/{t}/runs/{r}
//   POST /threads/{t}/runs/{r}/submit_tool_outputs   {tool_outputs} | {tool_approvals}, stream?
//   POST /threads/{t}/runs/{r}/cancel
//   GET  /threads/{t}/runs/{r}/steps
// Lists page with limit (default 20, 1-100), order (default desc), after, before. With a token
// configured every request needs "Authorization: Bearer <token>" (else 401). Routes and
// inspection: foundrysim.cpp; endpoints: foundrysimendpoints.cpp; scenarios: foundrysimoptions.h.

#include "foundrysimrun.h"
#include "server/requestlog.h"
#include "server/simserver.h"

#include <QHash>
#include <QJsonArray>
#include <QList>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QUrlQuery>

#include <optional>

namespace RunwatchSim {

class FoundrySimStream;

struct FoundryRequestRecord : RequestRecord
{
    FoundryEndpoint endpoint = FoundryEndpoint::Unknown;
    QString threadId;
    QString runId;
    QString apiVersion; // the api-version query value, empty when absent
};

// A run as the simulator sees it, for assertions.
struct FoundryRunInfo
{
    QString id;
    QString threadId;
    QString assistantId;
    QString status;
    FoundryScenario scenario = FoundryScenario::Normal;
    QString prompt;
    QString text; // every assistant message of the run, every text part, in order
    bool ended = false;
    qint64 expiresAt = 0;
    QList<FoundrySimToolCall> pendingCalls;
    QList<QByteArray> eventNames;
    int streamConnections = 0;
    int messageCount = 0;
};

class FoundrySimulator final : public SimServer
{
    Q_OBJECT

public:
    // The protocol it speaks, by the name of the connector that speaks it (demo mode finds it so).
    static constexpr QLatin1StringView kProtocol{"foundry"};

    explicit FoundrySimulator(QObject *parent = nullptr);
    explicit FoundrySimulator(const FoundrySimConfig &config, QObject *parent = nullptr);
    ~FoundrySimulator() override;

    // baseUrl() is the project endpoint: http://127.0.0.1:PORT/api/projects/<project>.

    const FoundrySimConfig &config() const { return m_config; }
    // Applies to runs created afterwards (auth and HTTP faults at once; fault counters restart).
    void setConfig(const FoundrySimConfig &config);
    // The token requests must carry from now on (a token rotation: the old one gets 401).
    void setToken(const QString &token);
    void setIntervalMs(int ms);
    void setStreamFaults(const StreamFaults &faults);
    void addHttpFault(const FoundryHttpFault &fault);
    void clearFaults();

    // Counters and the request log.
    int requestCount() const { return m_requestTotal; }
    int requestCount(FoundryEndpoint endpoint) const { return m_endpointCounts.value(endpoint); }
    QList<FoundryRequestRecord> requests() const { return m_log.records(); }
    int runsCreated() const { return m_runsCreated; }
    int activeStreamCount() const;
    void resetCounters();

    // Inspection.
    QStringList runIds() const { return m_runOrder; }
    QString lastRunId() const { return m_runOrder.isEmpty() ? QString() : m_runOrder.last(); }
    std::optional<FoundryRunInfo> run(const QString &id) const;
    QJsonObject runJson(const QString &id) const; // empty when unknown
    QList<QByteArray> eventPayloads(const QString &id) const;

    // Expected text of deltas from..to-1 ("tok<i> "), so tests need not hard-code it.
    static QString tokenText(int from, int to);
    static QString helpText();

Q_SIGNALS:
    void requestReceived(const RunwatchSim::FoundryRequestRecord &record);
    void requestAnswered(const RunwatchSim::FoundryRequestRecord &record);
    void runCreated(const QString &id);
    void runStatusChanged(const QString &id, const QString &status);
    void eventGenerated(const QString &id, int index, const QByteArray &name);
    void runEnded(const QString &id);
    void streamOpened(const QString &id, int connectionIndex);
    void streamClosed(const QString &id);

private:
    struct Exchange
    {
        QPointer<HttpConnection> connection;
        qint64 serial = 0;
    };
    struct Thread
    {
        QString id;
        qint64 createdAt = 0;
        QList<FoundrySimMessage> messages; // the user's
        QStringList runIds;
    };

    // foundrysim.cpp
    void route(HttpConnection *connection, const HttpRequest &request) override;
    bool authorised(const HttpRequest &request) const;
    void sendJson(const Exchange &exchange, int status, const QJsonObject &body);
    void sendError(const Exchange &exchange, int status, const QString &code, const QString &message);
    void sendFault(const Exchange &exchange, const FoundryHttpFault &fault);
    void recordStatus(const Exchange &exchange, int status, bool faulted = false);
    FoundrySimRun *createRun(const FoundryRunParams &params, const FoundryRunOptions &options);
    void forgetOldRuns();

    // foundrysimendpoints.cpp
    void handleCreateThreadRun(const Exchange &exchange, const HttpRequest &request);
    void handleCreateThread(const Exchange &exchange, const HttpRequest &request);
    void handleAddMessage(const Exchange &exchange, const HttpRequest &request, Thread *thread);
    void handleCreateRun(const Exchange &exchange, const HttpRequest &request, Thread *thread);
    void startRun(const Exchange &exchange, const QJsonObject &body, Thread *thread, bool threadCreated);
    void handleSubmit(const Exchange &exchange, const HttpRequest &request, FoundrySimRun *run);
    void handleCancel(const Exchange &exchange, FoundrySimRun *run);
    void handleListMessages(const Exchange &exchange, const HttpRequest &request, const Thread &thread);
    void handleListRuns(const Exchange &exchange, const HttpRequest &request, const Thread &thread);
    void handleListSteps(const Exchange &exchange, const HttpRequest &request, const FoundrySimRun &run);
    void handleAgents(const Exchange &exchange, const HttpRequest &request);
    void handleCreateAgent(const Exchange &exchange, const HttpRequest &request);
    void sendList(const Exchange &exchange, const QUrlQuery &query, const QList<QJsonObject> &ascending);
    void openStream(const Exchange &exchange, FoundrySimRun *run, int firstEvent);
    Thread *newThread(const QJsonArray &messages);
    const FoundrySimAgent *findAgent(const QString &id) const;

    FoundrySimConfig m_config;
    FaultList<FoundryHttpFault> m_faults;
    QList<FoundrySimAgent> m_agents;
    qint64 m_agentsCreatedAt = 0;
    QHash<QString, Thread> m_threads;
    QHash<QString, FoundrySimRun *> m_runs;
    QStringList m_runOrder;
    QList<QPointer<FoundrySimStream>> m_streams;
    RequestLog<FoundryRequestRecord> m_log;
    QHash<FoundryEndpoint, int> m_endpointCounts;
    int m_requestTotal = 0;
    int m_runsCreated = 0;
};

} // namespace RunwatchSim
