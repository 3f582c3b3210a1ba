// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The graphs the LangGraph simulator serves (one system assistant each) and the options of one run:
// the simulator's config, overridden by words of the run's last user message and then by the run's
// metadata.
//
// GRAPHS: the run's assistant_id picks one (the graph id, or the assistant's UUID).
//   echo      node "respond": custom event {"phase":"drafting"}, then N tokens (default 6): token 0
//             is "Echo: <last user text>", token i is " w<i>" plus one of "", "é", "日本", "🎉"
//             (by i % 4).
//   approval  node "plan" streams a plan (stored as an AI message); node "review" interrupts with
//             LangChain's human-in-the-loop request (send_email, delete_file). Resumed with
//             {"decisions":[…]} it streams one clause per request, e.g. "send_email: approved;
//             delete_file: rejected (reason: not now)".
//   question  node "ask": interrupt("What city?"); resumed, it streams "Weather for <answer>: sunny".
//   fail      node "explode": streams "Working on it, then failing", then an `error` event
//             {"error":"Error","message":"graph exploded on purpose"}.
//   slow      like echo without the custom event, 300 tokens 100 ms apart (for cancel).
//
// PER-RUN OPTIONS, as the peer's graphs read them: "long N" (tokens of echo and slow) and
// "delay MS" (the pace of every token) in the user's text; and as key=value words of the text or
// metadata values (metadata wins): tokens, interval_ms, queued_ms, split, drop_after,
// drop_mode (close|reset|mid), fault_connections, malformed_at (an event id), drip_ms,
// http_error_status, http_error_count, http_error_on (get+join+cancel), retry_after.
// A bad value is a 422.

#include "langgraphsimconfig.h"

#include "server/simoptions.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QUuid>

#include <optional>

namespace RunwatchSim {

enum class LangGraphGraph { Echo, Approval, Question, Fail, Slow };

QString langGraphGraphName(LangGraphGraph graph);
std::optional<LangGraphGraph> langGraphGraphFromName(QStringView name);
// In the order GET /assistants/search lists them.
QList<LangGraphGraph> langGraphGraphs();
// The system assistant of a graph: a UUIDv5 of the graph id, in the namespace that gives the ids
// the real server reports (echo → 046b5dc7-2108-582c-9c6c-31d556d138f0).
QUuid langGraphAssistantId(LangGraphGraph graph);
// The graph's nodes, in the order they run.
QStringList langGraphNodes(LangGraphGraph graph);

struct LangGraphRunOptions
{
    int tokens = 6; // echo and slow
    int intervalMs = 20;
    int queuedMs = 20;
    int splitWrites = 0;
    StreamFaults streamFaults;
    std::optional<LangGraphHttpFault> httpFault; // aimed at this run's requests
};

// Later wins: config, the graph's own defaults, words of `prompt`, `metadata`.
std::optional<SimOptionError> resolveRunOptions(const LangGraphSimConfig &config, LangGraphGraph graph,
                                                const QString &prompt, const QJsonObject &metadata,
                                                LangGraphRunOptions *options);

// The graph and option documentation above, for --help.
QString langGraphOptionsHelpText();

} // namespace RunwatchSim
