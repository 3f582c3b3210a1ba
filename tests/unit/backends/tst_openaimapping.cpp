// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/openai/openaimapper.h"
#include "domain/runreducer.h"
#include "net/sseparser.h"
#include "testdata.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

struct Outcome
{
    Run run;
    QList<OpenAiMapper::Outcome> outcomes;
    RunError error;
    qint64 dropped = 0;
};

// Runs raw SSE bytes through parser, mapper and reducer, `chunk` bytes at a time.
Outcome replay(const QByteArray &sse, qsizetype chunk = -1, qint64 cursor = -1, Run start = {})
{
    Outcome out;
    out.run = std::move(start);
    out.run.token.sequence = cursor;
    SseParser parser;
    OpenAiMapper mapper(true, cursor);
    const qsizetype step = chunk > 0 ? chunk : sse.size();
    for (qsizetype pos = 0; pos < sse.size(); pos += step) {
        parser.feed(QByteArrayView(sse).sliced(pos, qMin(step, sse.size() - pos)), [&](const SseEvent &e) {
            QList<RunEvent> events;
            const auto outcome = mapper.map(e.type, e.data, events);
            out.outcomes << outcome;
            for (const RunEvent &ev : std::as_const(events))
                applyEvent(out.run, ev);
            if (outcome == OpenAiMapper::Outcome::Malformed || outcome == OpenAiMapper::Outcome::StreamError)
                out.error = mapper.error();
        });
    }
    out.dropped = mapper.droppedDuplicates();
    return out;
}

} // namespace

