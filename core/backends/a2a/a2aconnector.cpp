// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/a2a/a2aconnector.h"

#include "backends/a2a/a2abackend.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

ConnectorDescriptor a2aConnector()
{
    ConnectorDescriptor row;
    row.name = "a2a"_L1;
    row.displayName = QT_TRANSLATE_NOOP("Runwatch::Connector", "A2A agent (1.0, 0.3)");
    row.urlHelp = QT_TRANSLATE_NOOP(
        "Runwatch::Connector", "the agent's base URL (its card is read from /.well-known/agent-card.json)");
    row.urlPlaceholder = "https://agent.example.com";
    row.cliNotes = QT_TRANSLATE_NOOP(
        "Runwatch::Connector",
        "start --input: a data part. followup: a new task in the same contextId; a working run takes "
        "it as a message to its task, and the same run goes on (a refusal: its error, exit 1). list "
        "--remote: ListTasks (A2A 1.0). agent: the agent card.");
    row.create = &makeBackend<A2aBackend>;
    row.demo.connectionName = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "Demo agent");
    row.demo.runs = {
        {ConnectorDemo::Seed::Question, "Input"_L1,
         QT_TRANSLATE_NOOP("Runwatch::DemoMode", "weather for Friday's offsite")},
    };
    return row;
}

} // namespace Runwatch
