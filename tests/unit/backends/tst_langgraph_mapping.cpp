// SPDX-License-Identifier: GPL-3.0-or-later
// The LangGraph connector's pure parts: the status table, interrupts as input requests, answers
// as resume values, and the SSE mapper over transcripts of the official Agent Server
// (tests/data/langgraph, recorded from @langchain/langgraph-api 1.5.1).
#include "backends/langgraph/langgraphmapper.h"
#include "domain/runreducer.h"
#include "net/sseparser.h"
#include "testdata.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace Runwatch;
using namespace Runwatch::LangGraph;
using namespace Qt::StringLiterals;

namespace {

QJsonObject dataObject(const QString &name)
{
    return QJsonDocument::fromJson(RunwatchTest::readData(u"langgraph/"_s + name)).object();
}

// A recorded stream through the SSE parser and the mapper, `step` bytes at a time (frames cut
// anywhere), applied to a run as the engine does.
struct Replay
{
    Run run;
    QList<RunEvent> events;
    QList<LangGraphMapper::Outcome> outcomes;
};

Replay replay(const QString &name, qsizetype step, const QString &runId = {}, Run run = {})
{
    const QByteArray sse = RunwatchTest::readData(u"langgraph/"_s + name);
    SseParser parser;
    LangGraphMapper mapper(runId);
    Replay r;
    r.run = std::move(run);
    for (qsizetype at = 0; at < sse.size(); at += step) {
        parser.feed(QByteArrayView(sse).sliced(at, std::min(step, sse.size() - at)), [&](const SseEvent &e) {
            QList<RunEvent> out;
            r.outcomes << mapper.map(e.type, e.data, e.id, out);
            for (const RunEvent &event : std::as_const(out))
                applyEvent(r.run, event, QDateTime::currentDateTimeUtc());
            r.events << out;
        });
    }
    return r;
}

const SecondaryItem *item(const Run &run, const QString &prefix)
{
    for (const SecondaryItem &i : run.secondary) {
        if (i.id.startsWith(prefix))
            return &i;
    }
    return nullptr;
}

} // namespace

