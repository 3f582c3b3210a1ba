// SPDX-License-Identifier: GPL-3.0-or-later
#include "foundrysimoptions.h"

#include "server/simnames.h"
#include "server/simoptions.h"

#include <QHash>

#include <limits>
#include <type_traits>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

constexpr qint64 kMaxDeltas = 1000000;
constexpr qint64 kMaxIntervalMs = 3600 * 1000;

const std::array kScenarios{
    std::pair{FoundryScenario::Normal, "normal"_L1},
    std::pair{FoundryScenario::Long, "long"_L1},
    std::pair{FoundryScenario::Tool, "tool"_L1},
    std::pair{FoundryScenario::Tools, "tools"_L1},
    std::pair{FoundryScenario::Approval, "approval"_L1},
    std::pair{FoundryScenario::Expire, "expire"_L1},
    std::pair{FoundryScenario::Fail, "fail"_L1},
    std::pair{FoundryScenario::Incomplete, "incomplete"_L1},
    std::pair{FoundryScenario::Slow, "slow"_L1},
};

const QStringList &optionKeys()
{
    static const QStringList keys{
        u"scenario"_s,
        u"deltas"_s,
        u"interval_ms"_s,
        u"queued_ms"_s,
        u"fail_after"_s,
        u"messages"_s,
        u"parts"_s,
        u"expires_ms"_s,
        u"reply"_s,
        u"drop_after"_s,
        u"drop_mode"_s,
        u"fault_connections"_s,
        u"malformed_at"_s,
        u"drip_ms"_s,
        u"split"_s,
        u"http_error_status"_s,
        u"http_error_count"_s,
        u"http_error_on"_s,
        u"retry_after"_s,
    };
    return keys;
}

bool isScenario(QStringView name)
{
    return foundryScenarioFromName(name).has_value();
}

} // namespace

QString foundryScenarioName(FoundryScenario scenario)
{
    return nameOfValue(kScenarios, scenario);
}

std::optional<FoundryScenario> foundryScenarioFromName(QStringView name)
{
    return valueOfName(kScenarios, name);
}

QStringList foundryScenarioNames()
{
    return namesOf(kScenarios);
}

