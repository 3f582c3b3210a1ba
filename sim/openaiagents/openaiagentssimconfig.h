// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Configuration of the OpenAI Agents API simulator (OpenAiAgentsSimulator): pace, the key it
// expects, the agents of its account, the largest page a listing gives, the keep-alive, injected
// HTTP and stream faults, limits; and the scenarios a turn plays.
//
// Written from docs/protocols/agent-sessions.md §1 and the shipped code of the official client
// (the openai npm package 7.59.0, resources/beta/agents/**, lib/agents, lib/beta/agents) only: this
// target never includes or links client code (runwatch_core).
//
// SCENARIOS (what a turn does), chosen by the first word of the user message (case-insensitive,
// trailing ':' ',' '.' ignored); otherwise "normal". An answer is an assistant message item:
// item.added, output_text.delta per delta (stream only), item.done with the whole text (saved).
//   normal   turn.created, turn.in_progress, one answer of N deltas, turn.completed, session idle.
//   think    a reasoning item, a commentary message (not part of the answer), then the answer.
//   approve  a first answer, an mcp_call the session holds: requires_action with an
//            mcp_approval_request. approve: the call's item (completed) and an answer "Approved.
//            …"; deny: the item failed and an answer "Denied. …".
//   tool     a function_call item lookup_order, requires_action with the function_call; its
//            tool_result: a function_call_output item and an answer "The order says: <output>".
//   signin   requires_action with a computer_use_approval_request browser_authentication form
//            (fields username, password); a submit: an answer "Signed in as <username>."; a cancel:
//            "Sign-in cancelled."
//   fail     part of an answer (its item never done), then turn.failed {code: server_error,
//            message: "The model is overloaded."}, session idle.
//   budget   part of an answer, then the session's budget_reached ("Spend limit of $1.00
//            reached.") and the turn failed with that reason.
//   long     normal with the long deltas (for cancels).
// Delta i is "tok<i>" plus one of "", "é", "日本", "🎉" and a space. The input message cancel ends
// the running turn (turn.cancelled, its unfinished message unsaved); a message sent while a turn
// runs is queued as the next turn.
//
// PER-TURN OPTIONS, `key=value` words of the message: deltas, interval_ms, messages (the deltas
// split over that many answer items), unregistered (1: the first tool result of the turn is
// refused once with "Unknown pending tool call", as a call not yet registered is).
#include "server/httpmessage.h"
#include "server/simfaults.h"
#include "server/simoptions.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>

namespace RunwatchSim {

// What a request addresses; aims HTTP faults and names requests in the log.
enum class OpenAiAgentsEndpoint {
    Agents,        // GET /agents
    CreateSession, // POST /agents/sessions
    ListSessions,  // GET /agents/sessions
    GetSession,    // GET /agents/sessions/{id}
    DeleteSession, // DELETE /agents/sessions/{id}
    SendEvents,    // POST /agents/sessions/{id}/events
    Stream,        // GET /agents/sessions/{id}/events
    Turns,         // GET /agents/sessions/{id}/turns[/{turn}]
    Items,         // GET /agents/sessions/{id}/items
    Unknown,       // anything else: 404
};

// "agents", "create", "list", "get", "delete", "send", "stream", "turns", "items", "unknown".
QString openAiAgentsEndpointName(OpenAiAgentsEndpoint endpoint);
std::optional<OpenAiAgentsEndpoint> openAiAgentsEndpointFromName(QStringView name);

// Answer the first `count` requests to `endpoints` (empty: all) with `status` instead of serving them.
struct OpenAiAgentsHttpFault
{
    QSet<OpenAiAgentsEndpoint> endpoints;
    int count = 1; // -1: every matching request
    int status = 429;
    int retryAfterSeconds = 1; // Retry-After; -1: none
    bool htmlBody = false;

    bool aimsAt(OpenAiAgentsEndpoint endpoint) const
    {
        return endpoints.isEmpty() || endpoints.contains(endpoint);
    }
};

// "status=429,count=2,on=send+stream,retry-after=1,body=html|json"; every key optional.
std::optional<OpenAiAgentsHttpFault> openAiAgentsHttpFaultFromSpec(QStringView spec,
                                                                   QString *error = nullptr);

struct OpenAiAgentsSimAgent
{
    QString id;
    QString name;
    QString model;
};

struct OpenAiAgentsSimConfig : ServerLimits
{
    // The key every request must carry as Authorization: Bearer; empty: none checked.
    QString apiKey;
    int intervalMs = 20;   // pace of a turn's steps (each delta one)
    int deltas = 8;        // text deltas of an answer
    int longDeltas = 2000; // text deltas of the "long" scenario
    // If set, an answer's deltas are its words in turn (the demo's prose) instead of tok<i>.
    QString replyText;
    QList<OpenAiAgentsSimAgent> agents{
        {QStringLiteral("agent_68e1runwatch0research"), QStringLiteral("Research assistant"),
         QStringLiteral("gpt-5.2")},
        {QStringLiteral("agent_68e1runwatch00support"), QStringLiteral("Support agent"),
         QStringLiteral("gpt-5-mini")},
    };
    // A listing's `limit` is capped here (tests page through small pages).
    int maxPageSize = 100;
    // A stream's keep-alive comment while nothing else goes out.
    int heartbeatMs = 5000;
    QList<OpenAiAgentsHttpFault> httpFaults; // checked in order, after auth
    // connections, dropAfterEvents, dropMode, dripIntervalMs: per session, counted per connection
    StreamFaults streamFaults;
    int maxSessions = 1000;
};

enum class OpenAiAgentsScenario { Normal, Think, Approve, Tool, Signin, Fail, Budget, Long };
QString openAiAgentsScenarioName(OpenAiAgentsScenario scenario);
std::optional<OpenAiAgentsScenario> openAiAgentsScenarioFromName(QStringView name);

struct OpenAiAgentsTurnOptions
{
    OpenAiAgentsScenario scenario = OpenAiAgentsScenario::Normal;
    int deltas = 8;
    int intervalMs = 20;
    int messages = 1;
    bool unregistered = false;
    QStringList replyWords;
};

// Later wins: config, the scenario's defaults, words of `prompt`.
std::optional<SimOptionError> resolveOpenAiAgentsTurn(const OpenAiAgentsSimConfig &config,
                                                      const QString &prompt,
                                                      OpenAiAgentsTurnOptions *options);
// "tok<i>" + one of "", "é", "日本", "🎉" + " "; with reply words, word index (mod their number) + " ".
QString openAiAgentsDeltaText(int index, const QStringList &replyWords = {});
// The scenario and option documentation above, for --help.
QString openAiAgentsOptionsHelpText();

} // namespace RunwatchSim
