// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One simulated session of the OpenAI Agents API (agent-sessions.md §1.3–1.7): its turns, its
// saved items, its status and required actions, played step by step on a timer as the scenario
// of each message says (openaiagentssimconfig.h). Every live event (with its event_id) goes out
// through eventSent() to the session's streams (openaiagentssimstream.h), which replay nothing;
// the history is read through turnsJson() and items().
#include "openaiagentssimconfig.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <functional>

namespace RunwatchSim {

// One turn as the simulator played it, for assertions.
struct OpenAiAgentsSimTurn
{
    QString id;
    QString prompt;
    OpenAiAgentsTurnOptions options;
    QStringList outputs; // the texts of its completed assistant messages (the turn's answer)
    QString status = QStringLiteral("queued");
    QString errorCode;
    QString errorMessage;
    QString decision;   // an approval's decision, a form's action
    QString toolOutput; // a tool result's output, a form's username
    qint64 createdAt = 0;
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    qint64 reasoningTokens = 0;
};

class OpenAiAgentsSimSession final : public QObject
{
    Q_OBJECT

public:
    OpenAiAgentsSimSession(QString id, OpenAiAgentsSimAgent agent, QJsonObject environment,
                           QJsonObject metadata, const OpenAiAgentsSimConfig &config,
                           QObject *parent = nullptr);
    ~OpenAiAgentsSimSession() override;

    const QString &id() const { return m_id; }
    const OpenAiAgentsSimAgent &agent() const { return m_agent; }
    const QString &status() const { return m_status; }
    QJsonObject json() const;
    QJsonArray turnsJson() const;
    QJsonObject turnJson(const OpenAiAgentsSimTurn &turn) const;
    const QList<OpenAiAgentsSimTurn> &turns() const { return m_turns; }
    const QList<QJsonObject> &items() const { return m_items; }
    int streamConnections() const { return m_streamConnections; }
    int openStreamConnection() { return ++m_streamConnections; }
    bool running() const;

    // The create call's first event (agent.session.created), then its input's turn.
    void begin(const QString &input);
    // POST …/events: checked as a whole, then applied in order; 202 or a refusal. A repeated
    // Idempotency-Key is accepted again and applied once.
    struct Sent
    {
        int status = 202;
        QString code;
        QString message;
    };
    Sent send(const QJsonArray &events, const QByteArray &idempotencyKey);
    // The session's current state as one event for a new stream connection (no replay).
    QByteArray stateEvent() const;
    void remove();

Q_SIGNALS:
    void eventSent(const QByteArray &type, const QByteArray &json);
    void statusChanged(const QString &status);
    void turnEnded(int index);
    void deleted();

private:
    using Step = std::function<void()>;

    // A new id with `prefix` (turn_, msg_, evt_ …), unique in this process.
    static QString newId(QStringView prefix);

    QJsonObject emitEvent(const QString &type, QJsonObject body);
    void setStatus(const QString &status, const QString &error = {});
    void startTurn(const QString &prompt);
    // openaiagentssimplan.cpp: the steps of a turn's scenario.
    void planTurn(OpenAiAgentsSimTurn &turn);
    // An assistant message item of `deltas` deltas (from `from`); `cut`: never done.
    void planAnswer(const QStringList &deltas, const QString &phase = QStringLiteral("final_answer"),
                    bool cut = false);
    void planItem(const QJsonObject &item);
    void planRequire(const QJsonObject &action);
    void planEnd(const QString &status, const QString &code = {}, const QString &message = {});
    void endTurn(const QString &status, const QString &code, const QString &message);
    QStringList deltasOf(const OpenAiAgentsTurnOptions &options, int from, int count) const;
    void resume(const QString &what, const QJsonObject &answer);
    void cancelTurn();
    void step();
    OpenAiAgentsSimTurn *currentTurn();

    QString m_id;
    OpenAiAgentsSimAgent m_agent;
    QJsonObject m_environment;
    QJsonObject m_metadata;
    OpenAiAgentsSimConfig m_config;
    qint64 m_createdAt = 0;
    QString m_status = QStringLiteral("idle");
    QString m_error;
    QJsonArray m_requiredActions;
    QList<OpenAiAgentsSimTurn> m_turns;
    QList<QJsonObject> m_items;
    QStringList m_queued;
    QList<Step> m_plan;
    QTimer m_timer;
    QSet<QByteArray> m_keys;
    qint64 m_inputTokens = 0;
    qint64 m_outputTokens = 0;
    bool m_refusedOnce = false;
    bool m_deleted = false;
    int m_streamConnections = 0;
};

} // namespace RunwatchSim
