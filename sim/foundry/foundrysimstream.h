// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One SSE connection on one simulated Foundry run: writes the run's events from the point where
// its request came in (create, or a submit with stream:true), tails new ones and ends after the
// next `done` event — after the terminal event, or after thread.run.requires_action. There is no
// replay: the protocol cannot resume a stream. Stream faults of this connection: drop after N
// events, malformed JSON at the Nth event of the connection, split writes, drip.

#include "server/simstream.h"

#include <QByteArray>
#include <QPointer>
#include <QString>

namespace RunwatchSim {

class FoundrySimRun;

struct FoundryStreamSettings
{
    QByteArray lineEnding = QByteArrayLiteral("\n");
    int splitWrites = 0; // > 0: frames go out in pieces of this many bytes
};

class FoundrySimStream final : public SimStream
{
    Q_OBJECT

public:
    // The response head must already be written; `faulted`: the run's stream faults hit this one.
    FoundrySimStream(HttpConnection *connection, FoundrySimRun *run, int firstEvent, bool faulted,
                     const FoundryStreamSettings &settings, QObject *parent = nullptr);
    ~FoundrySimStream() override;

    void start();
    const QString &runId() const { return m_runId; }

Q_SIGNALS:
    // The client went away before the stream's `done`.
    void clientGone();

private:
    void pump();
    QByteArray frame(const QByteArray &name, QByteArray data) const;
    void connectionFinished(bool wasDone) override;

    QPointer<FoundrySimRun> m_run;
    QString m_runId;
    FoundryStreamSettings m_settings;
    int m_next = 0;
};

} // namespace RunwatchSim
