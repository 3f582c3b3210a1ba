// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/a2a/a2aconnector.h"

#include "backends/a2a/a2abackend.h"
#include "backends/optionchecks.h"

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
    row.options = {
        {A2aOption::CardKeyInQueryOrCookie, "--card-key-in-query-or-cookie"_L1, "yes|no"_L1,
         ConnectorOption::Kind::Text, QT_TRANSLATE_NOOP("Runwatch::Connector", "Key in &query or cookie:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "no (the default) or yes"),
         QT_TRANSLATE_NOOP(
             "Runwatch::Connector",
             "yes: when the agent card asks for the key in the URL query or a cookie, send it "
             "there. A key in a URL ends up in server and proxy logs. no (the default): the key "
             "stays in a header, in the connection's auth style."),
         &checkYesNo},
    };
    row.create = &makeBackend<A2aBackend>;
    row.demo.connectionName = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "Demo agent");
    row.demo.runs = {
        {ConnectorDemo::Seed::Question, "Input"_L1,
         QT_TRANSLATE_NOOP("Runwatch::DemoMode", "weather for Friday's offsite")},
    };
    return row;
}

} // namespace Runwatch
