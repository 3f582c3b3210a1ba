// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/agentsessions/sessionturn.h"

#include <QByteArrayView>
#include <QJsonArray>
#include <QJsonObject>

namespace Runwatch::ClaudeAgents {

// Claude Managed Agents (docs/protocols/agent-sessions.md §2; the truth is @anthropic-ai/sdk
// 1.14.0's resources/beta/sessions/**) mapped to the shared session/turn model. This file is the
// connector's one table of what the beta's events, statuses and stop reasons mean: a change of the
// beta is an edit here.

// What one event of a session's stream or event log means for the turn (SessionEvent):
//   user.message → a turn starts; user.interrupt → the turn was interrupted;
//   user.tool_confirmation / user.custom_tool_result / user.tool_result → the call is answered;
//   event_start (agent.message) / event_delta / span.model_request_end → the live preview of the
//     answer, opened, grown, closed (with the request's model_usage added to the turn's);
//   agent.message → a saved part of the answer; agent.thinking → reasoning; agent.tool_use and
//     agent.mcp_tool_use → a tool call (one to confirm when evaluated_permission is "ask");
//     agent.custom_tool_use → a call whose result the operator gives; agent.*_tool_result → a
//     result;
//   session.status_running / status_rescheduled → working (rescheduling is live);
//   session.status_idle → requires_action {event_ids}: waits; end_turn: completed;
//     retries_exhausted, budget_reached, refusal: failed; any other reason ends the turn
//     (the SDK's endsTurn) as completed;
//   session.status_terminated → failed; session.error → a problem (retrying: the service tries
//     again; exhausted / terminal: the turn's failure reason); session.deleted → gone.
// Any other type only counts as applied.
AgentSessions::SessionEvent sessionEventOf(const QJsonObject &event, QStringView sseType);

// The text blocks of a content list ([{type:"text", text}], redacted and other blocks carry no
// text), run together; a string as it is.
QString contentText(const QJsonValue &content);

// The client status a session's `status` shows as in a listing: running and rescheduling work,
// idle waits for the next message (its last turn over), terminated is the end.
RunStatus sessionStatusFor(QStringView status);

// A request's error body ({type:"error", error:{type, message}}): the error's type and message.
RunError errorOf(const QJsonObject &body, RunError base);

// The events that answer `request` (every pending call once, answersForToolCalls()): a
// user.tool_confirmation (allow, or deny with the comment as deny_message) per confirmation, a
// user.custom_tool_result with the operator's text per custom tool. Empty, with why in *error,
// when the answer does not fit.
QJsonArray answerEvents(const InputRequest &request, const InputAnswer &answer, QString *error);

// A turn's mapping (SessionTurn) fed with this connector's wire events: the stream's SSE events
// (map()) and the event log's objects (history()). Pure, no I/O; the connector's stream uses the
// same table through AgentSessions::SessionGate. Used by get(), respond() and the tests.
class ClaudeAgentsMapper
{
public:
    explicit ClaudeAgentsMapper(QString turnId = {})
        : m_turn(std::move(turnId))
    {}

    void history(const QJsonObject &event) { m_turn.history(sessionEventOf(event, {})); }
    QList<RunEvent> historyEvents() const { return m_turn.historyEvents(); }
    void map(QByteArrayView sseType, QByteArrayView data, QList<RunEvent> &out);
    const AgentSessions::SessionTurn &turn() const { return m_turn; }

private:
    AgentSessions::SessionTurn m_turn;
};

} // namespace Runwatch::ClaudeAgents
