// SPDX-License-Identifier: GPL-3.0-or-later
#include "openaisimoptions.h"

#include "server/simnames.h"
#include "server/simoptions.h"

#include <QHash>
#include <QJsonArray>
#include <QStringList>

#include <limits>
#include <type_traits>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

constexpr qint64 kMaxDeltas = 1000000;
constexpr qint64 kMaxHugeBytes = qint64(512) << 20;
constexpr qint64 kMaxIntervalMs = 3600 * 1000;
constexpr qint64 kMaxClockSkewS = 7 * 24 * 3600; // a week either way

const std::array kScenarios{
    std::pair{OpenAiScenario::Normal, "normal"_L1},
    std::pair{OpenAiScenario::Fail, "fail"_L1},
    std::pair{OpenAiScenario::Incomplete, "incomplete"_L1},
    std::pair{OpenAiScenario::Long, "long"_L1},
    std::pair{OpenAiScenario::Huge, "huge"_L1},
    std::pair{OpenAiScenario::Reasoning, "reasoning"_L1},
    std::pair{OpenAiScenario::ToolCall, "tool_call"_L1},
    std::pair{OpenAiScenario::Error, "error"_L1},
    std::pair{OpenAiScenario::McpApproval, "mcp_approval"_L1},
};

const QStringList &optionKeys()
{
    static const QStringList keys{
        u"scenario"_s,
        u"deltas"_s,
        u"calls"_s,
        u"interval_ms"_s,
        u"queued_ms"_s,
        u"keepalives"_s,
        u"fail_after"_s,
        u"huge_bytes"_s,
        u"reply"_s,
        u"manual"_s,
        u"cancel_mode"_s,
        u"send_done"_s,
        u"resume_max_age_ms"_s,
        u"clock_skew_s"_s,
        u"fault_connections"_s,
        u"drop_after"_s,
        u"drop_mode"_s,
        u"malformed_at"_s,
        u"invalid_utf8_at"_s,
        u"endless_line_at"_s,
        u"drip_ms"_s,
        u"http_error_status"_s,
        u"http_error_count"_s,
        u"http_error_on"_s,
        u"retry_after"_s,
        u"retry_after_ms"_s,
        u"http_error_body"_s,
    };
    return keys;
}

bool isScenario(QStringView name)
{
    return openAiScenarioFromName(name).has_value();
}

} // namespace

QString openAiScenarioName(OpenAiScenario scenario)
{
    return nameOfValue(kScenarios, scenario);
}

std::optional<OpenAiScenario> openAiScenarioFromName(QStringView name)
{
    return valueOfName(kScenarios, name);
}

QStringList openAiScenarioNames()
{
    return namesOf(kScenarios);
}

QString inputTextOf(const QJsonValue &input)
{
    if (input.isString())
        return input.toString();
    QStringList parts;
    const QJsonArray items = input.toArray();
    for (const QJsonValue &itemValue : items) {
        const QJsonObject item = itemValue.toObject();
        const QJsonValue content = item.value("content"_L1);
        if (content.isString()) {
            parts.append(content.toString());
        } else if (content.isArray()) {
            const QJsonArray contentParts = content.toArray();
            for (const QJsonValue &part : contentParts) {
                const QJsonValue text = part.toObject().value("text"_L1);
                if (text.isString())
                    parts.append(text.toString());
            }
        }
        if (item.value("output"_L1).isString())
            parts.append(item.value("output"_L1).toString());
    }
    return parts.join(u'\n');
}

