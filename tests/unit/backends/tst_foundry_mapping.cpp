// SPDX-License-Identifier: GPL-3.0-or-later
// The Foundry connector's mapping (core/backends/foundry/foundrymapper.*): statuses, run objects,
// required_action → input requests, run steps, message text, submit bodies, SSE dispatch by event
// name, from the shapes of docs/protocols/openai-responses-and-foundry.md §5.
#include "backends/foundry/foundrymapper.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

QJsonObject parse(const char *json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}

const char *kRequiresAction
    = R"({"id":"run_1","object":"thread.run","thread_id":"thread_1","status":"requires_action",
  "model":"gpt-4o","expires_at":1700000600,
  "required_action":{"type":"submit_tool_outputs","submit_tool_outputs":{"tool_calls":[
    {"id":"call_abc123","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Seattle\"}"}},
    {"id":"call_def456","type":"function","function":{"name":"get_time","arguments":"{}"}}]}}})";

const char *kApproval
    = R"({"id":"run_2","thread_id":"thread_2","status":"requires_action","expires_at":1700000600,
  "required_action":{"type":"submit_tool_approval","submit_tool_approval":{"tool_calls":[
    {"id":"call_123","type":"mcp","arguments":"{\"q\":1}","name":"search","server_label":"docs"}]}}})";

const char *kToolStep = R"({"id":"step_1","status":"completed",
  "step_details":{"type":"tool_calls","tool_calls":[
    {"id":"call_1","type":"function","function":{"name":"f","arguments":"{}","output":"done"}},
    {"id":"call_2","type":"code_interpreter","code_interpreter":{"input":"print 1","outputs":[{"type":"logs","logs":"1"}]}},
    {"id":"call_3","type":"file_search","file_search":{"ranking_options":{}}},
    {"id":"call_4","type":"mcp","name":"search","server_label":"docs","arguments":"{}"}]}})";

// Cut in the middle, as a dropped connection leaves it.
const char *kTruncatedDelta = "{\"id\":\"msg_1\",\"delta\":{\"con";

template<typename Pred>
const RunEvent *find(const QList<RunEvent> &events, Pred pred)
{
    for (const RunEvent &e : events) {
        if (pred(e))
            return &e;
    }
    return nullptr;
}

const RunEvent *ofType(const QList<RunEvent> &events, RunEvent::Type type)
{
    return find(events, [type](const RunEvent &e) { return e.type == type; });
}

} // namespace

