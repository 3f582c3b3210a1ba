// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the libFuzzer targets share: reporting a violated invariant (abort, so libFuzzer and the
// replay runner both stop on it) and a deterministic generator for chunk sizes.

#include <QtGlobal>

#include <cstdio>
#include <cstdlib>

namespace RunwatchFuzz {

// Defined by each target: the code under test, as named in a violation report.
extern const char *const kTarget;

[[noreturn]] inline void violation(const char *what)
{
    std::fprintf(stderr, "%s invariant violated: %s\n", kTarget, what);
    std::abort();
}

inline void check(bool ok, const char *what)
{
    if (!ok)
        violation(what);
}

// xorshift32: cheap and deterministic, so a crash input replays exactly.
struct Rng
{
    quint32 state;
    quint32 next()
    {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        return state;
    }
};

} // namespace RunwatchFuzz