class TestLangGraphMapping final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void statusTable_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<QString>("thread");
        QTest::addColumn<RunStatus>("expected");
        QTest::addRow("pending") << u"pending"_s << u"busy"_s << RunStatus::InProgress;
        QTest::addRow("running") << u"running"_s << u"busy"_s << RunStatus::InProgress;
        QTest::addRow("success idle") << u"success"_s << u"idle"_s << RunStatus::Completed;
        QTest::addRow("success interrupted") << u"success"_s << u"interrupted"_s << RunStatus::InputRequired;
        QTest::addRow("success error") << u"success"_s << u"error"_s << RunStatus::Failed;
        QTest::addRow("error") << u"error"_s << u"error"_s << RunStatus::Failed;
        QTest::addRow("interrupted = cancelled") << u"interrupted"_s << u"idle"_s << RunStatus::Cancelled;
        QTest::addRow("timeout") << u"timeout"_s << QString() << RunStatus::TimedOut;
        QTest::addRow("unknown") << u"exploded"_s << u"idle"_s << RunStatus::Unknown;
    }
    void statusTable()
    {
        QFETCH(QString, run);
        QFETCH(QString, thread);
        QFETCH(RunStatus, expected);
        QCOMPARE(runStatusFor(run, thread), expected);
    }

    // Frames cut at every size: the text, the ids and the items come out the same.
    void echoStream_data()
    {
        QTest::addColumn<qsizetype>("step");
        for (const qsizetype step : {qsizetype(1), qsizetype(7), qsizetype(100), qsizetype(1 << 20)})
            QTest::addRow("%lld bytes", static_cast<long long>(step)) << step;
    }
    void echoStream()
    {
        QFETCH(qsizetype, step);
        const Replay r = replay(u"echo-stream.sse"_s, step);
        QCOMPARE(r.run.primaryText, u"Echo: hi w1é w2日本 w3🎉 w4 w5é"_s);
        QCOMPARE(r.run.token.sequence, 8);
        QCOMPARE(r.run.token.eventId, u"8"_s);
        const SecondaryItem *custom = item(r.run, u"custom:"_s);
        QVERIFY(custom);
        QCOMPARE(custom->kind, SecondaryKind::Progress);
        QCOMPARE(custom->text, u"{\"phase\":\"drafting\"}"_s);
        const SecondaryItem *update = item(r.run, u"update:"_s);
        QVERIFY(update);
        QCOMPARE(update->title, u"respond"_s);
        QVERIFY(!r.outcomes.contains(LangGraphMapper::Outcome::Failed));
    }

    // A rejoin replays from an earlier id (or the whole stream): nothing is applied twice.
    void replayIsDropped()
    {
        Replay first = replay(u"echo-stream.sse"_s, 50);
        const Replay again = replay(u"echo-stream.sse"_s, 50, {}, first.run);
        QCOMPARE(again.run.primaryText, first.run.primaryText);
        QCOMPARE(again.run.secondary.size(), first.run.secondary.size());
    }

    void approvalInterrupt()
    {
        const Replay r = replay(u"approval-stream.sse"_s, 33);
        QCOMPARE(r.run.primaryText,
                 u"Plan: email the report to ops@example.com, then delete the draft /tmp/x."_s);
        QVERIFY(item(r.run, u"interrupt:"_s));

        for (const QString &source : {u"approval-thread.json"_s, u"approval-state.json"_s}) {
            const QJsonArray interrupts = pendingInterrupts(dataObject(source));
            QCOMPARE(interrupts.size(), 1);
            const InputRequest request = inputRequestFor(interrupts);
            QCOMPARE(request.reason, InputReason::Approval);
            QCOMPARE(request.toolCalls.size(), 2);
            QCOMPARE(request.toolCalls.at(0).name, u"send_email"_s);
            QVERIFY(request.toolCalls.at(0).approval);
            QCOMPARE(request.toolCalls.at(1).arguments, u"{\"path\":\"/tmp/x\"}"_s);
            QCOMPARE(request.prompt, u"The graph asks for approval: Send the report; Remove the draft"_s);
            QCOMPARE(request.raw.value(u"interrupt_id"_s).toString(), u"d3e4ee799238596bbc789168151db8a7"_s);

            // One decision per action request, in their order; a reason goes with a rejection.
            InputAnswer answer;
            answer.toolAnswers
                = {{request.toolCalls.at(1).id, u"not now"_s, false}, {request.toolCalls.at(0).id, {}, true}};
            QString error;
            const auto value = resumeValue(request, answer, &error);
            QVERIFY2(value, qPrintable(error));
            QCOMPARE(value->toObject(),
                     (QJsonObject{{u"decisions"_s, QJsonArray{QJsonObject{{u"type"_s, u"approve"_s}},
                                                              QJsonObject{{u"type"_s, u"reject"_s},
                                                                          {u"message"_s, u"not now"_s}}}}}));
            // Approve alone answers every action; an answer that leaves one out is refused.
            InputAnswer all;
            all.kind = InputAnswer::Kind::Approve;
            QCOMPARE(resumeValue(request, all, &error)->toObject().value(u"decisions"_s).toArray().size(), 2);
            // Reject alone with a comment: the comment is every action's message (the CLI's
            // --reject --comment).
            InputAnswer rejectAll;
            rejectAll.kind = InputAnswer::Kind::Reject;
            rejectAll.comment = u"wrong recipient"_s;
            const QJsonObject rejectOne{{u"type"_s, u"reject"_s}, {u"message"_s, u"wrong recipient"_s}};
            QCOMPARE(resumeValue(request, rejectAll, &error)->toObject(),
                     (QJsonObject{{u"decisions"_s, QJsonArray{rejectOne, rejectOne}}}));
            QVERIFY(request.toolCalls.at(0).reasonOnReject);
            // The flag survives the store (the request is saved with the run).
            QCOMPARE(InputRequest::fromJson(request.toJson()), request);
            InputAnswer partial;
            partial.toolAnswers = {{request.toolCalls.at(0).id, {}, true}};
            QVERIFY(!resumeValue(request, partial, &error));
            QVERIFY(!error.isEmpty());
        }
    }

    // review_configs: an action offers only its allowed decisions; one it does not allow is
    // refused before anything is sent (the middleware would fail the run); an action without a
    // config takes both.
    void allowedDecisions()
    {
        const QJsonObject value{
            {u"action_requests"_s,
             QJsonArray{QJsonObject{{u"name"_s, u"publish"_s}, {u"args"_s, QJsonObject{}}},
                        QJsonObject{{u"name"_s, u"archive"_s}, {u"args"_s, QJsonObject{}}},
                        QJsonObject{{u"name"_s, u"tag"_s}, {u"args"_s, QJsonObject{}}}}},
            {u"review_configs"_s,
             QJsonArray{QJsonObject{{u"action_name"_s, u"publish"_s},
                                    {u"allowed_decisions"_s, QJsonArray{u"approve"_s, u"edit"_s}}},
                        QJsonObject{{u"action_name"_s, u"archive"_s},
                                    {u"allowed_decisions"_s, QJsonArray{u"reject"_s}}}}}};
        const InputRequest request
            = inputRequestFor(QJsonArray{QJsonObject{{u"id"_s, u"i1"_s}, {u"value"_s, value}}});
        QCOMPARE(request.toolCalls.size(), 3);
        QVERIFY(request.toolCalls.at(0).approveAllowed && !request.toolCalls.at(0).rejectAllowed);
        QVERIFY(!request.toolCalls.at(1).approveAllowed && request.toolCalls.at(1).rejectAllowed);
        QVERIFY(request.toolCalls.at(2).approveAllowed && request.toolCalls.at(2).rejectAllowed);
        QCOMPARE(InputRequest::fromJson(request.toJson()), request);

        QString error;
        InputAnswer all;
        all.kind = InputAnswer::Kind::Approve;
        QVERIFY(!resumeValue(request, all, &error));
        QCOMPARE(error, u"The service does not allow approving archive."_s);
        all.kind = InputAnswer::Kind::Reject;
        QVERIFY(!resumeValue(request, all, &error));
        QCOMPARE(error, u"The service does not allow rejecting publish."_s);
        InputAnswer each;
        each.toolAnswers
            = {{u"action-1"_s, {}, true}, {u"action-2"_s, u"old"_s, false}, {u"action-3"_s, {}, false}};
        const auto resumed = resumeValue(request, each, &error);
        QVERIFY2(resumed, qPrintable(error));
        const QJsonArray decisions = resumed->toObject().value(u"decisions"_s).toArray();
        QCOMPARE(decisions.size(), 3);
        QCOMPARE(decisions.at(1).toObject(),
                 (QJsonObject{{u"type"_s, u"reject"_s}, {u"message"_s, u"old"_s}}));
    }

    // The resume run's own text follows the plan (a new run on the thread, the same local run).
    void resumeRunContinuesTheLocalRun()
    {
        Replay first = replay(u"approval-stream.sse"_s, 64);
        Run run = first.run;
        RunEvent identity = RunEvent::identity(u"thread"_s, {}, true);
        run.remoteId = run.token.remoteId = u"thread"_s;
        identity.continuation = true;
        identity.tokenExtra = {{kRunId, u"01a223f7-05d2-710b-97ae-1d71dd9ddbfe"_s}};
        applyEvent(run, RunEvent::primaryDelta(u"\n\n"_s), QDateTime::currentDateTimeUtc());
        applyEvent(run, identity, QDateTime::currentDateTimeUtc());
        QCOMPARE(run.token.sequence, -1);
        // The same continuation again (a replayed reply) changes nothing.
        run.token.sequence = 3;
        applyEvent(run, identity, QDateTime::currentDateTimeUtc());
        QCOMPARE(run.token.sequence, 3);
        run.token.sequence = -1;
        const Replay resumed
            = replay(u"approval-resume-stream.sse"_s, 64, u"01a223f7-05d2-710b-97ae-1d71dd9ddbfe"_s, run);
        QCOMPARE(resumed.run.primaryText,
                 first.run.primaryText.toString()
                     + u"\n\nsend_email: approved; delete_file: rejected (reason: not now)"_s);
        // Its items are its own, not the first run's (whose ids restart at 0).
        QVERIFY(resumed.run.secondary.size() > first.run.secondary.size());
    }

    void questionInterrupt()
    {
        const QJsonArray interrupts{QJsonObject{{u"id"_s, u"i1"_s}, {u"value"_s, u"What city?"_s}}};
        const InputRequest request = inputRequestFor(interrupts);
        QCOMPARE(request.reason, InputReason::Question);
        QCOMPARE(request.prompt, u"What city?"_s);
        QVERIFY(request.schema.isEmpty());
        InputAnswer answer;
        answer.text = u"Paris"_s;
        QString error;
        QCOMPARE(*resumeValue(request, answer, &error), QJsonValue(u"Paris"_s));
        InputAnswer raw;
        raw.kind = InputAnswer::Kind::Value;
        raw.value = QJsonObject{{u"city"_s, u"Oslo"_s}};
        QCOMPARE(*resumeValue(request, raw, &error), raw.value);
    }

    // Any other value: a question answered with JSON (its own schema, when it carries one).
    void valueInterrupt()
    {
        const QJsonObject schema{{u"type"_s, u"object"_s}};
        const InputRequest typed = inputRequestFor(
            {QJsonObject{{u"id"_s, u"i1"_s},
                         {u"value"_s, QJsonObject{{u"question"_s, u"Limits?"_s}, {u"schema"_s, schema}}}}});
        QCOMPARE(typed.prompt, u"Limits?"_s);
        QCOMPARE(typed.schema, schema);
        const InputRequest untyped = inputRequestFor({QJsonObject{{u"id"_s, u"i1"_s}, {u"value"_s, 42}}});
        QVERIFY(!untyped.schema.isEmpty());
        QVERIFY(untyped.prompt.contains(u"42"_s));
    }

    // Several interrupts pending: the answer goes to the first, keyed by its id (§7).
    void severalInterruptsKeyedById()
    {
        const QJsonObject thread{
            {u"interrupts"_s,
             QJsonObject{{u"task-a"_s, QJsonArray{QJsonObject{{u"id"_s, u"i1"_s}, {u"value"_s, u"A?"_s}}}},
                         {u"task-b"_s, QJsonArray{QJsonObject{{u"id"_s, u"i2"_s}, {u"value"_s, u"B?"_s}}}}}}};
        const QJsonArray interrupts = pendingInterrupts(thread);
        QCOMPARE(interrupts.size(), 2);
        const InputRequest request = inputRequestFor(interrupts);
        QCOMPARE(request.prompt, u"A?"_s);
        InputAnswer answer;
        answer.text = u"yes"_s;
        QString error;
        QCOMPARE(resumeValue(request, answer, &error)->toObject(), (QJsonObject{{u"i1"_s, u"yes"_s}}));
    }

    void failedGraph()
    {
        const Replay r = replay(u"fail-stream.sse"_s, 40);
        QCOMPARE(r.run.primaryText, u"Working on it, then failing"_s);
        QVERIFY(r.outcomes.contains(LangGraphMapper::Outcome::Failed));
        QCOMPARE(r.run.status, RunStatus::Failed);
        QCOMPARE(r.run.error.message, u"graph exploded on purpose"_s);
        QCOMPARE(r.run.error.code, u"Error"_s);
        // The failed thread lists its task with no interrupt: nothing to answer.
        QVERIFY(pendingInterrupts(dataObject(u"fail-thread.json"_s)).isEmpty());
        QVERIFY(pendingInterrupts(dataObject(u"fail-state.json"_s)).isEmpty());
    }

    // A malformed event is a note on the run, not the end of the stream: a rejoin would bring the
    // same event again.
    void malformedEventIsKept()
    {
        LangGraphMapper mapper(u"r1"_s);
        QList<RunEvent> out;
        QCOMPARE(mapper.map("messages", "[{\"content\":", "4", out), LangGraphMapper::Outcome::Continue);
        QCOMPARE(out.size(), 1);
        QCOMPARE(out.at(0).type, RunEvent::Type::SecondarySnapshot);
        QCOMPARE(out.at(0).sequence, 4);
        out.clear();
        QCOMPARE(mapper.map("messages", "[{\"content\":\"ok\",\"type\":\"ai\"},{}]", "5", out),
                 LangGraphMapper::Outcome::Continue);
        QCOMPARE(out.at(0).text, u"ok"_s);
        QCOMPARE(mapper.lastEventId(), u"5"_s);
        out.clear();
        // A chunk whose content is a list of blocks; a tool message; the Python server's end event.
        mapper.map("messages",
                   "[{\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"image_url\"},{\"type\":"
                   "\"text\",\"text\":\"b\"}],\"type\":\"AIMessageChunk\"},{}]",
                   "6", out);
        QCOMPARE(out.at(0).text, u"ab"_s);
        out.clear();
        mapper.map("messages",
                   "[{\"content\":\"42\",\"type\":\"tool\",\"name\":\"calc\",\"tool_call_id\":\"c1\"},{}]",
                   "7", out);
        QCOMPARE(out.at(0).kind, SecondaryKind::ToolCall);
        QCOMPARE(out.at(0).itemId, u"tool-result:c1"_s);
        out.clear();
        QCOMPARE(mapper.map("end", "", "8", out), LangGraphMapper::Outcome::End);
        out.clear();
        // The server's error about the stream itself (an unknown run): a note, not the run's failure.
        QCOMPARE(mapper.map("error", "\"Run not found\"", "", out), LangGraphMapper::Outcome::Continue);
        QCOMPARE(out.size(), 1);
        QCOMPARE(out.at(0).type, RunEvent::Type::SecondarySnapshot);
        QCOMPARE(out.at(0).text, u"Run not found"_s);
    }

    void answerFromTheState()
    {
        const QJsonObject state = dataObject(u"approval-state.json"_s);
        QCOMPARE(answerFromState(state, 1),
                 u"Plan: email the report to ops@example.com, then delete the draft /tmp/x."_s);
        QCOMPARE(answerFromState(state, 2), QString());
        // Not known: the latest turn, after the last user message.
        QCOMPARE(answerFromState(state, -1), answerFromState(state, 1));
    }
};

QTEST_GUILESS_MAIN(TestLangGraphMapping)
#include "tst_langgraph_mapping.moc"
