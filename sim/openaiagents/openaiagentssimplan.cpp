// SPDX-License-Identifier: GPL-3.0-or-later
// A simulated session's turn as its scenario plans it (openaiagentssimconfig.h): the steps its
// timer plays, one event each (an answer's item and deltas, a tool call, a required action, the
// turn's end).
#include "openaiagentssimsession.h"

#include <algorithm>
#include <memory>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

QStringList OpenAiAgentsSimSession::deltasOf(const OpenAiAgentsTurnOptions &options, int from,
                                             int count) const
{
    QStringList deltas;
    for (int i = from; i < from + count; ++i)
        deltas << openAiAgentsDeltaText(i, options.replyWords);
    return deltas;
}

void OpenAiAgentsSimSession::planAnswer(const QStringList &deltas, const QString &phase, bool cut)
{
    const QString itemId = newId(u"msg_");
    const QString turnId = currentTurn()->id;
    auto index = std::make_shared<qsizetype>(-1);
    m_plan << [this, itemId, turnId, phase, index] {
        QJsonObject item{
            {u"id"_s, itemId},
            {u"type"_s, u"message"_s},
            {u"role"_s, u"assistant"_s},
            {u"status"_s, u"in_progress"_s},
            {u"phase"_s, phase},
            {u"turn_id"_s, turnId},
            {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"output_text"_s}, {u"text"_s, u""_s}}}}};
        *index = m_items.size();
        m_items << item;
        emitEvent(u"agent.session.turn.item.added"_s,
                  QJsonObject{{u"item"_s, item}, {u"output_index"_s, int(*index)}, {u"turn_id"_s, turnId}});
    };
    for (const QString &delta : deltas) {
        m_plan << [this, itemId, turnId, delta, index] {
            QJsonObject &item = m_items[*index];
            const QString text
                = item.value(u"content"_s).toArray().at(0).toObject().value(u"text"_s).toString();
            item.insert(u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"output_text"_s},
                                                             {u"text"_s, QString(text + delta)}}});
            if (OpenAiAgentsSimTurn *turn = currentTurn())
                ++turn->outputTokens;
            emitEvent(u"agent.session.turn.output_text.delta"_s, QJsonObject{{u"item_id"_s, itemId},
                                                                             {u"output_index"_s, int(*index)},
                                                                             {u"content_index"_s, 0},
                                                                             {u"delta"_s, delta},
                                                                             {u"turn_id"_s, turnId}});
        };
    }
    if (cut) {
        m_plan << [this, index] { m_items[*index].insert(u"status"_s, u"incomplete"_s); };
        return;
    }
    m_plan << [this, itemId, turnId, phase, index] {
        QJsonObject &item = m_items[*index];
        item.insert(u"status"_s, u"completed"_s);
        const QString text = item.value(u"content"_s).toArray().at(0).toObject().value(u"text"_s).toString();
        if (phase != "commentary"_L1) {
            if (OpenAiAgentsSimTurn *turn = currentTurn())
                turn->outputs << text;
        }
        emitEvent(u"agent.session.turn.output_text.done"_s, QJsonObject{{u"item_id"_s, itemId},
                                                                        {u"output_index"_s, int(*index)},
                                                                        {u"content_index"_s, 0},
                                                                        {u"text"_s, text},
                                                                        {u"turn_id"_s, turnId}});
        emitEvent(u"agent.session.turn.item.done"_s,
                  QJsonObject{{u"item"_s, item}, {u"output_index"_s, int(*index)}, {u"turn_id"_s, turnId}});
    };
}

void OpenAiAgentsSimSession::planItem(const QJsonObject &item)
{
    m_plan << [this, item] {
        QJsonObject saved = item;
        saved.insert(u"turn_id"_s, currentTurn()->id);
        const int index = int(m_items.size());
        m_items << saved;
        // Added, then done: the client's tool dispatcher answers a function call from its added
        // event, which may come before the session registered the call (§1.5).
        emitEvent(u"agent.session.turn.item.added"_s, QJsonObject{{u"item"_s, saved},
                                                                  {u"output_index"_s, index},
                                                                  {u"turn_id"_s, saved.value(u"turn_id"_s)}});
        emitEvent(u"agent.session.turn.item.done"_s, QJsonObject{{u"item"_s, saved},
                                                                 {u"output_index"_s, index},
                                                                 {u"turn_id"_s, saved.value(u"turn_id"_s)}});
    };
}

void OpenAiAgentsSimSession::planRequire(const QJsonObject &action)
{
    m_plan << [this, action] {
        QJsonObject a = action;
        a.insert(u"turn_id"_s, currentTurn()->id);
        currentTurn()->status = u"waiting"_s;
        m_requiredActions = QJsonArray{a};
        m_status = u"requires_action"_s;
        emitEvent(u"agent.session.requires_action"_s, QJsonObject{{u"session"_s, json()}});
        Q_EMIT statusChanged(m_status);
        m_plan.clear(); // waits for the answer
    };
}

