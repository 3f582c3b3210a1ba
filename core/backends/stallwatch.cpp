// SPDX-License-Identifier: GPL-3.0-or-later
#include "stallwatch.h"

#include "sserunstream.h"

#include <QElapsedTimer>
#include <QPointer>

#include <algorithm>
#include <limits>

namespace Runwatch {

namespace {
thread_local StallWatch *t_watch = nullptr;

qint64 nowMs()
{
    QElapsedTimer clock;
    clock.start();
    return clock.msecsSinceReference();
}
} // namespace

StallWatch::StallWatch()
    : m_timer(this)
{
    m_timer.setSingleShot(true);
    m_timer.setObjectName(QStringLiteral("stallWatch"));
    connect(&m_timer, &QTimer::timeout, this, &StallWatch::check);
}

StallWatch::~StallWatch()
{
    t_watch = nullptr;
}

StallWatch &StallWatch::local()
{
    if (!t_watch)
        t_watch = new StallWatch;
    return *t_watch;
}

void StallWatch::watch(SseRunStream *stream, qint64 deadline)
{
    m_deadlines.insert(stream, deadline);
    // Only an earlier deadline moves the timer: a thousand streams starting together do not
    // look for the earliest of all a thousand times.
    if (!m_checking && (!m_timer.isActive() || deadline < m_armedFor))
        armFor(deadline);
}

void StallWatch::unwatch(SseRunStream *stream)
{
    if (!m_deadlines.remove(stream) || m_checking)
        return;
    // The timer may stay for a deadline that went: firing, it finds nothing due and looks for the
    // next one then.
    if (m_deadlines.isEmpty())
        delete this; // the thread's last stream went
}

void StallWatch::check()
{
    // The streams due, taken first: ending one as stalled calls out (its finished signal), and
    // what is called may delete streams, or start and watch new ones.
    const qint64 now = nowMs();
    QList<QPointer<SseRunStream>> due;
    for (auto it = m_deadlines.cbegin(); it != m_deadlines.cend(); ++it) {
        if (it.value() <= now)
            due << it.key();
    }
    m_checking = true;
    for (const QPointer<SseRunStream> &stream : std::as_const(due)) {
        if (!stream || !m_deadlines.contains(stream.data()))
            continue;
        const qint64 next = stream->checkStall();
        if (!stream)
            continue;
        const auto entry = m_deadlines.find(stream.data());
        if (entry == m_deadlines.end())
            continue;
        if (next < 0) {
            m_deadlines.erase(entry);
        } else {
            *entry = next;
        }
    }
    m_checking = false;
    // Not deleted here, inside its own timer's signal, when the last stream went meanwhile: it
    // waits for the thread's next stream, stopped.
    arm();
}

void StallWatch::arm()
{
    if (m_deadlines.isEmpty()) {
        m_timer.stop();
        return;
    }
    armFor(*std::min_element(m_deadlines.cbegin(), m_deadlines.cend()));
}

void StallWatch::armFor(qint64 deadline)
{
    m_armedFor = deadline;
    m_timer.start(int(std::clamp<qint64>(deadline - nowMs(), 0, std::numeric_limits<int>::max())));
}

} // namespace Runwatch