class TestOpenAiMapping final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The reference transcript (protocol §6.1) yields the answer, the id, the model and "completed".
    void basicTranscript_data()
    {
        QTest::addColumn<int>("chunk");
        QTest::addRow("whole") << -1;
        QTest::addRow("byte by byte") << 1;
        QTest::addRow("7 bytes") << 7;
    }
    void basicTranscript()
    {
        QFETCH(int, chunk);
        const QByteArray sse = RunwatchTest::readData(u"openai/stream-basic.sse"_s);
        QVERIFY(!sse.isEmpty());
        const Outcome o = replay(sse, chunk);
        QCOMPARE(o.run.primaryText, u"Hi there!"_s);
        QCOMPARE(o.run.remoteId, u"resp_abc"_s);
        QCOMPARE(o.run.model, u"gpt-5.4"_s);
        QCOMPARE(o.run.status, RunStatus::Completed);
        QCOMPARE(o.run.rawStatus, u"completed"_s);
        QCOMPARE(o.run.token.sequence, 11);
        QVERIFY(o.run.token.streamable);
        QCOMPARE(o.run.reconciliations, 0);
        QCOMPARE(o.outcomes.last(), OpenAiMapper::Outcome::Terminal);
        QVERIFY(!o.run.error.isError());
        // response.completed's usage (the transcript's figures).
        QCOMPARE(o.run.usage, (TokenUsage{9, 3, 0}));
    }

    // `usage` of a Response object (§1.7): the three counts, anything malformed "not reported".
    void usage_data()
    {
        QTest::addColumn<QByteArray>("usage");
        QTest::addColumn<qint64>("input");
        QTest::addColumn<qint64>("output");
        QTest::addColumn<qint64>("reasoning");
        QTest::newRow("full") << QByteArray(
            R"({"input_tokens":100,"input_tokens_details":{"cached_tokens":20},
            "output_tokens":50,"output_tokens_details":{"reasoning_tokens":30},"total_tokens":150})")
                              << qint64(100) << qint64(50) << qint64(30);
        QTest::newRow("no details") << QByteArray(R"({"input_tokens":7,"output_tokens":2})") << qint64(7)
                                    << qint64(2) << qint64(-1);
        QTest::newRow("null") << QByteArray("null") << qint64(-1) << qint64(-1) << qint64(-1);
        QTest::newRow("negative") << QByteArray(R"({"input_tokens":-1,"output_tokens":4})") << qint64(-1)
                                  << qint64(4) << qint64(-1);
        QTest::newRow("wrong types") << QByteArray(R"({"input_tokens":"9","output_tokens":2.5,
            "output_tokens_details":"x"})")
                                     << qint64(-1) << qint64(-1) << qint64(-1);
        QTest::newRow("out of range") << QByteArray(R"({"input_tokens":1e300,"output_tokens":-1e300,
            "output_tokens_details":{"reasoning_tokens":1e19}})")
                                      << qint64(-1) << qint64(-1) << qint64(-1);
        QTest::newRow("array") << QByteArray("[1,2]") << qint64(-1) << qint64(-1) << qint64(-1);
    }

    void usage()
    {
        QFETCH(QByteArray, usage);
        QFETCH(qint64, input);
        QFETCH(qint64, output);
        QFETCH(qint64, reasoning);
        // Compact: a raw newline would end the SSE data line.
        const QByteArray response
            = QJsonDocument::fromJson(
                  R"({"id":"resp_u","object":"response","status":"completed","model":"gpt-5.4","output":[],"usage":)"
                  + usage + "}")
                  .toJson(QJsonDocument::Compact);
        QVERIFY(!response.isEmpty());
        const TokenUsage expected{input, output, reasoning};
        // Polled.
        Run polled;
        for (const RunEvent &e : OpenAi::mapResponseObject(QJsonDocument::fromJson(response).object()))
            applyEvent(polled, e);
        QCOMPARE(polled.status, RunStatus::Completed);
        QCOMPARE(polled.usage, expected);
        // Streamed on every terminal event that carries the response.
        for (const char *type : {"response.completed", "response.incomplete", "response.failed"}) {
            const QByteArray sse = "event: " + QByteArray(type) + "\ndata: {\"type\":\"" + type
                                   + "\",\"sequence_number\":3,\"response\":" + response + "}\n\n";
            const Outcome o = replay(sse);
            QVERIFY2(o.run.usage == expected, type);
        }
    }

    // The same response's usage from the stream and again from a poll counts once.
    void usageNotDoubleCounted()
    {
        const Outcome o = replay(RunwatchTest::readData(u"openai/stream-basic.sse"_s));
        Run run = o.run;
        const QJsonObject polled = QJsonDocument::fromJson(R"({"id":"resp_abc","status":"completed",
            "output":[{"type":"message","content":[{"type":"output_text","text":"Hi there!"}]}],
            "usage":{"input_tokens":9,"output_tokens":3,"output_tokens_details":{"reasoning_tokens":0}}})")
                                       .object();
        for (int i = 0; i < 2; ++i) {
            for (const RunEvent &e : OpenAi::mapResponseObject(polled))
                applyEvent(run, e);
        }
        QCOMPARE(run.usage, (TokenUsage{9, 3, 0}));
    }

    // A run continued through previous_response_id is one run: its usage is the chain's sum, also
    // after a restart mid-chain (the base travels in the stored token).
    void usageSumsOverChain()
    {
        Run run;
        const auto apply = [&run](const char *json) {
            for (const RunEvent &e : OpenAi::mapResponseObject(QJsonDocument::fromJson(json).object()))
                applyEvent(run, e);
        };
        apply(R"({"id":"resp_1","status":"completed","output":[{"type":"function_call","call_id":"c1",
            "name":"f","arguments":"{}"}],"usage":{"input_tokens":100,"output_tokens":20,
            "output_tokens_details":{"reasoning_tokens":5}}})");
        QCOMPARE(run.status, RunStatus::InputRequired);
        QCOMPARE(run.usage, (TokenUsage{100, 20, 5}));
        RunEvent next = RunEvent::identity(u"resp_2"_s, {}, false);
        next.continuation = true;
        applyEvent(run, next);
        QCOMPARE(run.token.usageBase, (TokenUsage{100, 20, 5}));
        QCOMPARE(run.usage, (TokenUsage{100, 20, 5})); // nothing new reported yet

        // Restart: only the stored token and usage survive.
        Run restored;
        restored.remoteId = run.remoteId;
        restored.usage = run.usage;
        restored.status = run.status;
        restored.token = ContinuationToken::fromJson(run.token.toJson());
        run = restored;
        apply(R"({"id":"resp_2","status":"in_progress","output":[],"usage":null})");
        QCOMPARE(run.usage, (TokenUsage{100, 20, 5}));
        apply(R"({"id":"resp_2","status":"completed","output":[{"type":"message","content":[
            {"type":"output_text","text":"done"}]}],"usage":{"input_tokens":130,"output_tokens":7}})");
        apply(R"({"id":"resp_2","status":"completed","output":[{"type":"message","content":[
            {"type":"output_text","text":"done"}]}],"usage":{"input_tokens":130,"output_tokens":7}})");
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.usage, (TokenUsage{230, 27, 5}));
    }

    // Resuming with starting_after=6 may replay overlap: nothing is applied twice.
    void replayOverlapDropped()
    {
        const QByteArray sse = RunwatchTest::readData(u"openai/stream-basic.sse"_s);
        Run partial;
        partial.primaryText = u"Hi there"_s; // deltas 5 and 6 already applied
        const Outcome o = replay(sse, -1, 6, partial);
        QCOMPARE(o.run.primaryText, u"Hi there!"_s);
        QCOMPARE(o.dropped, 7); // events 0…6
        QCOMPARE(o.run.reconciliations, 0);
    }

    // A lost delta shows up as a reconciliation against the terminal snapshot.
    void lostDeltaIsReconciled()
    {
        QByteArray sse = RunwatchTest::readData(u"openai/stream-basic.sse"_s);
        const qsizetype at = sse.indexOf("\"sequence_number\":6");
        const qsizetype from = sse.lastIndexOf("event:", at);
        const qsizetype to = sse.indexOf("\n\n", at) + 2;
        sse.remove(from, to - from);
        const Outcome o = replay(sse);
        QCOMPARE(o.run.primaryText, u"Hi there!"_s);
        QCOMPARE(o.run.reconciliations, 1);
    }

    void failedTail()
    {
        const Outcome o = replay(RunwatchTest::readData(u"openai/stream-failed-tail.sse"_s));
        QCOMPARE(o.run.status, RunStatus::Failed);
        QCOMPARE(o.run.error.kind, ErrorKind::Run);
        QCOMPARE(o.run.error.code, u"server_error"_s);
        QCOMPARE(o.run.error.message, u"The model failed to generate a response."_s);
    }

    // Real servers nest the error payload; the schema has it flat. Both are understood.
    void errorEventShapes()
    {
        const Outcome nested = replay(RunwatchTest::readData(u"openai/stream-error-nested.sse"_s));
        QCOMPARE(nested.outcomes.last(), OpenAiMapper::Outcome::StreamError);
        QCOMPARE(nested.error.code, u"rate_limit_exceeded"_s);
        QCOMPARE(nested.error.message, u"The model is currently over capacity."_s);
        const Outcome flat = replay(RunwatchTest::readData(u"openai/error-flat.sse"_s));
        QCOMPARE(flat.error.code, u"ERR_SOMETHING"_s);
        QCOMPARE(flat.error.message, u"Something went wrong"_s);
    }

    // A malformed event is a protocol error that names the position; earlier text is kept.
    void malformedKeepsText()
    {
        const QByteArray sse = RunwatchTest::readData(u"openai/malformed.sse"_s);
        const Outcome o = replay(sse);
        QCOMPARE(o.outcomes.last(), OpenAiMapper::Outcome::Malformed);
        QCOMPARE(o.run.primaryText, u"kept"_s);
        QCOMPARE(o.error.kind, ErrorKind::Protocol);
        QVERIFY2(o.error.message.contains(u"after sequence 3"_s), qPrintable(o.error.message));
    }

    void invalidUtf8InDeltaIsMalformed()
    {
        const QByteArray sse = RunwatchTest::readData(u"openai/invalid-utf8.sse"_s);
        const Outcome o = replay(sse);
        QCOMPARE(o.outcomes.last(), OpenAiMapper::Outcome::Malformed);
    }

    // Keep-alives, unknown types, obfuscation padding and [DONE] are tolerated.
    void toleratesUnknowns()
    {
        const QByteArray sse = RunwatchTest::readData(u"openai/unknowns.sse"_s);
        const Outcome o = replay(sse);
        QCOMPARE(o.run.primaryText, u"x"_s);
        QCOMPARE(o.run.token.sequence, 2);
        for (auto out : o.outcomes)
            QCOMPARE(out, OpenAiMapper::Outcome::Continue);
    }

    // Reasoning summaries and tool calls are secondary output, never mixed into the answer.
    void reasoningAndToolsAreSecondary()
    {
        const QByteArray sse = RunwatchTest::readData(u"openai/reasoning-tools.sse"_s);
        const Outcome o = replay(sse);
        QVERIFY(o.run.primaryText.isEmpty());
        QStringList texts;
        for (const SecondaryItem &item : o.run.secondary) {
            if (item.kind != SecondaryKind::StatusChange)
                texts << secondaryKindName(item.kind) + u':' + item.text;
        }
        QVERIFY2(texts.contains(u"reasoning:Plan it"_s), qPrintable(texts.join(u'|')));
        QVERIFY2(texts.contains(u"tool_call:get_weather({\"location\":\"Paris\"})"_s),
                 qPrintable(texts.join(u'|')));
        QVERIFY2(texts.contains(u"progress:searching"_s), qPrintable(texts.join(u'|')));
    }

    // Protocol §1.8: a completed response whose output ends with function calls and MCP approval
    // requests waits for the operator, one ToolCallRequest per call; the answer is one input item
    // per call. Calls followed by a message need nothing.
    void humanInTheLoop()
    {
        const QJsonObject message{{u"type"_s, u"message"_s},
                                  {u"id"_s, u"msg_1"_s},
                                  {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"output_text"_s},
                                                                        {u"text"_s, u"Let me check."_s}}}}};
        const QJsonObject call{{u"type"_s, u"function_call"_s},      {u"id"_s, u"fc_1"_s},
                               {u"call_id"_s, u"call_a"_s},          {u"name"_s, u"lookup"_s},
                               {u"arguments"_s, u"{\"q\":\"x\"}"_s}, {u"status"_s, u"completed"_s}};
        const QJsonObject approval{{u"type"_s, u"mcp_approval_request"_s},
                                   {u"id"_s, u"mcpr_1"_s},
                                   {u"name"_s, u"search"_s},
                                   {u"server_label"_s, u"docs"_s},
                                   {u"arguments"_s, u"{}"_s}};
        const QJsonObject response{{u"id"_s, u"resp_1"_s},
                                   {u"model"_s, u"m"_s},
                                   {u"status"_s, u"completed"_s},
                                   {u"output"_s, QJsonArray{message, call, approval}}};
        const std::optional<InputRequest> input = OpenAi::inputRequestOf(response);
        QVERIFY(input);
        QCOMPARE(input->reason, InputReason::ToolOutput);
        QCOMPARE(input->toolCalls.size(), 2);
        QCOMPARE(input->toolCalls.at(0).id, u"call_a"_s);
        QCOMPARE(input->toolCalls.at(0).name, u"lookup"_s);
        QCOMPARE(input->toolCalls.at(0).arguments, u"{\"q\":\"x\"}"_s);
        QVERIFY(!input->toolCalls.at(0).approval);
        QCOMPARE(input->toolCalls.at(1).id, u"mcpr_1"_s);
        QCOMPARE(input->toolCalls.at(1).serverLabel, u"docs"_s);
        QVERIFY(input->toolCalls.at(1).approval);

        // The run: the text, each call as `name(args)`, then input required (not completed).
        Run run;
        for (const RunEvent &e : OpenAi::mapResponseObject(response))
            applyEvent(run, e);
        QCOMPARE(run.status, RunStatus::InputRequired);
        QCOMPARE(run.rawStatus, u"completed"_s);
        QCOMPARE(run.primaryText, u"Let me check."_s);
        QVERIFY(run.input);
        QStringList calls;
        for (const SecondaryItem &item : run.secondary) {
            if (item.kind == SecondaryKind::ToolCall)
                calls << item.text;
        }
        QCOMPARE(calls, (QStringList{u"lookup({\"q\":\"x\"})"_s, u"search({})"_s}));

        // Text alone does not fit a mixed request; answers by id do, in one array.
        QString why;
        InputAnswer text;
        text.text = u"y"_s;
        QVERIFY(OpenAi::answerItems(*input, text, &why).isEmpty());
        QVERIFY(!why.isEmpty());
        InputAnswer both;
        both.toolAnswers = {{u"call_a"_s, u"42"_s, false}, {u"mcpr_1"_s, {}, true}};
        const QJsonArray items = OpenAi::answerItems(*input, both, &why);
        QCOMPARE(items.size(), 2);
        QCOMPARE(items.at(0).toObject(), (QJsonObject{{u"type"_s, u"function_call_output"_s},
                                                      {u"call_id"_s, u"call_a"_s},
                                                      {u"output"_s, u"42"_s}}));
        QCOMPARE(items.at(1).toObject(), (QJsonObject{{u"type"_s, u"mcp_approval_response"_s},
                                                      {u"approval_request_id"_s, u"mcpr_1"_s},
                                                      {u"approve"_s, true}}));
        QVERIFY(input->toolCalls.at(1).reasonOnReject);
        QVERIFY(!input->toolCalls.at(0).reasonOnReject);
        // A rejected approval carries its reason; an approval never does.
        InputAnswer rejected;
        rejected.toolAnswers = {{u"call_a"_s, u"42"_s, false}, {u"mcpr_1"_s, u"too broad"_s, false}};
        QCOMPARE(OpenAi::answerItems(*input, rejected, &why).at(1).toObject(),
                 (QJsonObject{{u"type"_s, u"mcp_approval_response"_s},
                              {u"approval_request_id"_s, u"mcpr_1"_s},
                              {u"approve"_s, false},
                              {u"reason"_s, u"too broad"_s}}));
        both.toolAnswers[1].output = u"ignored"_s;
        QVERIFY(!OpenAi::answerItems(*input, both, &why).at(1).toObject().contains(u"reason"_s));
        InputAnswer partial;
        partial.toolAnswers = {{u"call_a"_s, u"42"_s, false}};
        QVERIFY(OpenAi::answerItems(*input, partial, &why).isEmpty());
        QVERIFY2(why.contains(u"mcpr_1"_s), qPrintable(why));

        // A message after the calls: the model already went on; in progress: not yet.
        QJsonObject answered = response;
        QJsonArray output = answered.value(u"output"_s).toArray();
        output.append(QJsonObject{{u"type"_s, u"message"_s}, {u"id"_s, u"msg_2"_s}});
        answered.insert(u"output"_s, output);
        QVERIFY(!OpenAi::inputRequestOf(answered));
        QJsonObject running = response;
        running.insert(u"status"_s, u"in_progress"_s);
        QVERIFY(!OpenAi::inputRequestOf(running));
    }

    // Response objects (JSON GET, cancel replies) from tests/data/openai/response-objects.json.
    void responseObjectMapping()
    {
        const QJsonArray cases
            = QJsonDocument::fromJson(RunwatchTest::readData(u"openai/response-objects.json"_s)).array();
        QVERIFY(cases.size() >= 5);
        for (const QJsonValue &v : cases) {
            const QJsonObject c = v.toObject();
            const QString name = c.value(u"name"_s).toString();
            Run run;
            for (const RunEvent &e : OpenAi::mapResponseObject(c.value(u"response"_s).toObject()))
                applyEvent(run, e);
            QVERIFY2(statusName(run.status) == c.value(u"status"_s).toString(), qPrintable(name));
            QVERIFY2(run.primaryText == c.value(u"text"_s).toString(), qPrintable(name));
            QVERIFY2(!run.rawStatus.isEmpty(), qPrintable(name));
            if (c.contains(u"error_code"_s))
                QVERIFY2(run.error.code == c.value(u"error_code"_s).toString(), qPrintable(name));
        }
    }
};

QTEST_GUILESS_MAIN(TestOpenAiMapping)
#include "tst_openaimapping.moc"
