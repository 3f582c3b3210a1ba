// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Configuration of the LangGraph Agent Server simulator (LangGraphSimulator): pace, how long a
// stream stays open after its run stopped, the API key it expects, injected HTTP and stream faults,
// limits.
//
// Written from docs/protocols/langgraph-agent-server.md and the real server's transcripts in
// tests/data/langgraph/ only: this target never includes or links client code (runwatch_core), so
// that a misunderstanding of the protocol shared by client and simulator cannot hide.
//
// Graphs and per-run options: langgraphsimoptions.h.

#include "server/httpmessage.h"
#include "server/simfaults.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QStringView>

#include <optional>

namespace RunwatchSim {

// What a request addresses; aims HTTP faults and names requests in the log.
enum class LangGraphEndpoint {
    Ok,               // GET /ok
    Info,             // GET /info
    SearchAssistants, // POST /assistants/search
    GetAssistant,     // GET /assistants/{a}
    CreateThread,     // POST /threads
    SearchThreads,    // POST /threads/search
    GetThread,        // GET /threads/{t}
    DeleteThread,     // DELETE /threads/{t}
    GetState,         // GET /threads/{t}/state
    CreateRun,        // POST /threads/{t}/runs and POST /threads/{t}/runs/stream
    ListRuns,         // GET /threads/{t}/runs
    GetRun,           // GET /threads/{t}/runs/{r}
    DeleteRun,        // DELETE /threads/{t}/runs/{r}
    JoinStream,       // GET /threads/{t}/runs/{r}/stream
    Cancel,           // POST /threads/{t}/runs/{r}/cancel
    Unknown,          // anything else: 404
};

// "ok", "info", "assistants", "assistant", "create_thread", "threads", "thread", "delete_thread",
// "state", "create", "runs", "get", "delete_run", "join", "cancel", "unknown".
QString langGraphEndpointName(LangGraphEndpoint endpoint);
std::optional<LangGraphEndpoint> langGraphEndpointFromName(QStringView name);

// Answer the first `count` requests to `endpoints` (empty: all) with `status` instead of serving
// them.
struct LangGraphHttpFault
{
    QSet<LangGraphEndpoint> endpoints;
    int count = 1; // -1: every matching request
    int status = 503;
    int retryAfterSeconds = 1; // Retry-After; -1: none
    bool htmlBody = false;     // a proxy's HTML page instead of the server's plain-text error

    bool aimsAt(LangGraphEndpoint endpoint) const
    {
        return endpoints.isEmpty() || endpoints.contains(endpoint);
    }
};

// "status=503,count=2,on=create+join,retry-after=1,body=html"; every key optional.
std::optional<LangGraphHttpFault> langGraphHttpFaultFromSpec(QStringView spec, QString *error = nullptr);

struct LangGraphSimConfig : ServerLimits
{
    // X-Api-Key every request must carry (as LangSmith Deployment wants); empty: none, as the dev
    // server.
    QString apiKey;
    QString version = QStringLiteral("1.5.1-sim"); // GET /info
    int intervalMs = 20;                           // pace of the tokens of echo, approval, question and fail
    int queuedMs = -1;    // time a run stays `pending` before it executes; -1: intervalMs
    int tokens = 6;       // tokens of echo ("long N" in the prompt changes it)
    int slowTokens = 300; // tokens of slow
    int slowIntervalMs = 100;
    // The server closes a stream this long after its run stopped (there is no end event), and a
    // join of a run that has ended stays open as long.
    int closeDelayMs = 500;
    int splitWrites = 0; // > 0: every event goes out in pieces of this many bytes
    // GET /threads/{t}/runs lists oldest first on the JS server 1.5.1 (observed, not in the reference);
    // true turns the list around.
    bool runsNewestFirst = false;
    QList<LangGraphHttpFault> httpFaults; // checked in order, after auth
    // connections, dropAfterEvents, dropMode, malformedAt (an event id), dripIntervalMs
    StreamFaults streamFaults;
    int maxStoredRuns = 1000;
};

} // namespace RunwatchSim
