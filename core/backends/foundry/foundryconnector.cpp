// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/foundry/foundryconnector.h"

#include "backends/foundry/foundrybackend.h"
#include "backends/optionchecks.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// The project's weather agent; no token (the simulator asks for none).
QJsonObject demoOptions()
{
    return {{ConnectionOption::Agent, u"asst_sim_weather"_s}};
}

} // namespace

ConnectorDescriptor foundryConnector()
{
    ConnectorDescriptor row;
    row.name = "foundry"_L1;
    // Microsoft retires the classic threads/runs API on 2027-03-31; the current agents run on the
    // Responses protocol, through the openai connector (its cliNotes say how).
    row.displayName = QT_TRANSLATE_NOOP("Runwatch::Connector",
                                        "Azure AI Foundry Agent Service (classic, retiring 2027-03-31)");
    row.urlHelp = QT_TRANSLATE_NOOP("Runwatch::Connector",
                                    "the project endpoint "
                                    "https://<resource>.services.ai.azure.com/api/projects/<project>");
    row.urlPlaceholder = "https://<resource>.services.ai.azure.com/api/projects/<project>";
    row.options = {
        {FoundryOption::ApiVersion, "--api-version"_L1, "V"_L1, ConnectorOption::Kind::Text,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "API ve&rsion:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "2025-05-01 (the default)"),
         QT_TRANSLATE_NOOP("Runwatch::Connector",
                           "Sent as ?api-version= on every request (Azure OpenAI and Azure AI Foundry)."),
         &checkApiVersion},
    };
    row.needsAgent = true;
    row.cliNotes = QT_TRANSLATE_NOOP(
        "Runwatch::Connector",
        "Classic threads/runs, retiring 2027-03-31: Foundry's current agents run through --backend openai "
        "on the project's /openai/v1 endpoint (--agent NAME[:VERSION]). "
        "start needs --agent (agents lists them). followup: a message and a new run on the same thread. "
        "respond: --output once per pending tool call, all sent in one submit (--text when exactly one "
        "is pending); --approve/--reject answer every pending MCP approval.");
    row.create = &makeBackend<FoundryBackend>;
    row.demo.connectionName = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "Demo Foundry");
    row.demo.options = &demoOptions;
    row.demo.runs = {
        {ConnectorDemo::Seed::ToolOutput, "Tools"_L1,
         QT_TRANSLATE_NOOP("Runwatch::DemoMode", "plan Friday's offsite lunch")},
    };
    return row;
}

} // namespace Runwatch
