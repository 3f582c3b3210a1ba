// SPDX-License-Identifier: GPL-3.0-or-later
#include "langgraphsimstream.h"

#include "langgraphsimrun.h"
#include "langgraphsimwire.h"
#include "server/httpconnection.h"

#include <QTimer>

namespace RunwatchSim {

LangGraphSimStream::LangGraphSimStream(HttpConnection *connection, LangGraphSimRun *run, bool faulted,
                                       const LangGraphStreamSettings &settings, QObject *parent)
    : SimStream(connection, run->options().streamFaults, faulted, parent)
    , m_run(run)
    , m_runId(run->id())
    , m_settings(settings)
{
    applyDrip();
    connect(run, &LangGraphSimRun::ended, this, &LangGraphSimStream::closeLater);
    // A deleted run (DELETE of the run or its thread) ends its streams at once.
    connect(run, &QObject::destroyed, this, [this] { end(); });
}

LangGraphSimStream::~LangGraphSimStream() = default;

void LangGraphSimStream::startLog(qsizetype first)
{
    m_next = first;
    connect(m_run, &LangGraphSimRun::eventAdded, this, &LangGraphSimStream::pump);
    pump();
    if (m_run && m_run->hasEnded())
        closeLater();
}

void LangGraphSimStream::startQueue()
{
    m_run->addQueueReader(this);
    if (m_run && m_run->hasEnded())
        closeLater();
}

void LangGraphSimStream::pump()
{
    if (isDone() || !m_run)
        return;
    const QList<LangGraphSimEvent> &events = m_run->events();
    while (m_next < events.size() && !isDone()) {
        write(events.at(m_next), m_next);
        ++m_next;
    }
}

void LangGraphSimStream::send(const LangGraphSimEvent &event, qint64 id)
{
    if (!isDone())
        write(event, id);
}

void LangGraphSimStream::write(const LangGraphSimEvent &event, qint64 id)
{
    QByteArray data = event.data;
    if (faulted() && faults().malformedAt == id)
        data.truncate(data.size() / 2); // unbalanced brackets: never valid JSON
    const QByteArray bytes = langGraphFrame(event.event, data, id);
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
    // A drop after the last event due: cut now rather than wait for an event that may never come.
    if (dropDue() && faults().dropMode != DropMode::MidEvent)
        drop();
}

void LangGraphSimStream::closeLater()
{
    if (m_closing || isDone())
        return;
    m_closing = true;
    // No end event: the server just closes, a little after the run stopped.
    QTimer::singleShot(qMax(0, m_settings.closeDelayMs), this, [this] { end(); });
}

void LangGraphSimStream::connectionFinished(bool wasDone)
{
    if (!wasDone)
        Q_EMIT clientGone();
}

} // namespace RunwatchSim
