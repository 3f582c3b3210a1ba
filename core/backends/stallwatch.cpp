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
    if (!m_checking)
        arm();
}

void StallWatch::unwatch(SseRunStream *stream)
{
    if (!m_deadlines.remove(stream) || m_checking)
        return;
    if (m_deadlines.isEmpty()) {
        delete this; // the thread's last stream went
        return;
    }
    arm();
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
        if (next < 0) {
            m_deadlines.remove(stream.data());
        } else if (m_deadlines.contains(stream.data())) {
            m_deadlines[stream.data()] = next;
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
    const qint64 first = *std::min_element(m_deadlines.cbegin(), m_deadlines.cend());
    const qint64 waitMs = std::clamp<qint64>(first - nowMs(), 0, std::numeric_limits<int>::max());
    m_timer.start(int(waitMs));
}

} // namespace Runwatch
