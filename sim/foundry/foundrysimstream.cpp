// SPDX-License-Identifier: GPL-3.0-or-later
#include "foundrysimstream.h"

#include "foundrysimrun.h"
#include "server/httpconnection.h"

namespace RunwatchSim {

FoundrySimStream::FoundrySimStream(HttpConnection *connection, FoundrySimRun *run, int firstEvent,
                                   bool faulted, const FoundryStreamSettings &settings, QObject *parent)
    : SimStream(connection, run->options().streamFaults, faulted, parent)
    , m_run(run)
    , m_runId(run->id())
    , m_settings(settings)
    , m_next(firstEvent)
{}

FoundrySimStream::~FoundrySimStream() = default;

void FoundrySimStream::start()
{
    connect(m_run, &FoundrySimRun::eventAdded, this, &FoundrySimStream::pump);
    connect(m_run, &QObject::destroyed, this, [this] { end(); });
    applyDrip();
    pump();
}

QByteArray FoundrySimStream::frame(const QByteArray &name, QByteArray data) const
{
    if (faulted() && faults().malformedAt == eventsWritten())
        data.truncate(data.size() / 2); // unbalanced braces: never valid JSON
    return sseFrame(name, data, -1, m_settings.lineEnding);
}

void FoundrySimStream::pump()
{
    if (isDone())
        return;
    if (!connection() || !m_run) {
        end();
        return;
    }
    const QList<FoundrySimEvent> &events = m_run->events();
    while (m_next < events.size()) {
        const FoundrySimEvent &event = events.at(m_next);
        const QByteArray bytes = frame(event.name, event.data);
        if (dropDue()) {
            drop(bytes);
            return;
        }
        if (m_settings.splitWrites > 0) {
            // Every piece its own write (its own chunk): the client must join frames itself.
            qsizetype at = 0;
            for (; at + m_settings.splitWrites < bytes.size(); at += m_settings.splitWrites)
                writeRaw(bytes.mid(at, m_settings.splitWrites));
            writeEvent(bytes.mid(at));
        } else {
            writeEvent(bytes);
        }
        ++m_next;
        if (event.name == "done") {
            end();
            return;
        }
    }
    if (dropDue() && faults().dropMode != DropMode::MidEvent)
        drop();
}

void FoundrySimStream::connectionFinished(bool wasDone)
{
    if (!wasDone)
        Q_EMIT clientGone();
}

} // namespace RunwatchSim
