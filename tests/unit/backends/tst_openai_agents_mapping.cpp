// SPDX-License-Identifier: GPL-3.0-or-later
// The OpenAI Agents API table (core/backends/openaiagents/openaiagentsmapper) on the shared
// session/turn model (core/backends/agentsessions): events, items and turns as the openai client
// 7.59.0 types them mapped to RunEvents — the turn's boundaries, deltas and saved messages,
// commentary and reasoning, required actions (function calls, MCP approvals, sign-in forms),
// failures, budget, cancels, usage per turn — with history and live stream fed in turn, each id
// once; and the input events that answer a turn.
#include "backends/agentsessions/sessiongate.h"
#include "backends/openaiagents/openaiagentsmapper.h"
#include "domain/runreducer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace Runwatch;
using namespace Runwatch::OpenAiAgents;
using namespace Qt::StringLiterals;

namespace {

int g_event = 0;

QJsonObject wire(const QString &type, QJsonObject rest = {})
{
    rest.insert(u"type"_s, type);
    if (!rest.contains(u"event_id"_s))
        rest.insert(u"event_id"_s, u"evt_%1"_s.arg(++g_event));
    return rest;
}

// Turns are created in the order of their ids' numbers (turn_1 before turn_2).
QJsonObject turn(const QString &id, const QString &status, QJsonValue error = QJsonValue::Null)
{
    const qint64 created = 1767225600 + id.right(1).toInt();
    return {{u"id"_s, id},
            {u"object"_s, u"agent.session.turn"_s},
            {u"status"_s, status},
            {u"subagent_id"_s, QJsonValue::Null},
            {u"created_at"_s, created},
            {u"error"_s, error},
            {u"usage"_s, QJsonObject{{u"input_tokens"_s, 50},
                                     {u"output_tokens"_s, 7},
                                     {u"output_tokens_details"_s, QJsonObject{{u"reasoning_tokens"_s, 3}}}}}};
}

QJsonObject message(const QString &id, const QString &turnId, const QString &text,
                    const QString &status = u"completed"_s, const QString &phase = u"final_answer"_s)
{
    return {{u"id"_s, id},
            {u"type"_s, u"message"_s},
            {u"role"_s, u"assistant"_s},
            {u"status"_s, status},
            {u"phase"_s, phase},
            {u"turn_id"_s, turnId},
            {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"output_text"_s}, {u"text"_s, text}}}}};
}

QJsonObject created(const QString &turnId)
{
    return wire(u"agent.session.turn.created"_s,
                {{u"turn"_s, turn(turnId, u"queued"_s)}, {u"turn_id"_s, turnId}});
}

QJsonObject ended(const QString &turnId, const QString &status, QJsonValue error = QJsonValue::Null)
{
    const QJsonObject t = turn(turnId, status, error);
    return wire(u"agent.session.turn."_s + status,
                {{u"turn"_s, t}, {u"turn_id"_s, turnId}, {u"usage"_s, t.value(u"usage"_s)}});
}

QJsonObject added(const QJsonObject &item)
{
    return wire(u"agent.session.turn.item.added"_s,
                {{u"item"_s, item}, {u"turn_id"_s, item.value(u"turn_id"_s)}});
}

QJsonObject done(const QJsonObject &item)
{
    return wire(u"agent.session.turn.item.done"_s,
                {{u"item"_s, item}, {u"turn_id"_s, item.value(u"turn_id"_s)}});
}

QJsonObject delta(const QString &itemId, const QString &text)
{
    return wire(
        u"agent.session.turn.output_text.delta"_s,
        {{u"item_id"_s, itemId}, {u"delta"_s, text}, {u"output_index"_s, 0}, {u"content_index"_s, 0}});
}

QJsonObject session(const QString &status, const QJsonArray &actions = {}, const QString &error = {})
{
    return {{u"id"_s, u"sess_1"_s},
            {u"object"_s, u"agent.session"_s},
            {u"status"_s, status},
            {u"required_actions"_s, actions},
            {u"error"_s, error.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(error)}};
}

void live(OpenAiAgentsMapper &mapper, const QJsonObject &e, QList<RunEvent> &out)
{
    mapper.map(e.value(u"type"_s).toString().toUtf8(), QJsonDocument(e).toJson(QJsonDocument::Compact), out);
}

Run runAfter(const QList<RunEvent> &events)
{
    Run run;
    for (const RunEvent &e : events)
        applyEvent(run, e, QDateTime::currentDateTimeUtc());
    return run;
}