void OpenAiAgentsSimSession::planEnd(const QString &status, const QString &code, const QString &message)
{
    m_plan << [this, status, code, message] { endTurn(status, code, message); };
}

void OpenAiAgentsSimSession::planTurn(OpenAiAgentsSimTurn &turn)
{
    const OpenAiAgentsTurnOptions &o = turn.options;
    turn.inputTokens = 100 + turn.prompt.size();
    const QString turnId = turn.id;
    m_plan << [this, turnId] {
        emitEvent(u"agent.session.turn.in_progress"_s,
                  QJsonObject{{u"turn"_s, turnJson(*currentTurn())}, {u"turn_id"_s, turnId}});
    };
    switch (o.scenario) {
    case OpenAiAgentsScenario::Normal:
    case OpenAiAgentsScenario::Long: {
        const int per = std::max(1, o.deltas / o.messages);
        for (int m = 0, from = 0; m < o.messages; ++m) {
            const int count = m == o.messages - 1 ? o.deltas - from : per;
            planAnswer(deltasOf(o, from, std::max(count, 1)));
            from += per;
        }
        planEnd(u"completed"_s);
        break;
    }
    case OpenAiAgentsScenario::Think:
        turn.reasoningTokens = 12;
        planItem(
            QJsonObject{{u"id"_s, newId(u"rs_")},
                        {u"type"_s, u"reasoning"_s},
                        {u"status"_s, u"completed"_s},
                        {u"summary"_s, QJsonArray{QJsonObject{{u"type"_s, u"summary_text"_s},
                                                              {u"text"_s, u"Weighing the sources."_s}}}}});
        planAnswer({u"Looking "_s, u"into it."_s}, u"commentary"_s);
        planAnswer(deltasOf(o, 0, o.deltas));
        planEnd(u"completed"_s);
        break;
    case OpenAiAgentsScenario::Approve: {
        planAnswer(deltasOf(o, 0, o.deltas));
        const QString requestId = newId(u"mcpr_");
        planRequire(QJsonObject{
            {u"type"_s, u"mcp_approval_request"_s},
            {u"request_id"_s, requestId},
            {u"request"_s, QJsonObject{{u"type"_s, u"mcp_tool_call"_s},
                                       {u"name"_s, u"delete_branch"_s},
                                       {u"server_label"_s, u"github"_s},
                                       {u"arguments"_s, QJsonObject{{u"branch"_s, u"old-feature"_s}}},
                                       {u"message"_s, u"Delete the branch old-feature?"_s}}}});
        break;
    }
    case OpenAiAgentsScenario::Tool: {
        const QString callId = newId(u"call_");
        const QJsonObject arguments{{u"order_id"_s, u"A-1001"_s}};
        planItem(QJsonObject{{u"id"_s, newId(u"fc_")},
                             {u"type"_s, u"function_call"_s},
                             {u"call_id"_s, callId},
                             {u"name"_s, u"lookup_order"_s},
                             {u"arguments"_s, arguments},
                             {u"status"_s, u"completed"_s}});
        planRequire(QJsonObject{{u"type"_s, u"function_call"_s},
                                {u"call_id"_s, callId},
                                {u"name"_s, u"lookup_order"_s},
                                {u"arguments"_s, arguments}});
        break;
    }
    case OpenAiAgentsScenario::Signin: {
        planRequire(QJsonObject{
            {u"type"_s, u"computer_use_approval_request"_s},
            {u"request_id"_s, newId(u"cuar_")},
            {u"request"_s, QJsonObject{{u"type"_s, u"browser_authentication"_s},
                                       {u"credential_origin"_s, u"https://shop.example"_s},
                                       {u"reason"_s, u"The order page needs a sign-in."_s},
                                       {u"options"_s, QJsonArray()},
                                       {u"fields"_s, QJsonArray{QJsonObject{{u"id"_s, u"username"_s},
                                                                            {u"label"_s, u"Username"_s},
                                                                            {u"required"_s, true},
                                                                            {u"type"_s, u"text"_s}},
                                                                QJsonObject{{u"id"_s, u"password"_s},
                                                                            {u"label"_s, u"Password"_s},
                                                                            {u"required"_s, true},
                                                                            {u"type"_s, u"password"_s}}}}}}});
        break;
    }
    case OpenAiAgentsScenario::Fail:
        planAnswer(deltasOf(o, 0, std::max(1, o.deltas / 2)), u"final_answer"_s, true);
        planEnd(u"failed"_s, u"server_error"_s, u"The model is overloaded."_s);
        break;
    case OpenAiAgentsScenario::Budget:
        planAnswer(deltasOf(o, 0, std::max(1, o.deltas / 2)), u"final_answer"_s, true);
        planEnd(u"budget_reached"_s, u"budget_reached"_s, u"Spend limit of $1.00 reached."_s);
        break;
    }
}

} // namespace RunwatchSim
