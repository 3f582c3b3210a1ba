// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Configuration of runwatch-sim, the OpenAI Responses background-mode test double.
//
// Written from shared/protocols/openai-responses-and-foundry.md §1-§3 and §6 only: this target must
// never include or link client code (runwatch_core), so that a protocol misunderstanding shared by
// client and simulator cannot hide.
//
// SCENARIOS (which event sequence a response produces)
//   Chosen by metadata "scenario", else by the first word of the input text (case-insensitive,
//   trailing ':' ',' '.' ignored), else "normal".
//   normal      created(0) queued in_progress output_item.added content_part.added
//               N x output_text.delta output_text.done content_part.done output_item.done
//               completed (full snapshot + usage). Delta i is "tok<i> " (see Simulator::tokenText).
//   fail        like normal, but after `fail_after` deltas (default N/2): response.failed with
//               error {code:"server_error", message:"The model failed to generate a response."}.
//   incomplete  all deltas, item done with status "incomplete", then response.incomplete with
//               incomplete_details {reason:"max_output_tokens"}.
//   long        normal with `longDeltas` deltas (default 100000): for cancel tests.
//   huge        normal, but delta #1 (or #0 when N == 1) is one delta of `huge_bytes` bytes
//               (Simulator::hugeText(bytes)).
//   reasoning   reasoning item (reasoning_summary_part.added, reasoning_summary_text.delta x3
//               "step<i> ", .done, part.done), then a function_call item get_weather
//               (function_call_arguments.delta x3, .done), then the message as in normal.
//   tool_call   only a function_call item, then response.completed (human-in-the-loop: the client
//               continues with previous_response_id + a function_call_output input).
//   error       after `fail_after` deltas: a nested `event: error` payload (§2.5), then close; the
//               response becomes "failed" with error {code:"rate_limit_exceeded", …}.
//
// PER-RESPONSE OPTIONS (metadata values are strings, as the real API requires; the same keys may
// also be written as `key=value` words in the input text, metadata wins):
//   scenario, deltas, interval_ms, queued_ms, keepalives, fail_after, huge_bytes, reply (text whose
//   words become the deltas), manual (1 = advance only through Simulator::advance),
//   cancel_mode (failed_event|close|flip), send_done (1 = "data: [DONE]" after the terminal event),
//   resume_max_age_ms, fault_connections, drop_after, drop_mode (close|reset|mid), malformed_at,
//   invalid_utf8_at, endless_line_at, drip_ms, http_error_status, http_error_count,
//   http_error_on (endpoint names joined by ',' or '+'), retry_after, retry_after_ms,
//   http_error_body (error|html|empty).
//   A bad value of one of these keys is rejected with 400 (param "metadata.<key>").

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

