// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/gemini/geminiconnector.h"

#include "backends/gemini/geminibackend.h"
#include "backends/optionchecks.h"

#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace Runwatch {

ConnectorDescriptor geminiConnector()
{
    ConnectorDescriptor row;
    row.name = "gemini"_L1;
    row.displayName = QT_TRANSLATE_NOOP("Runwatch::Connector", "Gemini Interactions (Google AI)");
    row.urlHelp = QT_TRANSLATE_NOOP("Runwatch::Connector",
                                    "the API's origin, e.g. https://generativelanguage.googleapis.com");
    row.urlPlaceholder = "https://generativelanguage.googleapis.com";
    row.defaultUrl = "https://generativelanguage.googleapis.com"_L1;
    // What @google/genai reads too; the key goes in x-goog-api-key, never in the URL.
    row.apiKeyEnv = "GEMINI_API_KEY"_L1;
    row.defaultAuthHeader = "x-goog-api-key"_L1;
    row.defaultModel = Gemini::kDefaultModel;
    row.options = {
        {GeminiOption::ApiVersion, "--api-version"_L1, "V"_L1, ConnectorOption::Kind::Text,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "API ve&rsion:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "v1beta (the default) or v1"),
         QT_TRANSLATE_NOOP("Runwatch::Connector",
                           "The version in the path of every request: v1beta (the REST reference's, the "
                           "default) or v1 (the default of Google's @google/genai 3.x client)."),
         &checkApiVersion},
    };
    row.cliNotes = QT_TRANSLATE_NOOP(
        "Runwatch::Connector",
        "start: --model M or --agent AGENT (agents lists both: the models as models/NAME, and the agents "
        "such as deep-research-pro-preview-12-2025, which run in the background with their agent "
        "config). start --input: the interaction's input (text, content or steps). respond: --output "
        "CALL_ID=TEXT once per pending function call, all in the next interaction "
        "(previous_interaction_id), which watch RUN follows under the same run. followup: the next "
        "interaction (previous_interaction_id). delete: deletes the run's interactions on the server.");
    row.create = &makeBackend<GeminiBackend>;
    // The simulator's Deep Research agent (runwatch-sim --gemini): a long run that thinks aloud.
    row.demo.connectionName = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "Demo Gemini");
    row.demo.options = [] { return QJsonObject{{ConnectionOption::Agent, Gemini::kDeepResearchAgent}}; };
    row.demo.runs = {
        {ConnectorDemo::Seed::Research, "Research"_L1,
         QT_TRANSLATE_NOOP("Runwatch::DemoMode", "compare how the EU and the US regulate AI model audits")},
    };
    return row;
}

} // namespace Runwatch
