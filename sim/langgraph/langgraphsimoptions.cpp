// SPDX-License-Identifier: GPL-3.0-or-later
#include "langgraphsimoptions.h"

#include "server/simnames.h"

#include <QRegularExpression>

#include <limits>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

constexpr qint64 kMaxTokens = 1000000;
constexpr qint64 kMaxIntervalMs = 3600 * 1000;

const std::array kGraphs{
    std::pair{LangGraphGraph::Echo, "echo"_L1},         std::pair{LangGraphGraph::Approval, "approval"_L1},
    std::pair{LangGraphGraph::Question, "question"_L1}, std::pair{LangGraphGraph::Fail, "fail"_L1},
    std::pair{LangGraphGraph::Slow, "slow"_L1},
};

const QStringList &optionKeys()
{
    static const QStringList keys{
        u"tokens"_s,      u"interval_ms"_s,       u"queued_ms"_s,         u"split"_s,
        u"drop_after"_s,  u"drop_mode"_s,         u"fault_connections"_s, u"malformed_at"_s,
        u"drip_ms"_s,     u"http_error_status"_s, u"http_error_count"_s,  u"http_error_on"_s,
        u"retry_after"_s,
    };
    return keys;
}

// The graph comes from assistant_id, never from the prompt.
bool noScenario(QStringView)
{
    return false;
}

// Metadata values are any JSON here (LangGraph does not require strings): numbers and booleans
// count as their text.
QJsonObject metadataAsText(const QJsonObject &metadata)
{
    QJsonObject text;
    for (auto it = metadata.begin(); it != metadata.end(); ++it) {
        const QJsonValue value = it.value();
        if (value.isString()) {
            text.insert(it.key(), value);
        } else if (value.isDouble()) {
            text.insert(it.key(), QString::number(value.toDouble(), 'g', 17));
        } else if (value.isBool()) {
            text.insert(it.key(), value.toBool() ? u"true"_s : u"false"_s);
        }
    }
    return text;
}

// "long 200" / "delay 5": the words the peer's graphs read, so that one prompt behaves the same on
// the real server and here.
std::optional<qint64> numberAfter(const QString &prompt, QLatin1StringView word)
{
    const QRegularExpression pattern(u"\\b"_s + word + u"\\s+(\\d{1,9})\\b"_s);
    const QRegularExpressionMatch match = pattern.match(prompt);
    if (!match.hasMatch())
        return std::nullopt;
    return match.captured(1).toLongLong();
}

} // namespace

QString langGraphGraphName(LangGraphGraph graph)
{
    return nameOfValue(kGraphs, graph);
}

std::optional<LangGraphGraph> langGraphGraphFromName(QStringView name)
{
    return valueOfName(kGraphs, name, Qt::CaseSensitive);
}

QList<LangGraphGraph> langGraphGraphs()
{
    QList<LangGraphGraph> graphs;
    for (const auto &entry : kGraphs)
        graphs.append(entry.first);
    return graphs;
}

QUuid langGraphAssistantId(LangGraphGraph graph)
{
    static const QUuid kNamespace(u"6ba7b821-9dad-11d1-80b4-00c04fd430c8"_s);
    return QUuid::createUuidV5(kNamespace, langGraphGraphName(graph));
}

QStringList langGraphNodes(LangGraphGraph graph)
{
    switch (graph) {
    case LangGraphGraph::Echo:
    case LangGraphGraph::Slow:
        return {u"respond"_s};
    case LangGraphGraph::Approval:
        return {u"plan"_s, u"review"_s};
    case LangGraphGraph::Question:
        return {u"ask"_s};
    case LangGraphGraph::Fail:
        return {u"explode"_s};
    }
    return {};
}

