// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Configuration of the Claude Managed Agents simulator (ClaudeAgentsSimulator): pace, the key it
// expects, the agents and environments of its account, the largest page a listing gives, the
// heartbeat, injected HTTP and stream faults, limits.
//
// Written from docs/protocols/agent-sessions.md §2 and the shipped code of the official client
// (@anthropic-ai/sdk 1.14.0, resources/beta/{agents,environments,sessions}/**) only: this target
// never includes or links client code (runwatch_core). Scenarios: claudeagentssimoptions.h.

#include "server/httpmessage.h"
#include "server/simfaults.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>

namespace RunwatchSim {

// What a request addresses; aims HTTP faults and names requests in the log.
enum class ClaudeAgentsEndpoint {
    Agents,        // GET /v1/agents
    Environments,  // GET /v1/environments
    CreateSession, // POST /v1/sessions
    ListSessions,  // GET /v1/sessions
    GetSession,    // GET /v1/sessions/{id}
    DeleteSession, // DELETE /v1/sessions/{id}
    SendEvents,    // POST /v1/sessions/{id}/events
    ListEvents,    // GET /v1/sessions/{id}/events
    Stream,        // GET /v1/sessions/{id}/events/stream
    Unknown,       // anything else: 404
};

// "agents", "environments", "create", "list", "get", "delete", "send", "events", "stream", "unknown".
QString claudeAgentsEndpointName(ClaudeAgentsEndpoint endpoint);
std::optional<ClaudeAgentsEndpoint> claudeAgentsEndpointFromName(QStringView name);

// Answer the first `count` requests to `endpoints` (empty: all) with `status` instead of serving
// them: the API's error JSON ({type:"error", error:{type, message}}), or a proxy's HTML page.
struct ClaudeAgentsHttpFault
{
    QSet<ClaudeAgentsEndpoint> endpoints;
    int count = 1; // -1: every matching request
    int status = 429;
    int retryAfterSeconds = 1; // Retry-After; -1: none
    bool htmlBody = false;

    bool aimsAt(ClaudeAgentsEndpoint endpoint) const
    {
        return endpoints.isEmpty() || endpoints.contains(endpoint);
    }
};

// "status=429,count=2,on=send+stream,retry-after=1,body=html|json"; every key optional.
std::optional<ClaudeAgentsHttpFault> claudeAgentsHttpFaultFromSpec(QStringView spec,
                                                                   QString *error = nullptr);

// One agent of the simulated account.
struct ClaudeAgentsSimAgent
{
    QString id;
    QString name;
    QString model;
};

struct ClaudeAgentsSimConfig : ServerLimits
{
    // The key every request must carry, as Authorization: Bearer (what the SDK sends) or
    // x-api-key (the docs' curl); empty: none checked.
    QString apiKey;
    int intervalMs = 20;   // pace of a turn's steps (each delta one)
    int deltas = 8;        // text deltas of an answer
    int longDeltas = 2000; // text deltas of the "long" scenario
    // If set, an answer's deltas are its words in turn (the demo's prose) instead of tok<i>.
    QString replyText;
    QList<ClaudeAgentsSimAgent> agents{
        {QStringLiteral("agent_011Runwatch0Research"), QStringLiteral("Research assistant"),
         QStringLiteral("claude-opus-4-7")},
        {QStringLiteral("agent_011Runwatch00Support"), QStringLiteral("Support agent"),
         QStringLiteral("claude-sonnet-4-6")},
    };
    QStringList environments{QStringLiteral("env_011Runwatch0Sim")};
    // A listing's `limit` is capped here (tests page through small pages).
    int maxPageSize = 1000;
    // A stream's heartbeat (event: ping) while nothing else goes out.
    int heartbeatMs = 5000;
    QList<ClaudeAgentsHttpFault> httpFaults; // checked in order, after auth
    // connections, dropAfterEvents, dropMode, dripIntervalMs: per session, counted per connection
    StreamFaults streamFaults;
    int maxSessions = 1000;
};

} // namespace RunwatchSim
