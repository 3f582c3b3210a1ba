// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Configuration of the OpenAI Responses background-mode simulator (OpenAiSimulator): pace, SSE
// framing, auth, injected HTTP and stream faults, limits, and the Foundry project it also serves.
//
// Written from docs/protocols/openai-responses-and-foundry.md §1-§3 and §6 and
// foundry-agents-and-gemini.md §1 only: this target must
// never include or link client code (runwatch_core), so that a protocol misunderstanding shared by
// client and simulator cannot hide.
//
// Scenarios and per-response options: openaisimoptions.h.

#include "server/httpmessage.h"
#include "server/simfaults.h"

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

namespace RunwatchSim {

// What a request addresses; used to aim HTTP faults and in the request log.
enum class OpenAiEndpoint {
    Create,             // POST /v1/responses
    Retrieve,           // GET /v1/responses/{id}
    Stream,             // GET /v1/responses/{id}?stream=true  (resume / replay)
    Cancel,             // POST /v1/responses/{id}/cancel
    Delete,             // DELETE /v1/responses/{id}
    InputItems,         // GET /v1/responses/{id}/input_items
    Models,             // GET /v1/models
    Agents,             // GET /api/projects/<project>/agents?api-version=v1 (Foundry)
    ConversationCreate, // POST /v1/conversations
    ConversationGet,    // GET /v1/conversations/{id}
    ConversationDelete, // DELETE /v1/conversations/{id}
    ConversationItems,  // GET /v1/conversations/{id}/items
    Unknown,            // anything else (answered 404 "Invalid URL")
};

// "create", "get", "stream", "cancel", "delete", "input_items", "models", "agents",
// "conversation_create", "conversation_get", "conversation_delete", "conversation_items", "unknown".
QString openAiEndpointName(OpenAiEndpoint endpoint);
std::optional<OpenAiEndpoint> openAiEndpointFromName(QStringView name);
// "create+get", "create,get", "any" / "" (= empty set, meaning every endpoint).
std::optional<QSet<OpenAiEndpoint>> openAiEndpointsFromList(QStringView list);

enum class OpenAiFaultBody {
    Error, // {"error":{"message","type","param","code"}}
    Html,  // an HTML page (a proxy or captive portal answering instead of the API)
    Empty,
};

// Answer the first `count` requests that match `endpoints` with `status` instead of serving them.
// status 200 with body Html gives "a 200 with an HTML body".
struct OpenAiHttpFault
{
    QSet<OpenAiEndpoint> endpoints; // empty = every endpoint
    int count = 1;                  // -1 = every matching request
    int status = 429;
    int retryAfterSeconds = 1; // "Retry-After" header; -1 = omit
    int retryAfterMs = -1;     // "retry-after-ms" header; -1 = omit
    OpenAiFaultBody body = OpenAiFaultBody::Error;

    bool aimsAt(OpenAiEndpoint endpoint) const { return endpoints.isEmpty() || endpoints.contains(endpoint); }
};

// "status=429,count=2,on=create+get,retry-after=1,retry-after-ms=500,body=html"; every key
// optional.
std::optional<OpenAiHttpFault> openAiHttpFaultFromSpec(QStringView spec, QString *error = nullptr);
// "error", "html", "empty".
std::optional<OpenAiFaultBody> openAiFaultBodyFromName(QStringView name);

enum class OpenAiCancelMode {
    FailedEvent, // stop; streams get response.failed whose response.status is "cancelled"
    Close,       // stop; streams close without a terminal event
    Flip,        // status shows "cancelled" but generation goes on and ends "completed" (best effort)
};

QString openAiCancelModeName(OpenAiCancelMode mode);
std::optional<OpenAiCancelMode> openAiCancelModeFromName(QStringView name);

// A prompt agent of the Azure AI Foundry project the simulator also serves (protocol
// foundry-agents-and-gemini.md §1). New agents have no GUID: the name is the id.
struct OpenAiSimAgent
{
    QString name;
    // The latest version. Versions "1" to this one all exist: Foundry numbers the versions of an
    // agent 1, 2, 3 …, and that none was deleted is the simulator's choice.
    int version = 1;
    QString model; // empty = the first of OpenAiSimConfig::modelIds
    QString description;
    QString instructions; // empty = "You are the <name> agent of runwatch-sim."
    // What the agent refuses (a create naming it with background:true / stream:true gets 400
    // naming that parameter): hosted agents have been seen to drop background
    // (foundry-agents-and-gemini.md §1.4), and a client must still get the run.
    bool refusesBackground = false;
    bool refusesStream = false;
};

// "name=researcher,version=3,model=gpt-x,description=Finds sources,instructions=Be brief,
// refuses=background+stream"; only name is required. A value cannot hold ','.
std::optional<OpenAiSimAgent> openAiAgentFromSpec(QStringView spec, QString *error = nullptr);

// The limits of ServerLimits (→ 431, 413, 408, keep-alive, close-delimited streams, open
// connections) apply to the HTTP layer.
struct OpenAiSimConfig : ServerLimits
{
    QString apiKey;                  // empty = no auth; else "Authorization: Bearer K" or "api-key: K"
    int intervalMs = 20;             // pace of deltas, keepalives and the terminal event
    int queuedMs = -1;               // time spent queued before in_progress; -1 = intervalMs
    int deltas = 8;                  // text deltas of normal/fail/incomplete/error/huge
    int longDeltas = 100000;         // text deltas of "long"
    qint64 hugeDeltaBytes = 4 << 20; // size of the big delta of "huge"
    int keepaliveEvents = 0;         // {"type":"keepalive"} events emitted while queued
    int commentIntervalMs = 0;       // > 0: ": keep-alive" comment lines on every open stream
    OpenAiCancelMode cancelMode = OpenAiCancelMode::FailedEvent;
    bool manualAdvance = false;        // runs move only through OpenAiSimulator::advance()
    bool sendDoneSentinel = false;     // "data: [DONE]" after the terminal event
    bool obfuscation = false;          // "obfuscation" padding on deltas (unless the client opts out)
    bool fractionalTimestamps = false; // created_at like 1741369938.25 (Azure shows floats)
    QByteArray lineEnding = QByteArrayLiteral("\n"); // SSE line ending: "\n", "\r\n" or "\r"
    qint64 resumeMaxAgeMs = -1;        // GET ?stream=true refused when older; 0 = always; -1 = never
    bool rejectInflightDelete = false; // DELETE of a queued/in_progress response → 400
    QString replyText;                 // if set, its words are the deltas instead of tok<i>
    QStringList modelIds{QStringLiteral("runwatch-sim-1")}; // listed by GET /v1/models
    // The Foundry project layout: /api/projects/<foundryProject>/openai/v1/… is the API above and
    // /api/projects/<foundryProject>/agents lists `agents`, in this (creation) order.
    QString foundryProject = QStringLiteral("runwatch-sim");
    QList<OpenAiSimAgent> agents{
        {QStringLiteral("researcher"), 3, QString(), QStringLiteral("Finds and summarises sources."),
         QString()},
        {QStringLiteral("writer"), 1, QString(), QStringLiteral("Writes the report."), QString()},
    };
    QList<OpenAiHttpFault> httpFaults;     // global; checked in order, after auth
    StreamFaults streamFaults;             // global defaults; metadata overrides per response
    qint64 endlessLineMaxBytes = 64 << 20; // give up the never-ending line after this much
    int maxStoredResponses = 1000;         // beyond this the oldest finished responses are forgotten
};

} // namespace RunwatchSim
