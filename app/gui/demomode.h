// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/connector.h"
#include "engine/runmanager.h"

#include <QMap>
#include <QObject>
#include <QPointer>
#include <QUrl>

#include <functional>
#include <optional>

namespace Runwatch {

class DemoSimulators;

// The embedded default: every connector's simulator in-process (DemoSimulators) and one transient
// connection to each, served by the real connectors (each connector's registry row describes its
// demo connection and runs: ConnectorDemo), with runs in every state so that a first launch shows
// the product working: one streaming with reasoning and a tool call, one completed, one failed, one
// cancelled, and one of each kind of wait — a question (A2A input-required), a two-step approval,
// a choice of options, a webhook and a timer (jobs), two tool outputs due before the run expires
// (Foundry, counting down), a review of two actions (LangGraph), a managed agent's tool call to
// confirm or approve (the agent session connectors, beside a finished turn each). Answering them in
// the Respond panel goes to the simulators like any answer goes to a service. Nothing here is
// saved: the connections are transient and the window uses a throw-away store while in demo mode.
class DemoMode final : public QObject
{
    Q_OBJECT
public:
    // The demo runs, in the order they are started (the newest is listed first); each
    // connector's registry row says which of them it shows (ConnectorDemo).
    using Seed = ConnectorDemo::Seed;

    explicit DemoMode(QObject *parent = nullptr);
    ~DemoMode() override;

    // The name of `connector`'s demo connection, e.g. "Demo OpenAI": short enough for the run
    // list's Connection column (its Backend column names the protocol). Empty without one.
    static QString connectionName(const QString &connector);

    // Starts the simulators. False (with *error) when they cannot listen.
    bool startSimulators(QString *error = nullptr);
    DemoSimulators *simulators() const { return m_sims; }
    // The status bar's note while the demo runs.
    QString modeNote() const;
    // The demo connections, one per connector whose row has a demo (valid after startSimulators()).
    QList<Connection> connections() const;

    // Starts the demo runs on `manager` (the connections must be added already), a few
    // milliseconds apart; seeded() follows the last one.
    void seed(RunManager *manager);
    static QList<Seed> seeds();
    // Where each demo run settles while nobody touches it: its status and, for the waits, the
    // kind of input (the streaming run is InProgress for about half a minute, then Completed).
    static RunStatus intendedStatus(Seed seed);
    static std::optional<InputReason> intendedReason(Seed seed);
    QString runId(Seed seed) const { return m_ids.value(seed); }
    QString streamingRunId() const { return runId(Seed::Streaming); }
    QString approvalRunId() const { return runId(Seed::Approval); }
    QStringList seededRunIds() const { return m_seeded; }

Q_SIGNALS:
    void seeded();

private:
    void seedNext();
    // Calls `then` once, the first time `ready` holds for the run after a change.
    void when(RunManager *manager, const QString &runId, std::function<bool(const Run &)> ready,
              std::function<void(const Run &)> then);

    DemoSimulators *m_sims = nullptr;
    QMap<Seed, QString> m_ids;
    QStringList m_seeded;
    QList<Seed> m_plan;
    QPointer<RunManager> m_seedManager;
};

} // namespace Runwatch