std::optional<OpenAiOptionError> resolveRunOptions(const OpenAiSimConfig &config, const QString &inputText,
                                                   const QJsonObject &metadata, OpenAiRunOptions *options)
{
    OpenAiRunOptions o;
    o.deltas = config.deltas;
    o.intervalMs = config.intervalMs;
    o.queuedMs = config.queuedMs < 0 ? config.intervalMs : config.queuedMs;
    o.keepalives = config.keepaliveEvents;
    o.hugeBytes = config.hugeDeltaBytes;
    o.reply = config.replyText;
    o.manual = config.manualAdvance;
    o.cancelMode = config.cancelMode;
    o.sendDone = config.sendDoneSentinel;
    o.resumeMaxAgeMs = config.resumeMaxAgeMs;
    o.streamFaults = config.streamFaults;

    const SimOptionValues raw(inputText, metadata, optionKeys(), &isScenario);

    if (raw.contains(u"scenario"_s)) {
        const auto scenario = openAiScenarioFromName(raw.value(u"scenario"_s));
        if (!scenario) {
            return SimOptionValues::bad(u"scenario"_s,
                                        u"expected one of "_s + openAiScenarioNames().join(u", "_s));
        }
        o.scenario = *scenario;
    }
    if (o.scenario == OpenAiScenario::Long)
        o.deltas = config.longDeltas;
    if (o.scenario == OpenAiScenario::Huge && !raw.contains(u"deltas"_s))
        o.deltas = qMax(o.deltas, 1);
    std::optional<SimOptionError> error;
    if ((error = raw.integer(u"deltas"_s, 0, kMaxDeltas, &o.deltas))
        || (error = raw.integer(u"calls"_s, 1, 16, &o.calls))
        || (error = raw.integer(u"interval_ms"_s, 0, kMaxIntervalMs, &o.intervalMs))
        || (error = raw.integer(u"queued_ms"_s, 0, kMaxIntervalMs, &o.queuedMs))
        || (error = raw.integer(u"keepalives"_s, 0, 100000, &o.keepalives))
        || (error = raw.integer(u"huge_bytes"_s, 1, kMaxHugeBytes, &o.hugeBytes))
        || (error
            = raw.integer(u"resume_max_age_ms"_s, -1, std::numeric_limits<qint64>::max(), &o.resumeMaxAgeMs))
        || (error = raw.integer(u"clock_skew_s"_s, -kMaxClockSkewS, kMaxClockSkewS, &o.clockSkewS))
        || (error = raw.boolean(u"manual"_s, &o.manual))
        || (error = raw.boolean(u"send_done"_s, &o.sendDone)))
        return error;
    if (raw.contains(u"interval_ms"_s) && !raw.contains(u"queued_ms"_s))
        o.queuedMs = o.intervalMs;
    if (raw.contains(u"reply"_s))
        o.reply = raw.value(u"reply"_s);
    o.failAfter = o.deltas / 2;
    if ((error = raw.integer(u"fail_after"_s, 0, kMaxDeltas, &o.failAfter)))
        return error;
    o.failAfter = qMin(o.failAfter, o.deltas);
    if (raw.contains(u"cancel_mode"_s)) {
        const auto mode = openAiCancelModeFromName(raw.value(u"cancel_mode"_s));
        if (!mode)
            return SimOptionValues::bad(u"cancel_mode"_s, u"expected failed_event, close or flip"_s);
        o.cancelMode = *mode;
    }

    StreamFaults &f = o.streamFaults;
    constexpr qint64 kMaxSeq = std::numeric_limits<qint64>::max();
    if ((error = raw.integer(u"fault_connections"_s, -1, 1000000, &f.connections))
        || (error = raw.integer(u"drop_after"_s, -1, kMaxSeq, &f.dropAfterEvents))
        || (error = raw.integer(u"malformed_at"_s, -1, kMaxSeq, &f.malformedAt))
        || (error = raw.integer(u"invalid_utf8_at"_s, -1, kMaxSeq, &f.invalidUtf8At))
        || (error = raw.integer(u"endless_line_at"_s, -1, kMaxSeq, &f.endlessLineAt))
        || (error = raw.integer(u"drip_ms"_s, 0, 60000, &f.dripIntervalMs)))
        return error;
    if (raw.contains(u"drop_mode"_s)) {
        const auto mode = dropModeFromName(raw.value(u"drop_mode"_s));
        if (!mode)
            return SimOptionValues::bad(u"drop_mode"_s, u"expected close, reset or mid"_s);
        f.dropMode = *mode;
    }

    const bool wantsHttpFault = raw.contains(u"http_error_status"_s) || raw.contains(u"http_error_count"_s)
                                || raw.contains(u"http_error_on"_s);
    if (wantsHttpFault) {
        OpenAiHttpFault fault;
        if ((error = raw.integer(u"http_error_status"_s, 100, 599, &fault.status))
            || (error = raw.integer(u"http_error_count"_s, -1, 1000000, &fault.count))
            || (error = raw.integer(u"retry_after"_s, -1, 86400, &fault.retryAfterSeconds))
            || (error = raw.integer(u"retry_after_ms"_s, -1, 86400000, &fault.retryAfterMs)))
            return error;
        if (raw.contains(u"http_error_on"_s)) {
            const auto endpoints = openAiEndpointsFromList(raw.value(u"http_error_on"_s));
            if (!endpoints) {
                return SimOptionValues::bad(u"http_error_on"_s,
                                            u"expected endpoint names (create, get, stream, cancel, delete, "
                                            u"input_items, models, agents, conversation_create, "
                                            u"conversation_get, conversation_delete, conversation_items) "
                                            u"joined by '+' or ','"_s);
            }
            fault.endpoints = *endpoints;
        }
        if (raw.contains(u"http_error_body"_s)) {
            const auto body = openAiFaultBodyFromName(raw.value(u"http_error_body"_s));
            if (!body)
                return SimOptionValues::bad(u"http_error_body"_s, u"expected error, html or empty"_s);
            fault.body = *body;
        }
        o.httpFault = fault;
    }

    *options = o;
    return std::nullopt;
}

