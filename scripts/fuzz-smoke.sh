#!/usr/bin/env bash
# CI fuzzing: every libFuzzer target for a short bounded time (default 30 s, two at a time on a
# 2-core runner). Fails on any crash, leak, hang or OOM. See scripts/fuzz-run.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ_PARALLEL="${FUZZ_PARALLEL:-2}" exec "$root/scripts/fuzz-run.sh" "${FUZZ_SECONDS:-30}" "$@"
