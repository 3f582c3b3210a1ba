// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>

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

} // namespace Runwatch
