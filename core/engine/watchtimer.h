// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDateTime>
#include <QTimer>

#include <algorithm>
#include <chrono>

namespace Runwatch {

// The watchers' one single-shot timer (StuckRunWatcher, DeadlineWatcher): armed for `next`, or
// stopped when nothing is due, so an idle app never wakes for them. A moment further away than a
// day arms a day (QTimer takes an int of milliseconds); the watcher re-arms when it fires.
inline void armWatchTimer(QTimer *timer, const QDateTime &next, const QDateTime &now)
{
    if (!next.isValid()) {
        timer->stop();
        return;
    }
    constexpr qint64 kMaxTimerMs = 24LL * 3600 * 1000;
    timer->start(std::chrono::milliseconds(std::clamp<qint64>(now.msecsTo(next), 0, kMaxTimerMs)));
}

} // namespace Runwatch
