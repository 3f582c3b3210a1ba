// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One simulated Foundry run (ThreadRun): its options, its timer-driven plan, the events it
// produced (each stream writes from the point where its request came in: the protocol has no
// resume), its run steps and assistant messages, the pending required_action, cancel and expiry.
// The plan and its pace are in foundrysimrun.cpp; the JSON shapes in foundrysimwire.cpp.

#include "foundrysimoptions.h"

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

// One SSE event: its `event:` name and `data:` (compact JSON, or "[DONE]").
struct FoundrySimEvent
{
    QByteArray name;
    QByteArray data;
};

// A thread message (user messages belong to the thread, assistant messages to their run).
struct FoundrySimMessage
{
    QString id;
    QString threadId;
    QString role; // "user" or "assistant"
    QString runId;
    QString assistantId;
    qint64 createdAt = 0;
    qint64 serial = 0; // creation order across the simulator, for listing
    QString status = QStringLiteral("completed");
    QStringList parts; // text content parts
};

// A call in required_action (function tool or MCP approval) and in its run step.
struct FoundrySimToolCall
{
    QString id;
    QString type; // "function", "mcp" or "code_interpreter"
    QString name;
    QString arguments;
    QString serverLabel; // mcp
    QString output;      // once answered
    bool answered = false;
    bool approved = false; // mcp
};

struct FoundrySimStep
{
    QString id;
    QString type; // "message_creation" or "tool_calls"
    QString status = QStringLiteral("in_progress");
    qint64 createdAt = 0;
    qint64 completedAt = 0;
    QString messageId;
    QList<FoundrySimToolCall> calls;
};

// What created the run.
struct FoundryRunParams
{
    QString threadId;
    QString assistantId;
    QString model;
    QString instructions;
    QString prompt; // the text of the thread's user messages, for options and usage
    QJsonObject metadata;
    bool threadCreated = false; // POST /threads/runs: the stream opens with thread.created
    QJsonObject threadJson;
};

// Serial numbers shared by messages of threads and runs, so that a thread lists them in order.
qint64 nextFoundryMessageSerial();

class FoundrySimRun final : public QObject
{
    Q_OBJECT

public:
    enum class Status {
        Queued,
        InProgress,
        RequiresAction,
        Cancelling,
        Cancelled,
        Failed,
        Completed,
        Expired,
        Incomplete
    };

    FoundrySimRun(const QString &id, const FoundryRunParams &params, const FoundryRunOptions &options,
                  QObject *parent = nullptr);
    ~FoundrySimRun() override;

    // Emits (thread.created,) thread.run.created at once, then paces on.
    void start();
    // POST …/submit_tool_outputs with `body` ({tool_outputs} or {tool_approvals}): an error
    // message for the 400 answer, or empty when accepted (the run goes on).
    QString submit(const QJsonObject &body);
    // POST …/cancel: an error message for the 400 answer, or empty when the run is cancelling.
    QString cancel();

    const QString &id() const { return m_id; }
    const QString &threadId() const { return m_params.threadId; }
    const FoundryRunParams &params() const { return m_params; }
    const FoundryRunOptions &options() const { return m_options; }
    Status status() const { return m_status; }
    QString statusName() const { return statusName(m_status); }
    static QString statusName(Status status);
    bool isTerminal() const;
    // The final `done` event is written: nothing more will come.
    bool hasEnded() const { return m_ended; }
    const QList<FoundrySimEvent> &events() const { return m_events; }
    const QList<FoundrySimMessage> &messages() const { return m_messages; }
    const QList<FoundrySimStep> &steps() const { return m_steps; }
    // The calls of the pending required_action (empty unless requires_action).
    QList<FoundrySimToolCall> pendingCalls() const;
    // The text of every assistant message of the run: every content part, in order, no separator.
    QString text() const;
    qint64 expiresAt() const { return m_expiresAt; }

    // foundrysimwire.cpp
    QJsonObject json() const;
    QJsonObject stepJson(const FoundrySimStep &step) const;
    static QJsonObject messageJson(const FoundrySimMessage &message);

    // Bookkeeping for the server.
    int openStreamConnection() { return ++m_streamConnections; }
    int streamConnections() const { return m_streamConnections; }
    // True when this request should get the run's own HTTP fault (counts it).
    bool takeHttpFault(FoundryEndpoint endpoint);

Q_SIGNALS:
    void eventAdded(int index, const QByteArray &name);
    void statusChanged(const QString &status);
    void ended();

private:
    enum class Op : quint8 {
        InProgress,
        CodeStep,   // a code_interpreter step, created and completed
        Action,     // the tool step and required_action; the plan waits for a submit
        ActionDone, // the tool step completed with the outputs
        MessageStart,
        Delta,
        MessageDone,
        Completed,
        Failed,
        Incomplete,
    };
    struct Step
    {
        Op op;
        qint32 message;
        qint32 part;
    };

    void buildPlan();
    void onTimer();
    void scheduleNext();
    void runStep(const Step &step);
    void setStatus(Status status);
    void appendEvent(const QByteArray &name, const QJsonObject &data);
    void appendDone();
    void runEvent(const QByteArray &name);
    void finish(Status status, const QByteArray &eventName);
    void expire();
    QString deltaText(int index) const;
    QJsonObject usageJson() const;

    QString m_id;
    FoundryRunParams m_params;
    FoundryRunOptions m_options;
    Status m_status = Status::Queued;
    qint64 m_createdAt = 0;
    qint64 m_startedAt = 0;
    qint64 m_endedAt = 0;
    qint64 m_expiresAt = 0;
    bool m_started = false;
    bool m_ended = false;
    bool m_waiting = false; // for a submit
    QList<Step> m_plan;
    qsizetype m_next = 0;
    int m_deltasDone = 0;
    QString m_prefix; // what the submit answered, written before the first delta
    QStringList m_replyChunks;
    QList<FoundrySimEvent> m_events;
    QList<FoundrySimMessage> m_messages;
    QList<FoundrySimStep> m_steps;
    int m_actionStep = -1;
    QString m_actionType; // "submit_tool_outputs" or "submit_tool_approval"
    int m_streamConnections = 0;
    int m_httpFaultsServed = 0;
    QTimer *m_timer = nullptr;
    QTimer *m_expiry = nullptr;
};

} // namespace RunwatchSim
