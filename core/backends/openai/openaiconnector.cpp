// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/openai/openaiconnector.h"

#include "backends/openai/openaibackend.h"
#include "backends/optionchecks.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

ConnectorDescriptor openAiConnector()
{
    using Kind = ConnectorOption::Kind;
    using Seed = ConnectorDemo::Seed;
    ConnectorDescriptor row;
    row.name = "openai"_L1;
    row.displayName
        = QT_TRANSLATE_NOOP("Runwatch::Connector", "OpenAI Responses (OpenAI, Azure OpenAI, compatible)");
    row.urlHelp = QT_TRANSLATE_NOOP("Runwatch::Connector", "the API base, e.g. https://api.openai.com/v1");
    row.urlPlaceholder = "https://api.openai.com/v1";
    row.defaultUrl = "https://api.openai.com/v1"_L1;
    row.apiKeyEnv = "OPENAI_API_KEY"_L1;
    row.defaultModel = u"gpt-5"_s;
    row.options = {
        {OpenAiOption::Organization, "--organization"_L1, "ORG"_L1, Kind::Text,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "&Organization:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "org-… (OpenAI-Organization header)"),
         QT_TRANSLATE_NOOP("Runwatch::Connector",
                           "Sent as the OpenAI-Organization header: which organization's quota and billing "
                           "the runs use."),
         &checkHeaderValue},
        {OpenAiOption::Project, "--project"_L1, "ID"_L1, Kind::Text,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "Pro&ject:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "proj_… (OpenAI-Project header)"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "Sent as the OpenAI-Project header."), &checkHeaderValue},
        {OpenAiOption::ApiVersion, "--api-version"_L1, "V"_L1, Kind::Text,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "API ve&rsion:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "e.g. 2025-04-01-preview (Azure)"),
         QT_TRANSLATE_NOOP("Runwatch::Connector",
                           "Sent as ?api-version= on every request (Azure OpenAI and Azure AI Foundry)."),
         &checkApiVersion},
    };
    row.cliNotes = QT_TRANSLATE_NOOP(
        "Runwatch::Connector",
        "start --input: input items. start --conversation new|ID: the run is a turn of a conversation "
        "(new: created first). start --agent NAME[:VERSION] on an Azure AI Foundry project's "
        "…/api/projects/P/openai/v1 URL: the project's agent (agent_reference), in a conversation of its "
        "own unless one is named; runwatch-cli agents lists them. followup: the next response, in the "
        "run's conversation, else by previous_response_id. respond: "
        "--output once per pending tool call, all sent in one request (--text when exactly one is "
        "pending); --approve/--reject answer every pending MCP approval; the run goes on in the next "
        "response, which watch RUN follows.");
    row.create = &makeBackend<OpenAiBackend>;
    row.demo.connectionName = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "Demo OpenAI");
    // The simulator's Azure AI Foundry project: the same Responses API, and its agents too (New Run
    // lists them; the Agent run is one of them in a conversation of its own).
    row.demo.urlPath = "/api/projects/runwatch-sim/openai/v1"_L1;
    row.demo.defaultModel = u"runwatch-sim-1"_s;
    row.demo.runs = {
        {Seed::Failed, "Fail"_L1,
         QT_TRANSLATE_NOOP("Runwatch::DemoMode", "summarise this week's TLS advisories")},
        {Seed::Cancelled, "Long"_L1,
         QT_TRANSLATE_NOOP("Runwatch::DemoMode", "check the TLS setup of every service")},
        {Seed::Agent,
         {},
         QT_TRANSLATE_NOOP("Runwatch::DemoMode", "find the sources on last week's TLS incident"),
         "researcher"_L1},
        {Seed::Streaming, "Reasoning"_L1,
         QT_TRANSLATE_NOOP("Runwatch::DemoMode", "audit the TLS stacks we ship")},
    };
    return row;
}

} // namespace Runwatch
