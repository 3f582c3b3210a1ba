#!/usr/bin/env bash
# The quality gates of issue 7 in one script, as CI runs them on a 2-core Debian 12 machine:
#   format  clang-format 14 --dry-run -Werror over every C++ file of the tree
#   tidy    clang-tidy 14 over every folder, every finding an error: app/ core/ sim/ ui/ with the
#           full set of checks (.clang-tidy), tests/ with the house brace rule (tests/.clang-tidy);
#           a unit unchanged since a run found it clean is not analysed again (.ci/tidy-clean)
#   asan    the README's test command (scripts/test.sh): the whole tree built with -Werror +
#           ASan/UBSan/LSan, the whole ctest suite run on it (RUNWATCH_DETECT_LEAKS=0: no LSan)
#   tsan    ThreadSanitizer over the threaded code's tests (stream pump, store writer, history reader)
#   fuzz    every libFuzzer target for a short bounded time (scripts/fuzz-smoke.sh)
#
#   scripts/quality.sh [STAGE...]      default: format tidy asan tsan fuzz
#   scripts/quality.sh --build-only tsan fuzz
#                                      only build what those stages run (CI builds them ahead,
#                                      beside the suite: .ci/run)
#
# Every requested stage runs even when an earlier one failed; the summary gives each stage's
# result and wall time, and the exit status is 1 if any failed. Installs nothing itself beyond
# scripts/setup-deps.sh. Build directories (override with the variables):
#   RUNWATCH_TIDY_BUILD_DIR  build-tidy   (the suite build's compilation database, for clang)
#   RUNWATCH_TEST_BUILD_DIR  build-asan   (scripts/test-build.sh: the suite's sanitized build)
#   RUNWATCH_TSAN_BUILD_DIR  build-tsan
#   RUNWATCH_FUZZ_BUILD_DIR  build-fuzz
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="$(nproc)"
build_only=0
if [ "${1:-}" = --build-only ]; then
    build_only=1
    shift
fi
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(format tidy asan tsan fuzz)

"$root/scripts/setup-deps.sh" || exit 1

# C++ files of the tree: everything tracked or new, minus build output and fixtures of no C++.
cxx_files() {
    cd "$root" && find . \( -path './build*' -o -path './.git' -o -path './tests/fuzz/corpus*' \) -prune \
        -o -type f \( -name '*.cpp' -o -name '*.h' \) -print | sed 's|^\./||' | sort
}

stage_format() {
    # Batches of files, one clang-format process each, $jobs at a time: a process per file spent
    # most of the stage starting clang-format (54 s on CI for ~450 files). A file that differs is
    # named by clang-format's first diagnostic for it (--ferror-limit=1).
    local files differing out rc=0
    mapfile -t files < <(cxx_files)
    out="$(cd "$root" && printf '%s\0' "${files[@]}" |
        xargs -0 -n 32 -P "$jobs" clang-format --dry-run -Werror --ferror-limit=1 2>&1 >/dev/null)" || rc=$?
    mapfile -t differing < <(grep -oE '^[^:]+\.(cpp|h):[0-9]+:[0-9]+: error' <<<"$out" | cut -d: -f1 | sort -u)
    for f in "${differing[@]}"; do
        echo "  needs formatting: $f"
    done
    echo "format: ${#differing[@]} of ${#files[@]} files differ from .clang-format"
    if [ "$rc" -ne 0 ] && [ "${#differing[@]}" -eq 0 ]; then
        # clang-format failed without naming a file that differs (a broken .clang-format, a crash)
        echo "$out" | tail -n 20
        return 1
    fi
    [ "$rc" -eq 0 ] && [ "${#differing[@]}" -eq 0 ]
}

