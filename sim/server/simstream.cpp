// SPDX-License-Identifier: GPL-3.0-or-later
#include "simstream.h"

#include "httpconnection.h"

#include <QTimer>

namespace RunwatchSim {

QByteArray sseFrame(QByteArrayView event, QByteArrayView data, qint64 id, QByteArrayView lineEnding)
{
    QByteArray frame;
    if (id >= 0)
        frame.append("id: ").append(QByteArray::number(id)).append(lineEnding);
    if (!event.isEmpty())
        frame.append("event: ").append(event).append(lineEnding);
    frame.append("data: ").append(data).append(lineEnding).append(lineEnding);
    return frame;
}

SimStream::SimStream(HttpConnection *connection, const StreamFaults &faults, bool faulted, QObject *parent)
    : QObject(parent)
    , m_connection(connection)
    , m_faults(faults)
    , m_faulted(faulted)
    , m_commentTimer(new QTimer(this))
{
    connect(m_commentTimer, &QTimer::timeout, this, [this] {
        if (isOpen())
            m_connection->write(m_comment);
    });
    if (m_connection) {
        connect(m_connection, &HttpConnection::closed, this, &SimStream::onConnectionFinished);
        connect(m_connection, &HttpConnection::responseCompleted, this, &SimStream::onConnectionFinished);
    }
}

SimStream::~SimStream() = default;

HttpConnection *SimStream::connection() const
{
    return m_connection;
}

bool SimStream::isOpen() const
{
    return !m_done && m_connection && m_connection->isOpen();
}

bool SimStream::dropDue() const
{
    return m_faulted && m_faults.dropAfterEvents >= 0 && m_written >= m_faults.dropAfterEvents;
}

void SimStream::writeEvent(const QByteArray &frame)
{
    if (m_connection)
        m_connection->write(frame);
    ++m_written;
}

void SimStream::writeRaw(const QByteArray &bytes)
{
    if (m_connection)
        m_connection->write(bytes);
}

void SimStream::drop(const QByteArray &nextFrame)
{
    cut(m_faults.dropMode, nextFrame);
}

void SimStream::closeConnection()
{
    cut(DropMode::Close, QByteArray());
}

void SimStream::cut(DropMode mode, const QByteArray &nextFrame)
{
    m_done = true;
    m_commentTimer->stop();
    if (!m_connection)
        return;
    switch (mode) {
    case DropMode::Close:
        m_connection->drop(false);
        break;
    case DropMode::Reset:
        m_connection->drop(true);
        break;
    case DropMode::MidEvent:
        m_connection->write(nextFrame.left(nextFrame.size() / 2));
        m_connection->drop(false);
        break;
    }
}

void SimStream::end()
{
    if (m_done)
        return;
    m_done = true;
    m_commentTimer->stop();
    if (m_connection)
        m_connection->endStream();
}

void SimStream::applyDrip()
{
    if (m_faulted && m_faults.dripIntervalMs > 0 && m_connection)
        m_connection->setDripInterval(m_faults.dripIntervalMs);
}

void SimStream::startComments(int intervalMs, const QByteArray &comment)
{
    if (intervalMs <= 0)
        return;
    m_comment = comment;
    m_commentTimer->start(intervalMs);
}

void SimStream::stopComments()
{
    m_commentTimer->stop();
}

void SimStream::onConnectionFinished()
{
    // Closed, or (persistent connection) this response is complete: either way the stream is over,
    // and the connection may carry other exchanges that are none of its business.
    if (m_finished)
        return;
    m_finished = true;
    m_commentTimer->stop();
    if (m_connection)
        m_connection->disconnect(this);
    const bool wasDone = m_done;
    m_done = true;
    connectionFinished(wasDone);
    Q_EMIT finished();
    deleteLater();
}

} // namespace RunwatchSim
