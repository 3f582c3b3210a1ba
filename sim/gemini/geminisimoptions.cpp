// SPDX-License-Identifier: GPL-3.0-or-later
#include "geminisimoptions.h"

#include "server/simnames.h"

#include <QJsonObject>

#include <limits>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

constexpr qint64 kMaxDeltas = 10000000;
constexpr qint64 kMaxIntervalMs = 3600 * 1000;

const std::array kScenarios{
    std::pair{GeminiScenario::Normal, "normal"_L1},
    std::pair{GeminiScenario::Think, "think"_L1},
    std::pair{GeminiScenario::Research, "research"_L1},
    std::pair{GeminiScenario::ToolCall, "tool_call"_L1},
    std::pair{GeminiScenario::Fail, "fail"_L1},
    std::pair{GeminiScenario::Incomplete, "incomplete"_L1},
    std::pair{GeminiScenario::Long, "long"_L1},
};

const QStringList &optionKeys()
{
    static const QStringList keys{
        u"deltas"_s,
        u"calls"_s,
        u"interval_ms"_s,
        u"fail_after"_s,
        u"cut_after"_s,
        u"expires_ms"_s,
        u"split"_s,
        u"line_ending"_s,
        u"fault_connections"_s,
        u"drop_after"_s,
        u"drop_mode"_s,
        u"malformed_at"_s,
        u"drip_ms"_s,
        u"http_error_status"_s,
        u"http_error_count"_s,
        u"http_error_on"_s,
        u"retry_after"_s,
    };
    return keys;
}

bool isScenario(QStringView name)
{
    return geminiScenarioFromName(name).has_value();
}

} // namespace

QString geminiScenarioName(GeminiScenario scenario)
{
    return nameOfValue(kScenarios, scenario);
}

std::optional<GeminiScenario> geminiScenarioFromName(QStringView name)
{
    return valueOfName(kScenarios, name);
}

QString geminiDeltaText(int index, const QStringList &replyWords)
{
    if (!replyWords.isEmpty())
        return replyWords.at(index % replyWords.size()) + u' ';
    // Multi-byte words on purpose: a client that splits UTF-8 at chunk borders shows it.
    static const QStringList suffixes{u""_s, u"é"_s, u"日本"_s, u"🎉"_s};
    return u"tok%1"_s.arg(index) + suffixes.at(index % suffixes.size()) + u' ';
}

std::optional<SimOptionError> resolveRunOptions(const GeminiSimConfig &config, bool agent,
                                                const QString &prompt, GeminiRunOptions *options)
{
    GeminiRunOptions o;
    o.scenario = agent ? GeminiScenario::Research : GeminiScenario::Normal;
    o.deltas = config.deltas;
    o.intervalMs = config.intervalMs;
    o.cutAfterDeltas = config.cutAfterDeltas;
    o.expiresMs = config.expiresMs;
    o.splitWrites = config.splitWrites;
    o.lineEnding = config.lineEnding;
    o.replyWords = config.replyText.split(u' ', Qt::SkipEmptyParts);
    o.streamFaults = config.streamFaults;

    const SimOptionValues raw(prompt, QJsonObject(), optionKeys(), &isScenario);
    if (raw.contains(u"scenario"_s))
        o.scenario = *geminiScenarioFromName(raw.value(u"scenario"_s));
    if (o.scenario == GeminiScenario::Long)
        o.deltas = config.longDeltas;
    std::optional<SimOptionError> error;
    if ((error = raw.integer(u"deltas"_s, 1, kMaxDeltas, &o.deltas))
        || (error = raw.integer(u"calls"_s, 1, 100, &o.calls))
        || (error = raw.integer(u"interval_ms"_s, 0, kMaxIntervalMs, &o.intervalMs))
        || (error = raw.integer(u"cut_after"_s, -1, kMaxDeltas, &o.cutAfterDeltas))
        || (error = raw.integer(u"expires_ms"_s, -1, std::numeric_limits<qint64>::max(), &o.expiresMs))
        || (error = raw.integer(u"split"_s, 0, 1 << 20, &o.splitWrites)))
        return error;
    o.failAfter = o.deltas / 2;
    if ((error = raw.integer(u"fail_after"_s, 0, kMaxDeltas, &o.failAfter)))
        return error;
    if (o.cutAfterDeltas == 0)
        return SimOptionValues::bad(u"cut_after"_s, u"expected -1 (off) or at least 1"_s);
    if ((error = raw.lineEnding(&o.lineEnding)))
        return error;

    if ((error = raw.streamFaults(&o.streamFaults)))
        return error;

    if (raw.contains(u"http_error_status"_s) || raw.contains(u"http_error_count"_s)
        || raw.contains(u"http_error_on"_s)) {
        GeminiHttpFault fault;
        fault.endpoints = {GeminiEndpoint::Get, GeminiEndpoint::Stream};
        if ((error = raw.integer(u"http_error_status"_s, 100, 599, &fault.status))
            || (error = raw.integer(u"http_error_count"_s, -1, 1000000, &fault.count))
            || (error = raw.integer(u"retry_after"_s, -1, 86400, &fault.retryAfterSeconds)))
            return error;
        if (raw.contains(u"http_error_on"_s)) {
            const auto parsed = geminiHttpFaultFromSpec(
                QString(u"on="_s + raw.value(u"http_error_on"_s).replace(u',', u'+')));
            if (!parsed) {
                return SimOptionValues::bad(u"http_error_on"_s,
                                            u"expected endpoint names (get, stream, cancel, delete) "
                                            u"joined by '+' or ','"_s);
            }
            fault.endpoints = parsed->endpoints;
        }
        o.httpFault = fault;
    }

    *options = o;
    return std::nullopt;
}

QString geminiOptionsHelpText()
{
    return uR"(Gemini (--gemini) scenarios (the first word of the input text; default normal, research for agents):
  normal      a thought (signature), one model_output of N deltas "tok<i>" + "" | "é" | "日本" | "🎉" + " "
  think       a thought with a summary, a google_search call and result, then the answer
  research    what agents run: thought, search, half the answer, another thought, the rest
  tool_call   `calls` function_call steps, status requires_action; answer with a new interaction
              {previous_interaction_id, input:[{type:"function_result", call_id, result}]}
  fail        some deltas, an error event {code:"internal"}, status failed
  incomplete  the deltas, then status incomplete
  long        normal with --long-deltas deltas

Per-interaction options, key=value words of the input text:
  deltas calls interval_ms fail_after split line_ending=lf|crlf|cr expires_ms
  cut_after=N (the service's gateway_timeout error event after N deltas on every stream)
  stream faults: fault_connections drop_after drop_mode=close|reset|mid malformed_at drip_ms
  HTTP faults on this interaction: http_error_status http_error_count
                 http_error_on=get+stream+cancel+delete retry_after
  Endpoints (--gemini-fault on=...): create get stream cancel delete models agents
Example: input "tool_call calls=2 deltas=20", or "long cut_after=50 interval_ms=5".
)"_s;
}

} // namespace RunwatchSim
