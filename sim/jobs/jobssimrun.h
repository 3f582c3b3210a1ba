// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One job of the jobs simulator (jobssim.h): its timeline, suspensions, cancellation and the
// event log its SSE streams replay. Written from docs/protocols/jobs-api.md only; no client code.

#include "jobssimoptions.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

class QTimer;

namespace RunwatchSim {

struct JobsSimEvent
{
    qint64 id = 0;
    QByteArray type;
    QByteArray data;
};

// Where a job lives, for the URLs it names.
struct JobsRunSetup
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

class JobsSimRun final : public QObject
{
    Q_OBJECT

public:
    enum class AnswerResult { Accepted, NotSuspended, NoOperatorInput, BadShape };
    enum class CancelResult { Cancelled, Initiated, AlreadyTerminal };

    JobsSimRun(JobsRunSetup setup, JobsRunOptions options, QObject *parent = nullptr);
    ~JobsSimRun() override;

    // Starts the timeline; a Quick job is finished when this returns.
    void start();

    const JobsRunSetup &setup() const { return m_setup; }
    const JobsRunOptions &options() const { return m_options; }
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

    // The job object in the contract's shape (jobssimwire.h reshapes it for Alternate).
    QJsonObject object() const;
    // `object()` in the job's shape.
    QJsonObject shapedObject() const;

    // POST …/input. `why` explains a rejection.
    AnswerResult answer(const QJsonObject &body, QString *why);
    // The webhook was called. False when the job does not wait for it.
    bool callback(const QJsonObject &body);
    // The form scenario's JSON Schema, and what is wrong with an answer to it (empty: nothing).
    static QJsonObject formSchema();
    static QString formProblem(const QJsonObject &value);
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

    JobsRunSetup m_setup;
    JobsRunOptions m_options;
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

} // namespace RunwatchSim
