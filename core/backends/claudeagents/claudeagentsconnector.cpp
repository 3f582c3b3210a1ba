// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/claudeagents/claudeagentsconnector.h"

#include "backends/claudeagents/claudeagentsbackend.h"

#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace Runwatch {

ConnectorDescriptor claudeAgentsConnector()
{
    ConnectorDescriptor row;
    row.name = "claude-agents"_L1;
    row.displayName = QT_TRANSLATE_NOOP("Runwatch::Connector", "Claude Managed Agents (beta)");
    row.urlHelp
        = QT_TRANSLATE_NOOP("Runwatch::Connector", "the API's origin, e.g. https://api.anthropic.com");
    row.urlPlaceholder = "https://api.anthropic.com";
    row.defaultUrl = "https://api.anthropic.com"_L1;
    // What @anthropic-ai/sdk reads too. Its 1.14.0 sends the key as Authorization: Bearer (its
    // apiKeyAuth), so the default header is Authorization; a connection may name x-api-key.
    row.apiKeyEnv = "ANTHROPIC_API_KEY"_L1;
    row.needsAgent = true;
    row.options = {
        {ClaudeAgentsOption::Environment, "--environment"_L1, "ENV_ID"_L1, ConnectorOption::Kind::Text,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "&Environment:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "env_… (empty: the account's first environment)"),
         QT_TRANSLATE_NOOP("Runwatch::Connector",
                           "The environment (environment_id) new sessions run in; the API requires one. "
                           "Empty: the first environment GET /v1/environments lists."),
         nullptr},
    };
    row.cliNotes = QT_TRANSLATE_NOOP(
        "Runwatch::Connector",
        "A session is a conversation and each turn a run. start --agent AGENT_ID (agents lists the "
        "account's agents): a new session, the prompt its first message; the run's remote id is the "
        "session id. respond: --approve/--reject [--comment C] to a tool confirmation (the comment is "
        "the deny message), --output CALL_ID=TEXT to a custom tool. followup: the next turn on the "
        "same session. cancel: user.interrupt. delete: the session on the service (interrupted first "
        "when it runs). list --remote: the sessions. attach SESSION_ID: follows its last turn.");
    row.create = &makeBackend<ClaudeAgentsBackend>;
    // The simulator's account (runwatch-sim --claude-agents): its research agent, in the first
    // environment it lists. One turn thinks and searches the web to its end; the other holds a
    // bash command for the operator's confirmation.
    row.demo.connectionName = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "Demo Claude Agents");
    row.demo.runs = {
        {.seed = ConnectorDemo::Seed::AgentTools,
         .keyword = "Think"_L1,
         .task = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "compare the OpenSSL 3.0.12 and 3.0.13 releases"),
         .agent = "agent_011Runwatch0Research"_L1},
        {.seed = ConnectorDemo::Seed::ToolConfirmation,
         .keyword = "Confirm"_L1,
         .task = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "check the release folder before packaging"),
         .agent = "agent_011Runwatch0Research"_L1},
    };
    return row;
}

} // namespace Runwatch
