// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The scenarios of the Claude Managed Agents simulator and the options of one turn: the
// simulator's config, overridden by `key=value` words of the user.message's text.
//
// SCENARIOS (what a turn does), chosen by the first word of the message (case-insensitive,
// trailing ':' ',' '.' ignored); otherwise "normal". Each model request opens a preview
// (event_start, event_delta per delta — on streams that asked for event_deltas[]=agent.message
// only, never in the log), then saves agent.message with the whole text, then
// span.model_request_end with its model_usage.
//   normal   session.status_running, one model request of N deltas, idle end_turn.
//   think    agent.thinking, a short first answer, agent.tool_use web_search (allowed) and its
//            agent.tool_result, then the answer: the turn's text is both messages.
//   confirm  a short answer, agent.tool_use bash with evaluated_permission "ask", then idle
//            requires_action {event_ids:[it]}. user.tool_confirmation allow: the tool's result and
//            the answer; deny: an error result "Denied by the user: <deny_message>" and an answer
//            that quotes the deny message.
//   custom   agent.custom_tool_use lookup_order, idle requires_action; user.custom_tool_result: an
//            answer that starts "The order says: <result text>".
//   fail     a preview cut short (its model request ends with is_error, no message),
//            session.error retrying, session.status_rescheduled, running again, session.error
//            exhausted ("model_overloaded_error"), idle retries_exhausted.
//   flaky    a preview cut short, session.error retrying, rescheduled, then the whole answer:
//            the turn's text is the saved message only.
//   long     normal with the long deltas (for interrupts).
// Delta i is "tok<i>" plus one of "", "é", "日本", "🎉" and a space: a turn's text is known from
// its options alone. A user.interrupt ends the running model request (its preview unsaved) and
// the turn: idle end_turn.
//
// PER-TURN OPTIONS, `key=value` words of the message: deltas, interval_ms, messages (normal and long:
// the deltas split over that many model requests, each saving its own agent.message, as an agent
// that works for a while writes). A bad value is a 400.

#include "claudeagentssimconfig.h"

#include "server/simoptions.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace RunwatchSim {

enum class ClaudeAgentsScenario { Normal, Think, Confirm, Custom, Fail, Flaky, Long };

QString claudeAgentsScenarioName(ClaudeAgentsScenario scenario);
std::optional<ClaudeAgentsScenario> claudeAgentsScenarioFromName(QStringView name);

struct ClaudeAgentsTurnOptions
{
    ClaudeAgentsScenario scenario = ClaudeAgentsScenario::Normal;
    int deltas = 8;
    int intervalMs = 20;
    int messages = 1;
    QStringList replyWords; // ClaudeAgentsSimConfig::replyText's words; empty: tok<i>
};

// Later wins: config, the scenario's defaults, words of `prompt`.
std::optional<SimOptionError> resolveTurnOptions(const ClaudeAgentsSimConfig &config, const QString &prompt,
                                                 ClaudeAgentsTurnOptions *options);

// The text of delta `index`: "tok<i>" + one of "", "é", "日本", "🎉" + " "; with reply words,
// word index (mod their number) + " ".
QString claudeAgentsDeltaText(int index, const QStringList &replyWords = {});

// The scenario and option documentation above, for --help.
QString claudeAgentsOptionsHelpText();

} // namespace RunwatchSim
