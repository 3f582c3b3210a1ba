// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QEventLoop>
#include <QTimer>

#include <chrono>

namespace Runwatch {

// Turns this thread's event loop until `done()` holds or `timeout` passes (negative: no limit).
// Returns done(). The thread sleeps between events — processEvents(flags, maxtime) would drop
// WaitForMoreEvents and make this a busy spin (it did: most of a long CLI follow's CPU went to
// empty polls). Whatever can make done() true arrives as an event; a timer is the event at the
// limit, re-armed should a coarse timer fire a little early.
template<typename Pred>
bool runEventLoopUntil(Pred done, std::chrono::milliseconds timeout)
{
    const QDeadlineTimer deadline
        = timeout.count() < 0 ? QDeadlineTimer(QDeadlineTimer::Forever) : QDeadlineTimer(timeout);
    QTimer wakeUp;
    wakeUp.setSingleShot(true);
    while (!done()) {
        if (!deadline.isForever()) {
            const qint64 left = deadline.remainingTime();
            if (left <= 0)
                return false;
            if (!wakeUp.isActive())
                wakeUp.start(static_cast<int>(std::min<qint64>(left, INT_MAX)));
        }
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

} // namespace Runwatch
