#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a test binary on a private session bus with python3-dbusmock's notification daemon
# (org.freedesktop.Notifications). Without dbus-run-session the test runs anyway and fails with
# a clear message (RUNWATCH_NOTIFY_MOCK=missing). RUNWATCH_NOTIFY_CAPS (space-separated) replaces
# the daemon's default capabilities, which have no "actions": a server that shows buttons.
set -eu
test_binary="$1"
shift
if ! command -v dbus-run-session >/dev/null 2>&1; then
    RUNWATCH_NOTIFY_MOCK=missing exec "$test_binary" "$@"
fi
# Debian's python3 has the dbusmock module; a pyenv/venv python first in PATH may not.
python=/usr/bin/python3
[ -x "$python" ] || python=python3
export RUNWATCH_NOTIFY_MOCK=1 RUNWATCH_TEST_PYTHON="$python"
exec dbus-run-session -- sh -c '
    if [ -n "${RUNWATCH_NOTIFY_CAPS:-}" ]; then
        "$RUNWATCH_TEST_PYTHON" -m dbusmock --template notification_daemon \
            -p "{\"capabilities\": \"$RUNWATCH_NOTIFY_CAPS\"}" >/dev/null 2>&1 &
    else
        "$RUNWATCH_TEST_PYTHON" -m dbusmock --template notification_daemon >/dev/null 2>&1 &
    fi
    mock=$!
    trap "kill $mock 2>/dev/null || true" EXIT
    # Wait (bounded) until the mock owns its name on the bus.
    i=0
    while [ $i -lt 100 ]; do
        if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Notifications 2>/dev/null \
            | grep -q "boolean true"; then
            break
        fi
        i=$((i + 1))
        sleep 0.1
    done
    "$0" "$@"
' "$test_binary" "$@"
