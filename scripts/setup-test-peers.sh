#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the test peers that need a package manager: the A2A agent on the official
# @a2a-js/sdk (tests/a2a-peer, exact versions from its package-lock.json). tst_a2a_peer skips
# with a clear message when this has not run or node is missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "setup-test-peers: node/npm not found; tst_a2a_peer will be skipped" >&2
    exit 0
fi
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 20 ]; then
    echo "setup-test-peers: node $(node --version) is older than 20 (@a2a-js/sdk needs >= 20); skipping" >&2
    exit 0
fi

cd "$root/tests/a2a-peer"
# --ignore-scripts: nothing in this tree needs install scripts; --no-audit/--no-fund: no extra
# registry traffic.
npm ci --ignore-scripts --no-audit --no-fund
echo "setup-test-peers: tests/a2a-peer ready"
