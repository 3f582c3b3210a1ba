#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a test binary as a screen reader would see it: a private session bus with the AT-SPI bus
# (at-spi-bus-launcher, which starts the a11y bus and its registry), on a real X server
# (xvfb-run; the offscreen platform has no accessibility bridge), with Qt's AT-SPI bridge on.
# A missing tool makes the test fail with its name (RUNWATCH_ATSPI=missing:TOOL), never skip.
set -eu
test_binary="$1"
shift
launcher=/usr/libexec/at-spi-bus-launcher
for tool in dbus-run-session dbus-send xvfb-run "$launcher"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        RUNWATCH_ATSPI="missing:$tool" exec "$test_binary" "$@"
    fi
done
export RUNWATCH_ATSPI=1 RUNWATCH_ATSPI_LAUNCHER="$launcher" QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 QT_QPA_PLATFORM=xcb
exec dbus-run-session -- sh -c '
    "$RUNWATCH_ATSPI_LAUNCHER" --launch-immediately >/dev/null 2>&1 &
    launcher=$!
    trap "kill $launcher 2>/dev/null || true" EXIT
    i=0
    while [ $i -lt 100 ]; do
        if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner string:org.a11y.Bus 2>/dev/null | grep -q "boolean true"; then
            break
        fi
        i=$((i + 1))
        sleep 0.1
    done
    xvfb-run -a -s "-screen 0 1366x768x24 -nolisten tcp" "$0" "$@"
' "$test_binary" "$@"
