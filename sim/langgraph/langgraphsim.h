// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The LangGraph Agent Server simulator on loopback (assistants, threads, runs, resumable SSE), for
// tests and `runwatch-sim --langgraph`. Written from docs/protocols/langgraph-agent-server.md and the
// real server's transcripts (tests/data/langgraph/, @langchain/langgraph-api 1.5.1) only, never from
// a client of ours. Where the two differ the transcripts win: runs read `pending` while queued and
// `running` while executing; a busy thread shows no values or interrupts.
//
// Endpoints (base URL http://127.0.0.1:PORT):
//   GET  /ok, GET /info
//   POST /assistants/search {graph_id?, name?, metadata?, limit, offset}   (X-Pagination-Total)
//   GET  /assistants/{a}                      a = the assistant's UUID or the graph id
//   POST /threads {metadata?, thread_id?, if_exists?}
//   POST /threads/search {status?, metadata?, ids?, limit, offset, sort_by?, sort_order?}
//   GET  /threads/{t}, DELETE /threads/{t}, GET /threads/{t}/state
//   POST /threads/{t}/runs {assistant_id, input | command, stream_mode, stream_resumable, metadata}
//                                             → the run (`pending`), Content-Location; 422 when busy
//   POST /threads/{t}/runs/stream             the same, answered with the run's stream
//   GET  /threads/{t}/runs?limit=&offset=&status=   oldest first, as 1.5.1
//   GET  /threads/{t}/runs/{r}, DELETE /threads/{t}/runs/{r}
//   GET  /threads/{t}/runs/{r}/stream         Last-Event-ID: -1 everything, k after k, none: new
//   POST /threads/{t}/runs/{r}/cancel?action=interrupt|rollback[&wait=…]
// Every run is multitask_strategy "reject" (the default), whatever the request asks. Errors are
// text/plain, as the real server's. With an API key configured every request needs
// "X-Api-Key: <key>" (else 401). Routes and inspection: langgraphsim.cpp; endpoints:
// langgraphsimendpoints.cpp; graphs and options: langgraphsimoptions.h.

#include "langgraphsimrun.h"
#include "server/requestlog.h"
#include "server/simserver.h"

#include <QHash>
#include <QJsonArray>
#include <QList>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace RunwatchSim {

class LangGraphSimStream;

struct LangGraphRequestRecord : RequestRecord
{
    LangGraphEndpoint endpoint = LangGraphEndpoint::Unknown;
    QString threadId;
    QString runId;
};

// A run as the simulator sees it, for assertions.
struct LangGraphRunInfo
{
    QString id;
    QString threadId;
    LangGraphGraph graph = LangGraphGraph::Echo;
    QString status;
    QString text; // every token of the run, joined
    bool ended = false;
    bool resumable = false; // the log is still resumable (not a queue)
    QList<QByteArray> eventNames;
    int streamConnections = 0;
};

class LangGraphSimulator final : public SimServer
{
    Q_OBJECT

public:
    // The protocol it speaks, by the name of the connector that speaks it (demo mode finds it so).
    static constexpr QLatin1StringView kProtocol{"langgraph"};

    explicit LangGraphSimulator(QObject *parent = nullptr);
    explicit LangGraphSimulator(const LangGraphSimConfig &config, QObject *parent = nullptr);
    ~LangGraphSimulator() override;

    const LangGraphSimConfig &config() const { return m_config; }
    // Applies to runs created afterwards (auth and HTTP faults at once; fault counters restart).
    void setConfig(const LangGraphSimConfig &config);
    void setIntervalMs(int ms);
    void setStreamFaults(const StreamFaults &faults);
    void addHttpFault(const LangGraphHttpFault &fault);
    void clearFaults();

    // Counters and the request log.
    int requestCount() const { return m_requestTotal; }
    int requestCount(LangGraphEndpoint endpoint) const { return m_endpointCounts.value(endpoint); }
    QList<LangGraphRequestRecord> requests() const { return m_log.records(); }
    int runsCreated() const { return m_runsCreated; }
    int activeStreamCount() const;
    void resetCounters();

