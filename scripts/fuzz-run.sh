#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, ASan + UBSan) and runs each one for a bounded time.
# Used by scripts/fuzz-smoke.sh (CI, ~30 s per target) and scripts/fuzz-long.sh (10 min each).
#
#   scripts/fuzz-run.sh SECONDS [TARGET...]      default: every tests/fuzz/fuzz_*.cpp
#
# Environment:
#   RUNWATCH_FUZZ_BUILD_DIR  build directory (default: build-fuzz)
#   FUZZ_PARALLEL            targets run at the same time (default 1; one core each)
#   FUZZ_LOG_DIR             logs and crash artifacts (default: <build dir>/fuzz-logs)
#   FUZZ_SKIP_BUILD=1        run the binaries already in the build directory
#   FUZZ_BUILD_ONLY=1        build the targets and stop (CI builds them ahead, beside the suite)
#   FUZZ_MAX_LEN             largest input in bytes (default 262144: 256 KiB)
#   FUZZ_TIMEOUT             seconds one input may take (default 5)
#
# Seeds are read from tests/fuzz/corpus/<name>/ and never modified; new inputs go to the
# git-ignored tests/fuzz/corpus-work/<name>/, so later runs start where earlier ones stopped.
# Exit status 1 if any target crashed, leaked, hung (-timeout) or ran out of memory. A crash
# leaves its input in the log directory: add it to tests/fuzz/corpus/<name>/ as regression-<what>
# (the fuzz-replay ctest entries then run it in every build) and fix the bug.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:?usage: fuzz-run.sh SECONDS [TARGET...]}"
shift
build="${RUNWATCH_FUZZ_BUILD_DIR:-$root/build-fuzz}"
parallel="${FUZZ_PARALLEL:-1}"
logs="${FUZZ_LOG_DIR:-$build/fuzz-logs}"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for src in "$root"/tests/fuzz/fuzz_*.cpp; do
        targets+=("$(basename "$src" .cpp)")
    done
fi

if [ "${FUZZ_SKIP_BUILD:-0}" != 1 ]; then
    if [ ! -f "$build/build.ninja" ]; then
        CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DRUNWATCH_BUILD_FUZZ=ON -DRUNWATCH_BUILD_TESTS=OFF -DRUNWATCH_BUILD_BENCH=OFF >/dev/null
    fi
    cmake --build "$build" --target "${targets[@]}" -j"$(nproc)"
fi
[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && exit 0

mkdir -p "$logs"
run_one() {
    local name="$1" short="${1#fuzz_}"
    local work="$root/tests/fuzz/corpus-work/$short"
    # Inputs of realistic size (a long answer's stream is hundreds of KiB), and a time limit per
    # input that a linear parser meets with room to spare: quadratic work on such an input fails.
    local args=(-max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-262144}" -timeout="${FUZZ_TIMEOUT:-5}"
                -rss_limit_mb=2048 -print_final_stats=1
                -artifact_prefix="$logs/$name-")
    [ -f "$root/tests/fuzz/$short.dict" ] && args+=(-dict="$root/tests/fuzz/$short.dict")
    mkdir -p "$work"
    rm -f "$logs/$name"-{crash,leak,timeout,oom,slow-unit}-*
    local rc=0
    "$build/tests/fuzz/$name" "${args[@]}" "$work" "$root/tests/fuzz/corpus/$short" \
        >"$logs/$name.log" 2>&1 || rc=$?
    echo "$rc" >"$logs/$name.rc"
}

pids=()
for t in "${targets[@]}"; do
    run_one "$t" &
    pids+=($!)
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do
        wait -n || true
    done
done
wait "${pids[@]}" 2>/dev/null || true

failed=0
printf '%-22s %8s %12s %10s  %s\n' target seconds executions corpus result
for t in "${targets[@]}"; do
    log="$logs/$t.log"
    rc="$(cat "$logs/$t.rc" 2>/dev/null || echo 99)"
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)"
    took="$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n1)"
    corpus="$(find "$root/tests/fuzz/corpus-work/${t#fuzz_}" -type f | wc -l)"
    artifacts="$(find "$logs" -maxdepth 1 -name "$t-*" -type f | head -n3 | tr '\n' ' ')"
    if [ "$rc" -eq 0 ] && [ -z "$artifacts" ]; then
        result="ok"
    else
        result="FAILED (exit $rc) $artifacts"
        failed=1
    fi
    printf '%-22s %8s %12s %10s  %s\n' "$t" "${took:--}" "${execs:--}" "$corpus" "$result"
    if [ "$result" != ok ]; then
        grep -m1 -E "invariant violated|runtime error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)" "$log" \
            | sed 's/^/    /' || true
    fi
done
exit "$failed"
