#!/usr/bin/env bash
# Takes the README screenshots of the desktop app. Builds nothing: it runs the existing
# build/app/gui/runwatch (or $RUNWATCH_BUILD_DIR/app/gui/runwatch) in demo mode under Xvfb with
# a throw-away home, and the app grabs its own window at the moments the plan names
# (app/gui/screenshotplan.h), then quits.
#
#   scripts/screenshots.sh [output-dir=docs/screenshots]
#
# Writes main-window.png (list + streaming run), input-required.png (the approval panel),
# main-window-dark.png (the same moment with the dark palette) and tool-outputs.png (a Foundry run
# waiting for two tool outputs, on a 1366x768 screen) and main-window-de.png (the app in German,
# LANG=de_DE.UTF-8, on a 1366x768 screen) and usage-cost.png (the token and cost columns shown, a price
# set, on a 1366x768 screen), typed-form.png (the Respond panel's form from a job's JSON Schema) and
# new-run-input.png (the New Run dialog with structured JSON input), both on a 1366x768 screen,
# search.png (a full-text query over the demo, 1366x768), mcp-elicitation.png (the demo MCP
# task's elicitation form with Send, Decline and Dismiss, 1366x768), run-store.png (Settings › Run
# Store… with a team database, 1366x768), agent-sessions.png (an OpenAI Agents session of two turns with
# its usage, 1366x768) and agent-approval.png (a Claude Managed Agents bash command waiting for
# confirmation, 1366x768). The
# demo behind them runs the
# real OpenAI, A2A and jobs connectors against the built-in simulators (app/gui/demomode.h).
# SCREEN=WxHxDEPTH sets the virtual screen (default 1600x1000x24), e.g. SCREEN=1366x768x24 to
# check a small laptop screen.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RUNWATCH_BUILD_DIR:-$root/build}"
app="$build/app/gui/runwatch"
out="${1:-$root/docs/screenshots}"

if [ ! -x "$app" ]; then
    echo "screenshots.sh: $app not found; build first (scripts/build.sh)" >&2
    exit 1
fi
if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "screenshots.sh: xvfb-run not found (install the xvfb and xauth packages)" >&2
    exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

shoot() { # name-suffix, extra app arguments...
    local suffix="$1"
    shift
    local home="$tmp/home$suffix"
    mkdir -p "$home/.config" "$home/.local/share" "$home/run" "$tmp/shots$suffix"
    chmod 700 "$home/run"
    # A fresh home: first launch, so the demo starts; nothing of the user's is read or written.
    # The language follows the locale: English unless SHOT_LANG names another.
    env -u DBUS_SESSION_BUS_ADDRESS -u LC_ALL -u LC_MESSAGES -u LANGUAGE LANG="${SHOT_LANG:-C.UTF-8}" \
        HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
        XDG_RUNTIME_DIR="$home/run" QT_QPA_PLATFORM=xcb \
        RUNWATCH_SCREENSHOT_DIR="$tmp/shots$suffix" \
        RUNWATCH_SCREENSHOT_PLAN="${PLAN:-main-window,input-required}" \
        timeout 180 xvfb-run -a -s "-screen 0 ${SCREEN:-1600x1000x24}" "$app" --demo "$@"
}

shoot "" --palette light
PLAN=main-window shoot "-dark" --palette dark
PLAN=tooloutput SCREEN=1366x768x24 shoot "-small" --palette light
SHOT_LANG=de_DE.UTF-8 PLAN=main-window SCREEN=1366x768x24 shoot "-de" --palette light
PLAN=usage SCREEN=1366x768x24 shoot "-usage" --palette light
PLAN=form,new-run SCREEN=1366x768x24 shoot "-form" --palette light
PLAN=search SCREEN=1366x768x24 shoot "-search" --palette light
PLAN=elicitation SCREEN=1366x768x24 shoot "-elicitation" --palette light
PLAN=run-store SCREEN=1366x768x24 shoot "-store" --palette light
PLAN=agent-session,agent-approval SCREEN=1366x768x24 shoot "-agents" --palette light

mkdir -p "$out"
cp "$tmp/shots/main-window.png" "$out/main-window.png"
cp "$tmp/shots/input-required.png" "$out/input-required.png"
cp "$tmp/shots-dark/main-window.png" "$out/main-window-dark.png"
cp "$tmp/shots-small/tooloutput.png" "$out/tool-outputs.png"
cp "$tmp/shots-de/main-window.png" "$out/main-window-de.png"
cp "$tmp/shots-usage/usage.png" "$out/usage-cost.png"
cp "$tmp/shots-form/form.png" "$out/typed-form.png"
cp "$tmp/shots-form/new-run.png" "$out/new-run-input.png"
cp "$tmp/shots-search/search.png" "$out/search.png"
cp "$tmp/shots-elicitation/elicitation.png" "$out/mcp-elicitation.png"
cp "$tmp/shots-store/run-store.png" "$out/run-store.png"
cp "$tmp/shots-agents/agent-session.png" "$out/agent-sessions.png"
cp "$tmp/shots-agents/agent-approval.png" "$out/agent-approval.png"
echo "screenshots in $out:"
ls -l "$out"
