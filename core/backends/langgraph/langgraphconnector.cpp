// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/langgraph/langgraphconnector.h"

#include "backends/langgraph/langgraphbackend.h"
#include "backends/optionchecks.h"

#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace Runwatch {

ConnectorDescriptor langGraphConnector()
{
    ConnectorDescriptor row;
    row.name = "langgraph"_L1;
    row.displayName = QT_TRANSLATE_NOOP("Runwatch::Connector", "LangGraph Agent Server");
    row.urlHelp = QT_TRANSLATE_NOOP(
        "Runwatch::Connector", "the deployment URL (LangSmith Deployment, or a local langgraph dev server)");
    row.urlPlaceholder = "https://my-deployment.us.langgraph.app";
    // LangSmith Deployment takes its key in X-Api-Key; a local dev server ignores it.
    row.defaultAuthHeader = "X-Api-Key"_L1;
    row.apiKeyEnv = "LANGSMITH_API_KEY"_L1;
    row.needsAgent = true;
    row.options = {
        {LangGraphOption::DeleteThread, "--delete-thread"_L1, "yes|no"_L1, ConnectorOption::Kind::Text,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "Delete &threads:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "no (the default) or yes"),
         QT_TRANSLATE_NOOP("Runwatch::Connector",
                           "yes: deleting a run on the server deletes its whole thread (the conversation "
                           "and every run on it). no (the default): only the run is deleted; the thread "
                           "stays for its other runs."),
         &checkYesNo},
    };
    row.cliNotes = QT_TRANSLATE_NOOP(
        "Runwatch::Connector",
        "--agent: an assistant id or a graph name (agents lists them). start --input: the graph's input "
        "(default {\"messages\":[{\"role\":\"user\",\"content\":PROMPT}]}). The run's remote id is its "
        "thread. "
        "respond: --approve/--reject [--comment] to a review, --text to a question, --value JSON to resume "
        "with any value. followup: a new run on the same thread. list --remote: the deployment's threads. "
        "attach THREAD_ID.");
    row.create = &makeBackend<LangGraphBackend>;
    // The simulator's graphs (runwatch-sim --langgraph): the demo's run is a review of two actions.
    row.demo.connectionName = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "Demo LangGraph");
    row.demo.options = [] { return QJsonObject{{ConnectionOption::Agent, u"approval"_s}}; };
    row.demo.runs = {
        {ConnectorDemo::Seed::Review,
         {},
         QT_TRANSLATE_NOOP("Runwatch::DemoMode", "send the Q3 report and clean up")},
    };
    return row;
}

} // namespace Runwatch
