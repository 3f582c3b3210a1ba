// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/mcp/mcpconnector.h"

#include "backends/mcp/mcpbackend.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

QString checkProtocolVersion(const QString &value)
{
    if (value == "auto"_L1 || value == "2025-11-25"_L1 || value == "2026-07-28"_L1)
        return {};
    return QCoreApplication::translate("ConnectionOptions", "Give auto, 2025-11-25 or 2026-07-28.");
}

} // namespace

ConnectorDescriptor mcpConnector()
{
    ConnectorDescriptor row;
    row.name = "mcp"_L1;
    row.displayName = QT_TRANSLATE_NOOP("Runwatch::Connector", "MCP tasks");
    row.urlHelp = QT_TRANSLATE_NOOP("Runwatch::Connector",
                                    "the MCP server's Streamable HTTP endpoint, e.g. http://host:port/mcp");
    row.urlPlaceholder = "https://mcp.example.com/mcp";
    row.needsAgent = true;
    row.takesModel = false;
    using Kind = ConnectorOption::Kind;
    row.options = {
        {McpOption::SessionId, "--session"_L1, "ID"_L1, Kind::Text,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "&Session:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "an Mcp-Session-Id to join (optional)"),
         QT_TRANSLATE_NOOP(
             "Runwatch::Connector",
             "Joins this MCP session instead of opening one. A server whose task store is bound to "
             "sessions (the official SDK's default) shows a task only on the session that started "
             "it: join that session to list or attach another client's tasks. Runs always keep the "
             "session they were started on."),
         nullptr},
        {McpOption::ProtocolVersion, "--protocol-version"_L1, "auto|2025-11-25|2026-07-28"_L1, Kind::Text,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "Protocol &version:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "auto (the default), 2025-11-25 or 2026-07-28"),
         QT_TRANSLATE_NOOP("Runwatch::Connector",
                           "The MCP revision new sessions speak. auto: 2026-07-28 where the server answers "
                           "server/discover, else 2025-11-25 (initialize)."),
         &checkProtocolVersion},
    };
    row.cliNotes = QT_TRANSLATE_NOOP(
        "Runwatch::Connector",
        "--agent: the tool (agents lists them with their task_support; a forbidden tool is refused before "
        "anything is sent). start --input: the tool's arguments (JSON object); --prompt only titles the run. "
        "The run's remote id is its task. respond: --value JSON accepts the server's form with that content, "
        "--reject declines, --text answers a form of one string field, --choice cancel cancels. delete: "
        "local only (the task expires by its ttl). list --remote: tasks/list of the session. attach "
        "TASK_ID.");
    row.create = &makeBackend<McpBackend>;
    // The simulator's `approve` tool (runwatch-sim --mcp): a task that asks for a typed form.
    row.demo.connectionName = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "Demo MCP");
    row.demo.runs = {
        {.seed = ConnectorDemo::Seed::Elicitation,
         .keyword = {},
         .task = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "Plan the database migration"),
         .agent = "approve"_L1,
         .input = R"({"topic":"the database migration"})"_L1},
    };
    return row;
}

} // namespace Runwatch
