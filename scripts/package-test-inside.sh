#!/bin/bash
# Runs inside the clean Debian 12 root that scripts/package-test.sh makes (as root, packages in
# /tmp/debs, RUNWATCH_VERSION set): installs the packages like a user, uses them as a user would,
# purges them and checks that nothing of ours is left.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
version="${RUNWATCH_VERSION:?}"
fail() { echo "inside: FAIL: $*" >&2; exit 1; }
step() { echo "--- inside: $*"; }

# Everything outside scratch, home and volatile places: taken after the install, compared after
# the purge (the dependencies apt pulled in stay; they are not ours).
snapshot() {
    find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /run -o -path /home \
        -o -path /var/cache -o -path /var/lib/apt -o -path /var/log -o -path /var/lib/dpkg \
        -o -path /etc/ld.so.cache -o -path /root \) -prune -o -print | sort
}

step "what apt would install with Recommends (they must resolve from the archive)"
# (mmdebstrap turns Recommends off in the root it makes; ask for them explicitly)
apt-get install -s -o APT::Install-Recommends=true /tmp/debs/runwatch_*.deb >/tmp/recommends.txt
grep -q '^Inst qt6-wayland ' /tmp/recommends.txt || fail "Recommends qt6-wayland does not resolve"
grep -q '^Inst gnome-keyring ' /tmp/recommends.txt || fail "Recommends gnome-keyring does not resolve"
grep -q '^Inst libqt6sql6-psql ' /tmp/recommends.txt || fail "Recommends libqt6sql6-psql does not resolve"

# The programs run as an ordinary user, as people run them (made first: useradd touches /etc).
useradd --create-home --shell /bin/bash tester

step "apt-get install (Depends only: they alone must make every program work)"
apt-get install -y --no-install-recommends /tmp/debs/runwatch_*.deb /tmp/debs/runwatch-sim_*.deb
dpkg -L runwatch runwatch-sim | sort -u >/tmp/owned.txt
snapshot >/tmp/installed.txt

step "--version"
[ "$(runwatch-cli --version)" = "runwatch-cli $version" ] || fail "runwatch-cli --version: $(runwatch-cli --version)"
[ "$(runwatch-sim --version)" = "runwatch-sim $version" ] || fail "runwatch-sim --version: $(runwatch-sim --version)"
[ "$(QT_QPA_PLATFORM=offscreen runwatch --version)" = "runwatch $version" ] ||
    fail "runwatch --version: $(QT_QPA_PLATFORM=offscreen runwatch --version)"

as_tester() { runuser -u tester -- env HOME=/home/tester XDG_RUNTIME_DIR=/home/tester/run "$@"; }
as_tester mkdir -m 700 /home/tester/run
store=/home/tester/runs.sqlite

step "CLI opens a store"
as_tester runwatch-cli --store "$store" list
[ -s "$store" ] || fail "runwatch-cli list created no store at $store"

step "CLI run against runwatch-sim"
as_tester sh -c 'runwatch-sim --port 0 >/home/tester/sim.out 2>&1 & echo $! >/home/tester/sim.pid'
url=""
for _ in $(seq 1 100); do
    url="$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' /home/tester/sim.out)"
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || fail "runwatch-sim did not print its URL: $(cat /home/tester/sim.out)"
out="$(as_tester env RUNWATCH_API_KEY=test-key runwatch-cli --store "$store" --url "$url" \
    start --prompt "normal deltas=5 interval_ms=10" --follow)" || fail "runwatch-cli start --follow failed"
[ -n "$out" ] || fail "the run printed no answer"
as_tester runwatch-cli --store "$store" --json list --all | grep -q '"status":"completed"' ||
    fail "the run is not in the store as completed"
kill "$(cat /home/tester/sim.pid)"

step "GUI in demo mode under Xvfb"
# Xvfb picks its own display (-displayfd: the first number whose lock file and sockets are free)
# rather than xvfb-run -a, which looks only at the lock files in this root's /tmp: the root shares
# the host's network namespace, so an X server of the host's holds the same abstract socket, and a
# client of ours can reach it (seen in CI: "could not connect to display :99" from a display that
# xvfb-run had started). No access control (-ac): a throwaway display of a throwaway root.
cat >/home/tester/gui.sh <<'EOF'
rm -f /home/tester/displayfd
mkfifo /home/tester/displayfd
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -ac 3>/home/tester/displayfd \
    >/home/tester/xvfb.log 2>&1 &
xvfb=$!
trap 'kill "$xvfb" 2>/dev/null || true' EXIT
number=""
read -r -t 30 number </home/tester/displayfd || true
[ -n "$number" ] || { echo "Xvfb did not start"; cat /home/tester/xvfb.log; exit 1; }
export DISPLAY=":$number" QT_QPA_PLATFORM=xcb
runwatch --demo >/home/tester/gui.log 2>&1 &
pid=$!
# Up means: a top-level window titled Runwatch is mapped, and the process is still alive after.
for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || { echo "runwatch exited early"; cat /home/tester/gui.log /home/tester/xvfb.log; exit 1; }
    if xwininfo -root -tree | grep -q '"Runwatch'; then break; fi
    sleep 0.1
done
xwininfo -root -tree | grep -q '"Runwatch' || { echo "no Runwatch window"; cat /home/tester/gui.log; exit 1; }
for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || { echo "runwatch died after showing its window"; cat /home/tester/gui.log; exit 1; }
    sleep 0.1
done
kill -TERM "$pid"
wait "$pid" || true
echo "runwatch stayed up in demo mode on display :$number"
EOF
chmod 755 /home/tester/gui.sh
as_tester bash /home/tester/gui.sh

step "purge"
apt-get purge -y runwatch runwatch-sim
snapshot >/tmp/after.txt
while read -r f; do
    [ -e "$f" ] && [ ! -d "$f" ] && fail "purge left $f"
done </tmp/owned.txt
new="$(comm -13 /tmp/installed.txt /tmp/after.txt)"
[ -z "$new" ] || fail "the purge created files:
$new"
if find / -xdev \( -path /proc -o -path /sys -o -path /tmp -o -path /home \) -prune -o -iname '*runwatch*' -print |
    grep -q .; then
    fail "files named runwatch left: $(find / -xdev \( -path /proc -o -path /sys -o -path /tmp -o -path /home \) -prune -o -iname '*runwatch*' -print)"
fi
echo "inside: all passed"
