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
