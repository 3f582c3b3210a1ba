// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One simulated LangGraph run and the thread state it works on: the run's timer-driven plan (a
// node after the other: tokens, an interrupt, an error), the thread's messages, pending task and
// checkpoint, and the run's event log with the two delivery rules of protocol §5: a resumable log
// that every join reads from its Last-Event-ID, or a queue whose every event goes to one reader
// only. The plan and its pace are in langgraphsimrun.cpp; the JSON shapes in langgraphsimwire.cpp.

#include "langgraphsimoptions.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

class QTimer;

namespace RunwatchSim {

class LangGraphSimStream;

// One event of a run's log; its id is its index (0 is always `metadata`).
struct LangGraphSimEvent
{
    QByteArray event;
    QByteArray data; // compact JSON
};

struct LangGraphSimInterrupt
{
    QString id; // 32 hex digits, as the real server's
    QJsonValue value;
};

// The task of the node a thread is at (state.next, state.tasks[]).
struct LangGraphSimTask
{
    QString id;
    QString node;
    QList<LangGraphSimInterrupt> interrupts;
    QString error; // JSON-encoded {"message","name"}, as the real server stores it; empty: null
};

struct LangGraphSimThread
{
    QString id;
    qint64 createdMs = 0;
    qint64 updatedMs = 0;
    QJsonObject metadata;
    QJsonObject config;                      // {"configurable":{"user-agent"}} after a first run
    QString status = QStringLiteral("idle"); // idle, busy, interrupted, error
    QJsonArray messages;                     // values.messages
    bool valuesShown = false;                // GET /threads/{t} lists values and interrupts
    std::optional<LangGraphSimTask> task;    // pending: the node the next run continues
    std::optional<LangGraphGraph> graph;     // of the last run
    int step = -1;                           // of the last checkpoint; -1: none yet
    qint64 checkpointMs = 0;
    QString checkpointId;
    QString parentCheckpointId;
    QJsonObject checkpointMetadata;
    QStringList runIds;
    QString activeRunId;
};

// What created the run (POST /threads/{t}/runs).
struct LangGraphRunParams
{
    QString threadId;
    LangGraphGraph graph = LangGraphGraph::Echo;
    QString assistantId;
    QJsonObject metadata;             // created_by, graph_id, assistant_id and the request's
    QJsonObject kwargs;               // as the run JSON echoes them
    QJsonArray inputMessages;         // new messages, already in the state's shape
    bool hasInput = false;            // `input` given (a new turn: the graph starts over)
    std::optional<QJsonValue> resume; // command.resume
    QStringList streamModes;          // "messages-tuple", "updates", "custom", "values"
    bool resumable = false;           // stream_resumable
    QString userAgent;
};

class LangGraphSimRun final : public QObject
{
    Q_OBJECT

public:
    enum class Status { Pending, Running, Success, Error, Interrupted, Timeout };
    enum class CancelAction { Interrupt, Rollback };

    LangGraphSimRun(const QString &id, const LangGraphRunParams &params, const LangGraphRunOptions &options,
                    std::shared_ptr<LangGraphSimThread> thread, QObject *parent = nullptr);
    ~LangGraphSimRun() override;

    // `pending` for queuedMs, then `running` through the plan.
    void start();
    // False when the run had already stopped: then nothing changes (the server still answers 202).
    bool cancel(CancelAction action);

    const QString &id() const { return m_id; }
    const QString &threadId() const { return m_params.threadId; }
    const LangGraphRunParams &params() const { return m_params; }
    const LangGraphRunOptions &options() const { return m_options; }
    Status status() const { return m_status; }
    QString statusName() const;
    bool isActive() const { return m_status == Status::Pending || m_status == Status::Running; }
    bool hasEnded() const { return !isActive(); }
    qint64 createdMs() const { return m_createdMs; }
    const QList<LangGraphSimEvent> &events() const { return m_events; }
    // Every token of the run, joined.
    const QString &text() const { return m_text; }

    // The event log. Resumable: kept, every join reads it from its Last-Event-ID. Otherwise a
    // queue: each event goes to one reader (in turn), and waits for one while there is none.
    bool resumable() const { return !m_queue; }
    // The run published its first event (`metadata`, when it starts executing).
    bool published() const { return !m_events.isEmpty(); }
    // A join with a Last-Event-ID creates the log (resumable) if the run has not yet.
    void claimLog() { m_logClaimed = true; }
    // The trap of protocol §5: a first join without Last-Event-ID, before the run published anything
    // and before any join with the header, turns the log into a queue for good. True when it did.
    bool makeQueueIfFirst();
    // A reader of the queue: takes what waits, then its turn of every new event.
    void addQueueReader(LangGraphSimStream *stream);

    // Bookkeeping for the server.
    int openStreamConnection() { return ++m_streamConnections; }
    int streamConnections() const { return m_streamConnections; }
    bool takeHttpFault(LangGraphEndpoint endpoint);

    // langgraphsimwire.cpp
    QJsonObject json() const;
    // The `metadata` of a messages-tuple event of `node`, and of a checkpoint (state.metadata).
    QJsonObject tupleMetadata(const QString &node) const;
    QJsonObject checkpointMetadata(const QString &source, int step) const;

Q_SIGNALS:
    void eventAdded(int index);
    void statusChanged(const QString &status);
    // The run stopped (success, error or interrupted): streams close a little later.
    void ended();

private:
    enum class Op : quint8 { Begin, NodeStart, Custom, Interrupt, Token, NodeEnd, Fail, Success };
    struct Step
    {
        Op op;
        qint32 node;  // index into m_nodes
        qint32 token; // index into the node's tokens
    };

    void onTimer();
    void scheduleNext();
    void runStep(const Step &step);
    void begin();
    void buildPlan(qsizetype firstNode, const std::optional<QJsonValue> &resume);
    QStringList nodeTokens(const QString &node, const std::optional<QJsonValue> &resume) const;
    void startNode(const QString &node);
    void endNode(int node);
    void interrupt(int node);
    void fail(int node);
    void finish(Status status, const QString &threadStatus);
    void setStatus(Status status);
    void appendEvent(const QByteArray &event, const QJsonValue &data);
    void deliverQueue();
    void checkpoint(const QString &source);
    bool streams(QLatin1StringView mode) const;

    QString m_id;
    LangGraphRunParams m_params;
    LangGraphRunOptions m_options;
    std::shared_ptr<LangGraphSimThread> m_thread;
    Status m_status = Status::Pending;
    qint64 m_createdMs = 0;
    qint64 m_updatedMs = 0;
    // The thread as it was before this run made it busy, for a run cancelled while pending.
    QString m_threadStatusBefore;
    bool m_valuesShownBefore = false;
    QStringList m_nodes;
    QList<QStringList> m_tokens; // per node
    QStringList m_messageIds;    // per node: "run-<uuid>", stable over the node's chunks
    QList<QString> m_nodeText;   // per node, so far
    QList<Step> m_plan;
    qsizetype m_next = 0;
    int m_langgraphStep = 0;
    QString m_text;
    QList<LangGraphSimEvent> m_events;
    bool m_queue = false;
    bool m_logClaimed = false;
    qsizetype m_queueNext = 0; // first event no reader has taken
    QList<QPointer<LangGraphSimStream>> m_queueReaders;
    qsizetype m_turn = 0;
    int m_streamConnections = 0;
    int m_httpFaultsServed = 0;
    QTimer *m_timer = nullptr;
};

// "<uuid>" with version 7 (a millisecond timestamp first), as the server's thread and run ids.
QString newLangGraphUuid7();
qint64 langGraphNowMs();

} // namespace RunwatchSim
