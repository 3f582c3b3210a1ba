// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <chrono>

namespace Runwatch {

// The heavy chores of a front end's thread take its frames in turn: the run list's tick that
// repaints a column of many rows, and the output view scrolling up a line its live run filled.
// Each alone fits a frame's budget with room; the two in one frame were what
// bench_gui_live's heaviest frames held. The second to come within a frame of the other waits
// for the next frame (kRetry), where nothing is late enough to be seen.
namespace HeavyFrames {

// How long a claim holds this thread's frame: a little more than one 60 Hz frame, so that two
// claims never fall in one.
inline constexpr std::chrono::milliseconds kFrame{17};
// When a chore that could not claim its frame tries again.
inline constexpr std::chrono::milliseconds kRetry = kFrame;

// Claims the calling thread's current frame for a heavy chore. False when another chore of this
// thread claimed it less than kFrame ago: the caller does its heavy part in a later frame.
bool claim();

} // namespace HeavyFrames

} // namespace Runwatch
