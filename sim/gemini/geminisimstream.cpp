// SPDX-License-Identifier: GPL-3.0-or-later
#include "geminisimstream.h"

#include "geminisimrun.h"
#include "server/httpconnection.h"

namespace RunwatchSim {

GeminiSimStream::GeminiSimStream(HttpConnection *connection, GeminiSimRun *run, qsizetype first, bool faulted,
                                 const GeminiStreamSettings &settings, QObject *parent)
    : SimStream(connection, run->options().streamFaults, faulted, parent)
    , m_run(run)
    , m_interactionId(run->id())
    , m_settings(settings)
    , m_next(first)
{}

GeminiSimStream::~GeminiSimStream() = default;

void GeminiSimStream::start()
{
    connect(m_run, &GeminiSimRun::eventAdded, this, &GeminiSimStream::pump);
    // A deleted interaction ends its streams at once, without [DONE].
    connect(m_run, &QObject::destroyed, this, [this] { end(); });
    applyDrip();
    pump();
}

void GeminiSimStream::send(const QByteArray &bytes)
{
    if (m_settings.splitWrites > 0) {
        // Every piece its own write (its own chunk): the client must join frames itself.
        qsizetype at = 0;
        for (; at + m_settings.splitWrites < bytes.size(); at += m_settings.splitWrites)
            writeRaw(bytes.mid(at, m_settings.splitWrites));
        writeEvent(bytes.mid(at));
    } else {
        writeEvent(bytes);
    }
}

void GeminiSimStream::pump()
{
    if (isDone())
        return;
    if (!connection() || !m_run) {
        end();
        return;
    }
    const QList<GeminiSimEvent> &events = m_run->events();
    while (m_next < events.size()) {
        if (m_settings.cutAfterDeltas > 0 && m_deltasWritten >= m_settings.cutAfterDeltas) {
            cutByService();
            return;
        }
        const GeminiSimEvent &event = events.at(m_next);
        QByteArray data = event.data;
        if (faulted() && faults().malformedAt == m_next)
            data.truncate(data.size() / 2); // unbalanced braces: never valid JSON
        const QByteArray bytes = sseFrame(event.type, data, -1, m_settings.lineEnding);
        if (dropDue()) {
            drop(bytes);
            return;
        }
        send(bytes);
        ++m_next;
        if (!event.eventId.isEmpty())
            ++m_deltasWritten;
        if (event.type == "done") {
            end();
            return;
        }
    }
    // A drop after the last event due: cut now rather than wait for an event that may never come.
    if (dropDue() && faults().dropMode != DropMode::MidEvent)
        drop();
}

void GeminiSimStream::cutByService()
{
    // What the service sends when it ends a long stream: the interaction goes on (protocol §2.5).
    m_cut = true;
    send(sseFrame(
        "error",
        R"({"error":{"message":"Deadline expired before operation could complete.","code":"gateway_timeout"},"event_type":"error"})",
        -1, m_settings.lineEnding));
    writeRaw(sseFrame("done", "[DONE]", -1, m_settings.lineEnding));
    end();
}

void GeminiSimStream::connectionFinished(bool wasDone)
{
    if (!wasDone)
        Q_EMIT clientGone();
}

} // namespace RunwatchSim
