#!/usr/bin/env bash
# The benchmarks the README records, on two builds of Runwatch in one sitting: an old one (another
# commit's build) and a new one, interleaved round by round (A B, then B A, …) so that whatever the
# machine does meanwhile falls on both. Before each round a calibration figure: how long a fixed
# CPU-bound task takes on this machine right now (a figure that grows says the machine slowed down,
# not the code; NEW_BUILD/tests/bench/calibrate, the figure every benchmark prints). Every run's
# whole output goes to OUT/<bench>.<old|new>.<round>.log; the summary prints each run's headline
# lines, with the load average.
#
#   tests/bench/bench_compare.sh OLD_BUILD NEW_BUILD [ROUNDS=3] [OUT=/tmp/bench-compare]
#
# A build folder needs tests/bench/{bench_gui_live,bench_catchup,bench_store} (the new one also
# tests/bench/calibrate), app/gui/runwatch, app/cli/runwatch-cli and app/sim/runwatch-sim
# (configure with -DRUNWATCH_BUILD_BENCH=ON, build those targets). bench_cli_json.mjs needs node
# and the npm peer (scripts/setup-test-peers.sh).
# Takes about 8 minutes a round. Run it on an idle machine: no build beside it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
old="$(cd "$1" && pwd)"
new="$(cd "$2" && pwd)"
rounds="${3:-3}"
out="${4:-/tmp/bench-compare}"
mkdir -p "$out"

calibrate() {
    "$new/tests/bench/calibrate" --ms
}

# bench NAME BUILD-LABEL BUILD-DIR ROUND: one run of NAME, logged.
bench() {
    local name="$1" label="$2" dir="$3" round="$4"
    local log="$out/$name.$label.$round.log"
    {
        echo "# $name on $dir, round $round, load $(cut -d' ' -f1-3 /proc/loadavg), calibration $(calibrate) ms"
        case "$name" in
        live200) QT_QPA_PLATFORM=offscreen "$dir/tests/bench/bench_gui_live" 200 15 5 --rate 50 ;;
        live1000) QT_QPA_PLATFORM=offscreen "$dir/tests/bench/bench_gui_live" 1000 15 5 --rate 20 ;;
        catchup) "$dir/tests/bench/bench_catchup" 100000 3 ;;
        store) "$dir/tests/bench/bench_store" 100000 "$out/store.$label.sqlite" --rounds 3 ;;
        storeapp)
            QT_QPA_PLATFORM=offscreen "$dir/tests/bench/bench_store" 100000 "$out/store.$label.sqlite" \
                --app "$dir/app/gui/runwatch" --rounds 3
            ;;
        clijson)
            RUNWATCH_CALIBRATE="$new/tests/bench/calibrate" node "$here/bench_cli_json.mjs" \
                "$dir/app/sim/runwatch-sim" "$dir/app/cli/runwatch-cli" 200000 3
            ;;
        esac
    } >"$log" 2>&1 || echo "# exit $?" >>"$log"
    echo "== $name $label round $round"
    grep -E '^# |GUI work|live|deltas applied|event-loop|process \(|bulk replay|µs/ev|round|^ *[0-9]+ |runwatch-cli|openai|median' "$log" \
        | head -n 24
}

benches=(live200 live1000 catchup store storeapp clijson)
for ((round = 1; round <= rounds; ++round)); do
    for name in "${benches[@]}"; do
        if ((round % 2)); then
            bench "$name" old "$old" "$round"
            bench "$name" new "$new" "$round"
        else
            bench "$name" new "$new" "$round"
            bench "$name" old "$old" "$round"
        fi
    done
done
echo "logs in $out"
