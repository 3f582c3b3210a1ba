// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One simulated A2A task: its turns (the steps of its scenario, then of each answer to
// INPUT_REQUIRED / AUTH_REQUIRED), its state, artifacts and history, the streams that follow it and
// the blocking requests that wait for the end of a turn.

#include "a2asimoptions.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

#include <functional>

namespace RunwatchSim {

class A2aSimStream;

class A2aSimRun final : public QObject
{
    Q_OBJECT

public:
    // One step of a turn: a status update, an artifact chunk, or an error on the streams.
    struct Step
    {
        enum class Type { Status, Chunk, StreamError };
        Type type = Type::Status;
        QString state;
        QString text; // status message, chunk text or error message
        QString artifactId = QStringLiteral("result-1");
        QString artifactName = QStringLiteral("result.txt");
        bool append = false;
        bool lastChunk = false;
    };

    A2aSimRun(QString id, QString contextId, A2aRunOptions options, const QJsonObject &userMessage,
              QObject *parent);
    ~A2aSimRun() override;

    const QString &id() const { return m_id; }
    const QString &contextId() const { return m_contextId; }
    const QString &state() const { return m_state; }
    const QString &timestamp() const { return m_timestamp; }
    const A2aRunOptions &options() const { return m_options; }
    bool isTerminal() const;
    bool isInterrupted() const;
    int streamConnections() const { return m_streamConnections; }
    int eventsGenerated() const { return m_events; }
    // All artifact text, artifacts separated by a blank line.
    QString text() const;

    // 1.0 Task. historyLength: -1 all, 0 none, n the last n.
    QJsonObject snapshot(int historyLength = -1, bool includeArtifacts = true) const;

    // A stream on this task: it gets every later event until the turn ends.
    void attach(A2aSimStream *stream);
    int nextConnectionIndex() const { return m_streamConnections + 1; }

    void start();
    // An answer to INPUT_REQUIRED / AUTH_REQUIRED: a new turn on the same task (§7).
    void answer(const QJsonObject &message);
    // Whether a message with this task's id is taken while it works (the listen scenario).
    bool takesMessagesWhileWorking() const;
    // A message to the working task: kept in its history and folded into the answer that is
    // still streaming (takesMessagesWhileWorking()).
    void fold(const QJsonObject &message);
    // The text of the task's first user message (its prompt).
    const QString &prompt() const { return m_prompt; }
    // The prompts of the earlier tasks in this task's context, oldest first (multi-turn memory);
    // set before start(). The recall scenario answers from them.
    void setEarlierTurns(const QStringList &prompts);
    // Called once when the current turn ends (terminal or waiting for the client).
    void addWaiter(std::function<void()> done);
    void cancel();

Q_SIGNALS:
    void stateChanged(const QString &id, const QString &state);

private:
    struct Artifact
    {
        QString id;
        QString name;
        QJsonArray parts;
    };

    void scheduleNext();
    QJsonObject agentMessage(const QString &text) const;
    void setStatus(const QString &state, const QString &text);
    QJsonObject statusObject() const;
    QJsonObject statusEvent() const;
    void broadcast(const QJsonObject &response);
    void finishTurn();
    void step();

    QString m_id;
    QString m_contextId;
    QString m_prompt;
    A2aRunOptions m_options;
    QString m_state;
    QString m_timestamp;
    QJsonObject m_statusMessage;
    QList<Artifact> m_artifacts;
    QJsonArray m_history;
    QList<Step> m_steps;
    qsizetype m_next = 0;
    QTimer m_timer;
    QList<QPointer<A2aSimStream>> m_streams;
    QList<std::function<void()>> m_waiters;
    int m_streamConnections = 0;
    int m_events = 0;
};

} // namespace RunwatchSim
