#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine: installs what is missing, builds the tree with
# ASan + UBSan into ./build-asan (scripts/test-build.sh) and runs every ctest test under the
# sanitizers, LeakSanitizer included. Extra arguments go to ctest (e.g. -R tst_runstore).
#
# LeakSanitizer gates too: every process, tests included, exits through an orderly shutdown
# (RunManager::shutdown awaiting each RunBackend::shutdown task) that ends every request and lets
# each coroutine awaiting one unwind, so a frame still suspended at exit is a bug. Suppressions are
# for third-party false positives only (tests/sanitizers/*.supp, each with its reason);
# RUNWATCH_DETECT_LEAKS=0 switches LSan off to look at something else.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup-deps.sh"
"$root/scripts/setup-test-peers.sh" # the official A2A SDK agent, openai, @azure/ai-agents and @azure/ai-projects clients (npm)
"$root/scripts/test-build.sh"
build="${RUNWATCH_TEST_BUILD_DIR:-$root/build-asan}"
supp="$root/tests/sanitizers"
export ASAN_OPTIONS="detect_leaks=${RUNWATCH_DETECT_LEAKS:-1}:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1"
export LSAN_OPTIONS="print_suppressions=0"
[ -f "$supp/lsan.supp" ] && LSAN_OPTIONS="$LSAN_OPTIONS:suppressions=$supp/lsan.supp"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
[ -f "$supp/ubsan.supp" ] && UBSAN_OPTIONS="$UBSAN_OPTIONS:suppressions=$supp/ubsan.supp"
export QT_QPA_PLATFORM=offscreen
cd "$build"
rc=0
ctest --output-on-failure -j"$(nproc)" --timeout 600 "$@" || rc=$?
if [ "$rc" -ne 0 ]; then
    # The failures again, one at a time and last, where a CI log's tail shows them whole; the
    # suite fails whatever this second run says (a test that passes on a rerun is flaky).
    echo "=== the failed tests once more, one at a time"
    ctest --rerun-failed --output-on-failure -j1 --timeout 600 || true
fi
exit "$rc"
