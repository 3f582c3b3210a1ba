// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/agentsessions/sessionturn.h"

#include <QByteArrayView>
#include <QJsonArray>
#include <QJsonObject>

namespace Runwatch::OpenAiAgents {

// The OpenAI Agents API (docs/protocols/agent-sessions.md §1; the truth is the openai npm client
// 7.59.0's resources/beta/agents/**) mapped to the shared session/turn model. This file is the
// connector's one table of what the beta's events, items, statuses and required actions mean: a
// change of the beta is an edit here.
//
// Ids: a fact that both the live stream and the saved history show carries the same id either
// way, so that the one applied first wins and the other is dropped: a turn is its turn id, an
// item its item id, a turn's end "<turn id>:end". What only the stream shows (text deltas,
// session statuses) carries the event's event_id.

// What one event of a session's stream means for the turn (SessionEvent):
//   agent.session.turn.created (a root turn) → a turn starts; turn.in_progress → working;
//   turn.completed / failed / cancelled → the turn ends so, with its usage and error {code, message};
//   turn.item.added (an assistant message) → its live preview opens; output_text.delta → preview text;
//   turn.item.done → the item saved: an assistant message's text is a part of the answer (commentary
//     is secondary), reasoning, tool calls and their results are secondary items;
//   agent.session.requires_action → the turn waits on the session's required_actions;
//   agent.session.in_progress → working; agent.session.failed / budget_reached → the turn fails with
//     the session's error (budget_reached is a failure with the service's reason).
// Any other type only counts as applied.
AgentSessions::SessionEvent sessionEventOf(const QJsonObject &event, QStringView sseType);

// A saved item (GET …/items, or the item of turn.item.done) as a SessionEvent; Other for one that
// is still in progress or is the user's own message.
AgentSessions::SessionEvent itemEventOf(const QJsonObject &item);

// The turn's end a Turn object in a terminal status gives (completed, failed, cancelled); Other for
// one that still runs.
AgentSessions::SessionEvent turnEndOf(const QJsonObject &turn, const QJsonValue &usage = {});

// The wait a session's required_actions give (Waiting with the calls, or a typed form).
AgentSessions::SessionEvent waitingOf(const QJsonObject &session, const QString &id = {});

// The saved history as the model's events, oldest first: each root turn (its start, its items,
// its end), then the session's own state (what it waits for, or its failure). `turns` and `items`
// in any order: they are sorted by created_at and by their listing's order.
QList<AgentSessions::SessionEvent> historyOf(const QJsonObject &session, const QJsonArray &turns,
                                             const QJsonArray &items);

// TokenUsage {input_tokens, output_tokens, output_tokens_details{reasoning_tokens}}.
TokenUsage usageOf(const QJsonValue &usage);

// The client status a session's `status` shows as in a listing.
RunStatus sessionStatusFor(QStringView status);

// A request's error body ({error:{type, code, message}}): its code and message.
RunError errorOf(const QJsonObject &body, RunError base);

// The input events that answer `request` for the turn `turnId`: a tool_result per function call
// (the operator's text its output), an mcp_approval_request_result (approve / deny) per MCP
// approval, a computer_use_approval_request_result per browser approval or form. Empty, with why
// in *error, when the answer does not fit.
QJsonArray answerEvents(const InputRequest &request, const InputAnswer &answer, const QString &turnId,
                        QString *error);

// A turn's mapping fed with this connector's wire events: the stream's SSE events (map()) and the
// saved history (history()). Pure, no I/O; used by get(), respond(), the fuzzer and the tests.
class OpenAiAgentsMapper
{
public:
    explicit OpenAiAgentsMapper(QString turnId = {})
        : m_turn(std::move(turnId))
    {}

    void history(const QJsonObject &session, const QJsonArray &turns, const QJsonArray &items);
    QList<RunEvent> historyEvents() const { return m_turn.historyEvents(); }
    void map(QByteArrayView sseType, QByteArrayView data, QList<RunEvent> &out);
    AgentSessions::SessionTurn &turn() { return m_turn; }
    const AgentSessions::SessionTurn &turn() const { return m_turn; }

private:
    AgentSessions::SessionTurn m_turn;
};

} // namespace Runwatch::OpenAiAgents
