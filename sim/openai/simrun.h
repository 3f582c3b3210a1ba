// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One simulated response: its options, its timer-driven event generator, every event it produced
// (kept for replay with starting_after) and the snapshot served by GET /v1/responses/{id}.

#include "simconfig.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

class QTimer;

namespace RunwatchSim {

// Options of one response: the global config overridden by the input text and the metadata.
struct RunOptions
{
    Scenario scenario = Scenario::Normal;
    int deltas = 8;
    int intervalMs = 20;
    int queuedMs = 20;
    int keepalives = 0;
    int failAfter = 4;
    qint64 hugeBytes = 4 << 20;
    QString reply;
    bool manual = false;
    CancelMode cancelMode = CancelMode::FailedEvent;
    bool sendDone = false;
    qint64 resumeMaxAgeMs = -1;
    StreamFaults streamFaults;
    std::optional<HttpFault> httpFault; // aimed at this response's requests
};

struct OptionError
{
    QString key;
    QString message;
};

// Later wins: config, `key=value` words of the input text, metadata. The scenario may also be the
// first word of the input text.
std::optional<OptionError> resolveRunOptions(const SimulatorConfig &config, const QString &inputText,
                                             const QJsonObject &metadata, RunOptions *options);

// Delta i of the default text: "tok<i> ".
QString tokenDelta(int index);
// The big delta of the "huge" scenario: 79 printable ASCII characters and a newline, repeated.
QString hugeText(qint64 bytes);

// The text of a request's `input` (string, or the text parts of an item array).
QString inputTextOf(const QJsonValue &input);

// What POST /v1/responses asked for.
struct CreateParams
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
};

struct SimEvent
{
    qint64 sequenceNumber = 0;
    QByteArray type;
    QByteArray data; // the JSON payload, compact
};

class SimRun final : public QObject
{
    Q_OBJECT

public:
    enum class Status { Queued, InProgress, Completed, Failed, Incomplete, Cancelled };
    enum class CancelOutcome { Cancelled, AlreadyCancelled, WasCompleted, WasFailed, WasIncomplete };

    SimRun(const QString &id, const CreateParams &params, const RunOptions &options,
           QObject *parent = nullptr);
    ~SimRun() override;

    // Emits response.created (and response.queued for background runs) at once, then paces on.
    void start();
    // Runs up to `steps` generator steps now, ignoring the pace. Returns how many ran.
    int advance(int steps);
    void setPaused(bool paused);
    CancelOutcome cancel();

    const QString &id() const { return m_id; }
    const CreateParams &params() const { return m_params; }
    const RunOptions &options() const { return m_options; }
    Status status() const { return m_status; }
    QString statusName() const;
    static QString statusName(Status status);
    // No further event will be generated (terminal event written, or stopped by a cancel).
    bool hasEnded() const { return m_ended; }
    const QList<SimEvent> &events() const { return m_events; }
    QJsonObject snapshot() const;
    QJsonArray inputItems() const;
    // output_text as the SDKs aggregate it: all output_text parts of all message items.
    QString outputText() const;
    QString reasoningText() const;
    QString functionArguments() const;
    qint64 ageMs() const { return m_age.elapsed(); }
    int remainingSteps() const { return int(m_plan.size() - m_next); }

    // Bookkeeping for the server.
    int openStreamConnection() { return ++m_streamConnections; }
    int streamConnections() const { return m_streamConnections; }
    // True when this request should get the response's own HTTP fault (counts it).
    bool takeHttpFault(Endpoint endpoint);

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
        enum class Kind { Message, Reasoning, FunctionCall };
        Kind kind = Kind::Message;
        QString id;
        QString status = QStringLiteral("in_progress");
        bool added = false;
        bool partAdded = false;
        QString text; // output_text, reasoning summary or function arguments
        QString callId;
        QString name;
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

    QString m_id;
    CreateParams m_params;
    RunOptions m_options;
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
    QList<SimEvent> m_events;
    QStringList m_replyChunks;
    int m_outputTokens = 0;
    int m_reasoningTokens = 0;
    int m_streamConnections = 0;
    int m_httpFaultsServed = 0;
    QTimer *m_timer = nullptr;
};

} // namespace RunwatchSim
