// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One SSE connection on one response: replays the stored events after `starting_after`, tails new
// ones, closes after the terminal event, and applies the stream faults of this connection.

#include "simconfig.h"

#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QString>

class QTimer;

namespace RunwatchSim {

class HttpConnection;
class SimRun;
struct SimEvent;

struct StreamSettings
{
    StreamFaults faults;
    bool faultsActive = false; // this connection is one of the faulted ones
    QByteArray lineEnding = QByteArrayLiteral("\n");
    bool sendDone = false;
    int commentIntervalMs = 0;
    qint64 endlessLineMaxBytes = 64 << 20;
};

class StreamSession final : public QObject
{
    Q_OBJECT

public:
    StreamSession(HttpConnection *connection, SimRun *run, qint64 startingAfter,
                  const StreamSettings &settings, QObject *parent = nullptr);
    ~StreamSession() override;

    // The response head must already be written.
    void start();
    const QString &responseId() const { return m_responseId; }
    int eventsWritten() const { return m_written; }

Q_SIGNALS:
    // The client went away before the response ended.
    void clientGone();
    // The response is complete or the connection closed; the session deletes itself afterwards.
    void finished();

private:
    void pump();
    QByteArray frame(const SimEvent &event) const;
    void endStream();
    void dropConnection(const SimEvent *next);
    void startEndlessLine(const SimEvent &event);
    void feedEndlessLine();
    void onConnectionClosed();

    QPointer<HttpConnection> m_connection;
    QPointer<SimRun> m_run;
    QString m_responseId;
    StreamSettings m_settings;
    qint64 m_nextSeq = 0;
    int m_written = 0;
    bool m_done = false;
    bool m_closed = false;
    bool m_endless = false;
    qint64 m_endlessWritten = 0;
    QTimer *m_commentTimer = nullptr;
};

} // namespace RunwatchSim
