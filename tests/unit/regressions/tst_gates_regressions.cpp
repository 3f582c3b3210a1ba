// SPDX-License-Identifier: GPL-3.0-or-later
// Bugs the quality gates found (issue 7), one test each, readable on their own. The raw crash
// inputs are also kept as tests/fuzz/corpus/<target>/regression-* and replayed by the
// replay_fuzz_* ctest entries in every build.
#include "backends/openai/openaimapper.h"
#include "domain/run.h"
#include "json/jsonscan.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

class TestGatesRegressions final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // fuzz_token: ContinuationToken::fromJson cast toDouble() to qint64, undefined behaviour for
    // 1e300 (UBSan: "outside the range of representable values"). Now: no position.
    void tokenSequenceOutOfRange_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<qint64>("sequence");
        QTest::addRow("1e300") << QByteArray("{\"remote_id\":\"r\",\"sequence\":1e300}") << qint64(-1);
        QTest::addRow("-1e300") << QByteArray("{\"remote_id\":\"r\",\"sequence\":-1e300}") << qint64(-1);
        QTest::addRow("2^63") << QByteArray("{\"remote_id\":\"r\",\"sequence\":9223372036854775808}")
                              << qint64(-1);
        QTest::addRow("max") << QByteArray("{\"remote_id\":\"r\",\"sequence\":9223372036854775807}")
                             << std::numeric_limits<qint64>::max();
        QTest::addRow("fraction") << QByteArray("{\"remote_id\":\"r\",\"sequence\":4.5}") << qint64(-1);
        QTest::addRow("normal") << QByteArray("{\"remote_id\":\"r\",\"sequence\":41}") << qint64(41);
    }
    void tokenSequenceOutOfRange()
    {
        QFETCH(QByteArray, json);
        QFETCH(qint64, sequence);
        const ContinuationToken token = ContinuationToken::fromJson(QJsonDocument::fromJson(json).object());
        QCOMPARE(token.sequence, sequence);
        // And it survives the store: written and read back unchanged (max used to become 2^63).
        QCOMPARE(ContinuationToken::fromJson(token.toJson()).sequence, sequence);
    }

    // fuzz_openai_mapping: the same cast on a wire event's sequence_number (UB for 1e300 from a
    // hostile server). Now such an event has no sequence and maps normally.
    void wireSequenceOutOfRange()
    {
        OpenAiMapper mapper;
        QList<RunEvent> out;
        const auto outcome = mapper.map("response.created",
                                        "{\"type\":\"response.created\",\"sequence_number\":1e300,"
                                        "\"response\":{\"id\":\"r\",\"status\":\"queued\"}}",
                                        out);
        QCOMPARE(outcome, OpenAiMapper::Outcome::Continue);
        QCOMPARE(mapper.lastSequence(), qint64(-1));
        QVERIFY(!out.isEmpty());
        QCOMPARE(out.first().type, RunEvent::Type::Identity);
        QCOMPARE(out.first().sequence, qint64(-1));
    }

    // fuzz_jsonscan: decodeString dropped a U+FEFF that opened a string or followed an escape
    // (QStringDecoder treats it as a byte-order mark by default), so the fast delta path lost
    // it while the QJsonDocument path kept it after an escape.
    void zeroWidthNoBreakSpaceKept_data()
    {
        QTest::addColumn<QByteArray>("raw");
        QTest::addColumn<QString>("text");
        QTest::addRow("opening") << QByteArray("\"\xef\xbb\xbfx\"") << (QString(QChar(0xFEFF)) + u'x');
        QTest::addRow("after escape")
            << QByteArray("\"\\n\xef\xbb\xbfx\"") << (u"\n"_s + QChar(0xFEFF) + u'x');
        QTest::addRow("inside") << QByteArray("\"a\xef\xbb\xbf\"") << (u"a"_s + QChar(0xFEFF));
    }
    void zeroWidthNoBreakSpaceKept()
    {
        QFETCH(QByteArray, raw);
        QFETCH(QString, text);
        QCOMPARE(*JsonScan::decodeString(raw), text);
    }

    // tst_hostile invalidUtf8: the fast delta path advanced the cursor before decoding, so the
    // error for a bad delta named the bad event itself ("after sequence 8" for event 8).
    void malformedDeltaNamesLastGoodEvent()
    {
        OpenAiMapper mapper;
        QList<RunEvent> out;
        QCOMPARE(mapper.map(
                     "response.output_text.delta",
                     "{\"type\":\"response.output_text.delta\",\"sequence_number\":7,\"delta\":\"ok\"}", out),
                 OpenAiMapper::Outcome::Continue);
        QCOMPARE(
            mapper.map(
                "response.output_text.delta",
                "{\"type\":\"response.output_text.delta\",\"sequence_number\":8,\"delta\":\"bad \xc3\x28\"}",
                out),
            OpenAiMapper::Outcome::Malformed);
        QCOMPARE(mapper.lastSequence(), qint64(7));
        QVERIFY2(mapper.error().message.contains(u"after sequence 7"_s), qPrintable(mapper.error().message));
        QCOMPARE(out.size(), 1);
    }

    // tst_hostile unknownTerminalStatus: a terminal event with a status nobody knows left the run
    // non-terminal, so the engine reconnected (and then polled) for ever. Now: the snapshot is
    // kept and the mapper reports a Protocol error "unknown_status".
    void unknownTerminalStatusStops()
    {
        OpenAiMapper mapper;
        QList<RunEvent> out;
        const auto outcome = mapper.map("response.completed",
                                        "{\"type\":\"response.completed\",\"sequence_number\":3,\"response\":"
                                        "{\"id\":\"r\",\"status\":\"pondering\","
                                        "\"output\":[{\"type\":\"message\",\"content\":[{\"type\":\"output_"
                                        "text\",\"text\":\"kept\"}]}]}}",
                                        out);
        QCOMPARE(outcome, OpenAiMapper::Outcome::Malformed);
        QCOMPARE(mapper.error().kind, ErrorKind::Protocol);
        QCOMPARE(mapper.error().code, u"unknown_status"_s);
        QVERIFY(mapper.error().message.contains(u"\"pondering\""_s));
        bool snapshot = false;
        bool rawStatus = false;
        for (const RunEvent &e : std::as_const(out)) {
            snapshot = snapshot || (e.type == RunEvent::Type::PrimarySnapshot && e.text == u"kept"_s);
            rawStatus = rawStatus || (e.type == RunEvent::Type::Status && e.rawStatus == u"pondering"_s);
        }
        QVERIFY(snapshot);
        QVERIFY(rawStatus);
        // Known terminal statuses are untouched.
        QList<RunEvent> done;
        QCOMPARE(mapper.map("response.completed",
                            "{\"type\":\"response.completed\",\"sequence_number\":4,\"response\":{\"status\":"
                            "\"completed\"}}",
                            done),
                 OpenAiMapper::Outcome::Terminal);
    }
};

QTEST_GUILESS_MAIN(TestGatesRegressions)
#include "tst_gates_regressions.moc"
