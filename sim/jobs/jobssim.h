// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A generic HTTP job service on loopback (protocols/jobs-api.md): kickoff with Idempotency-Key
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
//
// JOBS: the scenario comes from metadata "scenario", else the first word of the input, else
// "normal" (see JobsScenario). Per-job options as metadata strings or key=value words in the
// input (metadata wins): deltas, interval_ms, queued_ms, fail_after, retryable (0/1),
// timeout_ms, timeout_seconds, timer_ms, webhook_ms, cancel_delay_ms, events (0/1),
// retry_after (seconds, "date:N" for an HTTP date N s ahead, "none"), large_bytes, unknown_ms,
// sync_status (200/201), reply, drop_after, drop_mode (close|reset|mid), fault_connections,
// malformed_at, drip_ms. A bad value is a 400.
// Outputs: delta i is "tok<i> " (tokenText); answers add "[answer: T] ", "[manager approved: C] ",
// "[director rejected] ", "[choice: C] ", "[callback: JSON] ", "[timer elapsed] ".

#include "jobssimjob.h"
#include "simconfig.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QHostAddress>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QUrl>

#include <optional>

class QTcpServer;
class QTimer;

namespace RunwatchSim {

class HttpConnection;
struct HttpRequest;

enum class JobsEndpoint { Kickoff, List, Status, Events, Cancel, Input, Result, Webhook, Unknown };

// "kickoff", "list", "status", "events", "cancel", "input", "result", "webhook", "unknown".
QString jobsEndpointName(JobsEndpoint endpoint);
std::optional<JobsEndpoint> jobsEndpointFromName(QStringView name);

// Answer the first `count` requests to `endpoints` (empty: all) with `status` instead of
// serving them. status 0: serve the request (a kickoff creates its job), then close the
// connection without an answer — a reply lost on the way.
struct JobsHttpFault
{
    QSet<JobsEndpoint> endpoints;
    int count = 1; // -1: every matching request
    int status = 503;
    QByteArray retryAfter = "1"; // Retry-After header as sent; empty: none
    bool htmlBody = false;       // a proxy's HTML page instead of the JSON error body
};

// "status=503,count=2,on=kickoff+status,retry-after=1,body=html"; every key optional.
std::optional<JobsHttpFault> jobsHttpFaultFromSpec(QStringView spec, QString *error = nullptr);

struct JobsSimConfig
{
    QString apiKey; // empty: no auth; else "Authorization: Bearer K" or "api-key: K"
    QString basePath = QStringLiteral("/api");
    JobsShape shape = JobsShape::Standard;
    bool opaqueUrls = false; // status/events only under /operations/{id}
    int intervalMs = 20;     // pace of output deltas
    int queuedMs = -1;       // -1: intervalMs
    int deltas = 8;
    int longDeltas = 100000;
    bool offerEvents = true;         // jobs name an events_url
    QByteArray pollRetryAfter = "1"; // Retry-After of status replies (seconds, "date:N", "" none)
    int retryMs = -1;                // "retry:" at the start of each event stream; -1: none
    int commentIntervalMs = 0;       // > 0: ": keep-alive" comments on open event streams
    int cancelDelayMs = 0;           // > 0: cancelling a running job answers 202, done after this long
    double timeoutSeconds = 900;
    qint64 inlineResultLimit = 1 << 20; // larger results are only at /result
    QList<JobsHttpFault> httpFaults;
    JobsStreamFaults streamFaults;
    int maxStoredJobs = 1000;

    // HTTP limits (see simhttp.h).
    int maxHeaderBytes = 64 * 1024;
    qint64 maxBodyBytes = 16 << 20;
    int requestTimeoutMs = 30000;
    bool keepAlive = true;
    int keepAliveIdleMs = 15000;
    int maxConnections = 512;
};

// One request as received and answered, for assertions in tests.
struct JobsRequestRecord
{
    qint64 serial = 0;
    QByteArray method;
    QString path;
    QString query;
    QList<QPair<QByteArray, QByteArray>> headers; // names lower-cased
    QByteArray body;
    JobsEndpoint endpoint = JobsEndpoint::Unknown;
    QString jobId;
    int status = 0; // what we answered; 0 while unanswered (or dropped)
    bool faulted = false;
    qint64 receivedMs = 0; // on the simulator's monotonic clock (elapsedMs())
    qint64 answeredMs = -1;
    qint64 receivedEpochMs = 0;         // wall clock, for HTTP-date Retry-After checks
    qint64 retryAfterUntilEpochMs = -1; // a date Retry-After we sent, as epoch ms

