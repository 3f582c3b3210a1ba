// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One simulated response: its options, its timer-driven event generator, every event it produced
// (kept for replay with starting_after) and the snapshot served by GET /v1/responses/{id}. The plan
// and its pace are in openaisimrun.cpp; what each step puts on the wire is in openaisimwire.cpp.

#include "openaisimoptions.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

class QTimer;

namespace RunwatchSim {

// Delta i of the default text: "tok<i> ".
QString tokenDelta(int index);
// The big delta of the "huge" scenario: 79 printable ASCII characters and a newline, repeated.
QString hugeText(qint64 bytes);

// What POST /v1/responses asked for.
struct OpenAiCreateParams
{
    QString model;
    QJsonValue input;
    QJsonObject metadata;
    bool background = false;
    bool stream = false;
    bool store = true;
    bool obfuscation = false;
    bool fractionalTimestamps = false;
    QJsonValue instructions;
    QJsonValue previousResponseId;
    QJsonValue maxOutputTokens;
    // Foundry (foundry-agents-and-gemini.md §1): {id} of the conversation, and
    // {type:"agent_reference", name, version} with the resolved version; echoed when objects.
    QJsonValue conversation;
    QJsonValue agentReference;
};

struct OpenAiSimEvent
{
    qint64 sequenceNumber = 0;
    QByteArray type;
    QByteArray data; // the JSON payload, compact
};

class OpenAiSimRun final : public QObject
{
    Q_OBJECT

public:
    // The function_call arguments of the reasoning and tool_call scenarios come in this many deltas.
    static constexpr int kArgumentChunkCount = 3;

    enum class Status { Queued, InProgress, Completed, Failed, Incomplete, Cancelled };
    enum class CancelOutcome { Cancelled, AlreadyCancelled, WasCompleted, WasFailed, WasIncomplete };

    OpenAiSimRun(const QString &id, const OpenAiCreateParams &params, const OpenAiRunOptions &options,
                 QObject *parent = nullptr);
    ~OpenAiSimRun() override;

    // Emits response.created (and response.queued for background runs) at once, then paces on.
    void start();
    // Runs up to `steps` generator steps now, ignoring the pace. Returns how many ran.
    int advance(int steps);
    void setPaused(bool paused);
    CancelOutcome cancel();

    const QString &id() const { return m_id; }
    const OpenAiCreateParams &params() const { return m_params; }
    const OpenAiRunOptions &options() const { return m_options; }
    Status status() const { return m_status; }
    QString statusName() const;
    static QString statusName(Status status);
    // No further event will be generated (terminal event written, or stopped by a cancel).
    bool hasEnded() const { return m_ended; }
    const QList<OpenAiSimEvent> &events() const { return m_events; }
    QJsonObject snapshot() const;
    QJsonArray inputItems() const;
    // output_text as the SDKs aggregate it: all output_text parts of all message items.
    QString outputText() const;
    QString reasoningText() const;
    QString functionArguments() const;
    // The calls this (completed) response waits on, after its last message: function calls by
    // call_id and MCP approval requests by item id, each with its name.
    struct PendingCall
    {
        QString id;
        QString name;
        bool approval = false;
    };
    QList<PendingCall> pendingCalls() const;
    qint64 ageMs() const { return m_age.elapsed(); }
    int remainingSteps() const { return int(m_plan.size() - m_next); }

    // Bookkeeping for the server.
    int openStreamConnection() { return ++m_streamConnections; }
    int streamConnections() const { return m_streamConnections; }
    // True when this request should get the response's own HTTP fault (counts it).
    bool takeHttpFault(OpenAiEndpoint endpoint);

Q_SIGNALS:
    void eventAdded(qint64 sequenceNumber, const QByteArray &type);
    void statusChanged(const QString &status);
    void ended();

private:
    enum class Op : quint8 {
        Created,
        Queued,
        Keepalive,
        InProgress,
        ItemAdded,
        PartAdded,
        Delta,
        TextDone,
        PartDone,
        ItemDone,
        ItemDoneIncomplete,
        Completed,
        Failed,
        Incomplete,
        ErrorEvent,
    };
    struct Step
    {
        Op op;
        qint32 item;
        qint32 index;
    };
    struct Item
    {
        enum class Kind { Message, Reasoning, FunctionCall, McpApprovalRequest };
        Kind kind = Kind::Message;
        QString id;
        QString status = QStringLiteral("in_progress");
        bool added = false;
        bool partAdded = false;
        QString text; // output_text, reasoning summary or function arguments
        QString callId;
        QString name;
        QString serverLabel;
    };

    void buildPlan();
    void addMessageSteps(int item, int deltas, Op finalItemOp);
    int delayBefore(const Step &step) const;
    void onTimer();
    void scheduleNext();
    void runStep(const Step &step);
    QString deltaText(int item, int index) const;
    void setStatus(Status status);
    void appendEvent(const QByteArray &type, QJsonObject payload);
    void lifecycleEvent(const QByteArray &type);
    void finishWith(Status status);
    QJsonObject itemJson(const Item &item) const;
    QJsonObject usageJson() const;
    QString textOf(Item::Kind kind) const;

    QString m_id;
    OpenAiCreateParams m_params;
    OpenAiRunOptions m_options;
    QElapsedTimer m_age;
    double m_createdAt = 0;
    double m_completedAt = 0;
    Status m_status = Status::Queued;
    QJsonValue m_error;
    QJsonValue m_incompleteDetails;
    bool m_ended = false;
    bool m_started = false;
    bool m_paused = false;
    bool m_usage = false;
    QList<Item> m_items;
    QList<Step> m_plan;
    qsizetype m_next = 0;
    QList<OpenAiSimEvent> m_events;
    QStringList m_replyChunks;
    int m_outputTokens = 0;
    int m_reasoningTokens = 0;
    int m_streamConnections = 0;
    int m_httpFaultsServed = 0;
    QTimer *m_timer = nullptr;
};

} // namespace RunwatchSim
