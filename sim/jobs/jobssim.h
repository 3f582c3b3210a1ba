// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A generic HTTP job service on loopback (docs/protocols/jobs-api.md): kickoff with Idempotency-Key
// and Prefer: respond-async, status polling with Retry-After, SSE with Last-Event-ID replay,
// cancel 202/200/409, suspended jobs (ask_user, get_approval, select_options, webhook, timer),
// large results, listing by idempotency key, and fault injection. Written from the protocol
// document only: it never includes client code.
//
// Endpoints (base URL http://127.0.0.1:PORT/api; Standard shape):
//   POST   /api/jobs                         kickoff: 202 + Location (201/200 for "quick")
//   GET    /api/jobs                         listing: ?status=&idempotency_key=&limit=&cursor=
//   GET    /api/jobs/{id}                    status (+ Retry-After)
//   GET    /api/jobs/{id}/events             SSE; Last-Event-ID replays what followed it
//   DELETE /api/jobs/{id}, POST /api/jobs/{id}:cancel   cancel
//   POST   /api/jobs/{id}/input              answer a suspended job
//   GET    /api/jobs/{id}/result             the full result
//   POST   /api/hooks/{id}/{token}           the webhook an external system calls
// With opaqueUrls, status and events live at /api/operations/{id}[/events] (only reachable
// through Location / status_url / events_url). The Alternate shape serves /api/v2/tasks,
// /api/v2/tasks/{id}, …/stream, POST …/abort, POST …/reply, GET …/output, with the job as
// {"task":{"uid","state","percent","output":{"text"},"problem","pending","idem","meta",…},
//  "links":{"self","stream","output"}} and statuses PENDING WORKING WAITING DONE ERROR ABORTED
// EXPIRED; the kickoff body is {"prompt","meta"}.
// Scenarios and per-job options: jobssimoptions.h. The routes, replies and the request log are in
// jobssim.cpp, the endpoints in jobssimendpoints.cpp, one job in jobssimrun.*, its event streams in
// jobssimstream.*.

#include "jobssimconfig.h"
#include "jobssimoptions.h"
#include "server/requestlog.h"
#include "server/simserver.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <optional>

namespace RunwatchSim {

class JobsSimRun;
class JobsSimStream;

// One request as received and answered, for assertions in tests.
struct JobsRequestRecord : RequestRecord
{
    JobsEndpoint endpoint = JobsEndpoint::Unknown;
    QString jobId;
    qint64 receivedMs = 0; // on the simulator's monotonic clock (elapsedMs())
    qint64 answeredMs = -1;
    qint64 receivedEpochMs = 0;         // wall clock, for HTTP-date Retry-After checks
    qint64 retryAfterUntilEpochMs = -1; // a date Retry-After we sent, as epoch ms
};

struct JobsJobInfo
{
    QString id;
    QString status;
    JobsScenario scenario = JobsScenario::Normal;
    QString idempotencyKey;
    QJsonObject metadata;
    QString input;
    QString text;
    QString result;
    QJsonObject inputRequest;
    QList<QJsonObject> answers;
    qint64 eventCount = 0;
    int streamConnections = 0;
    bool cancelPending = false;
};

class JobsSimulator final : public SimServer
{
    Q_OBJECT

public:
    // The protocol it speaks, by the name of the connector that speaks it (demo mode finds it so).
    static constexpr QLatin1StringView kProtocol{"jobs"};

    explicit JobsSimulator(QObject *parent = nullptr);
    explicit JobsSimulator(const JobsSimConfig &config, QObject *parent = nullptr);
    ~JobsSimulator() override;

    // Listening, port and baseUrl() (http://127.0.0.1:PORT/api) come from SimServer.

    const JobsSimConfig &config() const { return m_config; }
    // Applies to jobs created afterwards (faults and auth at once; fault counters restart).
    void setConfig(const JobsSimConfig &config);
    void addHttpFault(const JobsHttpFault &fault);
    void clearFaults();

