// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One SSE connection on one simulated LangGraph run (GET …/runs/{r}/stream, or the stream of
// POST …/runs/stream). Frames are `event:`, `data:`, then `id:`, as the real server writes them.
// It reads the run's resumable log from a point on (the Last-Event-ID rules are the server's:
// langgraphsimendpoints.cpp), or takes its turn of the run's queue. There are no heartbeats and no
// end event: the connection closes closeDelayMs after the run stopped. Stream faults of this
// connection: drop after N events, malformed JSON at an event id, split writes, drip.

#include "server/simstream.h"

#include <QPointer>
#include <QString>

namespace RunwatchSim {

class LangGraphSimRun;
struct LangGraphSimEvent;

struct LangGraphStreamSettings
{
    int splitWrites = 0; // > 0: frames go out in pieces of this many bytes
    int closeDelayMs = 500;
};

class LangGraphSimStream final : public SimStream
{
    Q_OBJECT

public:
    // The response head must already be written; `faulted`: the run's stream faults hit this one.
    LangGraphSimStream(HttpConnection *connection, LangGraphSimRun *run, bool faulted,
                       const LangGraphStreamSettings &settings, QObject *parent = nullptr);
    ~LangGraphSimStream() override;

    // Writes the log from event `first` on, then every new event.
    void startLog(qsizetype first);
    // Registers as a reader of the run's queue.
    void startQueue();
    // A queued event handed to this reader (it is gone from the queue, written or not).
    void send(const LangGraphSimEvent &event, qint64 id);

    const QString &runId() const { return m_runId; }

Q_SIGNALS:
    // The client went away before the stream ended.
    void clientGone();

private:
    void pump();
    void write(const LangGraphSimEvent &event, qint64 id);
    void closeLater();
    void connectionFinished(bool wasDone) override;

    QPointer<LangGraphSimRun> m_run;
    QString m_runId;
    LangGraphStreamSettings m_settings;
    qsizetype m_next = 0;
    bool m_closing = false;
};

} // namespace RunwatchSim
