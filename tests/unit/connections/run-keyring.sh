#!/usr/bin/env bash
# Runs a test binary against a real keyring or against none (QtKeychain reaches the keyring over
# the D-Bus session bus, so "none" means no session bus at all).
#   run-keyring.sh real BINARY   dbus-run-session + unlocked gnome-keyring, HOME in a temp dir
#   run-keyring.sh none BINARY   no D-Bus session at all
set -euo pipefail
mode="$1"
binary="$2"
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
export HOME="$home" XDG_DATA_HOME="$home/.local/share" XDG_CONFIG_HOME="$home/.config" RUNWATCH_KEYRING="$mode"
if [ "$mode" = none ]; then
    exec env -u DBUS_SESSION_BUS_ADDRESS DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent "$binary"
fi
if ! command -v dbus-run-session >/dev/null || ! command -v gnome-keyring-daemon >/dev/null; then
    echo "dbus-run-session or gnome-keyring-daemon missing: install dbus and gnome-keyring" >&2
    exit 1
fi
exec dbus-run-session -- sh -c 'printf runwatch | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "$0"' "$binary"
