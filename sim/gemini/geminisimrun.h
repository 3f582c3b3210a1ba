// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One simulated interaction: its timer-driven plan of steps (step.start, step.delta*, step.stop),
// the stored steps they grow, its status, usage and errors, and its event log, which every stream
// reads from a point on (resume by event id, protocol §2.5). The plan and its pace are in
// geminisimrun.cpp, the shapes of steps and deltas in geminisimwire.cpp.

#include "geminisimoptions.h"
#include "geminisimwire.h"

#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

class QTimer;

namespace RunwatchSim {

// One event of an interaction's log. `type` is its event_type and SSE event name: "done" is the
// closing "[DONE]" sentinel.
struct GeminiSimEvent
{
    QByteArray type;
    QByteArray data; // compact JSON, or "[DONE]"
    QString eventId; // step.delta only, as observed; empty otherwise
};

// A function call an interaction waits for (requires_action).
struct GeminiSimCall
{
    QString id;
    QString name;
};

// What created the interaction (POST /{v}/interactions), checked by the endpoint.
struct GeminiRunParams
{
    QString model; // exactly one of model and agent
    QString agent;
    QJsonObject agentConfig;
    bool background = false;
    bool stream = false;
    bool store = true;
    QString previousId;
    QJsonValue input;
    QJsonArray inputSteps;         // how the stored interaction lists the input
    QString prompt;                // the input's text
    QStringList functionNames;     // of the request's function tools
    QList<GeminiSimCall> answered; // a continuation: the calls it answers, in order
    QStringList answers;           // their results as text
};

class GeminiSimRun final : public QObject
{
    Q_OBJECT

public:
    enum class Status { InProgress, RequiresAction, Completed, Failed, Cancelled, Incomplete };

    GeminiSimRun(const QString &id, const GeminiRunParams &params, const GeminiRunOptions &options,
                 QObject *parent = nullptr);
    ~GeminiSimRun() override;

    // interaction.created and the first status update at once, then the plan at its pace.
    void start();
    // Stops a running interaction as `cancelled` (its streams get interaction.completed, [DONE]).
    // False when it had already ended.
    bool cancel();
    // Stops the plan without a word (the interaction is deleted).
    void halt();

    const QString &id() const { return m_id; }
    const GeminiRunParams &params() const { return m_params; }
    const GeminiRunOptions &options() const { return m_options; }
    Status status() const { return m_status; }
    QString statusName() const;
    bool isActive() const { return m_status == Status::InProgress; }
    bool hasEnded() const { return !isActive(); }
    // Ended longer ago than its expires_ms: the service has forgotten it.
    bool expired(qint64 nowMs) const;

    const QList<GeminiSimEvent> &events() const { return m_events; }
    // The log index right after the event with this id; -1 when no event has it.
    qsizetype indexAfter(const QString &eventId) const;
    // Every text delta so far, joined; and the text of each model_output step.
    const QString &text() const { return m_text; }
    QStringList outputTexts() const;
    // The calls it waits for (tool_call scenario).
    const QList<GeminiSimCall> &calls() const { return m_calls; }

    // The interaction resource: `steps` as the stored copy has them (input first) when `stored`,
    // else only the model's; `input` when asked for.
    QJsonObject json(bool stored, bool includeInput = false) const;

    // Bookkeeping for the server.
    int openStreamConnection() { return ++m_streamConnections; }
    int streamConnections() const { return m_streamConnections; }
    bool takeHttpFault(GeminiEndpoint endpoint);

Q_SIGNALS:
    void eventAdded(int index);
    void statusChanged(const QString &status);
    // The interaction stopped (any status but in_progress): its log is complete.
    void ended();

private:
    enum class Op : quint8 { StepStart, Delta, StepStop, Fail, Complete };
    struct PlannedOp
    {
        Op op;
        qint32 step;  // index into m_planned
        qint32 delta; // index into the step's deltas
    };
    struct PlannedStep
    {
        QJsonObject start; // the step as step.start shows it
        QList<QJsonObject> deltas;
    };

    void buildPlan();
    qint32 addStep(const QJsonObject &start, const QList<QJsonObject> &deltas);
    void addTextStep(int first, int count, const QString &prefix = QString());
    void addThought(const QStringList &summary);
    void addSearch(const QString &query);
    void addCalls();
    void onTimer();
    void scheduleNext();
    void runOp(const PlannedOp &op);
    void finish(Status status);
    void setStatus(Status status);
    QJsonObject lifecycleJson(bool withUsage) const;
    void appendEvent(const QByteArray &type, QJsonObject data, bool withId = false);
    void appendDone();

    QString m_id;
    GeminiRunParams m_params;
    GeminiRunOptions m_options;
    Status m_status = Status::InProgress;
    qint64 m_createdMs = 0;
    qint64 m_updatedMs = 0;
    qint64 m_endedMs = -1;
    QList<PlannedStep> m_planned;
    QList<PlannedOp> m_plan;
    Status m_finalStatus = Status::Completed;
    qsizetype m_next = 0;
    QJsonArray m_steps; // the model's steps so far
    QString m_text;
    QList<GeminiSimCall> m_calls;
    GeminiUsage m_usage;
    QJsonArray m_errors;
    QList<GeminiSimEvent> m_events;
    QHash<QString, qsizetype> m_eventIndex;
    QByteArray m_idSalt;
    int m_streamConnections = 0;
    int m_httpFaultsServed = 0;
    QTimer *m_timer = nullptr;
};

} // namespace RunwatchSim
