#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the test peers that need a package manager, exact versions from each package-lock.json:
# the A2A agent on the official @a2a-js/sdk (tests/peers/a2a-peer), the official openai client
# (tests/peers/openai-peer), the official @azure/ai-agents client (tests/peers/foundry-peer), the
# official @azure/ai-projects 2.x client with the openai client it returns
# (tests/peers/ai-projects-peer), the official LangGraph Agent Server, @langchain/langgraph-api, with
# its test graphs (tests/peers/langgraph-peer), the official @google/genai client
# (tests/peers/genai-peer), the official @modelcontextprotocol/sdk client
# (tests/peers/mcp-client-peer), an MCP server built on the same SDK (tests/peers/mcp-server-peer,
# for tst_mcp_peer) and the official @anthropic-ai/sdk client (tests/peers/claude-agents-peer), and the
# official openai 7.59.0 client's beta.agents (tests/peers/openai-agents-peer).
# tst_a2a_peer, openai_peer, foundry_peer, ai_projects_peer, genai_peer, mcp_client_peer,
# tst_mcp_peer, claude_agents_peer and openai_agents_peer fail with a clear message when this has not run or node is
# missing: the suite never passes without the real peers. @azure/ai-projects 2.10.0, openai 7.59.0 and @google/genai 3.3.0 declare
# node >= 22 in their engines field; npm only warns, and every step of their peers runs on node 20
# (checked on 20.20).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "setup-test-peers: node/npm not found; the peer tests need Node.js >= 20 with npm" >&2
    exit 1
fi
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 20 ]; then
    echo "setup-test-peers: node $(node --version) is older than 20 (@a2a-js/sdk needs >= 20)" >&2
    exit 1
fi

# --ignore-scripts: nothing in these trees needs install scripts; --no-audit/--no-fund: no extra
# registry traffic.
for peer in a2a-peer openai-peer foundry-peer ai-projects-peer langgraph-peer genai-peer mcp-client-peer \
    mcp-server-peer claude-agents-peer openai-agents-peer; do
    (cd "$root/tests/peers/$peer" && npm ci --ignore-scripts --no-audit --no-fund)
    echo "setup-test-peers: tests/peers/$peer ready"
done
