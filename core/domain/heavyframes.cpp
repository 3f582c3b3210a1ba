// SPDX-License-Identifier: GPL-3.0-or-later
#include "heavyframes.h"

namespace Runwatch {

bool HeavyFrames::claim()
{
    using Clock = std::chrono::steady_clock;
    // Per thread: the chores of another thread's event loop have frames of their own.
    thread_local Clock::time_point claimed = Clock::time_point::min();
    const Clock::time_point now = Clock::now();
    if (claimed != Clock::time_point::min() && now - claimed < kFrame)
        return false;
    claimed = now;
    return true;
}

} // namespace Runwatch
