// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The calibration figure every benchmark prints beside its result (issue 30): the machines here
// differ by 2-3x, and one machine's speed changes with what else runs on it, so a figure alone
// cannot say whether the code or the machine got slower. Beside it, this fixed CPU-bound task's
// time can: a result that grew with an unchanged calibration is the code's doing.
//
// Thread CPU time, not wall time: a loaded machine that preempts the benchmark does not inflate
// it, but a slower core (or a busy sibling hyperthread, a lower clock) does — what the benchmark's
// own CPU-time figures suffer too. The task is 100 M steps of a 64-bit linear congruential
// generator, each depending on the last (no vectorising, no memory traffic): the loop
// bench_linear_ingest and bench_search printed before it was shared, so their README figures
// (115-138 ms on this project's 2-core VMs) compare with every benchmark's now. Programs that are
// not C++ (bench_idle_wakeups.sh, bench_cli_json.mjs, bench_compare.sh) run `calibrate`
// (calibrate.cpp), which prints the same figure.

#include <cstdint>
#include <cstdio>
#include <ctime>

namespace RunwatchBench {

inline double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// The task's thread CPU time in ms (about 0.1-0.3 s on the machines here).
inline double calibrationMs()
{
    const double t0 = threadCpuMs();
    volatile std::uint64_t sink = 0;
    std::uint64_t x = 1;
    for (std::uint64_t i = 0; i < 100'000'000; ++i)
        x = x * 6364136223846793005ULL + i;
    sink = x;
    (void)sink;
    return threadCpuMs() - t0;
}

// One line, the same in every benchmark's output (scripts grep "^calibration"): runs the task now,
// so call it outside a measured stretch.
inline double printCalibration()
{
    const double ms = calibrationMs();
    std::printf("calibration: %.0f ms (a fixed CPU-bound task's thread CPU, tests/bench/calibration.h)\n",
                ms);
    std::fflush(stdout);
    return ms;
}

} // namespace RunwatchBench