    // Counters and the request log.
    int jobsCreated() const { return m_jobsCreated; }
    int requestCount(JobsEndpoint endpoint) const;
    QList<JobsRequestRecord> requests() const { return m_log.records(); }
    QList<JobsRequestRecord> requests(JobsEndpoint endpoint) const;
    int activeStreamCount() const;
    // Milliseconds on the simulator's monotonic clock (the one the request log uses).
    qint64 elapsedMs() const { return m_clock.elapsed(); }
    void resetCounters();

    QStringList jobIds() const { return m_order; }
    QString lastJobId() const { return m_order.isEmpty() ? QString() : m_order.last(); }
    std::optional<JobsJobInfo> job(const QString &id) const;
    // The external system calls the job's webhook (as POST /hooks/{id}/{token} does).
    bool fireWebhook(const QString &id, const QJsonObject &body = {});

    // Expected texts, so tests need not hard-code them: deltas from..to-1.
    static QString tokenText(int from, int to);
    static QString helpText();

Q_SIGNALS:
    void requestReceived(const RunwatchSim::JobsRequestRecord &record);
    void requestAnswered(const RunwatchSim::JobsRequestRecord &record);
    void jobCreated(const QString &id);
    void jobStatusChanged(const QString &id, const QString &status);
    void streamOpened(const QString &id, int connectionIndex);
    // A stream fault cut a job's event stream (emitted when the drop is requested).
    void streamDropped(const QString &id);

private:
    struct Exchange
    {
        QPointer<HttpConnection> connection;
        qint64 serial = 0;
        bool dropReply = false; // a status-0 fault: serve, then close without answering
    };

    // jobssim.cpp: routes, replies, the job table.
    void route(HttpConnection *connection, const HttpRequest &request) override;
    bool authorised(const HttpRequest &request) const;
    // True when a status-0 fault eats the answer: the connection is closed instead.
    bool replyLost(const Exchange &exchange);
    void sendJson(const Exchange &exchange, int status, const QJsonObject &body, HeaderList headers = {});
    void sendError(const Exchange &exchange, int status, const QString &code, const QString &message,
                   bool retryable = false, const QJsonObject &extra = {}, const HeaderList &headers = {});
    void sendFault(const Exchange &exchange, const JobsHttpFault &fault);
    void recordAnswer(const Exchange &exchange, int status, bool faulted = false);
    HeaderList retryAfterHeaders(const JobsSimRun *job, JobsRequestRecord *record) const;
    void forgetOldJobs();

    // jobssimendpoints.cpp
    void handleKickoff(const Exchange &exchange, const HttpRequest &request);
    void handleList(const Exchange &exchange, const HttpRequest &request);
    void handleStatus(const Exchange &exchange, JobsSimRun *job);
    void handleEvents(const Exchange &exchange, const HttpRequest &request, JobsSimRun *job);
    void handleCancel(const Exchange &exchange, JobsSimRun *job);
    void handleInput(const Exchange &exchange, const HttpRequest &request, JobsSimRun *job);
    void handleResult(const Exchange &exchange, JobsSimRun *job);
    void handleWebhook(const Exchange &exchange, const HttpRequest &request, const QString &id,
                       const QString &token);
    void onJobEvent(const QString &jobId, qint64 eventId);

    JobsSimConfig m_config;
    QElapsedTimer m_clock;
    FaultList<JobsHttpFault> m_faults;
    QHash<QString, JobsSimRun *> m_jobs;
    QStringList m_order;
    QHash<QString, int> m_streamCounts;     // job id → event connections opened
    QHash<QString, QString> m_byKey;        // idempotency key → job id
    QHash<QString, QByteArray> m_keyBodies; // idempotency key → the body it came with
    QList<QPointer<JobsSimStream>> m_streams;
    RequestLog<JobsRequestRecord> m_log;
    int m_jobsCreated = 0;
    int m_nextJob = 1;
};

} // namespace RunwatchSim