QJsonArray mcpAction(const QString &turnId)
{
    return QJsonArray{
        QJsonObject{{u"type"_s, u"mcp_approval_request"_s},
                    {u"request_id"_s, u"mcpr_1"_s},
                    {u"turn_id"_s, turnId},
                    {u"request"_s, QJsonObject{{u"type"_s, u"mcp_tool_call"_s},
                                               {u"name"_s, u"delete_branch"_s},
                                               {u"server_label"_s, u"github"_s},
                                               {u"arguments"_s, QJsonObject{{u"branch"_s, u"x"_s}}},
                                               {u"message"_s, u"ok?"_s}}}}};
}

} // namespace

class TestOpenAiAgentsMapping final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Deltas stream into the answer; the saved message confirms them; the turn's end carries its
    // usage and ends the run.
    void liveTurn()
    {
        OpenAiAgentsMapper mapper(u"turn_1"_s);
        QList<RunEvent> out;
        const QJsonObject m = message(u"msg_1"_s, u"turn_1"_s, u"Hello"_s);
        for (const QJsonObject &e :
             {created(u"turn_1"_s),
              wire(u"agent.session.in_progress"_s, {{u"session"_s, session(u"in_progress"_s)}}),
              added(message(u"msg_1"_s, u"turn_1"_s, QString(), u"in_progress"_s)),
              delta(u"msg_1"_s, u"Hel"_s), delta(u"msg_1"_s, u"lo"_s), done(m),
              ended(u"turn_1"_s, u"completed"_s)})
            live(mapper, e, out);
        const Run run = runAfter(out);
        QCOMPARE(run.primaryText, u"Hello"_s);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.rawStatus, u"completed"_s);
        QCOMPARE(run.usage.inputTokens, 50);
        QCOMPARE(run.usage.outputTokens, 7);
        QCOMPARE(run.usage.reasoningTokens, 3);
        QCOMPARE(run.reconciliations, 0);
        QCOMPARE(run.token.eventId, u"turn_1:end"_s);
        QVERIFY(mapper.turn().ended());
    }

    // The history (turns and items, in any listing order) is the turn as it stands; the live
    // stream's repeats of it are dropped by item and turn id; earlier turns are not this run's.
    void historyThenLiveEachIdOnce()
    {
        const QJsonArray turns{turn(u"turn_2"_s, u"in_progress"_s), turn(u"turn_1"_s, u"completed"_s)};
        const QJsonArray items{message(u"msg_0"_s, u"turn_1"_s, u"old"_s),
                               message(u"msg_1"_s, u"turn_2"_s, u"One"_s),
                               message(u"msg_2"_s, u"turn_2"_s, u"Tw"_s, u"in_progress"_s)};
        OpenAiAgentsMapper mapper(u"turn_2"_s);
        mapper.history(session(u"in_progress"_s), turns, items);
        QList<RunEvent> out = mapper.historyEvents();
        QCOMPARE(runAfter(out).primaryText, u"One"_s);
        // The stream shows the turn's saved message again, then the rest of the open one.
        for (const QJsonObject &e :
             {done(message(u"msg_1"_s, u"turn_2"_s, u"One"_s)), delta(u"msg_2"_s, u"o"_s),
              done(message(u"msg_2"_s, u"turn_2"_s, u"Two"_s)), ended(u"turn_2"_s, u"completed"_s)})
            live(mapper, e, out);
        const Run run = runAfter(out);
        QCOMPARE(run.primaryText, u"One\n\nTwo"_s);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(mapper.turn().droppedRepeats(), 1);
    }

    // Attached by session id: the last turn is followed, the ones before it are the conversation's
    // earlier turns, each with its user message (the prompt), its saved answer, its usage and end.
    void attachKeepsEarlierTurns()
    {
        const auto user = [](const QString &id, const QString &turnId, const QString &text) {
            return QJsonObject{
                {u"id"_s, id},
                {u"type"_s, u"message"_s},
                {u"role"_s, u"user"_s},
                {u"status"_s, u"completed"_s},
                {u"turn_id"_s, turnId},
                {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"input_text"_s}, {u"text"_s, text}}}}};
        };
        const QJsonArray turns{turn(u"turn_3"_s, u"in_progress"_s), turn(u"turn_2"_s, u"completed"_s),
                               turn(u"turn_1"_s, u"completed"_s)};
        const QJsonArray items{
            user(u"msg_u1"_s, u"turn_1"_s, u"first?"_s), message(u"msg_1"_s, u"turn_1"_s, u"one"_s),
            user(u"msg_u2"_s, u"turn_2"_s, u"second?"_s), message(u"msg_2"_s, u"turn_2"_s, u"two"_s),
            user(u"msg_u3"_s, u"turn_3"_s, u"third?"_s)};
        OpenAiAgentsMapper mapper;
        mapper.history(session(u"in_progress"_s), turns, items);
        QCOMPARE(mapper.turn().turnId(), u"turn_3"_s);
        QCOMPARE(mapper.turn().prompt(), u"third?"_s);
        QCOMPARE(runAfter(mapper.historyEvents()).status, RunStatus::InProgress);
        const QList<EarlierTurn> earlier = mapper.turn().earlierTurns();
        QCOMPARE(earlier.size(), 2);
        const QStringList prompts{u"first?"_s, u"second?"_s};
        const QStringList answers{u"one"_s, u"two"_s};
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(earlier.at(i).prompt, prompts.at(i));
            const Run run = runAfter(earlier.at(i).events);
            QCOMPARE(run.primaryText, answers.at(i));
            QCOMPARE(run.status, RunStatus::Completed);
            QCOMPARE(run.usage.outputTokens, 7);
            QCOMPARE(run.token.extra.value(AgentSessions::kTurnKey).toString(), u"turn_%1"_s.arg(i + 1));
            // Never followed: no cursor to resume from.
            QVERIFY(run.token.eventId.isEmpty());
        }
    }

    // A follow-up: the history's turns are earlier ones; the next turn the stream starts is the
    // run's, announced with its id.
    void nextTurnIsTheRuns()
    {
        AgentSessions::SessionGate gate(&sessionEventOf, QString());
        gate.followNextTurn();
        const auto opened
            = gate.open(historyOf(session(u"idle"_s), QJsonArray{turn(u"turn_1"_s, u"completed"_s)},
                                  QJsonArray{message(u"msg_0"_s, u"turn_1"_s, u"old"_s)}));
        QVERIFY(!opened.turn.started());
        QList<RunEvent> out;
        for (const QJsonObject &e : {created(u"turn_2"_s), done(message(u"msg_5"_s, u"turn_2"_s, u"new"_s)),
                                     ended(u"turn_2"_s, u"completed"_s)}) {
            gate.frame(e.value(u"type"_s).toString().toUtf8(),
                       QJsonDocument(e).toJson(QJsonDocument::Compact), out);
        }
        const Run run = runAfter(out);
        QCOMPARE(run.token.extra.value(AgentSessions::kTurnKey).toString(), u"turn_2"_s);
        QCOMPARE(run.primaryText, u"new"_s);
        QCOMPARE(run.status, RunStatus::Completed);
        QVERIFY(gate.over());
    }

    // Commentary and reasoning are secondary; tool calls and results are items.
    void secondaryItems()
    {
        OpenAiAgentsMapper mapper(u"t"_s);
        QList<RunEvent> out;
        live(mapper, created(u"t"_s), out);
        live(mapper, done(message(u"c1"_s, u"t"_s, u"Looking."_s, u"completed"_s, u"commentary"_s)), out);
        live(mapper,
             done(QJsonObject{{u"id"_s, u"rs_1"_s},
                              {u"type"_s, u"reasoning"_s},
                              {u"status"_s, u"completed"_s},
                              {u"summary"_s, QJsonArray{QJsonObject{{u"text"_s, u"Weighing."_s}}}}}),
             out);
        live(mapper,
             done(QJsonObject{{u"id"_s, u"mcp_1"_s},
                              {u"type"_s, u"mcp_call"_s},
                              {u"name"_s, u"search"_s},
                              {u"arguments"_s, u"{\"q\":1}"_s},
                              {u"output"_s, u"found"_s},
                              {u"status"_s, u"completed"_s}}),
             out);
        const Run run = runAfter(out);
        QCOMPARE(run.primaryText, QString());
        QCOMPARE(run.secondary.size() >= 3, true);
        bool reasoning = false;
        bool tool = false;
        bool commentary = false;
        for (const SecondaryItem &item : run.secondary) {
            reasoning = reasoning || (item.kind == SecondaryKind::Reasoning && item.text == u"Weighing."_s);
            tool = tool || (item.kind == SecondaryKind::ToolCall && item.text.contains(u"found"_s));
            commentary = commentary || item.text == u"Looking."_s;
        }
        QVERIFY(reasoning && tool && commentary);
    }

    // requires_action: the session's typed actions are what the turn waits for; answers go as
    // input events naming their ids (and the turn for a tool result).
    void requiredActionsAndAnswers()
    {
        OpenAiAgentsMapper mapper(u"t"_s);
        QList<RunEvent> out;
        live(mapper, created(u"t"_s), out);
        QJsonArray actions = mcpAction(u"t"_s);
        actions.append(QJsonObject{{u"type"_s, u"function_call"_s},
                                   {u"call_id"_s, u"call_1"_s},
                                   {u"name"_s, u"lookup"_s},
                                   {u"arguments"_s, u"{\"id\":7}"_s},
                                   {u"turn_id"_s, u"t"_s}});
        actions.append(QJsonObject{{u"type"_s, u"environment_connection"_s}, {u"environment_id"_s, u"e"_s}});
        live(mapper,
             wire(u"agent.session.requires_action"_s,
                  {{u"session"_s, session(u"requires_action"_s, actions)}}),
             out);
        const Run run = runAfter(out);
        QCOMPARE(run.status, RunStatus::InputRequired);
        QVERIFY(run.input);
        QCOMPARE(run.input->toolCalls.size(), 2);
        QVERIFY(run.input->toolCalls.at(0).approval);
        QCOMPARE(run.input->toolCalls.at(0).serverLabel, u"github"_s);
        QCOMPARE(run.input->toolCalls.at(1).arguments, u"{\"id\":7}"_s);
        InputAnswer answer;
        answer.toolAnswers
            = {ToolCallAnswer{u"mcpr_1"_s, {}, false}, ToolCallAnswer{u"call_1"_s, u"42"_s, false}};
        QString why;
        const QJsonArray events = answerEvents(*run.input, answer, u"t"_s, &why);
        QCOMPARE(events.size(), 2);
        QCOMPARE(events.at(0).toObject().value(u"type"_s).toString(),
                 u"agent.session.input.mcp_approval_request_result"_s);
        QCOMPARE(events.at(0).toObject().value(u"response"_s).toObject().value(u"decision"_s).toString(),
                 u"deny"_s);
        const QJsonObject result = events.at(1).toObject();
        QCOMPARE(result.value(u"type"_s).toString(), u"agent.session.input.tool_result"_s);
        QCOMPARE(result.value(u"call_id"_s).toString(), u"call_1"_s);
        QCOMPARE(result.value(u"turn_id"_s).toString(), u"t"_s);
        QCOMPARE(result.value(u"output"_s).toString(), u"42"_s);
        QVERIFY(result.value(u"success"_s).toBool());
        // A text for two calls does not fit: nothing.
        InputAnswer text;
        text.text = u"x"_s;
        QVERIFY(answerEvents(*run.input, text, u"t"_s, &why).isEmpty());
        QVERIFY(!why.isEmpty());
        // The session going on ends the wait.
        live(mapper, wire(u"agent.session.in_progress"_s, {{u"session"_s, session(u"in_progress"_s)}}), out);
        QCOMPARE(runAfter(out).status, RunStatus::InProgress);
    }

    // A browser sign-in form is a schema form answered as one value.
    void signInForm()
    {
        const QJsonArray actions{QJsonObject{
            {u"type"_s, u"computer_use_approval_request"_s},
            {u"request_id"_s, u"cuar_1"_s},
            {u"turn_id"_s, u"t"_s},
            {u"request"_s, QJsonObject{{u"type"_s, u"browser_authentication"_s},
                                       {u"credential_origin"_s, u"https://a.example"_s},
                                       {u"reason"_s, QJsonValue::Null},
                                       {u"options"_s, QJsonArray()},
                                       {u"fields"_s, QJsonArray{QJsonObject{{u"id"_s, u"user"_s},
                                                                            {u"label"_s, u"User"_s},
                                                                            {u"required"_s, true},
                                                                            {u"type"_s, u"text"_s}}}}}}}};
        OpenAiAgentsMapper mapper(u"t"_s);
        mapper.history(session(u"requires_action"_s, actions), QJsonArray{turn(u"t"_s, u"waiting"_s)}, {});
        const std::optional<InputRequest> request = mapper.turn().pendingRequest();
        QVERIFY(request);
        QVERIFY(request->schema.value(u"properties"_s).toObject().contains(u"user"_s));
        QVERIFY(request->prompt.contains(u"https://a.example"_s));
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Value;
        answer.value = QJsonObject{{u"user"_s, u"ada"_s}};
        QString why;
        const QJsonArray events = answerEvents(*request, answer, u"t"_s, &why);
        QCOMPARE(events.size(), 1);
        const QJsonObject response = events.at(0).toObject().value(u"response"_s).toObject();
        QCOMPARE(response.value(u"action"_s).toString(), u"submit"_s);
        QCOMPARE(response.value(u"fields"_s).toArray().at(0).toObject().value(u"value"_s).toString(),
                 u"ada"_s);
        InputAnswer reject;
        reject.kind = InputAnswer::Kind::Reject;
        QCOMPARE(answerEvents(*request, reject, u"t"_s, &why)
                     .at(0)
                     .toObject()
                     .value(u"response"_s)
                     .toObject()
                     .value(u"action"_s)
                     .toString(),
                 u"cancel"_s);
    }

    // turn.failed carries the service's code and message; budget_reached fails with the session's
    // reason; a cancelled turn is cancelled; an unfinished message leaves the answer.
    void failuresAndCancels()
    {
        {
            OpenAiAgentsMapper mapper(u"t"_s);
            QList<RunEvent> out;
            live(mapper, created(u"t"_s), out);
            live(mapper, added(message(u"m"_s, u"t"_s, QString(), u"in_progress"_s)), out);
            live(mapper, delta(u"m"_s, u"half"_s), out);
            live(mapper,
                 ended(u"t"_s, u"failed"_s,
                       QJsonObject{{u"code"_s, u"server_error"_s}, {u"message"_s, u"Overloaded."_s}}),
                 out);
            const Run run = runAfter(out);
            QCOMPARE(run.status, RunStatus::Failed);
            QCOMPARE(run.error.code, u"server_error"_s);
            QCOMPARE(run.error.message, u"Overloaded."_s);
            QCOMPARE(run.primaryText, QString());
        }
        {
            OpenAiAgentsMapper mapper(u"t"_s);
            QList<RunEvent> out;
            live(mapper, created(u"t"_s), out);
            live(mapper,
                 wire(u"agent.session.budget_reached"_s,
                      {{u"session"_s, session(u"budget_reached"_s, {}, u"Spend limit reached."_s)}}),
                 out);
            const Run run = runAfter(out);
            QCOMPARE(run.status, RunStatus::Failed);
            QCOMPARE(run.error.code, u"budget_reached"_s);
            QCOMPARE(run.error.message, u"Spend limit reached."_s);
        }
        {
            OpenAiAgentsMapper mapper(u"t"_s);
            QList<RunEvent> out;
            live(mapper, created(u"t"_s), out);
            live(mapper, ended(u"t"_s, u"cancelled"_s), out);
            QCOMPARE(runAfter(out).status, RunStatus::Cancelled);
        }
    }

    // Unreadable events are notes, subagents' turns are not the conversation's, odd shapes never
    // crash.
    void hostileInput()
    {
        OpenAiAgentsMapper mapper(u"t"_s);
        QList<RunEvent> out;
        live(mapper, created(u"t"_s), out);
        mapper.map("agent.session.turn.item.done", "{not json", out);
        QJsonObject sub = created(u"sub"_s);
        QJsonObject subTurn = sub.value(u"turn"_s).toObject();
        subTurn.insert(u"subagent_id"_s, u"sa_1"_s);
        sub.insert(u"turn"_s, subTurn);
        live(mapper, sub, out);
        live(mapper, wire(u"agent.session.requires_action"_s, {{u"session"_s, 5}}), out);
        live(mapper, done(QJsonObject{{u"type"_s, 3}}), out);
        live(mapper, wire(u"agent.session.turn.completed"_s, {{u"turn"_s, u"x"_s}}), out);
        QVERIFY(!mapper.turn().ended() || mapper.turn().status() == RunStatus::Completed);
        QCOMPARE(mapper.turn().turnId(), u"t"_s);
        QCOMPARE(sessionStatusFor(u"budget_reached"), RunStatus::Failed);
        QCOMPARE(sessionStatusFor(u"requires_action"), RunStatus::InputRequired);
        QCOMPARE(sessionStatusFor(u"idle"), RunStatus::Completed);
    }
};

QTEST_GUILESS_MAIN(TestOpenAiAgentsMapping)
#include "tst_openai_agents_mapping.moc"
