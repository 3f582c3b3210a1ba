#!/usr/bin/env bash
# Sets up, builds and launches Runwatch on a fresh Debian 12 machine. With no connection
# configured it runs against the embedded simulator (demo mode).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup-deps.sh"
"$root/scripts/build.sh"
build="${RUNWATCH_BUILD_DIR:-$root/build}"

if [ -x "$build/app/gui/runwatch" ]; then
    exec "$build/app/gui/runwatch" "$@"
fi

# Built without the desktop app (-DRUNWATCH_BUILD_GUI=OFF): the CLI against the simulator.
store="$(mktemp -d)/runs.sqlite"
urlfile="$(mktemp)"
"$build/app/sim/runwatch-sim" --port 0 --interval-ms 40 >"$urlfile" &
sim=$!
trap 'kill $sim 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    grep -q "listening on" "$urlfile" && break
    sleep 0.1
done
url="$(grep -o 'http://[^ ]*' "$urlfile" | head -n1)"
echo "Demo simulator at $url (store: $store)"
"$build/app/cli/runwatch-cli" --backend openai --url "$url" --store "$store" \
    start --prompt "reasoning deltas=60 Tell me about otters" --follow
