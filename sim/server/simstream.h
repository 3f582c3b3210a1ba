// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One event stream (an SSE response) as every simulator writes it: the connection, the stream
// faults that hit it, the events written so far, keep-alive comments, and its end — completed,
// cut by a fault, or closed by the client. Each protocol's stream derives from it and frames and
// paces its own events.

#include "simfaults.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QObject>
#include <QPointer>

class QTimer;

namespace RunwatchSim {

class HttpConnection;

// "id: N", "event: T" (each only when given), "data: D", then the blank line.
QByteArray sseFrame(QByteArrayView event, QByteArrayView data, qint64 id = -1,
                    QByteArrayView lineEnding = QByteArrayView("\n"));

class SimStream : public QObject
{
    Q_OBJECT

public:
    ~SimStream() override;

    // The connection is open and the stream has neither ended nor been cut.
    bool isOpen() const;
    int eventsWritten() const { return m_written; }

Q_SIGNALS:
    // The connection closed, or (persistent connection) the response is complete: the stream is
    // over and deletes itself afterwards.
    void finished();

protected:
    // The response head must be written already. `faulted`: `faults` apply to this connection.
    SimStream(HttpConnection *connection, const StreamFaults &faults, bool faulted, QObject *parent);

    HttpConnection *connection() const;
    const StreamFaults &faults() const { return m_faults; }
    bool faulted() const { return m_faulted; }
    // Ended, cut or closed: nothing more is written.
    bool isDone() const { return m_done; }

    // The drop-after fault's point is reached: the next event must not go out whole.
    bool dropDue() const;
    // One event, counted for the drop-after fault.
    void writeEvent(const QByteArray &frame);
    // Bytes that are no event: comments, "retry:", sentinels, parts of an event.
    void writeRaw(const QByteArray &bytes);
    // Cuts the connection as the drop mode says; MidEvent sends the first half of `nextFrame` first.
    void drop(const QByteArray &nextFrame = QByteArray());
    // Gives up on the stream: FIN after what was queued, whatever the drop mode.
    void closeConnection();
    // The body is complete (terminating chunk, or the close of a close-delimited body).
    void end();
    // A faulted connection with a drip interval sends its body one byte per interval from now on.
    void applyDrip();
    // `comment` (a whole SSE comment line and blank line) every `intervalMs` while the stream is open.
    void startComments(int intervalMs, const QByteArray &comment);
    void stopComments();

    // Once, when the connection closed or completed the response; `wasDone` says whether the
    // stream had ended (or been cut) itself before.
    virtual void connectionFinished(bool wasDone) { Q_UNUSED(wasDone) }

private:
    void cut(DropMode mode, const QByteArray &nextFrame);
    void onConnectionFinished();

    QPointer<HttpConnection> m_connection;
    StreamFaults m_faults;
    bool m_faulted = false;
    int m_written = 0;
    bool m_done = false;
    bool m_finished = false;
    QByteArray m_comment;
    QTimer *m_commentTimer = nullptr;
};

} // namespace RunwatchSim
