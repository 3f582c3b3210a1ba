#!/usr/bin/env bash
# The long fuzzing run recorded in the README: every libFuzzer target for 10 minutes (one at a
# time unless FUZZ_PARALLEL says otherwise). Fails on any crash, leak, hang or OOM. See
# scripts/fuzz-run.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ_PARALLEL="${FUZZ_PARALLEL:-1}" exec "$root/scripts/fuzz-run.sh" "${FUZZ_SECONDS:-600}" "$@"
