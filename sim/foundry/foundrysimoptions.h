// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Options of one simulated Foundry run: the simulator's config, overridden by `key=value` words of
// the prompt and then by the run's metadata (string values, as the service requires).
//
// SCENARIOS: metadata "scenario", else the first word of the prompt (case-insensitive, trailing
// ':' ',' '.' ignored), else "normal".
//   normal    queued → in_progress → one message (N deltas "tok<i> ") → completed (+usage).
//   long      a code_interpreter step, then `messages` assistant messages (default 25: more than
//             one page of 20) of `parts` text content parts (default 3) each; the message list
//             pages it.
//   tool      requires_action submit_tool_outputs with one function call (get_weather); after
//             the submit the answer starts with "[call_…: OUTPUT] " per output, then the deltas.
//   tools     the same with two calls (get_weather, get_time), answered in one submit.
//   approval  requires_action submit_tool_approval with one MCP call; the answer starts with
//             "[approved: NAME] " or "[rejected: NAME] ".
//   expire    like tool, but the run expires `expires_ms` (default 1500) after creation.
//   fail      after `fail_after` deltas (default N/2): failed, last_error
//             {code:"server_error", message:"The agent's tool backend is unavailable (simulated)."}.
//   incomplete all deltas, message incomplete, run incomplete with incomplete_details
//             {reason:"max_completion_tokens"}.
//   slow      `longDeltas` deltas (for cancel).
//
// PER-RUN OPTIONS (metadata or key=value words): scenario, deltas, interval_ms, queued_ms,
// fail_after, messages, parts, expires_ms, reply, drop_after, drop_mode (close|reset|mid),
// fault_connections, malformed_at, drip_ms, split, http_error_status, http_error_count,
// http_error_on, retry_after. A bad value is a 400 (param "metadata.<key>").

#include "foundrysimconfig.h"

#include "server/simoptions.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace RunwatchSim {

enum class FoundryScenario { Normal, Long, Tool, Tools, Approval, Expire, Fail, Incomplete, Slow };

QString foundryScenarioName(FoundryScenario scenario);
std::optional<FoundryScenario> foundryScenarioFromName(QStringView name);
QStringList foundryScenarioNames();

struct FoundryRunOptions
{
    FoundryScenario scenario = FoundryScenario::Normal;
    int deltas = 8;
    int intervalMs = 20;
    int queuedMs = 20;
    int failAfter = 4;
    int messages = 1;
    int parts = 1;
    qint64 expiresMs = 600000;
    QString reply;
    int splitWrites = 0;
    StreamFaults streamFaults;
    std::optional<FoundryHttpFault> httpFault; // aimed at this run's requests
};

using FoundryOptionError = SimOptionError;

// Later wins: config, `key=value` words of the prompt, metadata.
std::optional<FoundryOptionError> resolveRunOptions(const FoundrySimConfig &config, const QString &prompt,
                                                    const QJsonObject &metadata, FoundryRunOptions *options);

// The scenario and option documentation above, for --help.
QString foundryOptionsHelpText();

} // namespace RunwatchSim
