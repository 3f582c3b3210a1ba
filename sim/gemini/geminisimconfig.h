// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Configuration of the Gemini Interactions API simulator (GeminiSimulator): pace, SSE framing, the
// API key it expects, the models and agents it serves, the service's cuts of long streams,
// expiry, injected HTTP and stream faults, limits.
//
// Written from docs/protocols/foundry-agents-and-gemini.md §2 (shared/protocols), the hand-written
// transcripts in tests/data/gemini/ and the shipped code of the official client @google/genai 3.3.0
// only: this target never includes or links client code (runwatch_core), so that a
// misunderstanding of the protocol shared by client and simulator cannot hide.
//
// Scenarios and per-interaction options: geminisimoptions.h.

#include "server/httpmessage.h"
#include "server/simfaults.h"

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>

namespace RunwatchSim {

// What a request addresses; aims HTTP faults and names requests in the log. {v} is v1 (what
// @google/genai 3.3.0 sends), v1beta (the REST reference) or v1alpha.
enum class GeminiEndpoint {
    Create,  // POST /{v}/interactions
    Get,     // GET /{v}/interactions/{id}
    Stream,  // GET /{v}/interactions/{id}?stream=true[&last_event_id=E]
    Cancel,  // POST /{v}/interactions/{id}/cancel
    Delete,  // DELETE /{v}/interactions/{id}
    Models,  // GET /{v}/models, GET /{v}/models/{m}
    Agents,  // GET /{v}/agents
    Unknown, // anything else: 404
};

// "create", "get", "stream", "cancel", "delete", "models", "agents", "unknown".
QString geminiEndpointName(GeminiEndpoint endpoint);
std::optional<GeminiEndpoint> geminiEndpointFromName(QStringView name);

// Answer the first `count` requests to `endpoints` (empty: all) with `status` instead of serving
// them: Google's error JSON ({"error":{"code","message","status"}}), or a proxy's HTML page.
// The client: @google/genai retries 408, 409, 429 and 5xx itself (4 times, honouring Retry-After
// and retry-after-ms), and turns a 4xx/5xx JSON body into an error with its error.message.
struct GeminiHttpFault
{
    QSet<GeminiEndpoint> endpoints;
    int count = 1; // -1: every matching request
    int status = 429;
    int retryAfterSeconds = 1; // Retry-After; -1: none
    bool htmlBody = false;

    bool aimsAt(GeminiEndpoint endpoint) const { return endpoints.isEmpty() || endpoints.contains(endpoint); }
};

// "status=429,count=2,on=create+stream,retry-after=1,body=html|json"; every key optional (the
// shared fault spec of server/simfaults.h).
std::optional<GeminiHttpFault> geminiHttpFaultFromSpec(QStringView spec, QString *error = nullptr);

struct GeminiSimConfig : ServerLimits
{
    // x-goog-api-key (or ?key=) every request must carry; empty: none checked.
    QString apiKey;
    int intervalMs = 20;   // pace of the deltas
    int deltas = 8;        // text deltas of a model's answer
    int longDeltas = 2000; // text deltas of the "long" scenario
    // If set, an answer's deltas are its words in turn (the demo's prose) instead of tok<i>.
    QString replyText;
    QByteArray lineEnding = QByteArrayLiteral("\n"); // SSE line ending: "\n", "\r\n" or "\r"
    int splitWrites = 0;                             // > 0: every event goes out in pieces of this many bytes
    // The service cuts a stream (error gateway_timeout, then [DONE]) once it carried this many
    // step.delta events; the interaction goes on. -1: never (the real cut comes after ~10 min).
    int cutAfterDeltas = -1;
    // A finished interaction is forgotten (404) this long after it ended; -1: kept.
    qint64 expiresMs = -1;
    // GET /{v}/models; the first is the default of nothing.
    QStringList modelIds{QStringLiteral("gemini-3-flash-preview"), QStringLiteral("gemini-3-pro-preview")};
    // The agents a create may name (GET /{v}/agents lists them); they run the research scenario.
    QStringList agentIds{QStringLiteral("deep-research-pro-preview-12-2025"),
                         QStringLiteral("deep-research-preview-04-2026")};
    QList<GeminiHttpFault> httpFaults; // checked in order, after auth
    // connections, dropAfterEvents, dropMode, malformedAt (an event's index in the log),
    // dripIntervalMs
    StreamFaults streamFaults;
    int maxStoredInteractions = 1000;
};

} // namespace RunwatchSim