std::optional<FoundryOptionError> resolveRunOptions(const FoundrySimConfig &config, const QString &prompt,
                                                    const QJsonObject &metadata, FoundryRunOptions *options)
{
    FoundryRunOptions o;
    o.deltas = config.deltas;
    o.intervalMs = config.intervalMs;
    o.queuedMs = config.queuedMs < 0 ? config.intervalMs : config.queuedMs;
    o.expiresMs = qint64(config.expiresSeconds) * 1000;
    o.reply = config.replyText;
    o.splitWrites = config.splitWrites;
    o.streamFaults = config.streamFaults;

    const SimOptionValues raw(prompt, metadata, optionKeys(), &isScenario);

    if (raw.contains(u"scenario"_s)) {
        const auto scenario = foundryScenarioFromName(raw.value(u"scenario"_s));
        if (!scenario) {
            return SimOptionValues::bad(u"scenario"_s,
                                        u"expected one of "_s + foundryScenarioNames().join(u", "_s));
        }
        o.scenario = *scenario;
    }
    switch (o.scenario) {
    case FoundryScenario::Long:
        // More messages than one page of the list's default limit (20), several parts each.
        o.messages = 25;
        o.parts = 3;
        o.deltas = 4;
        break;
    case FoundryScenario::Slow:
        o.deltas = config.longDeltas;
        break;
    case FoundryScenario::Expire:
        o.expiresMs = 1500;
        break;
    default:
        break;
    }
    std::optional<SimOptionError> error;
    if ((error = raw.integer(u"deltas"_s, 1, kMaxDeltas, &o.deltas))
        || (error = raw.integer(u"interval_ms"_s, 0, kMaxIntervalMs, &o.intervalMs))
        || (error = raw.integer(u"queued_ms"_s, 0, kMaxIntervalMs, &o.queuedMs))
        || (error = raw.integer(u"messages"_s, 1, 1000, &o.messages))
        || (error = raw.integer(u"parts"_s, 1, 100, &o.parts))
        || (error = raw.integer(u"expires_ms"_s, 1, qint64(86400) * 1000, &o.expiresMs))
        || (error = raw.integer(u"split"_s, 0, 1 << 20, &o.splitWrites)))
        return error;
    if (raw.contains(u"interval_ms"_s) && !raw.contains(u"queued_ms"_s))
        o.queuedMs = o.intervalMs;
    if (raw.contains(u"reply"_s))
        o.reply = raw.value(u"reply"_s);
    o.failAfter = o.deltas / 2;
    if ((error = raw.integer(u"fail_after"_s, 0, kMaxDeltas, &o.failAfter)))
        return error;
    o.failAfter = qMin(o.failAfter, o.deltas);

    StreamFaults &f = o.streamFaults;
    constexpr qint64 kMaxIndex = std::numeric_limits<qint64>::max();
    if ((error = raw.integer(u"fault_connections"_s, -1, 1000000, &f.connections))
        || (error = raw.integer(u"drop_after"_s, -1, kMaxIndex, &f.dropAfterEvents))
        || (error = raw.integer(u"malformed_at"_s, -1, kMaxIndex, &f.malformedAt))
        || (error = raw.integer(u"drip_ms"_s, 0, 60000, &f.dripIntervalMs)))
        return error;
    if (raw.contains(u"drop_mode"_s)) {
        const auto mode = dropModeFromName(raw.value(u"drop_mode"_s));
        if (!mode)
            return SimOptionValues::bad(u"drop_mode"_s, u"expected close, reset or mid"_s);
        f.dropMode = *mode;
    }

    if (raw.contains(u"http_error_status"_s) || raw.contains(u"http_error_count"_s)
        || raw.contains(u"http_error_on"_s)) {
        FoundryHttpFault fault;
        if ((error = raw.integer(u"http_error_status"_s, 100, 599, &fault.status))
            || (error = raw.integer(u"http_error_count"_s, -1, 1000000, &fault.count))
            || (error = raw.integer(u"retry_after"_s, -1, 86400, &fault.retryAfterSeconds)))
            return error;
        if (raw.contains(u"http_error_on"_s)) {
            const auto parsed = foundryHttpFaultFromSpec(
                QString(u"on="_s + raw.value(u"http_error_on"_s).replace(u',', u'+')));
            if (!parsed) {
                return SimOptionValues::bad(u"http_error_on"_s,
                                            u"expected endpoint names (get, submit, cancel, messages, "
                                            u"steps) joined by '+' or ','"_s);
            }
            fault.endpoints = parsed->endpoints;
        }
        o.httpFault = fault;
    }

    *options = o;
    return std::nullopt;
}

QString foundryOptionsHelpText()
{
    return uR"(Foundry (--foundry) scenarios (metadata "scenario", else the first word of the prompt):
  normal      queued, in_progress, one message of N deltas "tok<i> ", completed with usage (default)
  long        a code_interpreter step, 25 messages x 3 text parts: more than one page of messages
  tool        requires_action submit_tool_outputs with one function call
  tools       the same with two function calls (one submit answers both)
  approval    requires_action submit_tool_approval with one MCP call (approve or reject)
  expire      like tool, but the run expires expires_ms (1500) after creation
  fail        failed after fail_after deltas, last_error {code "server_error", message}
  incomplete  incomplete, incomplete_details.reason "max_completion_tokens"
  slow        very many deltas, for cancel tests

Per-run options: metadata string values, or key=value words in the prompt:
  scenario deltas interval_ms queued_ms fail_after messages parts expires_ms reply split
  stream faults: fault_connections drop_after drop_mode=close|reset|mid malformed_at drip_ms
  HTTP faults on this run: http_error_status http_error_count http_error_on=get+submit+...
                 retry_after
  Endpoints: create create_thread add_message create_run get submit cancel messages steps agents
Example: prompt "tools interval_ms=100", or metadata {"scenario":"slow","drop_after":"5"}.
)"_s;
}

} // namespace RunwatchSim
