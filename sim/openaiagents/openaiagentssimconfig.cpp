// SPDX-License-Identifier: GPL-3.0-or-later
#include "openaiagentssimconfig.h"

#include "server/simnames.h"

#include <QJsonObject>

#include <array>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

struct Named
{
    OpenAiAgentsEndpoint endpoint;
    QStringView name;
};
constexpr std::array<Named, 10> kNames{{
    {OpenAiAgentsEndpoint::Agents, u"agents"},
    {OpenAiAgentsEndpoint::CreateSession, u"create"},
    {OpenAiAgentsEndpoint::ListSessions, u"list"},
    {OpenAiAgentsEndpoint::GetSession, u"get"},
    {OpenAiAgentsEndpoint::DeleteSession, u"delete"},
    {OpenAiAgentsEndpoint::SendEvents, u"send"},
    {OpenAiAgentsEndpoint::Stream, u"stream"},
    {OpenAiAgentsEndpoint::Turns, u"turns"},
    {OpenAiAgentsEndpoint::Items, u"items"},
    {OpenAiAgentsEndpoint::Unknown, u"unknown"},
}};

constexpr qint64 kMaxDeltas = 10000000;
constexpr qint64 kMaxIntervalMs = 3600 * 1000;

const std::array kScenarios{
    std::pair{OpenAiAgentsScenario::Normal, "normal"_L1},
    std::pair{OpenAiAgentsScenario::Think, "think"_L1},
    std::pair{OpenAiAgentsScenario::Approve, "approve"_L1},
    std::pair{OpenAiAgentsScenario::Tool, "tool"_L1},
    std::pair{OpenAiAgentsScenario::Signin, "signin"_L1},
    std::pair{OpenAiAgentsScenario::Fail, "fail"_L1},
    std::pair{OpenAiAgentsScenario::Budget, "budget"_L1},
    std::pair{OpenAiAgentsScenario::Long, "long"_L1},
};

const QStringList &optionKeys()
{
    static const QStringList keys{u"deltas"_s, u"interval_ms"_s, u"messages"_s, u"unregistered"_s};
    return keys;
}

bool isScenario(QStringView name)
{
    return openAiAgentsScenarioFromName(name).has_value();
}

} // namespace

QString openAiAgentsEndpointName(OpenAiAgentsEndpoint endpoint)
{
    for (const Named &named : kNames) {
        if (named.endpoint == endpoint)
            return named.name.toString();
    }
    return u"unknown"_s;
}

std::optional<OpenAiAgentsEndpoint> openAiAgentsEndpointFromName(QStringView name)
{
    for (const Named &named : kNames) {
        if (named.name == name)
            return named.endpoint;
    }
    return std::nullopt;
}

std::optional<OpenAiAgentsHttpFault> openAiAgentsHttpFaultFromSpec(QStringView spec, QString *error)
{
    return httpFaultFromSpec(spec, OpenAiAgentsHttpFault(), &openAiAgentsEndpointFromName, u"json", error);
}

QString openAiAgentsScenarioName(OpenAiAgentsScenario scenario)
{
    return nameOfValue(kScenarios, scenario);
}

std::optional<OpenAiAgentsScenario> openAiAgentsScenarioFromName(QStringView name)
{
    return valueOfName(kScenarios, name);
}

QString openAiAgentsDeltaText(int index, const QStringList &replyWords)
{
    if (!replyWords.isEmpty())
        return replyWords.at(index % replyWords.size()) + u' ';
    // Multi-byte words on purpose: a client that splits UTF-8 at chunk borders shows it.
    static const QStringList suffixes{u""_s, u"é"_s, u"日本"_s, u"🎉"_s};
    return u"tok%1"_s.arg(index) + suffixes.at(index % suffixes.size()) + u' ';
}

std::optional<SimOptionError> resolveOpenAiAgentsTurn(const OpenAiAgentsSimConfig &config,
                                                      const QString &prompt, OpenAiAgentsTurnOptions *options)
{
    OpenAiAgentsTurnOptions o;
    o.deltas = config.deltas;
    o.intervalMs = config.intervalMs;
    o.replyWords = config.replyText.split(u' ', Qt::SkipEmptyParts);
    const SimOptionValues raw(prompt, QJsonObject(), optionKeys(), &isScenario);
    if (raw.contains(u"scenario"_s))
        o.scenario = *openAiAgentsScenarioFromName(raw.value(u"scenario"_s));
    if (o.scenario == OpenAiAgentsScenario::Long)
        o.deltas = config.longDeltas;
    int unregistered = 0;
    std::optional<SimOptionError> error;
    if ((error = raw.integer(u"deltas"_s, 1, kMaxDeltas, &o.deltas))
        || (error = raw.integer(u"interval_ms"_s, 0, kMaxIntervalMs, &o.intervalMs))
        || (error = raw.integer(u"messages"_s, 1, 1000, &o.messages))
        || (error = raw.integer(u"unregistered"_s, 0, 1, &unregistered)))
        return error;
    o.unregistered = unregistered == 1;
    *options = o;
    return std::nullopt;
}

QString openAiAgentsOptionsHelpText()
{
    return uR"(OpenAI Agents API (--openai-agents) scenarios (the first word of a user message; default normal):
  normal   turn.created, one assistant message of N deltas "tok<i>" + "" | "é" | "日本" | "🎉" + " ",
           turn.completed with usage, session idle
  think    a reasoning item, a commentary message, then the answer
  approve  an mcp_call held for approval: requires_action mcp_approval_request; answer with
           agent.session.input.mcp_approval_request_result approve | deny
  tool     a function_call lookup_order: requires_action; answer with agent.session.input.tool_result
  signin   a browser_authentication form (username, password): requires_action; answer with
           agent.session.input.computer_use_approval_request_result
  fail     part of an answer, then turn.failed server_error "The model is overloaded."
  budget   part of an answer, then agent.session.budget_reached "Spend limit of $1.00 reached."
  long     normal with --long-deltas deltas (cancel it with agent.session.input.cancel)

Per-turn options, key=value words of the message: deltas interval_ms messages unregistered=1 (the
  first tool result is refused once with "Unknown pending tool call")
Stream faults (--drop-after, --fault-connections, --drop-mode) hit each session's stream connections.
Endpoints (--openai-agents-fault on=...): agents create list get delete send stream turns items
Example: a message "approve deltas=20", or "long interval_ms=5".
)"_s;
}

} // namespace RunwatchSim
