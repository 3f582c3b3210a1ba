// SPDX-License-Identifier: GPL-3.0-or-later
// The Gemini Interactions mapping (core/backends/gemini): the status table, the interaction
// resource, the SSE mapper over transcripts written from the protocol reference's shapes
// (tests/data/gemini, not recorded), resume after a cut, function calls and their results.
// Events are written with single quotes (json()), not as raw strings: moc 6.4 misreads raw
// strings holding JSON and loses the class.
#include "backends/gemini/geminimapper.h"
#include "domain/runreducer.h"
#include "net/sseparser.h"
#include "testdata.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace Runwatch;
using namespace Runwatch::Gemini;
using namespace Qt::StringLiterals;

namespace {

QJsonObject dataObject(const QString &name)
{
    return QJsonDocument::fromJson(RunwatchTest::readData(u"gemini/"_s + name)).object();
}

Run inProgressRun()
{
    Run run;
    run.status = RunStatus::InProgress;
    return run;
}

// Applies `events` to `run` and gives them back.
QList<RunEvent> applyTo(Run &run, const QList<RunEvent> &events)
{
    for (const RunEvent &event : events)
        applyEvent(run, event, QDateTime::currentDateTimeUtc());
    return events;
}

// A transcript through the SSE parser and `mapper`, `step` bytes at a time (frames cut anywhere),
// applied to `run` as the engine does.
QList<GeminiMapper::Outcome> feed(const QString &name, qsizetype step, GeminiMapper &mapper, Run &run,
                                  QList<RunEvent> *events = nullptr)
{
    const QByteArray sse = RunwatchTest::readData(u"gemini/"_s + name);
    SseParser parser;
    QList<GeminiMapper::Outcome> outcomes;
    for (qsizetype at = 0; at < sse.size(); at += step) {
        parser.feed(QByteArrayView(sse).sliced(at, std::min(step, sse.size() - at)), [&](const SseEvent &e) {
            QList<RunEvent> out;
            outcomes << mapper.map(e.type, e.data, out);
            applyTo(run, out);
            if (events)
                *events << out;
        });
    }
    return outcomes;
}

Run applied(const QList<RunEvent> &events)
{
    Run run = inProgressRun();
    applyTo(run, events);
    return run;
}

// The run's items other than its status changes, as "kind|id|title|text" lines.
QStringList items(const Run &run)
{
    QStringList lines;
    for (const SecondaryItem &i : run.secondary) {
        if (i.kind != SecondaryKind::StatusChange)
            lines << secondaryKindName(i.kind) + u'|' + i.id + u'|' + i.title + u'|' + i.text;
    }
    return lines;
}

// An event written with single quotes (fewer escapes), as the JSON it stands for.
QByteArray json(QByteArrayView text)
{
    return text.toByteArray().replace('\'', '"');
}

// One event through `mapper`; a different outcome than `expected` fails the test.
QList<RunEvent> mapOne(GeminiMapper &mapper, QByteArrayView type, QByteArrayView data,
                       GeminiMapper::Outcome expected = GeminiMapper::Outcome::Continue)
{
    QList<RunEvent> out;
    const GeminiMapper::Outcome outcome = mapper.map(type, json(data), out);
    // Recorded as the test's failure (a helper cannot return from the test function).
    QTest::qCompare(outcome, expected, "outcome", "expected", __FILE__, __LINE__);
    return out;
}

} // namespace