QString openAiOptionsHelpText()
{
    return uR"(Scenarios (metadata "scenario", else the first word of the input text):
  normal      created, queued, in_progress, message item, N text deltas "tok<i> ", done events,
              response.completed with usage (default)
  fail        response.failed (error.code "server_error") after fail_after deltas
  incomplete  response.incomplete, incomplete_details.reason "max_output_tokens"
  long        very many deltas (100000 by default), for cancel tests
  huge        one single delta of huge_bytes bytes
  reasoning   reasoning summary item + function_call item, then the message
  tool_call   `calls` function_call items (default 1), then completed; continue with
              previous_response_id + one function_call_output per call
  mcp_approval  an mcp_approval_request item, then completed; continue with an
              mcp_approval_response (approve true/false)
  error       a nested `event: error` after fail_after deltas, then the stream closes

Per-response options: metadata string values, or key=value words in the input text:
  scenario deltas calls interval_ms queued_ms keepalives fail_after huge_bytes reply manual
  cancel_mode=failed_event|close|flip  send_done=1  resume_max_age_ms (0 = always refuse)
  clock_skew_s (created_at and completed_at shifted by this many seconds, e.g. -590: a tool
              call whose 10-minute Foundry window ends in 10 s)
  stream faults: fault_connections drop_after drop_mode=close|reset|mid malformed_at
                 invalid_utf8_at endless_line_at drip_ms
  HTTP faults on this response: http_error_status http_error_count http_error_on=get+stream+...
                 retry_after retry_after_ms http_error_body=error|html|empty
  Endpoints: create get stream cancel delete input_items models agents conversation_create
             conversation_get conversation_delete conversation_items (any = all)
Example: input "fail deltas=20 interval_ms=100", or metadata {"scenario":"long","drop_after":"5"}.

Azure AI Foundry project (new prompt agents), on the same port:
  project endpoint  /api/projects/<project> (--foundry-project, default runwatch-sim)
  OpenAI base URL   /api/projects/<project>/openai/v1: the API above, without api-version
  GET  <project>/agents?api-version=v1   the agents (--agent; default researcher v3, writer v1),
       paged with limit, after, before, order (desc by default)
  POST /conversations {items?, metadata?}; GET, DELETE /conversations/{id};
  GET  /conversations/{id}/items (order desc by default, limit, after, before)
  POST /responses with agent_reference {type:"agent_reference", name, version?} instead of model:
       "agent" is refused (400 invalid_payload), so are instructions, tools, tool_choice, text and
       reasoning next to an agent; version "latest", unknown agents and versions give 404.
       conversation (an id or {id}; not with previous_response_id): the response's input, then
       output items join it; another response while one is queued or in progress: 409
       conversation_locked. Tool calls and MCP approvals of the conversation's last response are
       answered in the same conversation, as in a previous_response_id chain.
       Responses echo conversation {id} and agent_reference {type, name, version}.
)"_s;
}

} // namespace RunwatchSim
