#!/usr/bin/env bash
# Configures and builds the test suite's build: the whole tree with AddressSanitizer +
# UndefinedBehaviorSanitizer (LeakSanitizer at exit), -Werror, into ./build-asan (or
# $RUNWATCH_TEST_BUILD_DIR). scripts/test.sh runs the suite on it; the tidy stage of
# scripts/quality.sh reads its compilation database. Extra arguments go to cmake after ours.
#
#   scripts/test-build.sh [--configure-only] [CMAKE_ARG...]
#       --configure-only  configure and run moc (what clang-tidy needs), compile nothing
#
# One build for the suite: CI compiles the tests once, sanitized. The release build with Debian's
# hardening flags (scripts/build.sh) is what run.sh launches and package.sh ships.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RUNWATCH_TEST_BUILD_DIR:-$root/build-asan}"
configure_only=0
if [ "${1:-}" = --configure-only ]; then
    configure_only=1
    shift
fi
# GCC 12's -Wmaybe-uninitialized misfires under -fsanitize=address (e.g. on the table of
# member-function pointers in RunStore::migrate); it stays an error in the release build
# (scripts/build.sh), which sees the code without instrumentation.
# -O1 -g1: the sanitizers need no more optimisation than that, and line tables are all their
# reports use; both cut the compile, the longest part of CI on its two cores. The tests' own code
# (tests/: half of this build's compile time) goes with -O0, which GCC compiles in 50-70 % of the
# time of -O1 (tst_mainwindow.cpp 15.7 -> 9.5 s, tst_langgraph_sim.cpp 18.8 -> 9.7 s): the code
# under test keeps -O1. The benchmark programs are built by scripts/build.sh (release flags).
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRUNWATCH_SANITIZE=ON \
    -DRUNWATCH_WERROR=ON -DRUNWATCH_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS=-Wno-error=maybe-uninitialized \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DRUNWATCH_TEST_CXX_FLAGS=-O0 "$@" >/dev/null
if [ "$configure_only" -eq 1 ]; then
    mapfile -t autogen < <(ninja -C "$build" -t targets all | grep -oE '^[^/: ]+_autogen:' | tr -d : | sort -u)
    ninja -C "$build" -j"$(nproc)" "${autogen[@]}" >/dev/null
else
    cmake --build "$build" -j"$(nproc)"
fi