class TestFoundryMapping final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void statuses_data()
    {
        QTest::addColumn<QString>("wire");
        QTest::addColumn<RunStatus>("status");
        QTest::newRow("queued") << u"queued"_s << RunStatus::Queued;
        QTest::newRow("in_progress") << u"in_progress"_s << RunStatus::InProgress;
        QTest::newRow("requires_action") << u"requires_action"_s << RunStatus::InputRequired;
        QTest::newRow("cancelling") << u"cancelling"_s << RunStatus::Cancelling;
        QTest::newRow("cancelled") << u"cancelled"_s << RunStatus::Cancelled;
        QTest::newRow("failed") << u"failed"_s << RunStatus::Failed;
        QTest::newRow("completed") << u"completed"_s << RunStatus::Completed;
        QTest::newRow("expired") << u"expired"_s << RunStatus::Expired;
        QTest::newRow("incomplete") << u"incomplete"_s << RunStatus::Incomplete;
        QTest::newRow("unknown") << u"paused_by_admin"_s << RunStatus::Unknown;
    }
    void statuses()
    {
        QFETCH(QString, wire);
        QFETCH(RunStatus, status);
        QCOMPARE(Foundry::mapStatus(wire), status);
    }

    void toolOutputsRequest()
    {
        const QList<RunEvent> events = Foundry::mapRunObject(parse(kRequiresAction));
        const RunEvent *identity = ofType(events, RunEvent::Type::Identity);
        QVERIFY(identity);
        QCOMPARE(identity->remoteId, u"run_1"_s);
        QCOMPARE(identity->model, u"gpt-4o"_s);
        QVERIFY(!identity->streamable);
        QCOMPARE(identity->tokenExtra.value(u"thread_id"_s).toString(), u"thread_1"_s);
        const RunEvent *input = ofType(events, RunEvent::Type::InputRequired);
        QVERIFY(input && input->input);
        QCOMPARE(input->input->reason, InputReason::ToolOutput);
        QCOMPARE(input->input->toolCalls.size(), 2);
        QCOMPARE(input->input->toolCalls.at(0).id, u"call_abc123"_s);
        QCOMPARE(input->input->toolCalls.at(0).name, u"get_weather"_s);
        QCOMPARE(input->input->toolCalls.at(0).arguments, u"{\"location\":\"Seattle\"}"_s);
        QCOMPARE(input->input->deadline.toSecsSinceEpoch(), 1700000600);
        QVERIFY(input->input->prompt.contains(u"get_time"_s));
        // The request survives the store (toJson/fromJson).
        QCOMPARE(InputRequest::fromJson(input->input->toJson()), *input->input);
        QCOMPARE(ofType(events, RunEvent::Type::Status)->status, RunStatus::InputRequired);
    }

    void approvalRequest()
    {
        const QList<RunEvent> events = Foundry::mapRunObject(parse(kApproval));
        const RunEvent *input = ofType(events, RunEvent::Type::InputRequired);
        QVERIFY(input && input->input);
        QCOMPARE(input->input->reason, InputReason::Approval);
        QCOMPARE(input->input->toolCalls.size(), 1);
        QVERIFY(input->input->toolCalls.first().approval);
        QCOMPARE(input->input->toolCalls.first().serverLabel, u"docs"_s);
        QCOMPARE(input->input->toolCalls.first().name, u"search"_s);
    }

    void unknownActionIsAnError()
    {
        const QList<RunEvent> events = Foundry::mapRunObject(
            parse(R"({"id":"r","status":"requires_action","required_action":{"type":"submit_magic"}})"));
        QVERIFY(!ofType(events, RunEvent::Type::InputRequired));
        QCOMPARE(ofType(events, RunEvent::Type::Error)->error.code, u"unknown_action"_s);
    }

    void terminalErrors()
    {
        const QList<RunEvent> failed = Foundry::mapRunObject(parse(
            R"({"id":"r","status":"failed","last_error":{"code":"rate_limit_exceeded","message":"Slow down."}})"));
        const RunEvent *error = ofType(failed, RunEvent::Type::Error);
        QCOMPARE(error->error.kind, ErrorKind::Run);
        QCOMPARE(error->error.code, u"rate_limit_exceeded"_s);
        QCOMPARE(error->error.message, u"Slow down."_s);
        const QList<RunEvent> silent
            = Foundry::mapRunObject(parse(R"({"id":"r","status":"failed","last_error":null})"));
        QVERIFY(!ofType(silent, RunEvent::Type::Error)->error.message.isEmpty());
        const QList<RunEvent> incomplete = Foundry::mapRunObject(
            parse(R"({"id":"r","status":"incomplete","incomplete_details":{"reason":"max_prompt_tokens"}})"));
        QCOMPARE(ofType(incomplete, RunEvent::Type::Error)->error.code, u"max_prompt_tokens"_s);
        const QList<RunEvent> expired = Foundry::mapRunObject(parse(R"({"id":"r","status":"expired"})"));
        QCOMPARE(ofType(expired, RunEvent::Type::Error)->error.code, u"expired"_s);
        QCOMPARE(ofType(expired, RunEvent::Type::Status)->status, RunStatus::Expired);
        QVERIFY(!ofType(Foundry::mapRunObject(parse(R"({"id":"r","status":"completed"})")),
                        RunEvent::Type::Error));
    }

    void runSteps()
    {
        const QList<RunEvent> events = Foundry::mapRunStep(parse(kToolStep));
        QCOMPARE(events.size(), 4);
        for (const RunEvent &e : events) {
            QCOMPARE(e.type, RunEvent::Type::SecondarySnapshot);
            QCOMPARE(e.kind, SecondaryKind::ToolCall);
        }
        QCOMPARE(events.at(0).title, u"f"_s);
        QVERIFY(events.at(0).text.contains(u"done"_s));
        QCOMPARE(events.at(1).title, u"code interpreter"_s);
        QVERIFY(events.at(1).text.contains(u"print 1"_s));
        QCOMPARE(events.at(2).title, u"file_search"_s);
        QCOMPARE(events.at(3).title, u"docs: search"_s);
        QVERIFY(Foundry::mapRunStep(parse(R"({"step_details":{"type":"message_creation"}})")).isEmpty());
    }

    void assistantText()
    {
        const QJsonArray messages = QJsonDocument::fromJson(R"([
          {"role":"user","content":[{"type":"text","text":{"value":"question"}}]},
          {"role":"assistant","content":[{"type":"text","text":{"value":"Hello "}},
                                         {"type":"image_file","image_file":{"file_id":"f"}},
                                         {"type":"text","text":{"value":"world"}}]},
          {"role":"assistant","content":[{"type":"text","text":{"value":"!"}}]}])")
                                        .array();
        QCOMPARE(Foundry::assistantText(messages), u"Hello world!"_s);
    }

    void submitBodies()
    {
        const InputRequest outputs = *Foundry::inputRequestOf(parse(kRequiresAction));
        QString why;
        InputAnswer text;
        text.text = u"x"_s;
        QVERIFY(Foundry::submitBody(outputs, text, &why).isEmpty());
        QVERIFY(why.contains(u"2 tool calls"_s));
        InputAnswer both;
        both.toolAnswers = {{u"call_def456"_s, u"9:00"_s, false}, {u"call_abc123"_s, u"12C"_s, false}};
        const QJsonObject body = Foundry::submitBody(outputs, both, &why);
        const QJsonArray entries = body.value(u"tool_outputs"_s).toArray();
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries.at(0).toObject().value(u"tool_call_id"_s).toString(), u"call_def456"_s);
        QCOMPARE(entries.at(0).toObject().value(u"output"_s).toString(), u"9:00"_s);
        InputAnswer partial;
        partial.toolAnswers = {{u"call_abc123"_s, u"12C"_s, false}};
        QVERIFY(Foundry::submitBody(outputs, partial, &why).isEmpty());
        QVERIFY(why.contains(u"call_def456"_s));
        InputAnswer unknown;
        unknown.toolAnswers = {{u"call_nope"_s, u"1"_s, false}};
        QVERIFY(Foundry::submitBody(outputs, unknown, &why).isEmpty());
        InputAnswer twice;
        twice.toolAnswers = {{u"call_abc123"_s, u"1"_s, false}, {u"call_abc123"_s, u"2"_s, false}};
        QVERIFY(Foundry::submitBody(outputs, twice, &why).isEmpty());

        const InputRequest approvals = *Foundry::inputRequestOf(parse(kApproval));
        InputAnswer reject;
        reject.kind = InputAnswer::Kind::Reject;
        const QJsonArray rejected
            = Foundry::submitBody(approvals, reject, &why).value(u"tool_approvals"_s).toArray();
        QCOMPARE(rejected.size(), 1);
        QCOMPARE(rejected.at(0).toObject().value(u"approve"_s), QJsonValue(false));
        QVERIFY(Foundry::submitBody(approvals, text, &why).isEmpty());
        QVERIFY(Foundry::submitBody(outputs, reject, &why).isEmpty());
    }

    // The stream is dispatched on the SSE event name; the JSON has no type field.
    void streamDispatch()
    {
        FoundryMapper mapper;
        QList<RunEvent> out;
        QCOMPARE(mapper.map("thread.created", R"({"id":"thread_9","object":"thread"})", out),
                 FoundryMapper::Outcome::Continue);
        QCOMPARE(mapper.threadId(), u"thread_9"_s);
        QCOMPARE(mapper.map("thread.run.created",
                            R"({"id":"run_9","thread_id":"thread_9","status":"queued"})", out),
                 FoundryMapper::Outcome::Continue);
        QCOMPARE(mapper.runId(), u"run_9"_s);
        QCOMPARE(mapper.map("thread.message.delta",
                            R"({"id":"msg_1","object":"thread.message.delta","delta":{"content":[
                                {"index":0,"type":"text","text":{"value":"Hel","annotations":[]}},
                                {"index":1,"type":"text","text":{"value":"lo"}}]}})",
                            out),
                 FoundryMapper::Outcome::Continue);
        QCOMPARE(mapper.map("thread.run.step.delta", R"({"id":"step_1","delta":{}})", out),
                 FoundryMapper::Outcome::Continue);
        QCOMPARE(mapper.map("thread.some.future.event", R"({})", out), FoundryMapper::Outcome::Continue);
        QCOMPARE(mapper.map("thread.run.requires_action", kRequiresAction, out),
                 FoundryMapper::Outcome::NeedsInput);
        QCOMPARE(mapper.map("thread.run.completed",
                            R"({"id":"run_9","thread_id":"thread_9","status":"completed"})", out),
                 FoundryMapper::Outcome::Terminal);
        QCOMPARE(mapper.map("done", "[DONE]", out), FoundryMapper::Outcome::Done);
        QString text;
        for (const RunEvent &e : out) {
            if (e.type == RunEvent::Type::PrimaryDelta)
                text += e.text;
        }
        QCOMPARE(text, u"Hello"_s);
        QCOMPARE(mapper.deltaCount(), 2);
    }

    // Run usage (reference §5: prompt_tokens, completion_tokens; null until terminal) on the status
    // event of a polled run and of every thread.run.* event.
    void usage_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<qint64>("input");
        QTest::addColumn<qint64>("output");
        QTest::addColumn<bool>("reported");
        const QByteArray head = R"({"id":"run_1","thread_id":"t","status":"completed","usage":)";
        QTest::newRow("terminal")
            << head + R"({"prompt_tokens":120,"completion_tokens":45,"total_tokens":165}})" << qint64(120)
            << qint64(45) << true;
        QTest::newRow("null") << head + "null}" << qint64(-1) << qint64(-1) << false;
        QTest::newRow("missing") << QByteArray(R"({"id":"run_1","status":"completed"})") << qint64(-1)
                                 << qint64(-1) << false;
        QTest::newRow("negative") << head + R"({"prompt_tokens":-5,"completion_tokens":7}})" << qint64(-1)
                                  << qint64(7) << true;
        QTest::newRow("strings") << head + R"({"prompt_tokens":"12","completion_tokens":1.5}})" << qint64(-1)
                                 << qint64(-1) << false;
        QTest::newRow("huge") << head + R"({"prompt_tokens":1e300,"completion_tokens":[]}})" << qint64(-1)
                              << qint64(-1) << false;
        QTest::newRow("not an object") << head + "42}" << qint64(-1) << qint64(-1) << false;
    }

    void usage()
    {
        QFETCH(QByteArray, json);
        QFETCH(qint64, input);
        QFETCH(qint64, output);
        QFETCH(bool, reported);
        const QJsonObject run = QJsonDocument::fromJson(json).object();
        QVERIFY(!run.isEmpty());
        const QList<RunEvent> events = Foundry::mapRunObject(run);
        const RunEvent *status = ofType(events, RunEvent::Type::Status);
        QVERIFY(status);
        QCOMPARE(status->usage.has_value(), reported);
        if (reported) {
            QCOMPARE(status->usage->inputTokens, input);
            QCOMPARE(status->usage->outputTokens, output);
            QCOMPARE(status->usage->reasoningTokens, qint64(-1)); // Foundry reports none
        }
        // The same object as a stream event carries the same usage.
        FoundryMapper mapper;
        QList<RunEvent> out;
        QCOMPARE(mapper.map("thread.run.completed", json, out), FoundryMapper::Outcome::Terminal);
        const RunEvent *streamed = ofType(out, RunEvent::Type::Status);
        QVERIFY(streamed);
        QCOMPARE(streamed->usage, status->usage);
    }

    void usageOnRequiresAction()
    {
        QJsonObject run = parse(kRequiresAction);
        run.insert(u"usage"_s, QJsonObject{{u"prompt_tokens"_s, 10}, {u"completion_tokens"_s, 3}});
        const QList<RunEvent> events = Foundry::mapRunObject(run);
        const RunEvent *status = ofType(events, RunEvent::Type::Status);
        QVERIFY(status && status->usage);
        QCOMPARE(status->usage->inputTokens, 10);
        QCOMPARE(status->usage->outputTokens, 3);
    }

    // A paged list is read up to its limits: what fits is kept in order, and a list that goes on
    // past them says so (a limit reached exactly on the last page cuts nothing).
    void listPagesBounded()
    {
        const auto page = [](int from, int count) {
            QJsonArray items;
            for (int i = from; i < from + count; ++i)
                items << QJsonObject{{u"id"_s, u"msg_%1"_s.arg(i)}};
            return items;
        };
        Foundry::ListPages::Limits limits;
        limits.maxItems = 250;
        limits.maxBytes = 1000;
        limits.maxPages = 5;

        Foundry::ListPages whole(limits);
        QVERIFY(whole.add(page(0, 100), 100, true));
        QVERIFY(whole.add(page(100, 100), 100, true));
        QVERIFY(whole.add(page(200, 40), 100, false));
        QCOMPARE(whole.items().size(), 240);
        QVERIFY(!whole.truncated());
        QVERIFY(!whole.error().isError());

        // Items: the page that crosses the limit gives what fits.
        Foundry::ListPages items(limits);
        QVERIFY(items.add(page(0, 100), 100, true));
        QVERIFY(items.add(page(100, 100), 100, true));
        QVERIFY(!items.add(page(200, 100), 100, true));
        QCOMPARE(items.items().size(), 250);
        for (int i = 0; i < 250; ++i)
            QCOMPARE(items.items().at(i).toObject().value(u"id"_s).toString(), u"msg_%1"_s.arg(i));
        QVERIFY(items.truncated());
        const RunError error = items.error();
        QCOMPARE(error.kind, ErrorKind::Protocol);
        QCOMPARE(error.code, u"list_too_long"_s);
        QVERIFY(!error.retryable);
        QVERIFY2(error.message.contains(u"250"_s), qPrintable(error.message));

        // Exactly at the limit with nothing after it: whole.
        Foundry::ListPages exact(limits);
        QVERIFY(exact.add(page(0, 150), 100, true));
        QVERIFY(!exact.add(page(150, 100), 100, false));
        QCOMPARE(exact.items().size(), 250);
        QVERIFY(!exact.truncated());

        // Bytes: the page that crosses the limit is kept, no further one is read.
        Foundry::ListPages bytes(limits);
        QVERIFY(bytes.add(page(0, 10), 600, true));
        QVERIFY(!bytes.add(page(10, 10), 600, true));
        QCOMPARE(bytes.items().size(), 20);
        QVERIFY(bytes.truncated());

        // Pages: a cursor that moves on one item at a time.
        Foundry::ListPages pages(limits);
        for (int i = 0; i < 4; ++i)
            QVERIFY(pages.add(page(i, 1), 10, true));
        QVERIFY(!pages.add(page(4, 1), 10, true));
        QCOMPARE(pages.items().size(), 5);
        QVERIFY(pages.truncated());
        QCOMPARE(pages.error().code, u"list_too_long"_s);
    }

    void streamErrors()
    {
        FoundryMapper mapper;
        QList<RunEvent> out;
        QCOMPARE(mapper.map("error", R"({"error":{"code":"server_error","message":"boom"}})", out),
                 FoundryMapper::Outcome::StreamError);
        QCOMPARE(mapper.error().message, u"boom"_s);
        QCOMPARE(mapper.map("thread.message.delta", kTruncatedDelta, out), FoundryMapper::Outcome::Malformed);
        QCOMPARE(mapper.error().kind, ErrorKind::Protocol);
        QCOMPARE(mapper.map("thread.run.completed", R"({"object":"thread.run"})", out),
                 FoundryMapper::Outcome::Malformed);
        QCOMPARE(mapper.map("thread.run.completed", R"([1,2])", out), FoundryMapper::Outcome::Malformed);
        QVERIFY(out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestFoundryMapping)
#include "tst_foundry_mapping.moc"