std::optional<SimOptionError> resolveRunOptions(const LangGraphSimConfig &config, LangGraphGraph graph,
                                                const QString &prompt, const QJsonObject &metadata,
                                                LangGraphRunOptions *options)
{
    LangGraphRunOptions o;
    const bool slow = graph == LangGraphGraph::Slow;
    o.tokens = slow ? config.slowTokens : config.tokens;
    o.intervalMs = slow ? config.slowIntervalMs : config.intervalMs;
    o.queuedMs = config.queuedMs < 0 ? config.intervalMs : config.queuedMs;
    o.splitWrites = config.splitWrites;
    o.streamFaults = config.streamFaults;

    if (const auto count = numberAfter(prompt, "long"_L1))
        o.tokens = int(qBound<qint64>(1, *count, kMaxTokens));
    if (const auto delay = numberAfter(prompt, "delay"_L1))
        o.intervalMs = int(qMin<qint64>(*delay, kMaxIntervalMs));

    const SimOptionValues raw(prompt, metadataAsText(metadata), optionKeys(), &noScenario);
    std::optional<SimOptionError> error;
    if ((error = raw.integer(u"tokens"_s, 1, kMaxTokens, &o.tokens))
        || (error = raw.integer(u"interval_ms"_s, 0, kMaxIntervalMs, &o.intervalMs))
        || (error = raw.integer(u"queued_ms"_s, 0, kMaxIntervalMs, &o.queuedMs))
        || (error = raw.integer(u"split"_s, 0, 1 << 20, &o.splitWrites)))
        return error;

    if ((error = raw.streamFaults(&o.streamFaults)))
        return error;

    if (raw.contains(u"http_error_status"_s) || raw.contains(u"http_error_count"_s)
        || raw.contains(u"http_error_on"_s)) {
        LangGraphHttpFault fault;
        fault.endpoints = {LangGraphEndpoint::GetRun, LangGraphEndpoint::JoinStream};
        if ((error = raw.integer(u"http_error_status"_s, 100, 599, &fault.status))
            || (error = raw.integer(u"http_error_count"_s, -1, 1000000, &fault.count))
            || (error = raw.integer(u"retry_after"_s, -1, 86400, &fault.retryAfterSeconds)))
            return error;
        if (raw.contains(u"http_error_on"_s)) {
            const auto parsed = langGraphHttpFaultFromSpec(
                QString(u"on="_s + raw.value(u"http_error_on"_s).replace(u',', u'+')));
            if (!parsed) {
                return SimOptionValues::bad(u"http_error_on"_s,
                                            u"expected endpoint names (get, join, "
                                            u"cancel, delete_run) joined by '+' or ','"_s);
            }
            fault.endpoints = parsed->endpoints;
        }
        o.httpFault = fault;
    }

    *options = o;
    return std::nullopt;
}

QString langGraphOptionsHelpText()
{
    return uR"(LangGraph (--langgraph) graphs (assistant_id = the graph id or its assistant's UUID):
  echo        custom {"phase":"drafting"}, then "Echo: <text>" and words " w1é" " w2日本" ... (6 tokens)
  approval    node plan streams a plan; node review interrupts with LangChain's human-in-the-loop
              request; resume with command.resume {"decisions":[{"type":"approve"}, ...]}
  question    interrupt("What city?"); resume with any value: "Weather for <value>: sunny"
  fail        a few tokens, then an error event {"error":"Error","message":"graph exploded on purpose"}
  slow        300 tokens 100 ms apart, for cancel

Per-run options: "long N" and "delay MS" in the user's text, or key=value words / metadata values:
  tokens interval_ms queued_ms split
  stream faults: fault_connections drop_after drop_mode=close|reset|mid malformed_at drip_ms
  HTTP faults on this run: http_error_status http_error_count http_error_on=get+join+cancel
                 retry_after
  Endpoints (--langgraph-fault on=...): ok info assistants assistant create_thread threads thread
                 delete_thread state create runs get delete_run join cancel
Example: user text "hi long 50 delay 10", or metadata {"drop_after": 5}.
)"_s;
}

} // namespace RunwatchSim
