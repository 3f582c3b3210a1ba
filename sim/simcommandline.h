// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Command line of the standalone runwatch-sim: one of the simulators and its config, kept
// in the library so that tests can check it.

#include "claudeagents/claudeagentssimconfig.h"
#include "foundry/foundrysimconfig.h"
#include "gemini/geminisimconfig.h"
#include "jobs/jobssimconfig.h"
#include "langgraph/langgraphsimconfig.h"
#include "mcp/mcpsimconfig.h"
#include "openai/openaisimconfig.h"
#include "openaiagents/openaiagentssimconfig.h"

#include <QHostAddress>
#include <QString>
#include <QStringList>

namespace RunwatchSim {

struct ServerOptions
{
    QHostAddress address = QHostAddress(QHostAddress::LocalHost);
    quint16 port = 0;
    bool verbose = false;
    // The OpenAI simulator (the default; --openai names it), which also serves an Azure AI
    // Foundry project: config.foundryProject (--foundry-project) and config.agents (--agent).
    OpenAiSimConfig config;
    // --a2a: serve an A2A agent (A2aSimulator) instead of the OpenAI API. Its pace, chunk count,
    // key and stream faults come from `config` (interval, deltas, long deltas, key, drop faults).
    bool a2a = false;
    bool a2aLegacy = false;   // --a2a-version 0.3
    bool a2aStreaming = true; // --a2a-no-streaming clears it
    // --jobs: serve a generic HTTP job API (JobsSimulator). Pace, deltas, key, comments and
    // stream faults are copied from `config`.
    bool jobs = false;
    JobsSimConfig jobsConfig;
    // --foundry: serve an Azure AI Foundry Agent Service project (FoundrySimulator). Token (--key),
    // pace, deltas, line ending, reply and stream faults are copied from `config`.
    bool foundry = false;
    FoundrySimConfig foundryConfig;
    // --langgraph: serve a LangGraph Agent Server (LangGraphSimulator). X-Api-Key (--key), pace,
    // queued time, token counts (only when given), limits and stream faults are copied from `config`.
    bool langgraph = false;
    LangGraphSimConfig langgraphConfig;
    // --gemini: serve the Gemini Interactions API (GeminiSimulator). x-goog-api-key (--key), pace,
    // deltas, long deltas, line ending, limits, models (--model, when given) and stream faults are
    // copied from `config`.
    bool gemini = false;
    // --mcp: serve an MCP server whose tools run as tasks (McpSimulator). Bearer token (--key),
    // pace, steps (--deltas, --long-deltas, when given), reply, line ending, limits and stream
    // faults are copied from `config`.
    bool mcp = false;
    // --claude-agents: serve Claude Managed Agents (ClaudeAgentsSimulator). The key (--key), pace,
    // deltas, long deltas, limits and stream faults are copied from `config`.
    bool claudeAgents = false;
    // --openai-agents: serve the OpenAI Agents API (OpenAiAgentsSimulator). The key (--key), pace,
    // deltas, long deltas, limits and stream faults are copied from `config`.
    bool openAiAgents = false;
    GeminiSimConfig geminiConfig;
    McpSimConfig mcpConfig;
    ClaudeAgentsSimConfig claudeAgentsConfig;
    OpenAiAgentsSimConfig openAiAgentsConfig;
};

struct CommandLineResult
{
    enum class Action { Run, Help, Version, Error };
    Action action = Action::Run;
    ServerOptions options;
    QString message; // help text, or the error
};

// arguments[0] is the program name, as in QCoreApplication::arguments().
CommandLineResult parseCommandLine(const QStringList &arguments);

} // namespace RunwatchSim