    QByteArray header(QByteArrayView name) const;
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

class JobsSimulator final : public QObject
{
    Q_OBJECT

public:
    explicit JobsSimulator(QObject *parent = nullptr);
    explicit JobsSimulator(const JobsSimConfig &config, QObject *parent = nullptr);
    ~JobsSimulator() override;

    bool listen(const QHostAddress &address = QHostAddress::LocalHost, quint16 port = 0);
    void close();
    bool isListening() const;
    QString errorString() const;
    quint16 port() const;
    // http://127.0.0.1:PORT/api
    QUrl baseUrl() const;

    const JobsSimConfig &config() const { return m_config; }
    // Applies to jobs created afterwards (faults and auth at once; fault counters restart).
    void setConfig(const JobsSimConfig &config);
    void addHttpFault(const JobsHttpFault &fault);
    void clearFaults();

    // Counters and the request log.
    int jobsCreated() const { return m_jobsCreated; }
    int requestCount(JobsEndpoint endpoint) const;
    QList<JobsRequestRecord> requests() const { return m_records; }
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
    struct Session
    {
        QPointer<HttpConnection> connection;
        QString jobId;
        int written = 0;     // events written on this connection
        bool faulty = false; // stream faults apply to this connection
        bool ended = false;
    };
    struct FaultState
    {
        JobsHttpFault fault;
        int served = 0;
    };

    void onNewConnection();
    void handleRequest(HttpConnection *connection, const HttpRequest &request);
    void handleKickoff(const Exchange &exchange, const HttpRequest &request);
    void handleList(const Exchange &exchange, const HttpRequest &request);
    void handleStatus(const Exchange &exchange, JobsSimJob *job);
    void handleEvents(const Exchange &exchange, const HttpRequest &request, JobsSimJob *job);
    void handleCancel(const Exchange &exchange, JobsSimJob *job);
    void handleInput(const Exchange &exchange, const HttpRequest &request, JobsSimJob *job);
    void handleResult(const Exchange &exchange, JobsSimJob *job);
    void handleWebhook(const Exchange &exchange, const HttpRequest &request, const QString &id,
                       const QString &token);

    bool authorised(const HttpRequest &request) const;
    void sendJson(const Exchange &exchange, int status, const QJsonObject &body,
                  QList<QPair<QByteArray, QByteArray>> headers = {});
    void sendError(const Exchange &exchange, int status, const QString &code, const QString &message,
                   bool retryable = false, const QJsonObject &extra = {},
                   const QList<QPair<QByteArray, QByteArray>> &headers = {});
    void sendFault(const Exchange &exchange, const JobsHttpFault &fault);
    void recordAnswer(const Exchange &exchange, int status, bool faulted = false);
    JobsRequestRecord *recordFor(qint64 serial);
    std::optional<JobsJobOptions> optionsFor(const QString &input, const QJsonObject &metadata,
                                             QString *error) const;
    void onJobEvent(const QString &jobId, qint64 eventId);
    void writeEvent(Session &session, const JobsSimEvent &event);
    void endSession(Session &session);
    void onCommentTick();
    QList<QPair<QByteArray, QByteArray>> retryAfterHeaders(const JobsSimJob *job,
                                                           JobsRequestRecord *record) const;
    void forgetOldJobs();

    JobsSimConfig m_config;
    QTcpServer *m_server = nullptr;
    QTimer *m_commentTimer = nullptr;
    QElapsedTimer m_clock;
    QList<FaultState> m_faults;
    QHash<QString, JobsSimJob *> m_jobs;
    QStringList m_order;
    QHash<QString, int> m_streamCounts;     // job id → event connections opened
    QHash<QString, QString> m_byKey;        // idempotency key → job id
    QHash<QString, QByteArray> m_keyBodies; // idempotency key → the body it came with
    QList<Session> m_sessions;
    QList<JobsRequestRecord> m_records;
    qint64 m_firstSerial = 1;
    qint64 m_nextSerial = 1;
    int m_jobsCreated = 0;
    int m_openConnections = 0;
    int m_nextJob = 1;
};

} // namespace RunwatchSim
