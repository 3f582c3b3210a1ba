// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The scenarios of the Gemini simulator and the options of one interaction: the simulator's
// config, overridden by `key=value` words of the input text.
//
// SCENARIOS (which steps an interaction produces), chosen by the first word of the input text
// (case-insensitive, trailing ':' ',' '.' ignored); otherwise "normal" for a model and "research"
// for an agent.
//   normal      a thought (signature only), then one model_output step of N text deltas.
//   think       a thought whose summary comes in two thought_summary deltas, a google_search_call
//               and its google_search_result, then the model_output.
//   research    what an agent runs: a thought with a summary, a search call and result, the first
//               half of the deltas as one model_output, a second thought, the rest as another
//               model_output.
//   tool_call   a thought, then `calls` function_call steps (get_weather, get_time, lookup, …, or
//               the names of the request's function tools in turn) whose arguments arrive as two
//               arguments_delta fragments each; the interaction ends `requires_action`.
//   fail        `fail_after` deltas, an `error` event {code:"internal"}, then interaction.completed
//               with status `failed`; the stored interaction has `errors`.
//   incomplete  the deltas, then status `incomplete`.
//   long        normal with `longDeltas` deltas (for cancel and cuts).
// Delta i (0-based) is "tok<i>" plus one of "", "é", "日本", "🎉" (by i % 4) and a space: the text
// of an interaction is known from its options alone (geminiDeltaText).
//
// CONTINUATIONS (previous_interaction_id): an interaction answering a `requires_action` one must
// give one function_result per pending call (else 400); it runs "normal" with the previous one's
// options, its first delta starting with "[<call_id>: <result>] " per answer. A text input after a
// finished interaction is a follow-up turn and picks its own scenario.
//
// PER-INTERACTION OPTIONS, `key=value` words of the input text:
//   deltas, calls, interval_ms, fail_after, cut_after (the service's gateway_timeout after N
//   deltas on every stream), expires_ms, split, line_ending (lf|crlf|cr), fault_connections,
//   drop_after, drop_mode (close|reset|mid), malformed_at (an event's index in the log), drip_ms,
//   http_error_status, http_error_count, http_error_on (get+stream+cancel+delete), retry_after.
// A bad value is a 400 INVALID_ARGUMENT.

#include "geminisimconfig.h"

#include "server/simoptions.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace RunwatchSim {

enum class GeminiScenario { Normal, Think, Research, ToolCall, Fail, Incomplete, Long };

QString geminiScenarioName(GeminiScenario scenario);
std::optional<GeminiScenario> geminiScenarioFromName(QStringView name);

struct GeminiRunOptions
{
    GeminiScenario scenario = GeminiScenario::Normal;
    int deltas = 8;
    int calls = 1;
    int intervalMs = 20;
    int failAfter = 4;
    int cutAfterDeltas = -1;
    qint64 expiresMs = -1;
    int splitWrites = 0;
    QByteArray lineEnding = QByteArrayLiteral("\n");
    QStringList replyWords; // GeminiSimConfig::replyText's words; empty: tok<i>
    StreamFaults streamFaults;
    std::optional<GeminiHttpFault> httpFault; // aimed at this interaction's requests
};

// Later wins: config, the scenario's defaults (`agent`: research), words of `prompt`.
std::optional<SimOptionError> resolveRunOptions(const GeminiSimConfig &config, bool agent,
                                                const QString &prompt, GeminiRunOptions *options);

// The text of delta `index`: "tok<i>" + one of "", "é", "日本", "🎉" + " "; with reply words,
// word index (mod their number) + " ".
QString geminiDeltaText(int index, const QStringList &replyWords = {});

// The scenario and option documentation above, for --help.
QString geminiOptionsHelpText();

} // namespace RunwatchSim
