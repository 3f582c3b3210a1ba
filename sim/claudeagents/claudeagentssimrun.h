// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One simulated session (agent-sessions.md §2.3–2.5): its durable event log, its status, and the
// turns its user messages start, played step by step on a timer as the scenario of each message
// says (claudeagentssimoptions.h). Live frames (the log's events as they are saved, and the
// previews of agent.message that never reach the log) go out through frame() to the session's
// streams; the log is read through log().

#include "claudeagentssimoptions.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QTimer>

#include <functional>

namespace RunwatchSim {

// One turn as the simulator played it, for assertions.
struct ClaudeAgentsSimTurn
{
    QString messageId; // the user.message that started it
    QString prompt;
    ClaudeAgentsTurnOptions options;
    QStringList outputs;      // the texts of its saved agent.message events
    QString stopReason;       // how it ended (end_turn, retries_exhausted, …); empty while it runs
    bool interrupted = false; // a user.interrupt ended it
    QString denyMessage;      // a deny's message, as the tool result carried it
    QString toolResult;       // a custom tool's result, as the agent read it
};

class ClaudeAgentsSimSession final : public QObject
{
    Q_OBJECT

public:
    ClaudeAgentsSimSession(QString id, ClaudeAgentsSimAgent agent, QString environmentId, QString title,
                           QJsonObject metadata, const ClaudeAgentsSimConfig &config,
                           QObject *parent = nullptr);
    ~ClaudeAgentsSimSession() override;

    const QString &id() const { return m_id; }
    const ClaudeAgentsSimAgent &agent() const { return m_agent; }
    QString status() const { return m_status; }
    QJsonObject json() const;
    // The durable log, oldest first.
    const QJsonArray &log() const { return m_log; }
    const QList<ClaudeAgentsSimTurn> &turns() const { return m_turns; }
    // Whether it ran when it was deleted (a client must interrupt running work first).
    bool deletedWhileRunning() const { return m_deletedWhileRunning; }
    int streamConnections() const { return m_streamConnections; }
    int openStreamConnection() { return ++m_streamConnections; }

    // POST …/events: the events checked as a whole, then applied in order; the echo ({data}) or a
    // refusal (status, message).
    struct Sent
    {
        QJsonObject reply;
        int status = 200;
        QString message;
    };
    Sent send(const QJsonArray &events);
    // Deleted: session.deleted goes out, the timer stops.
    void remove();

Q_SIGNALS:
    // One frame of the live stream: `preview` frames go only to streams that asked for them.
    void frame(const QByteArray &type, const QByteArray &json, bool preview);
    void statusChanged(const QString &status);
    void turnEnded(int index);
    void deleted();

private:
    using Step = std::function<void()>;

    // A saved event: id and processed_at added, appended to the log, sent live.
    QString save(QJsonObject event, QString id = {});
    void preview(const QJsonObject &body);
    void setStatus(const QString &status);
    void startTurn(const QJsonObject &message);
    void planTurn(ClaudeAgentsSimTurn &turn);
    // One model request: its preview, the saved message, its end with usage. `cut`: the request
    // fails after `deltas` deltas, no message saved.
    void planRequest(const QString &text, const QStringList &deltas, bool cut = false);
    QStringList deltasOf(const ClaudeAgentsTurnOptions &options, int from, int count) const;
    void planIdle(const QString &reason, const QJsonArray &eventIds = {});
    void planAfterAnswer(const QJsonObject &answer);
    void step();
    void endTurn(const QString &reason);
    void interrupt();
    ClaudeAgentsSimTurn *currentTurn();

    QString m_id;
    ClaudeAgentsSimAgent m_agent;
    QString m_environmentId;
    QString m_title;
    QJsonObject m_metadata;
    ClaudeAgentsSimConfig m_config;
    QString m_created;
    QString m_status = QStringLiteral("idle");
    QJsonArray m_log;
    QList<ClaudeAgentsSimTurn> m_turns;
    QList<QJsonObject> m_queued; // user messages sent while a turn runs: the next turns
    QList<Step> m_plan;
    QTimer m_timer;
    QStringList m_pending;    // the event ids the session waits on
    QString m_openRequest;    // the span.model_request_start of the request in flight
    QString m_openMessage;    // the agent.message id its preview shows
    qint64 m_inputTokens = 0; // the session's usage so far
    qint64 m_outputTokens = 0;
    bool m_deletedWhileRunning = false;
    bool m_deleted = false;
    int m_streamConnections = 0;
};

} // namespace RunwatchSim
