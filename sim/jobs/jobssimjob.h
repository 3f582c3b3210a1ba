// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One job of the jobs simulator (jobssim.h): its timeline, suspensions, cancellation and the
// event log its SSE streams replay. Written from protocols/jobs-api.md only; no client code.

#include "simconfig.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

class QTimer;

namespace RunwatchSim {

// How the served JSON looks. Alternate renames every path, field and status string, for tests
// of client connection profiles (see JobsSimulator).
enum class JobsShape {
    Standard,
    Alternate,
};

enum class JobsScenario {
    Normal,   // queued → running → deltas → succeeded
    Quick,    // answered synchronously: the kickoff reply is the finished job
    Fail,     // deltas until fail_after, then failed with an error object
    Timeout,  // runs until timeout_ms, then timed_out
    AskUser,  // suspends for a free-text answer halfway
    Approval, // suspends for an approval halfway
    TwoStep,  // manager approval, then director approval
    Options,  // suspends for a choice among options halfway
    Webhook,  // suspends until its webhook URL is called (or webhook_ms passes)
    Timer,    // suspends for timer_ms and resumes by itself
    Large,    // a result larger than the inline limit: only at /result
    Unknown,  // spends unknown_ms in a status outside the contract ("paused_by_admin")
    Long,     // config.longDeltas deltas (for cancel tests)
};

QString jobsScenarioName(JobsScenario scenario);
std::optional<JobsScenario> jobsScenarioFromName(QStringView name);
QStringList jobsScenarioNames();

// Faults of a job's event streams; counts are per connection.
struct JobsStreamFaults
{
    int connections = -1;     // only the first N event connections of each job; -1 = all
    int dropAfterEvents = -1; // drop the connection after writing this many events; -1 = off
    DropMode dropMode = DropMode::Close;
    qint64 malformedAt = -1; // the event with this id is sent with broken JSON
    int dripIntervalMs = 0;  // > 0: one byte per interval
};

// Per-job settings: config defaults, overridden by metadata values or key=value words of the input.
struct JobsJobOptions
{
    JobsScenario scenario = JobsScenario::Normal;
    int deltas = 8;
    int intervalMs = 20;
    int queuedMs = -1;  // -1: intervalMs
    int failAfter = -1; // -1: deltas / 2
    bool retryable = true;
    int timeoutMs = 300;         // Timeout scenario: when it fires
    double timeoutSeconds = 900; // reported timeout_seconds
    int timerMs = 1000;
    int webhookMs = -1;    // > 0: the external system calls back by itself after this long
    int cancelDelayMs = 0; // > 0: cancel answers 202 and the job stops after this long
    bool events = true;    // the job offers an event stream
    QByteArray retryAfter; // Retry-After of status replies: seconds, "date:N", "" = none
    qint64 largeBytes = (1 << 20) + 4096;
    int unknownMs = 100;
    int syncStatus = 201; // status of a Quick job's kickoff reply: 200 or 201
    QString reply;        // if set, its words are the deltas
    JobsStreamFaults streamFaults;
};

struct JobsSimEvent
{
    qint64 id = 0;
    QByteArray type;
    QByteArray data;
};

// Where a job lives, for the URLs it names.
struct JobsJobSetup
{
    QString id;
    QString basePath;   // "/api"
    QString publicBase; // "http://127.0.0.1:PORT/api", for the webhook URL
    JobsShape shape = JobsShape::Standard;
    bool opaqueUrls = false; // status and events live under /operations/{id}, not /jobs/{id}
    QString idempotencyKey;
    QString input;
    QJsonObject metadata;
    QString webhookToken;
    qint64 inlineResultLimit = 1 << 20;
};

class JobsSimJob final : public QObject
{
    Q_OBJECT

public:
    enum class AnswerResult { Accepted, NotSuspended, NoOperatorInput, BadShape };
    enum class CancelResult { Cancelled, Initiated, AlreadyTerminal };

    JobsSimJob(JobsJobSetup setup, JobsJobOptions options, QObject *parent = nullptr);
    ~JobsSimJob() override;

    // Starts the timeline; a Quick job is finished when this returns.
    void start();

    const JobsJobSetup &setup() const { return m_setup; }
    const JobsJobOptions &options() const { return m_options; }
    QString id() const { return m_setup.id; }
    QString status() const { return m_status; } // contract spelling
    bool isTerminal() const;
    bool isCancelPending() const { return m_cancelPending; }
    QString text() const { return m_text; }
    QString resultText() const; // the full result of a succeeded job
    QJsonObject inputRequest() const { return m_inputRequest; }
    QList<QJsonObject> answers() const { return m_answers; }
    const QList<JobsSimEvent> &events() const { return m_events; }
    qint64 lastEventId() const { return m_events.isEmpty() ? 0 : m_events.last().id; }
    qint64 createdAtMs() const { return m_createdAtMs; }

    // The job object in the contract's shape (JobsSimulator reshapes it for Alternate).
    QJsonObject object() const;
    // `object()` in the job's shape.
    QJsonObject shapedObject() const;

    // POST …/input. `why` explains a rejection.
    AnswerResult answer(const QJsonObject &body, QString *why);
    // The webhook was called. False when the job does not wait for it.
    bool callback(const QJsonObject &body);
    CancelResult cancel();

    QString statusPath() const;
    QString eventsPath() const;
    QString resultPath() const;

Q_SIGNALS:
    void eventAdded(const QString &jobId, qint64 eventId);
    void statusChanged(const QString &jobId, const QString &status);

private:
    struct Segment
    {
        enum class Kind { Deltas, Suspend, Flip, Idle, Finish };
        Kind kind = Kind::Deltas;
        int count = 0;        // Deltas
        QString handler;      // Suspend: ask_user, get_approval, select_options, webhook, timer
        QString step;         // Suspend get_approval: "manager" / "director"
        QString finishStatus; // Finish
        int ms = 0;           // Flip
    };

    void plan();
    void tick();
    void schedule(int ms);
    void setStatus(const QString &status, bool emitStatusEvent = true);
    void addEvent(const QByteArray &type, const QJsonObject &data);
    void emitOutput(const QString &delta);
    void suspend(const Segment &segment);
    void resume(const QString &marker, bool skipToFinish = false);
    void finish(const QString &status);
    QString deltaText(int index) const;

    JobsJobSetup m_setup;
    JobsJobOptions m_options;
    QList<Segment> m_plan;
    qsizetype m_segment = 0;
    int m_inSegment = 0;
    int m_tokenIndex = 0;
    int m_totalDeltas = 0;
    QString m_status = QStringLiteral("queued");
    QString m_text;
    QString m_finalResult; // set for a succeeded job
    QJsonObject m_error;
    QJsonObject m_inputRequest;
    QList<QJsonObject> m_answers;
    QList<JobsSimEvent> m_events;
    QStringList m_reply; // words of options.reply
    QTimer *m_tick = nullptr;
    QTimer *m_aux = nullptr; // timer/webhook resume, cancel delay
    QTimer *m_timeout = nullptr;
    qint64 m_createdAtMs = 0;
    qint64 m_updatedAtMs = 0;
    bool m_started = false;
    bool m_cancelPending = false;
};

// Standard → Alternate shape of a job object (and of {"job_id","result"} result bodies).
QJsonObject shapeJobObject(const QJsonObject &standard, JobsShape shape);
// A contract status in the given shape ("succeeded" → "DONE" for Alternate).
QString shapeStatus(const QString &status, JobsShape shape);

} // namespace RunwatchSim
