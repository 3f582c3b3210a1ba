// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/openaiagents/openaiagentsconnector.h"

#include "backends/openaiagents/openaiagentsbackend.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

ConnectorDescriptor openAiAgentsConnector()
{
    ConnectorDescriptor row;
    row.name = "openai-agents"_L1;
    row.displayName = QT_TRANSLATE_NOOP("Runwatch::Connector", "OpenAI Agents API (beta)");
    row.urlHelp = QT_TRANSLATE_NOOP("Runwatch::Connector", "the API base, e.g. https://api.openai.com/v1");
    row.urlPlaceholder = "https://api.openai.com/v1";
    row.defaultUrl = "https://api.openai.com/v1"_L1;
    // What the openai client reads too; it sends the key as Authorization: Bearer.
    row.apiKeyEnv = "OPENAI_API_KEY"_L1;
    row.needsAgent = true;
    row.options = {
        {OpenAiAgentsOption::Environment, "--environment"_L1, "ENV"_L1, ConnectorOption::Kind::Text,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "&Environment:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "none (default), or an environment's JSON"),
         QT_TRANSLATE_NOOP("Runwatch::Connector",
                           "The environment new sessions run in; the API requires one. Empty or \"none\": "
                           "{\"type\":\"none\"}, the agent without an execution environment. Otherwise the "
                           "JSON of an environment object, sent as it is."),
         nullptr},
    };
    row.cliNotes = QT_TRANSLATE_NOOP(
        "Runwatch::Connector",
        "A session is a conversation and each turn a run. start --agent AGENT_ID (agents lists the "
        "account's agents): a new session, the prompt its first message; the run's remote id is the "
        "session id. respond: --approve/--reject to an MCP or browser approval, --output CALL_ID=TEXT "
        "to a function call, --value JSON to a sign-in form. followup: the next turn on the same "
        "session. cancel: the cancel input event. delete: the session on the service (cancelled first "
        "when it runs). list --remote: the sessions. attach SESSION_ID: follows its last turn.");
    row.create = &makeBackend<OpenAiAgentsBackend>;
    // The simulator's account (runwatch-sim --openai-agents): its research agent, without an
    // execution environment. One turn reasons and answers to its end, its usage reported; the
    // other holds an MCP call (delete a branch on GitHub) for the operator's approval.
    row.demo.connectionName = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "Demo OpenAI Agents");
    row.demo.runs = {
        {.seed = ConnectorDemo::Seed::AgentTurn,
         .keyword = "Think"_L1,
         .task = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "find the branches nobody works on any more"),
         .agent = "agent_68e1runwatch0research"_L1},
        {.seed = ConnectorDemo::Seed::CallApproval,
         .keyword = "Approve"_L1,
         .task = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "clean up the stale branches"),
         .agent = "agent_68e1runwatch0research"_L1},
    };
    return row;
}

} // namespace Runwatch
