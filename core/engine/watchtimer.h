// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/boundedwait.h"

#include <QDateTime>
#include <QTimer>

namespace Runwatch {

// The watchers' one single-shot timer (StuckRunWatcher, DeadlineWatcher): armed for `next`, or
// stopped when nothing is due, so an idle app never wakes for them. A moment further away than
// kMaxTimerWait arms that; the watcher re-arms when it fires.
inline void armWatchTimer(QTimer *timer, const QDateTime &next, const QDateTime &now)
{
    if (!next.isValid()) {
        timer->stop();
        return;
    }
    timer->start(boundedWait(now.msecsTo(next)));
}

} // namespace Runwatch
