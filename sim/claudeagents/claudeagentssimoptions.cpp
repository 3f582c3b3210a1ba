// SPDX-License-Identifier: GPL-3.0-or-later
#include "claudeagentssimoptions.h"

#include "server/simnames.h"

#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

constexpr qint64 kMaxDeltas = 10000000;
constexpr qint64 kMaxIntervalMs = 3600 * 1000;

const std::array kScenarios{
    std::pair{ClaudeAgentsScenario::Normal, "normal"_L1},
    std::pair{ClaudeAgentsScenario::Think, "think"_L1},
    std::pair{ClaudeAgentsScenario::Confirm, "confirm"_L1},
    std::pair{ClaudeAgentsScenario::Custom, "custom"_L1},
    std::pair{ClaudeAgentsScenario::Fail, "fail"_L1},
    std::pair{ClaudeAgentsScenario::Flaky, "flaky"_L1},
    std::pair{ClaudeAgentsScenario::Long, "long"_L1},
};

const QStringList &optionKeys()
{
    static const QStringList keys{u"deltas"_s, u"interval_ms"_s, u"messages"_s};
    return keys;
}

bool isScenario(QStringView name)
{
    return claudeAgentsScenarioFromName(name).has_value();
}

} // namespace

QString claudeAgentsScenarioName(ClaudeAgentsScenario scenario)
{
    return nameOfValue(kScenarios, scenario);
}

std::optional<ClaudeAgentsScenario> claudeAgentsScenarioFromName(QStringView name)
{
    return valueOfName(kScenarios, name);
}

QString claudeAgentsDeltaText(int index, const QStringList &replyWords)
{
    if (!replyWords.isEmpty())
        return replyWords.at(index % replyWords.size()) + u' ';
    // Multi-byte words on purpose: a client that splits UTF-8 at chunk borders shows it.
    static const QStringList suffixes{u""_s, u"é"_s, u"日本"_s, u"🎉"_s};
    return u"tok%1"_s.arg(index) + suffixes.at(index % suffixes.size()) + u' ';
}

std::optional<SimOptionError> resolveTurnOptions(const ClaudeAgentsSimConfig &config, const QString &prompt,
                                                 ClaudeAgentsTurnOptions *options)
{
    ClaudeAgentsTurnOptions o;
    o.deltas = config.deltas;
    o.intervalMs = config.intervalMs;
    o.replyWords = config.replyText.split(u' ', Qt::SkipEmptyParts);
    const SimOptionValues raw(prompt, QJsonObject(), optionKeys(), &isScenario);
    if (raw.contains(u"scenario"_s))
        o.scenario = *claudeAgentsScenarioFromName(raw.value(u"scenario"_s));
    if (o.scenario == ClaudeAgentsScenario::Long)
        o.deltas = config.longDeltas;
    std::optional<SimOptionError> error;
    if ((error = raw.integer(u"deltas"_s, 1, kMaxDeltas, &o.deltas))
        || (error = raw.integer(u"interval_ms"_s, 0, kMaxIntervalMs, &o.intervalMs))
        || (error = raw.integer(u"messages"_s, 1, 1000, &o.messages)))
        return error;
    *options = o;
    return std::nullopt;
}

QString claudeAgentsOptionsHelpText()
{
    return uR"(Claude Managed Agents (--claude-agents) scenarios (the first word of a user.message; default normal):
  normal   running, one model request: a preview of N deltas "tok<i>" + "" | "é" | "日本" | "🎉" + " ",
           agent.message, span.model_request_end; idle end_turn
  think    agent.thinking, a first answer, an allowed web_search tool_use + result, the answer
  confirm  agent.tool_use bash (evaluated_permission ask), idle requires_action; answer with
           user.tool_confirmation allow | deny (+ deny_message)
  custom   agent.custom_tool_use lookup_order, idle requires_action; answer with
           user.custom_tool_result
  fail     a preview cut short, session.error retrying, rescheduled, session.error exhausted,
           idle retries_exhausted
  flaky    a preview cut short, session.error retrying, rescheduled, then the whole answer
  long     normal with --long-deltas deltas (interrupt it with user.interrupt)

Per-turn options, key=value words of the message: deltas interval_ms messages (the deltas over N
  model requests, each its own agent.message)
Stream faults (--drop-after, --fault-connections, --drop-mode) hit each session's stream connections.
Endpoints (--claude-agents-fault on=...): agents environments create list get delete send events stream
Example: a message "confirm deltas=20", or "long interval_ms=5".
)"_s;
}

} // namespace RunwatchSim
