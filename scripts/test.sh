#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine: installs what is missing, builds, runs ctest.
# scripts/build.sh sets the flags (Debian's hardening flags, -Werror) that scripts/run.sh and
# scripts/package.sh share: this is the build CI packages, and run.sh after it compiles nothing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup-deps.sh"
"$root/scripts/setup-test-peers.sh" # the official A2A SDK agent, openai and @azure/ai-agents clients (npm)
"$root/scripts/build.sh"
build="${RUNWATCH_BUILD_DIR:-$root/build}"
cd "$build"
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j"$(nproc)" "$@"
