// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Options of one simulated response: the simulator's config, overridden by `key=value` words of the
// input text and then by metadata.
//
// SCENARIOS (which event sequence a response produces)
//   Chosen by metadata "scenario", else by the first word of the input text (case-insensitive,
//   trailing ':' ',' '.' ignored), else "normal".
//   normal      created(0) queued in_progress output_item.added content_part.added
//               N x output_text.delta output_text.done content_part.done output_item.done
//               completed (full snapshot + usage). Delta i is "tok<i> " (see OpenAiSimulator::tokenText).
//   fail        like normal, but after `fail_after` deltas (default N/2): response.failed with
//               error {code:"server_error", message:"The model failed to generate a response."}.
//   incomplete  all deltas, item done with status "incomplete", then response.incomplete with
//               incomplete_details {reason:"max_output_tokens"}.
//   long        normal with `longDeltas` deltas (default 100000): for cancel tests.
//   huge        normal, but delta #1 (or #0 when N == 1) is one delta of `huge_bytes` bytes
//               (OpenAiSimulator::hugeDelta(bytes)).
//   reasoning   reasoning item (reasoning_summary_part.added, reasoning_summary_text.delta x3
//               "step<i> ", .done, part.done), then a function_call item get_weather
//               (function_call_arguments.delta x3, .done), then the message as in normal.
//   tool_call   `calls` function_call items (default 1: get_weather, then get_time, lookup …), then
//               response.completed (human-in-the-loop, protocol §1.8: the client continues with
//               previous_response_id and one function_call_output per call).
//   mcp_approval  one mcp_approval_request item (server_label "docs", name "search_docs"), then
//               response.completed; the client continues with an mcp_approval_response.
//
// CHAINS (previous_response_id): a request whose input answers the previous response's calls
// (function_call_output by call_id, mcp_approval_response by approval_request_id) must answer
// every pending call, else 400 as the real API ("No tool output found for function call …").
// The continuation inherits the previous response's options (normal scenario) and its message
// starts with one "[<call_id>: <output>] " / "[approved: <name>] " / "[rejected: <name>] " per
// answer, then the deltas ("tok<i> ", or the previous `reply`).
//   error       after `fail_after` deltas: a nested `event: error` payload (§2.5), then close; the
//               response becomes "failed" with error {code:"rate_limit_exceeded", …}.
//
// FOUNDRY (foundry-agents-and-gemini.md §1; openaisimfoundry.cpp): a request with
// agent_reference runs the agent's model with the same scenarios and options. A request with
// `conversation` continues the conversation's last response as a previous_response_id request
// continues that one: the same rules for answering its calls, the same reply text.
//
// PER-RESPONSE OPTIONS (metadata values are strings, as the real API requires;
// the same keys may also be written as `key=value` words in the input text, metadata wins):
//   scenario, deltas, calls, interval_ms, queued_ms, keepalives, fail_after, huge_bytes, reply (text whose
//   words become the deltas), manual (1 = advance only through OpenAiSimulator::advance),
//   cancel_mode (failed_event|close|flip), send_done (1 = "data: [DONE]" after the terminal event),
//   resume_max_age_ms, clock_skew_s, fault_connections, drop_after, drop_mode (close|reset|mid), malformed_at,
//   invalid_utf8_at, endless_line_at, drip_ms, http_error_status, http_error_count,
//   http_error_on (endpoint names joined by ',' or '+'), retry_after, retry_after_ms,
//   http_error_body (error|html|empty).
//   A bad value of one of these keys is rejected with 400 (param "metadata.<key>").

#include "openaisimconfig.h"

#include "server/simoptions.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <optional>

namespace RunwatchSim {

enum class OpenAiScenario {
    Normal,
    Fail,
    Incomplete,
    Long,
    Huge,
    Reasoning,
    ToolCall,
    Error,
    McpApproval,
};

QString openAiScenarioName(OpenAiScenario scenario);
std::optional<OpenAiScenario> openAiScenarioFromName(QStringView name);
QStringList openAiScenarioNames();

struct OpenAiRunOptions
{
    OpenAiScenario scenario = OpenAiScenario::Normal;
    int deltas = 8;
    int calls = 1; // function_call items of the tool_call scenario
    int intervalMs = 20;
    int queuedMs = 20;
    int keepalives = 0;
    int failAfter = 4;
    qint64 hugeBytes = 4 << 20;
    QString reply;
    bool manual = false;
    OpenAiCancelMode cancelMode = OpenAiCancelMode::FailedEvent;
    bool sendDone = false;
    qint64 resumeMaxAgeMs = -1;
    // The response's timestamps (created_at, completed_at) are this far off the simulator's clock:
    // a server whose clock differs from the client's, or a response made that long ago.
    int clockSkewS = 0;
    StreamFaults streamFaults;
    std::optional<OpenAiHttpFault> httpFault; // aimed at this response's requests
};

// A bad option value: the create request is answered 400 with param "metadata.<key>".
using OpenAiOptionError = SimOptionError;

// Later wins: config, `key=value` words of the input text, metadata. The scenario may also be the
// first word of the input text.
std::optional<OpenAiOptionError> resolveRunOptions(const OpenAiSimConfig &config, const QString &inputText,
                                                   const QJsonObject &metadata, OpenAiRunOptions *options);

// The scenario and option documentation above, for --help and the GUI's demo tooltip.
QString openAiOptionsHelpText();

// The text of a request's `input` (string, or the text parts of an item array).
QString inputTextOf(const QJsonValue &input);

} // namespace RunwatchSim
