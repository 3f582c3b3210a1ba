// SPDX-License-Identifier: GPL-3.0-or-later
// The Claude Managed Agents table (core/backends/claudeagents/claudeagentsmapper) on the shared
// session/turn model (core/backends/agentsessions): events as @anthropic-ai/sdk 1.14.0 types them
// mapped to RunEvents — the turn's boundaries, previews and saved messages, confirmations and
// custom tools, failures, interrupts, usage — with history and live stream fed in turn, each id
// once; and the answers a turn waits for.
#include "backends/agentsessions/sessiongate.h"
#include "backends/claudeagents/claudeagentsmapper.h"
#include "domain/runreducer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace Runwatch;
using namespace Runwatch::ClaudeAgents;
using namespace Qt::StringLiterals;

namespace {

QJsonObject text(const QString &t)
{
    return {{u"type"_s, u"text"_s}, {u"text"_s, t}};
}

QJsonObject userMessage(const QString &id, const QString &t)
{
    return {{u"id"_s, id}, {u"type"_s, u"user.message"_s}, {u"content"_s, QJsonArray{text(t)}}};
}

QJsonObject agentMessage(const QString &id, const QString &t)
{
    return {{u"id"_s, id}, {u"type"_s, u"agent.message"_s}, {u"content"_s, QJsonArray{text(t)}}};
}

QJsonObject status(const QString &id, const QString &type)
{
    return {{u"id"_s, id}, {u"type"_s, type}};
}

QJsonObject idle(const QString &id, const QString &reason, const QStringList &eventIds = {})
{
    QJsonObject stop{{u"type"_s, reason}};
    if (reason == u"requires_action"_s)
        stop.insert(u"event_ids"_s, QJsonArray::fromStringList(eventIds));
    return {{u"id"_s, id},
            {u"type"_s, u"session.status_idle"_s},
            {u"stop_reason"_s, stop},
            {u"stop_details"_s, QJsonValue::Null}};
}

QJsonObject spanEnd(const QString &id, int input, int output, bool error = false)
{
    return {{u"id"_s, id},
            {u"type"_s, u"span.model_request_end"_s},
            {u"is_error"_s, error},
            {u"model_usage"_s, QJsonObject{{u"input_tokens"_s, input}, {u"output_tokens"_s, output}}}};
}

QByteArray json(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

void live(ClaudeAgentsMapper &mapper, const QJsonObject &event, QList<RunEvent> &out)
{
    mapper.map(event.value(u"type"_s).toString().toUtf8(), json(event), out);
}

QJsonObject previewStart(const QString &messageId)
{
    return {{u"type"_s, u"event_start"_s},
            {u"event"_s, QJsonObject{{u"type"_s, u"agent.message"_s}, {u"id"_s, messageId}}}};
}

QJsonObject previewDelta(const QString &messageId, const QString &t)
{
    return {
        {u"type"_s, u"event_delta"_s},
        {u"event_id"_s, messageId},
        {u"delta"_s, QJsonObject{{u"type"_s, u"content_delta"_s}, {u"index"_s, 0}, {u"content"_s, text(t)}}}};
}

// The run after `events`, applied as the reducer applies them to an empty run.
Run runAfter(const QList<RunEvent> &events)
{
    Run run;
    for (const RunEvent &e : events)
        applyEvent(run, e, QDateTime::currentDateTimeUtc());
    return run;
}

} // namespace

class TestClaudeAgentsMapping final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Previews stream into the answer; the saved message confirms them; the idle ends the turn.
    void liveTurnWithPreviews()
    {
        ClaudeAgentsMapper mapper(u"u1"_s);
        QList<RunEvent> out = mapper.historyEvents();
        for (const QJsonObject &e :
             {userMessage(u"u1"_s, u"hi"_s), status(u"s1"_s, u"session.status_running"_s),
              previewStart(u"m1"_s), previewDelta(u"m1"_s, u"Hel"_s), previewDelta(u"m1"_s, u"lo"_s),
              agentMessage(u"m1"_s, u"Hello"_s), spanEnd(u"p1"_s, 10, 2), previewStart(u"m2"_s),
              previewDelta(u"m2"_s, u"Bye"_s), agentMessage(u"m2"_s, u"Bye"_s), spanEnd(u"p2"_s, 12, 1),
              idle(u"i1"_s, u"end_turn"_s)})
            live(mapper, e, out);
        const Run run = runAfter(out);
        QCOMPARE(run.primaryText, u"Hello\n\nBye"_s);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.rawStatus, u"end_turn"_s);
        QCOMPARE(run.usage.inputTokens, 22);
        QCOMPARE(run.usage.outputTokens, 3);
        QCOMPARE(run.token.eventId, u"i1"_s);
        QCOMPARE(run.reconciliations, 0);
        QVERIFY(mapper.turn().ended());
    }

    // A preview whose model request ended without its message leaves the answer; a saved
    // message that differs from its preview replaces it.
    void previewsTheServiceDidNotKeep()
    {
        ClaudeAgentsMapper mapper(u"u1"_s);
        QList<RunEvent> out;
        for (const QJsonObject &e :
             {userMessage(u"u1"_s, u"hi"_s), previewStart(u"m1"_s), previewDelta(u"m1"_s, u"half an ans"_s),
              spanEnd(u"p1"_s, 5, 3, true), previewStart(u"m2"_s), previewDelta(u"m2"_s, u"Draft"_s),
              agentMessage(u"m2"_s, u"Final"_s), spanEnd(u"p2"_s, 5, 1), idle(u"i1"_s, u"end_turn"_s)})
            live(mapper, e, out);
        const Run run = runAfter(out);
        QCOMPARE(run.primaryText, u"Final"_s);
        QCOMPARE(run.reconciliations, 0);
        QCOMPARE(run.status, RunStatus::Completed);
    }

    // The history is the turn as it stands, the same whatever the run had; the live stream's
    // repeats of it are dropped by id.
    void historyThenLiveEachIdOnce()
    {
        const QList<QJsonObject> log{userMessage(u"u0"_s, u"earlier"_s),
                                     agentMessage(u"m0"_s, u"old turn"_s),
                                     idle(u"i0"_s, u"end_turn"_s),
                                     userMessage(u"u1"_s, u"now"_s),
                                     status(u"s1"_s, u"session.status_running"_s),
                                     agentMessage(u"m1"_s, u"first"_s)};
        AgentSessions::SessionGate gate(&sessionEventOf, u"u1"_s);
        QList<RunEvent> out;
        // Arrived on the stream while the log was read: one repeat, one new.
        gate.frame("agent.message", json(agentMessage(u"m1"_s, u"first"_s)), out);
        gate.frame("agent.message", json(agentMessage(u"m2"_s, u"second"_s)), out);
        QVERIFY(out.isEmpty()); // held until the history is in
        QList<AgentSessions::SessionEvent> history;
        for (const QJsonObject &e : log)
            history << sessionEventOf(e, {});
        out = gate.open(history).events;
        gate.frame("session.status_idle", json(idle(u"i1"_s, u"end_turn"_s)), out);
        // A run that showed a preview's part before a restart: the history's answer replaces it.
        Run run;
        run.primaryText = u"first\n\nsec"_s;
        for (const RunEvent &e : std::as_const(out))
            applyEvent(run, e, QDateTime::currentDateTimeUtc());
        QCOMPARE(run.primaryText, u"first\n\nsecond"_s);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(gate.turn().droppedRepeats(), 1);
        QVERIFY(gate.over());
        QCOMPARE(run.token.extra.value(AgentSessions::kTurnKey).toString(), u"u1"_s);
    }

    // Attached by session id: the history's last turn is followed.
    void attachFollowsTheLastTurn()
    {
        ClaudeAgentsMapper mapper;
        for (const QJsonObject &e :
             {userMessage(u"u0"_s, u"a"_s), agentMessage(u"m0"_s, u"one"_s), idle(u"i0"_s, u"end_turn"_s),
              userMessage(u"u1"_s, u"b"_s), status(u"s1"_s, u"session.status_running"_s),
              agentMessage(u"m1"_s, u"two"_s)})
            mapper.history(e);
        const Run run = runAfter(mapper.historyEvents());
        QCOMPARE(run.primaryText, u"two"_s);
        QCOMPARE(run.status, RunStatus::InProgress);
        QCOMPARE(run.token.extra.value(AgentSessions::kTurnKey).toString(), u"u1"_s);
        QCOMPARE(mapper.turn().turnId(), u"u1"_s);
        // The turn before it, split from the log at its user message and its idle: the
        // conversation's earlier turn, with its message, its answer and its end.
        QCOMPARE(mapper.turn().prompt(), u"b"_s);
        const QList<EarlierTurn> earlier = mapper.turn().earlierTurns();
        QCOMPARE(earlier.size(), 1);
        QCOMPARE(earlier.at(0).prompt, u"a"_s);
        const Run first = runAfter(earlier.at(0).events);
        QCOMPARE(first.primaryText, u"one"_s);
        QCOMPARE(first.status, RunStatus::Completed);
        QCOMPARE(first.token.extra.value(AgentSessions::kTurnKey).toString(), u"u0"_s);
        // Following a turn by its id keeps no earlier ones: only an attach asks for them.
        ClaudeAgentsMapper byId(u"u1"_s);
        for (const QJsonObject &e : {userMessage(u"u0"_s, u"a"_s), userMessage(u"u1"_s, u"b"_s)})
            byId.history(e);
        QVERIFY(byId.turn().earlierTurns().isEmpty());
        QCOMPARE(byId.turn().prompt(), u"b"_s);
    }

    void confirmationAndCustomToolWait()
    {
        ClaudeAgentsMapper mapper(u"u1"_s);
        QList<RunEvent> out;
        const QJsonObject use{{u"id"_s, u"t1"_s},
                              {u"type"_s, u"agent.mcp_tool_use"_s},
                              {u"name"_s, u"create_issue"_s},
                              {u"mcp_server_name"_s, u"github"_s},
                              {u"input"_s, QJsonObject{{u"title"_s, u"x"_s}}},
                              {u"evaluated_permission"_s, u"ask"_s}};
        const QJsonObject custom{{u"id"_s, u"c1"_s},
                                 {u"type"_s, u"agent.custom_tool_use"_s},
                                 {u"name"_s, u"lookup"_s},
                                 {u"input"_s, QJsonObject{{u"id"_s, 7}}}};
        for (const QJsonObject &e : {userMessage(u"u1"_s, u"go"_s), use, custom,
                                     idle(u"i1"_s, u"requires_action"_s, {u"t1"_s, u"c1"_s})})
            live(mapper, e, out);
        Run run = runAfter(out);
        QCOMPARE(run.status, RunStatus::InputRequired);
        QVERIFY(run.input);
        QCOMPARE(run.input->reason, InputReason::Approval);
        QCOMPARE(run.input->toolCalls.size(), 2);
        QCOMPARE(run.input->toolCalls.at(0).serverLabel, u"github"_s);
        QVERIFY(run.input->toolCalls.at(0).approval && run.input->toolCalls.at(0).reasonOnReject);
        QVERIFY(!run.input->toolCalls.at(1).approval);
        QVERIFY(mapper.turn().waiting());

        InputAnswer answer;
        answer.toolAnswers = {{u"t1"_s, u"too risky"_s, false}, {u"c1"_s, u"42"_s, false}};
        QString why;
        const QJsonArray events = answerEvents(*run.input, answer, &why);
        QCOMPARE(events.size(), 2);
        QCOMPARE(events.at(0).toObject(), (QJsonObject{{u"type"_s, u"user.tool_confirmation"_s},
                                                       {u"tool_use_id"_s, u"t1"_s},
                                                       {u"result"_s, u"deny"_s},
                                                       {u"deny_message"_s, u"too risky"_s}}));
        QCOMPARE(events.at(1).toObject().value(u"type"_s).toString(), u"user.custom_tool_result"_s);
        QCOMPARE(events.at(1).toObject().value(u"custom_tool_use_id"_s).toString(), u"c1"_s);
        InputAnswer plain;
        plain.kind = InputAnswer::Kind::Text;
        plain.text = u"x"_s;
        QVERIFY(answerEvents(*run.input, plain, &why).isEmpty());
        QVERIFY(!why.isEmpty());

        // One answered: still waiting (the service re-emits the idle with the rest); both: running.
        QList<RunEvent> more;
        live(mapper,
             QJsonObject{{u"id"_s, u"a1"_s},
                         {u"type"_s, u"user.tool_confirmation"_s},
                         {u"tool_use_id"_s, u"t1"_s},
                         {u"result"_s, u"allow"_s}},
             more);
        QVERIFY(mapper.turn().waiting());
        live(mapper,
             QJsonObject{{u"id"_s, u"a2"_s},
                         {u"type"_s, u"user.custom_tool_result"_s},
                         {u"custom_tool_use_id"_s, u"c1"_s},
                         {u"content"_s, QJsonArray{text(u"42"_s)}}},
             more);
        QVERIFY(!mapper.turn().waiting());
        for (const RunEvent &e : std::as_const(more))
            applyEvent(run, e, QDateTime::currentDateTimeUtc());
        QCOMPARE(run.status, RunStatus::InProgress);
    }

    void failuresAndInterrupts()
    {
        {
            ClaudeAgentsMapper mapper(u"u1"_s);
            QList<RunEvent> out;
            const auto error = [](const QString &id, const QString &retry, const QString &message) {
                return QJsonObject{
                    {u"id"_s, id},
                    {u"type"_s, u"session.error"_s},
                    {u"error"_s, QJsonObject{{u"type"_s, u"model_overloaded_error"_s},
                                             {u"message"_s, message},
                                             {u"retry_status"_s, QJsonObject{{u"type"_s, retry}}}}}};
            };
            for (const QJsonObject &e :
                 {userMessage(u"u1"_s, u"go"_s), error(u"e1"_s, u"retrying"_s, u"busy"_s),
                  status(u"r1"_s, u"session.status_rescheduled"_s),
                  error(u"e2"_s, u"exhausted"_s, u"gave up"_s), idle(u"i1"_s, u"retries_exhausted"_s)})
                live(mapper, e, out);
            const Run run = runAfter(out);
            QCOMPARE(run.status, RunStatus::Failed);
            QCOMPARE(run.error.message, u"gave up"_s);
            QCOMPARE(run.error.code, u"model_overloaded_error"_s);
            QCOMPARE(run.rawStatus, u"retries_exhausted"_s);
        }
        {
            ClaudeAgentsMapper mapper(u"u1"_s);
            QList<RunEvent> out;
            for (const QJsonObject &e :
                 {userMessage(u"u1"_s, u"go"_s), previewStart(u"m1"_s), previewDelta(u"m1"_s, u"partial"_s),
                  status(u"x1"_s, u"user.interrupt"_s), spanEnd(u"p1"_s, 1, 0), idle(u"i1"_s, u"end_turn"_s)})
                live(mapper, e, out);
            const Run run = runAfter(out);
            QCOMPARE(run.status, RunStatus::Cancelled);
            QCOMPARE(run.primaryText, QString());
        }
        {
            // A stop reason newer than this table ends the turn (the SDK's endsTurn).
            ClaudeAgentsMapper mapper(u"u1"_s);
            QList<RunEvent> out;
            for (const QJsonObject &e : {userMessage(u"u1"_s, u"go"_s), idle(u"i1"_s, u"something_new"_s)})
                live(mapper, e, out);
            QCOMPARE(runAfter(out).status, RunStatus::Completed);
        }
    }

    // Bad input never crashes and never ends the turn: a note on the run.
    void malformedEvents()
    {
        ClaudeAgentsMapper mapper(u"u1"_s);
        QList<RunEvent> out;
        live(mapper, userMessage(u"u1"_s, u"go"_s), out);
        mapper.map("agent.message", "{\"id\":", out);
        mapper.map("message", "[1,2]", out);
        mapper.map("event_delta", "{\"type\":\"event_delta\",\"event_id\":\"nope\"}", out);
        mapper.map("session.status_idle", "{\"type\":\"session.status_idle\",\"stop_reason\":7}", out);
        const Run run = runAfter(out);
        QCOMPARE(run.primaryText, QString());
        qsizetype notes = 0;
        for (const SecondaryItem &item : run.secondary)
            notes += item.id.startsWith(u"malformed:"_s) ? 1 : 0;
        QCOMPARE(notes, 2);
    }

    void sessionStatuses()
    {
        QCOMPARE(sessionStatusFor(u"running"), RunStatus::InProgress);
        QCOMPARE(sessionStatusFor(u"rescheduling"), RunStatus::InProgress);
        QCOMPARE(sessionStatusFor(u"idle"), RunStatus::Completed);
        QCOMPARE(sessionStatusFor(u"terminated"), RunStatus::Failed);
        QCOMPARE(sessionStatusFor(u"whatever"), RunStatus::Unknown);
    }
};

QTEST_GUILESS_MAIN(TestClaudeAgentsMapping)
#include "tst_claude_agents_mapping.moc"
