// SPDX-License-Identifier: GPL-3.0-or-later
// The calibration figure (calibration.h) for the benchmarks that are not C++ programs
// (bench_idle_wakeups.sh, bench_cli_json.mjs, bench_compare.sh): the same task, the same line.
//
//   calibrate         calibration: 128 ms (…)
//   calibrate --ms    128
#include "calibration.h"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--ms") == 0) {
        std::printf("%.0f\n", RunwatchBench::calibrationMs());
        return 0;
    }
    if (argc > 1) {
        std::fprintf(stderr, "usage: calibrate [--ms]\n");
        return 2;
    }
    RunwatchBench::printCalibration();
    return 0;
}
