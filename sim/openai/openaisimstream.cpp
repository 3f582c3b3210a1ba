// SPDX-License-Identifier: GPL-3.0-or-later
#include "openaisimstream.h"

#include "openaisimrun.h"
#include "server/httpconnection.h"

namespace RunwatchSim {

namespace {
constexpr qsizetype kEndlessChunk = 64 * 1024;
}

OpenAiSimStream::OpenAiSimStream(HttpConnection *connection, OpenAiSimRun *run, qint64 startingAfter,
                                 bool faulted, const OpenAiStreamSettings &settings, QObject *parent)
    : SimStream(connection, run->options().streamFaults, faulted, parent)
    , m_run(run)
    , m_responseId(run->id())
    , m_settings(settings)
    , m_nextSeq(qMax<qint64>(0, startingAfter + 1))
{}

OpenAiSimStream::~OpenAiSimStream() = default;

void OpenAiSimStream::start()
{
    if (connection()) {
        connect(connection(), &HttpConnection::drained, this, [this] {
            if (m_endless)
                feedEndlessLine();
        });
    }
    connect(m_run, &OpenAiSimRun::eventAdded, this, &OpenAiSimStream::pump);
    connect(m_run, &OpenAiSimRun::ended, this, &OpenAiSimStream::pump);
    connect(m_run, &QObject::destroyed, this, [this] { end(); });
    applyDrip();
    startComments(m_settings.commentIntervalMs,
                  ": keep-alive" + m_settings.lineEnding + m_settings.lineEnding);
    pump();
}

QByteArray OpenAiSimStream::frame(const OpenAiSimEvent &event) const
{
    QByteArray data = event.data;
    if (faulted()) {
        if (faults().malformedAt == event.sequenceNumber)
            data.truncate(data.size() / 2); // unbalanced braces: never valid JSON
        if (faults().invalidUtf8At == event.sequenceNumber) {
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
    return sseFrame(event.type, data, -1, m_settings.lineEnding);
}

void OpenAiSimStream::pump()
{
    if (isDone() || m_endless)
        return;
    if (!connection() || !m_run) {
        end();
        return;
    }
    const QList<OpenAiSimEvent> &events = m_run->events();
    while (m_nextSeq < events.size()) {
        const OpenAiSimEvent &event = events.at(m_nextSeq);
        if (dropDue()) {
            drop(frame(event));
            return;
        }
        if (faulted() && faults().endlessLineAt == event.sequenceNumber) {
            startEndlessLine(event);
            return;
        }
        writeEvent(frame(event));
        ++m_nextSeq;
    }
    // Cut at the drop point at once; "mid" waits for the event it cuts in half, unless none follows.
    if (dropDue() && (faults().dropMode != DropMode::MidEvent || m_run->hasEnded())) {
        drop();
        return;
    }
    if (m_run->hasEnded()) {
        if (m_settings.sendDone)
            writeRaw("data: [DONE]" + m_settings.lineEnding + m_settings.lineEnding);
        end();
    }
}

void OpenAiSimStream::startEndlessLine(const OpenAiSimEvent &event)
{
    m_endless = true;
    stopComments();
    writeRaw("event: " + event.type + m_settings.lineEnding + "data: {\"type\":\"");
    feedEndlessLine();
}

void OpenAiSimStream::feedEndlessLine()
{
    if (!connection() || isDone())
        return;
    if (m_endlessWritten >= m_settings.endlessLineMaxBytes) {
        // Nobody gave up on the line: stop before this turns into a memory test of our own.
        closeConnection();
        return;
    }
    // Keep about two chunks in flight so memory stays flat however fast the client reads.
    while (connection()->pendingBytes() < 2 * kEndlessChunk
           && m_endlessWritten < m_settings.endlessLineMaxBytes) {
        writeRaw(QByteArray(kEndlessChunk, 'a'));
        m_endlessWritten += kEndlessChunk;
    }
}

void OpenAiSimStream::connectionFinished(bool wasDone)
{
    if (!wasDone && m_run && !m_run->hasEnded())
        Q_EMIT clientGone();
}

} // namespace RunwatchSim
