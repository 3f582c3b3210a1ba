// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Configuration of the Azure AI Foundry Agent Service simulator (FoundrySimulator): pace, SSE
// framing, the Bearer token it expects, accepted api-versions, the project's agents, injected
// HTTP and stream faults, limits.
//
// Written from docs/protocols/openai-responses-and-foundry.md §5 only: this target never
// includes or links client code (runwatch_core), so that a misunderstanding of the protocol
// shared by client and simulator cannot hide.
//
// Scenarios and per-run options: foundrysimoptions.h.

#include "server/httpmessage.h"
#include "server/simfaults.h"

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

namespace RunwatchSim {

// What a request addresses; aims HTTP faults and names requests in the log.
enum class FoundryEndpoint {
    CreateThreadRun,   // POST /threads/runs
    CreateThread,      // POST /threads
    GetThread,         // GET /threads/{t}
    AddMessage,        // POST /threads/{t}/messages
    ListMessages,      // GET /threads/{t}/messages
    CreateRun,         // POST /threads/{t}/runs
    ListRuns,          // GET /threads/{t}/runs
    GetRun,            // GET /threads/{t}/runs/{r}
    SubmitToolOutputs, // POST /threads/{t}/runs/{r}/submit_tool_outputs
    Cancel,            // POST /threads/{t}/runs/{r}/cancel
    ListSteps,         // GET /threads/{t}/runs/{r}/steps
    ListAgents,        // GET /assistants
    GetAgent,          // GET /assistants/{a}
    CreateAgent,       // POST /assistants
    Unknown,           // anything else: 404
};

// "create" (both creates that start a run), "create_thread", "get_thread", "add_message",
// "messages", "create_run", "runs", "get", "submit", "cancel", "steps", "agents", "get_agent",
// "create_agent", "unknown".
QString foundryEndpointName(FoundryEndpoint endpoint);
std::optional<FoundryEndpoint> foundryEndpointFromName(QStringView name);

// Answer the first `count` requests to `endpoints` (empty: all) with `status` and the service's
// error body instead of serving them.
struct FoundryHttpFault
{
    QSet<FoundryEndpoint> endpoints;
    int count = 1; // -1: every matching request
    int status = 429;
    int retryAfterSeconds = 1; // Retry-After; -1: none
    bool htmlBody = false;     // a proxy's HTML page instead of the JSON error body

    bool aimsAt(FoundryEndpoint endpoint) const
    {
        return endpoints.isEmpty() || endpoints.contains(endpoint)
               || (endpoint == FoundryEndpoint::CreateRun
                   && endpoints.contains(FoundryEndpoint::CreateThreadRun));
    }
};

// "status=429,count=1,on=create+get,retry-after=2,body=html"; every key optional.
std::optional<FoundryHttpFault> foundryHttpFaultFromSpec(QStringView spec, QString *error = nullptr);

// An agent of the project (GET /assistants).
struct FoundrySimAgent
{
    QString id;
    QString name;
    QString model;
    QString instructions;
};

struct FoundrySimConfig : ServerLimits
{
    // The Bearer token every request must carry; empty: no auth.
    QString token;
    // The project path the endpoint ends with (…/api/projects/<project>).
    QString project = QStringLiteral("runwatch-sim");
    // Accepted `api-version` values; a request without one, or with another, is a 400.
    QStringList apiVersions{QStringLiteral("2025-05-01"), QStringLiteral("2025-05-15-preview"),
                            QStringLiteral("v1")};
    int intervalMs = 20;                             // pace of events
    int queuedMs = -1;                               // time queued before in_progress; -1: intervalMs
    int deltas = 8;                                  // text deltas of a message
    int longDeltas = 100000;                         // deltas of the "slow" scenario (for cancel)
    int expiresSeconds = 600;                        // a run expires this long after creation unless it ended
    QByteArray lineEnding = QByteArrayLiteral("\n"); // "\n", "\r\n" or "\r"
    int splitWrites = 0;                             // > 0: every event goes out in pieces of this many bytes
    QString replyText;                               // if set, its words are the deltas instead of tok<i>
    QList<FoundrySimAgent> agents{
        {QStringLiteral("asst_sim_weather"), QStringLiteral("weather-agent"), QStringLiteral("gpt-4o"),
         QStringLiteral("You answer questions about the weather.")},
        {QStringLiteral("asst_sim_research"), QStringLiteral("research-agent"), QStringLiteral("gpt-4.1"),
         QStringLiteral("You research a topic and write a report.")},
    };
    QList<FoundryHttpFault> httpFaults; // checked in order, after auth
    // connections, dropAfterEvents, dropMode, malformedAt (an event index), dripIntervalMs
    StreamFaults streamFaults;
    int maxStoredRuns = 1000;
};

} // namespace RunwatchSim
