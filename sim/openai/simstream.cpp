// SPDX-License-Identifier: GPL-3.0-or-later
#include "simstream.h"

#include "simhttp.h"
#include "simrun.h"

#include <QTimer>

namespace RunwatchSim {

namespace {
constexpr qsizetype kEndlessChunk = 64 * 1024;
}

StreamSession::StreamSession(HttpConnection *connection, SimRun *run, qint64 startingAfter,
                             const StreamSettings &settings, QObject *parent)
    : QObject(parent)
    , m_connection(connection)
    , m_run(run)
    , m_responseId(run->id())
    , m_settings(settings)
    , m_nextSeq(qMax<qint64>(0, startingAfter + 1))
    , m_commentTimer(new QTimer(this))
{}

StreamSession::~StreamSession() = default;

void StreamSession::start()
{
    connect(m_connection, &HttpConnection::closed, this, &StreamSession::onConnectionClosed);
    connect(m_connection, &HttpConnection::responseCompleted, this, &StreamSession::onConnectionClosed);
    connect(m_connection, &HttpConnection::drained, this, [this] {
        if (m_endless) {
            feedEndlessLine();
        }
    });
    connect(m_run, &SimRun::eventAdded, this, &StreamSession::pump);
    connect(m_run, &SimRun::ended, this, &StreamSession::pump);
    connect(m_run, &QObject::destroyed, this, &StreamSession::endStream);
    if (m_settings.faultsActive && m_settings.faults.dripIntervalMs > 0) {
        m_connection->setDripInterval(m_settings.faults.dripIntervalMs);
    }
    if (m_settings.commentIntervalMs > 0) {
        connect(m_commentTimer, &QTimer::timeout, this, [this] {
            if (!m_done && m_connection) {
                m_connection->write(": keep-alive" + m_settings.lineEnding + m_settings.lineEnding);
            }
        });
        m_commentTimer->start(m_settings.commentIntervalMs);
    }
    pump();
}

QByteArray StreamSession::frame(const SimEvent &event) const
{
    QByteArray data = event.data;
    if (m_settings.faultsActive) {
        if (m_settings.faults.malformedAt == event.sequenceNumber) {
            data.truncate(data.size() / 2); // unbalanced braces: never valid JSON
        }
        if (m_settings.faults.invalidUtf8At == event.sequenceNumber) {
            // C3 28: a lead byte followed by a non-continuation byte.
            const QByteArray bad("\xC3\x28", 2);
            const qsizetype delta = data.indexOf("\"delta\":\"");
            if (delta >= 0) {
                data.insert(delta + 9, bad);
            } else if (data.endsWith('}')) {
                data.chop(1);
                data += ",\"x\":\"" + bad + "\"}";
            }
        }
    }
    const QByteArray &le = m_settings.lineEnding;
    return "event: " + event.type + le + "data: " + data + le + le;
}

void StreamSession::pump()
{
    if (m_done || m_endless) {
        return;
    }
    if (!m_connection || !m_run) {
        endStream();
        return;
    }
    const StreamFaults &faults = m_settings.faults;
    const bool dropArmed = m_settings.faultsActive && faults.dropAfterEvents >= 0;
    const QList<SimEvent> &events = m_run->events();
    while (m_nextSeq < events.size()) {
        const SimEvent &event = events.at(m_nextSeq);
        if (dropArmed && m_written >= faults.dropAfterEvents) {
            dropConnection(&event);
            return;
        }
        if (m_settings.faultsActive && faults.endlessLineAt == event.sequenceNumber) {
            startEndlessLine(event);
            return;
        }
        m_connection->write(frame(event));
        ++m_written;
        ++m_nextSeq;
    }
    if (dropArmed && m_written >= faults.dropAfterEvents
        && (faults.dropMode != DropMode::MidEvent || m_run->hasEnded())) {
        dropConnection(nullptr);
        return;
    }
    if (m_run->hasEnded()) {
        if (m_settings.sendDone) {
            m_connection->write("data: [DONE]" + m_settings.lineEnding + m_settings.lineEnding);
        }
        endStream();
    }
}

void StreamSession::endStream()
{
    if (m_done) {
        return;
    }
    m_done = true;
    m_commentTimer->stop();
    if (m_connection) {
        m_connection->endStream();
    }
}

void StreamSession::dropConnection(const SimEvent *next)
{
    m_done = true;
    m_commentTimer->stop();
    if (!m_connection) {
        return;
    }
    switch (m_settings.faults.dropMode) {
    case DropMode::Close:
        m_connection->drop(false);
        break;
    case DropMode::Reset:
        m_connection->drop(true);
        break;
    case DropMode::MidEvent:
        if (next) {
            const QByteArray bytes = frame(*next);
            m_connection->write(bytes.left(bytes.size() / 2));
        }
        m_connection->drop(false);
        break;
    }
}

void StreamSession::startEndlessLine(const SimEvent &event)
{
    m_endless = true;
    m_commentTimer->stop();
    m_connection->write("event: " + event.type + m_settings.lineEnding + "data: {\"type\":\"");
    feedEndlessLine();
}

void StreamSession::feedEndlessLine()
{
    if (!m_connection || m_done) {
        return;
    }
    if (m_endlessWritten >= m_settings.endlessLineMaxBytes) {
        // Nobody gave up on the line: stop before this turns into a memory test of our own.
        m_done = true;
        m_connection->drop(false);
        return;
    }
    // Keep about two chunks in flight so memory stays flat however fast the client reads.
    while (m_connection->pendingBytes() < 2 * kEndlessChunk
           && m_endlessWritten < m_settings.endlessLineMaxBytes) {
        m_connection->write(QByteArray(kEndlessChunk, 'a'));
        m_endlessWritten += kEndlessChunk;
    }
}

void StreamSession::onConnectionClosed()
{
    // Closed, or (persistent connection) our response is complete: either way this session is
    // over, and the connection may carry other exchanges that are none of its business.
    if (m_closed) {
        return;
    }
    m_closed = true;
    m_commentTimer->stop();
    if (m_connection) {
        m_connection->disconnect(this);
    }
    const bool early = !m_done && m_run && !m_run->hasEnded();
    m_done = true;
    if (early) {
        Q_EMIT clientGone();
    }
    Q_EMIT finished();
    deleteLater();
}

} // namespace RunwatchSim