    // Inspection.
    QStringList runIds() const { return m_runOrder; }
    QString lastRunId() const { return m_runOrder.isEmpty() ? QString() : m_runOrder.last(); }
    std::optional<LangGraphRunInfo> run(const QString &id) const;
    QJsonObject runJson(const QString &id) const;    // empty when unknown
    QJsonObject threadJson(const QString &id) const; // empty when unknown

    static QString helpText();

Q_SIGNALS:
    void requestReceived(const RunwatchSim::LangGraphRequestRecord &record);
    void requestAnswered(const RunwatchSim::LangGraphRequestRecord &record);
    void runCreated(const QString &id);
    void runStatusChanged(const QString &id, const QString &status);
    void eventGenerated(const QString &id, int index, const QByteArray &event);
    void runEnded(const QString &id);
    void streamOpened(const QString &id, int connectionIndex);
    void streamClosed(const QString &id);

private:
    struct Exchange
    {
        QPointer<HttpConnection> connection;
        qint64 serial = 0;
    };
    using ThreadPtr = std::shared_ptr<LangGraphSimThread>;

    // langgraphsim.cpp
    void route(HttpConnection *connection, const HttpRequest &request) override;
    bool authorised(const HttpRequest &request) const;
    void sendJson(const Exchange &exchange, int status, const QJsonObject &body,
                  const HeaderList &headers = {});
    void sendJsonArray(const Exchange &exchange, int status, const QJsonArray &body,
                       const HeaderList &headers = {});
    void sendText(const Exchange &exchange, int status, const QString &text);
    void sendEmpty(const Exchange &exchange, int status);
    void sendInvalidUuid(const Exchange &exchange, const QString &field);
    void sendFault(const Exchange &exchange, const LangGraphHttpFault &fault);
    void recordStatus(const Exchange &exchange, int status, bool faulted = false);
    LangGraphSimRun *createRun(const QString &id, const LangGraphRunParams &params,
                               const LangGraphRunOptions &options);
    void removeRun(LangGraphSimRun *run);
    void forgetOldRuns();

    // langgraphsimendpoints.cpp
    void handleSearchAssistants(const Exchange &exchange, const HttpRequest &request);
    void handleGetAssistant(const Exchange &exchange, const QString &id);
    void handleCreateThread(const Exchange &exchange, const HttpRequest &request);
    void handleSearchThreads(const Exchange &exchange, const HttpRequest &request);
    void handleDeleteThread(const Exchange &exchange, const ThreadPtr &thread);
    void handleCreateRun(const Exchange &exchange, const HttpRequest &request, const ThreadPtr &thread,
                         bool stream);
    void handleListRuns(const Exchange &exchange, const HttpRequest &request,
                        const LangGraphSimThread &thread);
    void handleJoin(const Exchange &exchange, const HttpRequest &request, LangGraphSimRun *run);
    void handleCancel(const Exchange &exchange, const HttpRequest &request, LangGraphSimRun *run);
    void openStream(const Exchange &exchange, LangGraphSimRun *run, std::optional<qsizetype> first,
                    bool cancelOnDisconnect, const HeaderList &headers = {});

    LangGraphSimConfig m_config;
    FaultList<LangGraphHttpFault> m_faults;
    qint64 m_startedMs = 0;
    QHash<QString, ThreadPtr> m_threads;
    QHash<QString, LangGraphSimRun *> m_runs;
    QStringList m_runOrder;
    QList<QPointer<LangGraphSimStream>> m_streams;
    RequestLog<LangGraphRequestRecord> m_log;
    QHash<LangGraphEndpoint, int> m_endpointCounts;
    int m_requestTotal = 0;
    int m_runsCreated = 0;
};

} // namespace RunwatchSim