stage_tidy() {
    # The compilation database of the suite's build (scripts/test-build.sh; CI has just built it),
    # so tidy needs no configure and no moc run of its own. Rewritten for clang-tidy: without the
    # precompiled header (clang cannot read GCC's .gch its -include names; every file includes
    # what it uses), without GCC-only and sanitizer flags, and without NDEBUG so Q_ASSERT's
    # conditions are there for the analyser, as in a debug build.
    local src="${RUNWATCH_TEST_BUILD_DIR:-$root/build-asan}"
    local db="${RUNWATCH_TIDY_BUILD_DIR:-$root/build-tidy}"
    "$root/scripts/test-build.sh" --configure-only || return 1
    mkdir -p "$db"
    python3 - "$src/compile_commands.json" "$db/compile_commands.json" <<'PY' || return 1
import json, re, sys
entries = json.load(open(sys.argv[1]))
drop = re.compile(r" -include \S*cmake_pch\.hxx| -Winvalid-pch| -Wno-error=maybe-uninitialized"
                  r"| -fsanitize\S*| -fno-sanitize\S*| -fno-omit-frame-pointer| -DNDEBUG| -DQT_NO_DEBUG(?= )"
                  r"| -O[01]| -g1")
for e in entries:
    e["command"] = drop.sub("", e["command"])
json.dump(entries, open(sys.argv[2], "w"), indent=1)
PY
    # Each folder's .clang-tidy says which checks apply there; the header filter, anchored at the
    # source root, keeps generated headers in build folders out. A unit whose preprocessed text,
    # command, checks and clang-tidy are those of a run that found it clean is not analysed again
    # (.ci/tidy-clean, scripts/tidy-run.py); RUNWATCH_TIDY_NO_CACHE=1 analyses every one.
    local cache=()
    [ "${RUNWATCH_TIDY_NO_CACHE:-0}" = 1 ] && cache=(--no-cache)
    python3 "$root/scripts/tidy-run.py" "$root" "$db" "$jobs" "${cache[@]}"
}

stage_asan() {
    # The suite's own build is the sanitized one: this stage is the README's test command.
    "$root/scripts/test.sh"
}

stage_tsan() {
    # ThreadSanitizer over the tests of the code that runs on threads of its own: the stream pump
    # (tst_streamreply; tst_streampump: relaxed turns, decoded results freed back on the pump
    # thread), the store's writer (tst_runstore; tst_runwrites: failed writes reported
    # from the writer thread, two stores on one file), its lease keeper (tst_runleases: renewals
    # answered from the keeper's thread), a run's text (tst_runtext: appended on one thread while
    # copies are read on another). Debian's Qt is not built with TSan: its own
    # memory accesses are not tracked (ignore_noninstrumented_modules), and the hand-offs between threads go
    # through detail::invokeAcross (core/net/threadhandoff.h), which TSan sees; what it reports
    # is a race in Runwatch's code. No suppressions.
    local build="${RUNWATCH_TSAN_BUILD_DIR:-$root/build-tsan}"
    local tests=(tst_streamreply tst_streampump tst_runstore tst_runwrites tst_runleases tst_runtext)
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRUNWATCH_TSAN=ON \
        -DRUNWATCH_WERROR=ON -DRUNWATCH_BUILD_BENCH=OFF -DRUNWATCH_BUILD_GUI=OFF \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" >/dev/null || return 1
    cmake --build "$build" -j"$jobs" --target "${tests[@]}" || return 1
    [ "$build_only" = 1 ] && return 0
    local pattern
    pattern="^($(IFS='|'; echo "${tests[*]}"))\$"
    (cd "$build" && TSAN_OPTIONS="halt_on_error=1:ignore_noninstrumented_modules=1:second_deadlock_stack=1" \
        QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j1 --timeout 600 -R "$pattern")
}

stage_fuzz() {
    FUZZ_BUILD_ONLY="$build_only" "$root/scripts/fuzz-smoke.sh"
}

summary=()
failed=0
for stage in "${stages[@]}"; do
    if ! declare -F "stage_$stage" >/dev/null; then
        echo "unknown stage: $stage (format, tidy, asan, tsan, fuzz)" >&2
        exit 2
    fi
    if [ "$build_only" = 1 ] && [[ ! "$stage" =~ ^(tsan|fuzz)$ ]]; then
        echo "--build-only: $stage builds nothing of its own (tsan, fuzz)" >&2
        exit 2
    fi
    echo "=== $stage"
    start=$(date +%s)
    if "stage_$stage"; then result=ok; else result=FAILED; failed=1; fi
    took=$(($(date +%s) - start))
    summary+=("$(printf '%-8s %-7s %4d:%02d' "$stage" "$result" $((took / 60)) $((took % 60)))")
done
echo "=== summary (stage, result, wall time m:ss)"
printf '%s\n' "${summary[@]}"
exit "$failed"