namespace RunwatchSim {

enum class Scenario {
    Normal,
    Fail,
    Incomplete,
    Long,
    Huge,
    Reasoning,
    ToolCall,
    Error,
};

QString scenarioName(Scenario scenario);
std::optional<Scenario> scenarioFromName(QStringView name);
QStringList scenarioNames();

// What a request addresses; used to aim HTTP faults and in the request log.
enum class Endpoint {
    Create,     // POST /v1/responses
    Retrieve,   // GET /v1/responses/{id}
    Stream,     // GET /v1/responses/{id}?stream=true  (resume / replay)
    Cancel,     // POST /v1/responses/{id}/cancel
    Delete,     // DELETE /v1/responses/{id}
    InputItems, // GET /v1/responses/{id}/input_items
    Models,     // GET /v1/models
    Unknown,    // anything else (answered 404 "Invalid URL")
};

// "create", "get", "stream", "cancel", "delete", "input_items", "models", "unknown".
QString endpointName(Endpoint endpoint);
std::optional<Endpoint> endpointFromName(QStringView name);
// "create+get", "create,get", "any" / "" (= empty set, meaning every endpoint).
std::optional<QSet<Endpoint>> endpointsFromList(QStringView list);

enum class FaultBody {
    OpenAIError, // {"error":{"message","type","param","code"}}
    Html,        // an HTML page (a proxy or captive portal answering instead of the API)
    Empty,
};

// Answer the first `count` requests that match `endpoints` with `status` instead of serving them.
// status 200 with body Html gives "a 200 with an HTML body".
struct HttpFault
{
    QSet<Endpoint> endpoints; // empty = every endpoint
    int count = 1;            // -1 = every matching request
    int status = 429;
    int retryAfterSeconds = 1; // "Retry-After" header; -1 = omit
    int retryAfterMs = -1;     // "retry-after-ms" header; -1 = omit
    FaultBody body = FaultBody::OpenAIError;
};

// "status=429,count=2,on=create+get,retry-after=1,retry-after-ms=500,body=html"; every key
// optional.
std::optional<HttpFault> httpFaultFromSpec(QStringView spec, QString *error = nullptr);

enum class DropMode {
    Close,    // flush what was written, then FIN: the client sees a clean EOF without terminal event
    Reset,    // RST (SO_LINGER 0): bytes still in flight may be lost, as on a real reset
    MidEvent, // write the first half of the next event, then FIN
};

QString dropModeName(DropMode mode);
std::optional<DropMode> dropModeFromName(QStringView name);

// Faults applied to SSE connections. Sequence numbers refer to the response's events; counts are
// per connection (each connection counts from its own start).
struct StreamFaults
{
    int connections = -1;     // only the first N stream connections of each response; -1 = all
    int dropAfterEvents = -1; // drop the connection after writing this many events; -1 = off
    DropMode dropMode = DropMode::Close;
    qint64 malformedAt = -1;   // the event with this sequence number is sent with truncated JSON
    qint64 invalidUtf8At = -1; // the event with this sequence number gets bytes C3 28 in its delta
    qint64 endlessLineAt = -1; // at this event, a `data:` line starts that never ends
    int dripIntervalMs = 0;    // > 0: the body goes out one byte per interval
};

enum class CancelMode {
    FailedEvent, // stop; streams get response.failed whose response.status is "cancelled"
    Close,       // stop; streams close without a terminal event
    Flip,        // status shows "cancelled" but generation goes on and ends "completed" (best effort)
};

QString cancelModeName(CancelMode mode);
std::optional<CancelMode> cancelModeFromName(QStringView name);

struct SimulatorConfig
{
    QString apiKey;                  // empty = no auth; else "Authorization: Bearer K" or "api-key: K"
    int intervalMs = 20;             // pace of deltas, keepalives and the terminal event
    int queuedMs = -1;               // time spent queued before in_progress; -1 = intervalMs
    int deltas = 8;                  // text deltas of normal/fail/incomplete/error/huge
    int longDeltas = 100000;         // text deltas of "long"
    qint64 hugeDeltaBytes = 4 << 20; // size of the big delta of "huge"
    int keepaliveEvents = 0;         // {"type":"keepalive"} events emitted while queued
    int commentIntervalMs = 0;       // > 0: ": keep-alive" comment lines on every open stream
    CancelMode cancelMode = CancelMode::FailedEvent;
    bool manualAdvance = false;        // runs move only through Simulator::advance()
    bool sendDoneSentinel = false;     // "data: [DONE]" after the terminal event
    bool obfuscation = false;          // "obfuscation" padding on deltas (unless the client opts out)
    bool fractionalTimestamps = false; // created_at like 1741369938.25 (Azure shows floats)
    QByteArray lineEnding = QByteArrayLiteral("\n"); // SSE line ending: "\n", "\r\n" or "\r"
    qint64 resumeMaxAgeMs = -1;        // GET ?stream=true refused when older; 0 = always; -1 = never
    bool rejectInflightDelete = false; // DELETE of a queued/in_progress response → 400
    QString replyText;                 // if set, its words are the deltas instead of tok<i>
    QStringList modelIds{QStringLiteral("runwatch-sim-1")}; // listed by GET /v1/models
    QList<HttpFault> httpFaults;                            // global; checked in order, after auth
    StreamFaults streamFaults; // global defaults; metadata overrides per response

    // Hostile-input limits of the HTTP layer.
    int maxHeaderBytes = 64 * 1024;        // → 431
    qint64 maxBodyBytes = 16 << 20;        // → 413
    int requestTimeoutMs = 30000;          // incomplete request → 408
    bool keepAlive = true;                 // persistent connections (HTTP/1.1 default)
    int keepAliveIdleMs = 15000;           // idle persistent connections close after this
    bool closeDelimitedStreams = false;    // SSE without chunking, ended by closing the connection
    qint64 endlessLineMaxBytes = 64 << 20; // give up the never-ending line after this much
    int maxConnections = 512;              // further connections are closed at once
    int maxStoredResponses = 1000;         // beyond this the oldest finished responses are forgotten
};

// The scenario and metadata documentation above, for --help and the GUI's demo tooltip.
QString optionsHelpText();

} // namespace RunwatchSim