class TestGeminiMapping final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void statusTable_data()
    {
        QTest::addColumn<QString>("status");
        QTest::addColumn<RunStatus>("expected");
        QTest::addRow("queued") << u"queued"_s << RunStatus::Queued;
        QTest::addRow("in_progress") << u"in_progress"_s << RunStatus::InProgress;
        QTest::addRow("requires_action") << u"requires_action"_s << RunStatus::InputRequired;
        QTest::addRow("requires_continuation") << u"requires_continuation"_s << RunStatus::InProgress;
        QTest::addRow("completed") << u"completed"_s << RunStatus::Completed;
        QTest::addRow("failed") << u"failed"_s << RunStatus::Failed;
        QTest::addRow("cancelled") << u"cancelled"_s << RunStatus::Cancelled;
        QTest::addRow("incomplete") << u"incomplete"_s << RunStatus::Incomplete;
        QTest::addRow("budget_exceeded") << u"budget_exceeded"_s << RunStatus::Incomplete;
        QTest::addRow("unknown") << u"pondering"_s << RunStatus::Unknown;
        QTest::addRow("empty") << QString() << RunStatus::Unknown;
        QTest::addRow("case matters") << u"COMPLETED"_s << RunStatus::Unknown;
    }
    void statusTable()
    {
        QFETCH(QString, status);
        QFETCH(RunStatus, expected);
        QCOMPARE(runStatusFor(status), expected);
        // The raw status rides along in the resource's mapping.
        const Run run = applied(mapInteraction({{u"id"_s, u"v1_x"_s}, {u"status"_s, status}}));
        if (!status.isEmpty())
            QCOMPARE(run.rawStatus, status);
    }

    // The streamed run and the same interaction read with GET: the same answer, the same items,
    // whatever the frames' cuts.
    void streamEqualsInteraction_data()
    {
        QTest::addColumn<QString>("stem");
        QTest::addColumn<qsizetype>("step");
        for (const QString &stem : {u"text"_s, u"thought"_s, u"function-call"_s, u"failed"_s}) {
            for (const qsizetype step : {qsizetype(1), qsizetype(13), qsizetype(1 << 20)}) {
                QTest::addRow("%s, %lld bytes", qPrintable(stem), static_cast<long long>(step))
                    << stem << step;
            }
        }
    }
    void streamEqualsInteraction()
    {
        QFETCH(QString, stem);
        QFETCH(qsizetype, step);
        GeminiMapper mapper;
        Run streamed = inProgressRun();
        const auto outcomes = feed(stem + u"-stream.sse"_s, step, mapper, streamed);
        QCOMPARE(outcomes.last(), GeminiMapper::Outcome::End);
        QVERIFY(mapper.finished());

        const QJsonObject interaction = dataObject(stem + u"-interaction.json"_s);
        const Run polled = applied(mapInteraction(interaction));
        QVERIFY(!outputText(interaction).isEmpty() || stem == u"function-call"_s);
        QCOMPARE(streamed.primaryText, outputText(interaction));
        QCOMPARE(polled.primaryText, outputText(interaction));
        QCOMPARE(items(streamed), items(polled));
        QCOMPARE(streamed.status, polled.status);
        QCOMPARE(streamed.remoteId, interaction.value(u"id"_s).toString());
        QCOMPARE(streamed.usage, polled.usage);
        // The poll after the stream changes nothing.
        Run both = streamed;
        applyTo(both, mapInteraction(interaction));
        QCOMPARE(both.primaryText, streamed.primaryText);
        QCOMPARE(both.secondary.size(), streamed.secondary.size());
        QCOMPARE(both.reconciliations, 0);
    }

    void multiByteTextAndItems()
    {
        GeminiMapper mapper;
        Run run = inProgressRun();
        feed(u"text-stream.sse"_s, 1, mapper, run);
        QCOMPARE(run.primaryText, u"1, 2, 3, 4, 5, 6, 7 — café, 日本, 🎉, 8, 9, 10."_s);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.model, u"gemini-3-flash-preview"_s);
        QVERIFY(run.token.streamable);
        QCOMPARE(run.token.eventId, u"evt-t01-0004"_s);
        QCOMPARE(mapper.lastEventId(), u"evt-t01-0004"_s);
        QVERIFY(items(run).isEmpty()); // a thought with only a signature shows as nothing

        Run thinking = inProgressRun();
        GeminiMapper other;
        feed(u"thought-stream.sse"_s, 64, other, thinking);
        // Two output steps, joined by a blank line.
        QCOMPARE(thinking.primaryText,
                 u"The summit takes place on 14 May 2026.\n\nSource: example.invalid/summit"_s);
        const QStringList shown = items(thinking);
        QCOMPARE(shown.size(), 3);
        QCOMPARE(shown.at(0),
                 u"reasoning|v1_think01#0|Reasoning|**Finding the date**\n\nThe question is about "
                 "an event this year, so I should search before answering."_s);
        QCOMPARE(
            shown.at(1),
            u"tool_call|v1_think01#1|google_search|google_search({\"queries\":[\"summit 2026 date\"]})"_s);
        QCOMPARE(shown.at(2), u"tool_call|v1_think01#2|google_search|[{\"title\":\"Summit 2026\",\"url\":"
                              "\"https://example.invalid/summit\"}]"_s);
    }

    // The service cuts the stream; the next connection resumes after the last id, and the
    // repeats it brings change nothing.
    void resumeAfterCut()
    {
        GeminiMapper mapper;
        Run run = inProgressRun();
        QList<RunEvent> cutEvents;
        const auto cutOutcomes = feed(u"research-cut.sse"_s, 17, mapper, run, &cutEvents);
        QVERIFY(cutOutcomes.contains(GeminiMapper::Outcome::Cut));
        QVERIFY(!cutOutcomes.contains(GeminiMapper::Outcome::Failed));
        QCOMPARE(cutOutcomes.last(), GeminiMapper::Outcome::End);
        QVERIFY(mapper.cut());
        QVERIFY(!mapper.finished());
        QCOMPARE(mapper.lastEventId(), u"evt-r01-0007"_s);
        QCOMPARE(run.token.eventId, u"evt-r01-0007"_s);
        QCOMPARE(run.model, u"deep-research-preview-04-2026"_s);
        for (const RunEvent &e : std::as_const(cutEvents))
            QVERIFY(e.type != RunEvent::Type::Error);
        QCOMPARE(run.status, RunStatus::InProgress);
        QVERIFY(!run.error.isError());
        QCOMPARE(mapper.error().code, u"gateway_timeout"_s);
        QVERIFY(mapper.error().retryable);

        mapper.startConnection();
        QVERIFY(!mapper.cut());
        const auto resumed = feed(u"research-resume.sse"_s, 17, mapper, run);
        QVERIFY(!resumed.contains(GeminiMapper::Outcome::Cut));
        QVERIFY(mapper.finished());
        const QJsonObject interaction = dataObject(u"research-interaction.json"_s);
        QCOMPARE(run.primaryText, outputText(interaction));
        QCOMPARE(run.status, RunStatus::Completed);
        const QStringList streamedItems = items(run);
        QCOMPARE(streamedItems, items(applied(mapInteraction(interaction))));
        QCOMPARE(QSet<QString>(streamedItems.cbegin(), streamedItems.cend()).size(), streamedItems.size());

        // A reattach without last_event_id replays everything: nothing is applied twice.
        const QString text = run.primaryText.toString();
        const qsizetype secondary = run.secondary.size();
        mapper.startConnection();
        feed(u"research-cut.sse"_s, 5, mapper, run);
        feed(u"research-resume.sse"_s, 5, mapper, run);
        QCOMPARE(run.primaryText, text);
        QCOMPARE(run.secondary.size(), secondary);
        QCOMPARE(mapper.droppedRepeats(), 11);
    }

    // After a restart the mapper is made anew from the stored token: the resume still rebuilds
    // the same answer, and a step it sees from the middle keeps what the run has of it.
    void resumeWithAFreshMapper()
    {
        GeminiMapper first;
        Run run = inProgressRun();
        feed(u"research-cut.sse"_s, 100, first, run);
        GeminiMapper fresh(run.remoteId);
        fresh.setAnswerHasText(!run.primaryText.isEmpty());
        feed(u"research-resume.sse"_s, 100, fresh, run);
        QCOMPARE(run.primaryText, outputText(dataObject(u"research-interaction.json"_s)));
        QCOMPARE(run.status, RunStatus::Completed);

        Run partly = inProgressRun();
        GeminiMapper before(u"v1_p"_s), after(u"v1_p"_s);
        applyTo(partly, mapOne(before, "step.start", "{'index':0,'step':{'type':'thought'}}"));
        applyTo(partly, mapOne(before, "step.delta",
                               "{'index':0,'delta':{'type':'thought_summary','content':"
                               "{'type':'text','text':'first '}},'event_id':'p1'}"));
        applyTo(partly, mapOne(after, "step.delta",
                               "{'index':0,'delta':{'type':'thought_summary','content':"
                               "{'type':'text','text':'second'}},'event_id':'p2'}"));
        applyTo(partly, mapOne(after, "step.stop", "{'index':0}"));
        QCOMPARE(items(partly), QStringList{u"reasoning|v1_p#0|Reasoning|first second"_s});
    }

    // Cut in the middle of an output step, the app restarted: the fresh mapper is told which step
    // the answer's text came from (the token's answer_step), so the rest of that step goes on
    // without a separator and the next step starts with one. setAnswerHasText alone put "\n\n"
    // in the middle of a word (tst_gemini_cli's SIGKILL test found it).
    void resumeInTheMiddleOfTheAnswer()
    {
        Run run = inProgressRun();
        GeminiMapper before(u"v1_t"_s);
        applyTo(run, mapOne(before, "step.start", "{'index':0,'step':{'type':'thought'}}"));
        applyTo(run, mapOne(before, "step.stop", "{'index':0}"));
        applyTo(run, mapOne(before, "step.start", "{'index':1,'step':{'type':'model_output'}}"));
        applyTo(run, mapOne(before, "step.delta",
                            "{'index':1,'delta':{'type':'text','text':'Hel'},'event_id':'t1'}"));
        QCOMPARE(before.answerStep(), 1);
        GeminiMapper after(u"v1_t"_s);
        after.resumeAnswerAt(before.answerStep());
        applyTo(run, mapOne(after, "step.delta",
                            "{'index':1,'delta':{'type':'text','text':'lo'},'event_id':'t2'}"));
        applyTo(run, mapOne(after, "step.stop", "{'index':1}"));
        applyTo(run, mapOne(after, "step.start", "{'index':2,'step':{'type':'model_output'}}"));
        applyTo(run, mapOne(after, "step.delta",
                            "{'index':2,'delta':{'type':'text','text':'Again'},'event_id':'t3'}"));
        QCOMPARE(run.primaryText, u"Hello\n\nAgain"_s);
        QCOMPARE(after.answerStep(), 2);
    }

    void gatewayTimeoutIsNotAFailure()
    {
        GeminiMapper mapper(u"v1_x"_s);
        const QList<RunEvent> out = mapOne(mapper, "error",
                                           "{'error':{'message':'Deadline expired before operation could "
                                           "complete.','code':'gateway_timeout'}}",
                                           GeminiMapper::Outcome::Cut);
        QVERIFY(out.isEmpty());
        QVERIFY(mapper.cut());
        QCOMPARE(mapper.error().kind, ErrorKind::Timeout);
        QCOMPARE(mapper.error().message, u"Deadline expired before operation could complete."_s);
        QCOMPARE(mapOne(mapper, "done", "[DONE]", GeminiMapper::Outcome::End).size(), 0);
        QVERIFY(mapper.cut()); // until the next connection starts
    }

    void failureCarriesTheMessage()
    {
        GeminiMapper mapper;
        Run run = inProgressRun();
        const auto outcomes = feed(u"failed-stream.sse"_s, 9, mapper, run);
        QVERIFY(outcomes.contains(GeminiMapper::Outcome::Failed));
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.error.kind, ErrorKind::Run);
        QCOMPARE(run.error.code, u"internal"_s);
        QCOMPARE(run.error.message, u"An internal error has occurred. Please retry."_s);
        QCOMPARE(run.primaryText, u"Working on it, then"_s);
        QCOMPARE(mapper.error().message, run.error.message);

        const Run polled = applied(mapInteraction(dataObject(u"failed-interaction.json"_s)));
        QCOMPARE(polled.error, run.error);
        // Failed without saying why: still a failure with a message.
        const RunError bare = errorOf({{u"status"_s, u"failed"_s}});
        QVERIFY(bare.isError());
        QVERIFY(!bare.message.isEmpty());
        QVERIFY(!errorOf({{u"status"_s, u"completed"_s}}).isError());
        // Several errors: every message, the first code (a number too).
        const RunError two
            = errorOf({{u"errors"_s, QJsonArray{QJsonObject{{u"code"_s, 13}, {u"message"_s, u"a"_s}},
                                                QJsonObject{{u"code"_s, u"x"_s}, {u"message"_s, u"b"_s}}}}});
        QCOMPARE(two.code, u"13"_s);
        QCOMPARE(two.message, u"a; b"_s);
    }

    void requiresActionAsksForToolOutputs()
    {
        GeminiMapper mapper;
        Run run = inProgressRun();
        feed(u"function-call-stream.sse"_s, 11, mapper, run);
        QCOMPARE(run.status, RunStatus::InputRequired);
        QCOMPARE(run.rawStatus, u"requires_action"_s);
        QVERIFY(run.input);
        const InputRequest request = *run.input;
        QCOMPARE(request.reason, InputReason::ToolOutput);
        // Function outputs, not approvals; the arguments as compact JSON.
        const auto call = [](const QString &id, const QString &name, const QString &arguments) {
            ToolCallRequest c;
            c.id = id;
            c.name = name;
            c.arguments = arguments;
            return c;
        };
        const QList<ToolCallRequest> calls{
            call(u"call_weather_1"_s, u"get_weather"_s, u"{\"city\":\"Paris\",\"unit\":\"celsius\"}"_s),
            call(u"call_time_2"_s, u"get_time"_s, u"{\"zone\":\"Europe/Paris\"}"_s)};
        QCOMPARE(request.toolCalls, calls);
        QCOMPARE(request.raw.value(u"interaction_id"_s).toString(), u"v1_call01"_s);
        QVERIFY(request.prompt.contains(u"get_weather"_s));
        // The GET gives the same request.
        const QJsonObject interaction = dataObject(u"function-call-interaction.json"_s);
        QCOMPARE(inputRequestOf(interaction), request);
        // A call the interaction answered itself is not pending; nothing pending, no request.
        QJsonObject answered = interaction;
        QJsonArray steps = answered.value(u"steps"_s).toArray();
        steps.append(QJsonObject{{u"type"_s, u"function_result"_s}, {u"call_id"_s, u"call_time_2"_s}});
        answered.insert(u"steps"_s, steps);
        QCOMPARE(inputRequestOf(answered)->toolCalls.size(), 1);
        QVERIFY(!inputRequestOf(dataObject(u"text-interaction.json"_s)));
    }

    void functionResultShapes()
    {
        const InputRequest request = *inputRequestOf(dataObject(u"function-call-interaction.json"_s));
        InputAnswer answer;
        // Answered out of order: sent in the order of the calls.
        answer.toolAnswers
            = {{u"call_time_2"_s, u"10:42"_s, false}, {u"call_weather_1"_s, u"18 °C"_s, false}};
        QString error;
        const QJsonArray input = functionResults(request, answer, &error);
        QCOMPARE(input, (QJsonArray{QJsonObject{{u"type"_s, u"function_result"_s},
                                                {u"call_id"_s, u"call_weather_1"_s},
                                                {u"name"_s, u"get_weather"_s},
                                                {u"result"_s, u"18 °C"_s}},
                                    QJsonObject{{u"type"_s, u"function_result"_s},
                                                {u"call_id"_s, u"call_time_2"_s},
                                                {u"name"_s, u"get_time"_s},
                                                {u"result"_s, u"10:42"_s}}}));
        // A partial answer, a text for two calls, an unknown id: refused, with the reason.
        InputAnswer partial, text, unknown;
        partial.toolAnswers = {{u"call_weather_1"_s, u"18 °C"_s, false}};
        text.text = u"18 °C"_s;
        unknown.toolAnswers = {{u"call_weather_1"_s, u"a"_s, false}, {u"nope"_s, u"b"_s, false}};
        for (const InputAnswer &refused : {partial, text, unknown}) {
            error.clear();
            QVERIFY(functionResults(request, refused, &error).isEmpty());
            QVERIFY(!error.isEmpty());
        }
        QVERIFY(error.contains(u"nope"_s));
        // One call: a text answers it.
        const InputRequest one = toolOutputRequest(u"v1_y"_s, {request.toolCalls.at(0)});
        const QJsonArray single = functionResults(one, text, &error);
        QCOMPARE(single.size(), 1);
        QCOMPARE(single.at(0).toObject().value(u"result"_s).toString(), u"18 °C"_s);
    }

    void usage()
    {
        const auto u = usageOf(dataObject(u"thought-interaction.json"_s));
        QVERIFY(u);
        QCOMPARE(u->inputTokens, 600);  // prompt + tool-use prompt
        QCOMPARE(u->outputTokens, 690); // responses + thoughts
        QCOMPARE(u->reasoningTokens, 630);
        QCOMPARE(u->inputTokens + u->outputTokens, 1290); // total_tokens
        GeminiMapper mapper;
        Run run = inProgressRun();
        feed(u"thought-stream.sse"_s, 1 << 20, mapper, run);
        QCOMPARE(run.usage, *u);
        // Only the counts it has; none, or only invalid ones: nothing.
        const auto partial = usageOf({{u"usage"_s, QJsonObject{{u"total_output_tokens"_s, 7}}}});
        QCOMPARE(partial->inputTokens, -1);
        QCOMPARE(partial->outputTokens, 7);
        QVERIFY(!usageOf({}));
        QVERIFY(!usageOf({{u"usage"_s, QJsonObject{{u"total_input_tokens"_s, -3},
                                                   {u"total_output_tokens"_s, 1.5},
                                                   {u"total_thought_tokens"_s, u"9"_s},
                                                   {u"total_tool_use_tokens"_s, 1e300}}}}));
        // Hostile sizes saturate instead of overflowing.
        const auto huge = usageOf({{u"usage"_s, QJsonObject{{u"total_output_tokens"_s, 8.0e18},
                                                            {u"total_thought_tokens"_s, 8.0e18}}}});
        QCOMPARE(huge->outputTokens, std::numeric_limits<qint64>::max());
    }

    // An unreadable event is a note with what arrived and a protocol error; the text before and
    // after it stays.
    void malformedEventIsKept()
    {
        GeminiMapper mapper(u"v1_m"_s);
        Run run = inProgressRun();
        applyTo(run, mapOne(mapper, "step.delta",
                            "{'index':0,'delta':{'type':'text','text':'before '},'event_id':'e1'}"));
        const QList<RunEvent> bad
            = applyTo(run, mapOne(mapper, "step.delta", "{'index':0,'delta':{'type':'te",
                                  GeminiMapper::Outcome::Malformed));
        QCOMPARE(bad.size(), 1);
        QCOMPARE(bad.at(0).type, RunEvent::Type::SecondarySnapshot);
        QCOMPARE(bad.at(0).kind, SecondaryKind::Log);
        QVERIFY(bad.at(0).text.contains(u"{\"index\":0,\"delta\":{\"type\":\"te"_s));
        QCOMPARE(mapper.error().kind, ErrorKind::Protocol);
        QCOMPARE(mapper.error().code, u"malformed_event"_s);
        QVERIFY(mapper.error().message.contains(u"step.delta"_s));
        QVERIFY(mapper.error().message.contains(u"e1"_s));
        // Wrong types: an index that is no index, a delta that is no object, not an object.
        const QList<RunEvent> noIndex
            = applyTo(run, mapOne(mapper, "step.delta",
                                  "{'index':'0','delta':{'type':'text','text':'lost'},'event_id':'e2'}",
                                  GeminiMapper::Outcome::Malformed));
        QCOMPARE(noIndex.at(0).eventId, u"e2"_s); // the position still moves past it
        applyTo(run,
                mapOne(mapper, "step.delta", "{'index':1e300,'delta':{}}", GeminiMapper::Outcome::Malformed));
        applyTo(run, mapOne(mapper, "step.stop", "{'index':-1}", GeminiMapper::Outcome::Malformed));
        applyTo(run,
                mapOne(mapper, "step.delta", "{'index':0,'delta':'text'}", GeminiMapper::Outcome::Malformed));
        applyTo(run, mapOne(mapper, "step.start", "[1,2]", GeminiMapper::Outcome::Malformed));
        applyTo(run, mapOne(mapper, "step.delta",
                            "{'index':0,'delta':{'type':'text','text':'after'},'event_id':'e3'}"));
        QCOMPARE(run.primaryText, u"before after"_s);
        QCOMPARE(run.status, RunStatus::InProgress);
        QVERIFY(!run.error.isError()); // the run did not fail: the service said nothing of the kind
        // The same unreadable event again lands on the same note.
        const qsizetype notes = run.secondary.size();
        applyTo(run, mapOne(mapper, "step.delta", "{'index':0,'delta':{'type':'te",
                            GeminiMapper::Outcome::Malformed));
        QCOMPARE(run.secondary.size(), notes);
        // A text delta's text of a wrong type is no text, not a crash.
        applyTo(run, mapOne(mapper, "step.delta",
                            "{'index':0,'delta':{'type':'text','text':42},'event_id':'e4'}"));
        QCOMPARE(run.primaryText, u"before after"_s);
    }

    void unknownEventsAreIgnored()
    {
        GeminiMapper mapper(u"v1_u"_s);
        QList<RunEvent> out = mapOne(mapper, "interaction.future_event", "{'event_id':'e9','surprise':true}");
        QCOMPARE(out.size(), 1);
        QCOMPARE(out.at(0).type, RunEvent::Type::Cursor);
        QCOMPARE(out.at(0).eventId, u"e9"_s);
        QVERIFY(mapOne(mapper, "message", "{'no_type':1}").isEmpty());
        // A delta kind nobody knows (an image): only the position.
        out = mapOne(mapper, "step.delta",
                     "{'index':0,'delta':{'type':'image','data':'AAAA'},'event_id':'e10'}");
        QCOMPARE(out.size(), 1);
        QCOMPARE(out.at(0).type, RunEvent::Type::Cursor);
        // A step type nobody knows yet: shown as progress under its type.
        out = mapOne(mapper, "step.start", "{'index':1,'step':{'type':'hologram','depth':3}}");
        QCOMPARE(out.size(), 1);
        QCOMPARE(out.at(0).kind, SecondaryKind::Progress);
        QCOMPARE(out.at(0).title, u"hologram"_s);
        // The data names the type when the SSE event has none.
        out = mapOne(
            mapper, "message",
            "{'index':2,'delta':{'type':'text','text':'hi'},'event_id':'e11','event_type':'step.delta'}");
        QCOMPARE(out.size(), 1);
        QCOMPARE(out.at(0).type, RunEvent::Type::PrimaryDelta);
        QCOMPARE(mapOne(mapper, "message", "[DONE]", GeminiMapper::Outcome::End).size(), 0);
    }

    // Each event id counts once; a repeated id-less start does not reopen its step.
    void repeatsAreDropped()
    {
        GeminiMapper mapper(u"v1_r"_s);
        const QByteArray start
            = "{'index':0,'step':{'type':'function_call','id':'c1','name':'f','arguments':{}}}";
        const QByteArray delta
            = "{'index':0,'delta':{'type':'arguments_delta','arguments':'{\\\"a\\\":1}'},'event_id':'x1'}";
        QCOMPARE(mapOne(mapper, "step.start", start).size(), 1);
        QCOMPARE(mapOne(mapper, "step.delta", delta).size(), 1);
        QVERIFY(mapOne(mapper, "step.start", start).isEmpty());
        QVERIFY(mapOne(mapper, "step.delta", delta).isEmpty());
        QCOMPARE(mapper.droppedRepeats(), 1);
        const QList<RunEvent> stop = mapOne(mapper, "step.stop", "{'index':0}");
        QCOMPARE(stop.size(), 1);
        QCOMPARE(stop.at(0).text, u"f({\"a\":1})"_s);
        // A completed with a status nobody knows: applied, and reported.
        QList<RunEvent> out;
        QCOMPARE(mapper.map("interaction.completed", json("{'interaction':{'status':'pondering'}}"), out),
                 GeminiMapper::Outcome::Malformed);
        QCOMPARE(mapper.error().code, u"unknown_status"_s);
        QCOMPARE(out.last().rawStatus, u"pondering"_s);
    }

    void identityAndBackgroundCreate()
    {
        GeminiMapper mapper({}, false);
        const QList<RunEvent> out = mapOne(
            mapper, "interaction.created",
            "{'interaction':{'id':'v1_a','status':'queued','agent':'deep-research-pro-preview-12-2025'}}");
        QCOMPARE(out.size(), 2);
        QCOMPARE(out.at(0).type, RunEvent::Type::Identity);
        QCOMPARE(out.at(0).remoteId, u"v1_a"_s);
        QCOMPARE(out.at(0).model, u"deep-research-pro-preview-12-2025"_s);
        QVERIFY(!out.at(0).streamable);
        QCOMPARE(out.at(1).status, RunStatus::Queued);
        QCOMPARE(mapper.interactionId(), u"v1_a"_s);

        const Run created = applied(mapInteraction(dataObject(u"background-create.json"_s)));
        QCOMPARE(created.remoteId, u"v1_research01"_s);
        QCOMPARE(created.model, u"deep-research-preview-04-2026"_s);
        QCOMPARE(created.status, RunStatus::InProgress);
        QVERIFY(created.primaryText.isEmpty());
        QVERIFY(items(created).isEmpty());
        // Wrong types everywhere: nothing but what can be read.
        const Run hostile = applied(mapInteraction(
            {{u"id"_s, 5}, {u"status"_s, QJsonArray{}}, {u"steps"_s, u"none"_s}, {u"usage"_s, 3}}));
        QVERIFY(hostile.remoteId.isEmpty());
        QCOMPARE(hostile.status, RunStatus::InProgress);
    }
};

QTEST_GUILESS_MAIN(TestGeminiMapping)
#include "tst_gemini_mapping.moc"
