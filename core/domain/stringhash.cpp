// SPDX-License-Identifier: GPL-3.0-or-later
#include "stringhash.h"

#include <QHash>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RUNWATCH_CLEAR_UPPER_HALVES 1
#endif

namespace Runwatch {

namespace {

#ifdef RUNWATCH_CLEAR_UPPER_HALVES
// Compiled for AVX whatever the build's target (VZEROUPPER is an AVX instruction); only called
// where the CPU has AVX.
__attribute__((target("avx"))) void clearUpperHalves()
{
    _mm256_zeroupper();
}

bool cpuHasAvx()
{
    static const bool has = __builtin_cpu_supports("avx");
    return has;
}
#endif

} // namespace

size_t seededStringHash(const QString &text)
{
    const size_t hash = qHash(text, QHashSeed::globalSeed());
#ifdef RUNWATCH_CLEAR_UPPER_HALVES
    if (cpuHasAvx())
        clearUpperHalves();
#endif
    return hash;
}

} // namespace Runwatch
