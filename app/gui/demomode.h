// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engine/runmanager.h"

#include <QObject>
#include <QPointer>
#include <QUrl>

class QThread;

namespace RunwatchSim {
class OpenAiSimulator;
}

namespace Runwatch {

// The embedded default: the OpenAI simulator in-process (on its own thread, on loopback) and the
// demo agent, with a few runs in different states so a first launch shows the product working:
// one streaming with reasoning and a tool call, one completed, one failed, two waiting for the
// operator and one cancelled. Nothing here is saved: the connections are transient and the
// window uses a throw-away store while in demo mode.
class DemoMode final : public QObject
{
    Q_OBJECT
public:
    explicit DemoMode(QObject *parent = nullptr);
    ~DemoMode() override;

    static QString localDemoName(); // "Local demo" (OpenAI simulator)
    static QString demoAgentName(); // "Demo agent" (input-required runs)

    // Starts the simulator thread and server. False (with *error) when it cannot listen.
    bool startSimulator(QString *error = nullptr);
    QUrl simulatorUrl() const { return m_url; }
    // The two demo connections (valid after startSimulator()).
    QList<Connection> connections() const;

    // Starts the demo runs on `manager` (the connections must be added already), a few
    // milliseconds apart; seeded() follows the last one.
    void seed(RunManager *manager);
    QString streamingRunId() const { return m_streaming; }
    QString approvalRunId() const { return m_approval; }
    QStringList seededRunIds() const { return m_seeded; }

Q_SIGNALS:
    void seeded();

private:
    enum class Seed { Completed, Failed, Cancelled, Options, Approval, Streaming };
    void seedNext();
    void whenIdentified(RunManager *manager, const QString &runId, std::function<void(const QString &)> then);
    void advanceToEnd(const QString &remoteId);

    QThread *m_thread = nullptr;
    RunwatchSim::OpenAiSimulator *m_sim = nullptr; // lives in m_thread
    QUrl m_url;
    QString m_streaming;
    QString m_approval;
    QStringList m_seeded;
    QList<std::pair<Seed, QString>> m_plan;
    QPointer<RunManager> m_seedManager;
};

} // namespace Runwatch
