// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>
#include <qnamespace.h>

#include <chrono>

namespace Runwatch {

// The longest wait any timer of Runwatch is armed with. Qt 6.4's QTimer keeps an int of
// milliseconds and narrows the std::chrono overloads silently: 2^32 ms becomes 0 (a tight loop)
// and 30 days a negative interval (refused: the retry never comes). A longer wait is cut to this
// and re-checked when it fires; a day is short enough to be safe and long enough to cost nothing.
inline constexpr std::chrono::milliseconds kMaxTimerWait = std::chrono::hours(24);

// Every wait a server names (Retry-After, SSE retry:, a poll interval, a deadline, an expiry) and
// every wait computed from one passes here before it reaches a timer: [0, kMaxTimerWait].
std::chrono::milliseconds boundedWait(qint64 ms);
std::chrono::milliseconds boundedWait(std::chrono::milliseconds wait);

// "Full jitter": a uniformly random wait in [0, ceiling]. Many runs dropped together (a network
// blip, a server restart) then spread their reconnects over the whole window instead of arriving
// in one burst at its end.
std::chrono::milliseconds fullJitter(std::chrono::milliseconds ceiling);

// The timer type of a periodic chore of a front end's thread: the list's tick and its batched
// changes, the store's flush and its change batches, the lease renewal, the deadline read-back,
// the usage totals. Qt's default coarse timers of 100 ms and more are moved onto the same few
// instants of every second (…000 ms first, then …500, …250), so that an idle thread wakes
// less often; but while runs stream the thread wakes every frame anyway, and those chores then
// met in one frame: bench_gui_live's heaviest frames held four of them at once. A precise
// timer fires when it is due, each chore in a frame of its own.
inline constexpr Qt::TimerType kChoreTimer = Qt::PreciseTimer;

} // namespace Runwatch
