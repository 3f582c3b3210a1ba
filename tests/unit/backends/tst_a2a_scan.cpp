// SPDX-License-Identifier: GPL-3.0-or-later
// The A2A stream scanner (a2ascan.h): the usual events read without a QJsonDocument, exactly as
// the general path (decodeReply, classify, the event's members) reads them, and everything else
// left to that path. With a ScanMemo, an event that begins with the bytes of one read before is
// walked from its message or artifact on: still exactly what a walk from the start reads.
#include "backends/a2a/a2amapper.h"
#include "backends/a2a/a2areply.h"
#include "backends/a2a/a2ascan.h"

#include <QtTest>

using namespace Runwatch;
using namespace Runwatch::A2a;
using namespace Qt::StringLiterals;

namespace {

// The event the general path (QJsonDocument, classify) finds in `data`, when it is of `kind`.
std::optional<QJsonObject> generalEvent(Binding binding, const QByteArray &data, StreamItem::Kind kind)
{
    const Reply reply = decodeReply(binding, data);
    if (!reply.ok())
        return std::nullopt;
    StreamItem item = classify(reply.result);
    if (item.kind != kind)
        return std::nullopt;
    return std::move(item.object);
}

// What the general path reads from an artifact-update reply (the event's members).
std::optional<ArtifactChunk> generalChunk(Binding binding, const QByteArray &data)
{
    const std::optional<QJsonObject> event = generalEvent(binding, data, StreamItem::Kind::ArtifactUpdate);
    return event ? std::optional(artifactChunkOf(*event)) : std::nullopt;
}

// What the general path reads from a status-update reply.
std::optional<StatusUpdate> generalStatus(Binding binding, const QByteArray &data)
{
    const std::optional<QJsonObject> event = generalEvent(binding, data, StreamItem::Kind::StatusUpdate);
    return event ? std::optional(statusUpdateOf(*event)) : std::nullopt;
}

QString describe(const StatusUpdate &u)
{
    QString out = u"task=%1 context=%2"_s.arg(u.taskId, u.contextId);
    if (u.status) {
        out += u" state=%1"_s.arg(u.status->state);
        if (const std::optional<MessageInfo> &m = u.status->message) {
            out += u" message=%1 task=%2 context=%3 user=%4 text=%5"_s
                       .arg(m->messageId, m->taskId, m->contextId)
                       .arg(m->fromUser)
                       .arg(m->text);
        }
    }
    return out;
}

QString describe(const ArtifactChunk &c)
{
    return u"task=%1 context=%2 artifact=%3 name=%4 text=%5 append=%6 last=%7"_s
        .arg(c.taskId, c.contextId, c.artifactId, c.name, c.text)
        .arg(c.append)
        .arg(c.lastChunk);
}

// What a scan gave, for comparing one with a memo to one without.
QString describe(const std::optional<ScannedEvent> &scanned)
{
    if (!scanned)
        return u"general path"_s;
    return scanned->kind == ScannedEvent::Kind::ArtifactUpdate ? u"chunk "_s + describe(scanned->chunk)
                                                               : u"status "_s + describe(scanned->status);
}

// A 1.0 JSON-RPC status update whose message and what follows it is `tail`: all of them begin
// with the same bytes up to the message object.
QByteArray statusWith(const QByteArray &tail)
{
    return R"({"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{)"
           + tail;
}

QByteArray chunkWith(const QByteArray &tail)
{
    return R"({"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{)"
           + tail;
}

// The memo tests (TestA2aScan::memo…).
// Events that begin with the bytes of one the memo holds, and differ after them in every way
// the scanner looks at: each reads exactly as without the memo, usual or not.
void memoRows()
{
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<bool>("usual");
    QTest::addColumn<bool>("goesOn"); // more than the bytes the memo holds
    const auto row = [](const char *name, const QByteArray &data, bool usual, bool goesOn = true) {
        QTest::newRow(name) << data << usual << goesOn;
    };
    row("another message",
        statusWith(R"("messageId":"m-2","role":"ROLE_AGENT","parts":[{"text":"step 2"}]}}}}})"), true);
    row("a member after the message",
        statusWith(
            R"("messageId":"m-3","parts":[{"text":"x"}]},"timestamp":"2026-11-30T10:00:00Z"},"final":false}}})"),
        true);
    row("user role, ids in the message",
        statusWith(
            R"("messageId":"m","taskId":"t1","contextId":"c1","role":"user","parts":[{"text":"hi"}]}}}}})"),
        true);
    row("two parts", statusWith(R"("messageId":"m","parts":[{"text":"a"},{"text":"b"}]}}}}})"), false);
    row("message id twice", statusWith(R"("messageId":"m","messageId":"n","parts":[{"text":"a"}]}}}}})"),
        false);
    row("a second message",
        statusWith(
            R"("messageId":"m","parts":[{"text":"a"}]},"message":{"messageId":"n","parts":[{"text":"b"}]}}}}})"),
        false);
    row("state after the message",
        statusWith(R"("messageId":"m","parts":[{"text":"a"}]},"state":"TASK_STATE_FAILED"}}}})"), false);
    row("status twice",
        statusWith(R"("messageId":"m","parts":[{"text":"a"}]}},"status":{"state":"TASK_STATE_FAILED"}}}})"),
        false);
    row("task id twice", statusWith(R"("messageId":"m","parts":[{"text":"a"}]}},"taskId":"t2"}}})"), false);
    row("status update twice",
        statusWith(R"("messageId":"m","parts":[{"text":"a"}]}}},"statusUpdate":{"status":{}}}})"), false);
    row("an artifact update beside it",
        statusWith(
            R"("messageId":"m","parts":[{"text":"a"}]}}},"artifactUpdate":{"artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}})"),
        false);
    row("result twice", statusWith(R"("messageId":"m","parts":[{"text":"a"}]}}}},"result":{}})"), false);
    row("an error in the envelope",
        statusWith(R"("messageId":"m","parts":[{"text":"a"}]}}}},"error":{"code":-32000,"message":"no"}})"),
        false);
    row("not UTF-8 after it",
        statusWith("\"messageId\":\"m\",\"parts\":[{\"text\":\"a\"}]}}}},\"x\":\"\xff\"}"), false);
    row("UTF-8 after it", statusWith("\"messageId\":\"m\",\"parts\":[{\"text\":\"\xc3\xa4\"}]}}}}}"), true);
    row("cut off", statusWith(R"("messageId":"m","parts":[{"text":"a"}]}})"), false);
    row("trailing bytes", statusWith(R"("messageId":"m","parts":[{"text":"a"}]}}}}} x)"), false);
    row("closed too often", statusWith(R"("messageId":"m","parts":[{"text":"a"}]}}}}}})"), false);
    row("nothing after it", statusWith({}), false, false);
    row("an escaped key", statusWith(R"("message\u0049d":"m","parts":[{"text":"a"}]}}}}})"), false);
    row("a chunk", chunkWith(R"("artifactId":"a","parts":[{"text":"x"}]},"append":true}}})"), true);
    row("a chunk, append twice",
        chunkWith(R"("artifactId":"a","parts":[{"text":"x"}]},"append":true,"append":false}}})"), false);
    row("a chunk, artifact twice",
        chunkWith(
            R"("artifactId":"a","parts":[{"text":"x"}]},"artifact":{"artifactId":"b","parts":[{"text":"y"}]}}}})"),
        false);
}
void memoRow()
{
    QFETCH(QByteArray, data);
    QFETCH(bool, usual);
    QFETCH(bool, goesOn);
    const std::optional<ScannedEvent> alone = scanStreamEvent(Binding::JsonRpc, data);
    QCOMPARE(alone.has_value(), usual);
    // A memo that holds a status update and a chunk of the same task.
    ScanMemo memo;
    QVERIFY(scanStreamEvent(Binding::JsonRpc,
                            chunkWith(R"("artifactId":"a","parts":[{"text":"first"}]},"append":false}}})"),
                            {}, &memo));
    QVERIFY(scanStreamEvent(
        Binding::JsonRpc,
        statusWith(R"("messageId":"m-1","role":"ROLE_AGENT","parts":[{"text":"step 1"}]}}}}})"), {}, &memo));
    QCOMPARE(memo.resumed(), 0);
    for (int round = 1; round <= 2; ++round) {
        QCOMPARE(describe(scanStreamEvent(Binding::JsonRpc, data, {}, &memo)), describe(alone));
        QCOMPARE(memo.resumed(), goesOn ? round : 0);
    }
    // The same with hints and without ids: as without the memo.
    const ScanHints hints{false, u"TASK_STATE_WORKING"_s, u"a"_s};
    QCOMPARE(describe(scanStreamEvent(Binding::JsonRpc, data, hints, &memo)),
             describe(scanStreamEvent(Binding::JsonRpc, data, hints)));
}

// The memo goes on only from bytes it read under the same binding, and only with more of
// them: the same bytes under REST are another envelope.
void memoBinding()
{
    ScanMemo memo;
    const QByteArray rest
        = R"({"statusUpdate":{"taskId":"t","status":{"state":"working","message":{"messageId":"m","parts":[{"text":"a"}]}}}})";
    QVERIFY(scanStreamEvent(Binding::HttpJson, rest, {}, &memo));
    // As JSON-RPC the same bytes are no envelope with a result.
    QVERIFY(!scanStreamEvent(Binding::JsonRpc, rest, {}, &memo));
    QCOMPARE(memo.resumed(), 0);
    const QByteArray next
        = R"({"statusUpdate":{"taskId":"t","status":{"state":"working","message":{"messageId":"n","parts":[{"text":"b"}]}}}})";
    QCOMPARE(describe(scanStreamEvent(Binding::HttpJson, next, {}, &memo)),
             describe(scanStreamEvent(Binding::HttpJson, next)));
    QCOMPARE(memo.resumed(), 1);
    // The 0.3 shape, whose status is the result's own member.
    const QByteArray old03
        = R"({"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t","status":{"state":"working","message":{"messageId":"m","parts":[{"kind":"text","text":"a"}]}},"final":false}})";
    QVERIFY(scanStreamEvent(Binding::JsonRpc, old03, {}, &memo));
    const QByteArray next03
        = R"({"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t","status":{"state":"working","message":{"messageId":"n","parts":[{"kind":"text","text":"b"}]}},"final":true}})";
    QCOMPARE(describe(scanStreamEvent(Binding::JsonRpc, next03, {}, &memo)),
             describe(scanStreamEvent(Binding::JsonRpc, next03)));
    QCOMPARE(memo.resumed(), 2);
}

// A long stream of status updates with a few others between them: every one as without the
// memo, and all but the few go on from the memo.
void memoStream()
{
    ScanMemo memo;
    int others = 0;
    for (int i = 0; i < 500; ++i) {
        QByteArray data;
        if (i % 50 == 7) {
            ++others;
            data
                = R"({"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"q-)"
                  + QByteArray::number(i) + R"(","parts":[{"text":"?"}]}}}}})";
        } else {
            data = statusWith(R"("messageId":"m-)" + QByteArray::number(i)
                              + R"(","role":"ROLE_AGENT","parts":[{"text":"step )" + QByteArray::number(i)
                              + R"("}]}}}}})");
        }
        QCOMPARE(describe(scanStreamEvent(Binding::JsonRpc, data, {}, &memo)),
                 describe(scanStreamEvent(Binding::JsonRpc, data)));
    }
    // The first of each kind is walked from its start; the other kind between them keeps
    // its own checkpoint.
    QVERIFY(others > 1);
    QCOMPARE(memo.resumed(), 500 - 2);
}

} // namespace

class TestA2aScan final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The chunks the scanner reads are read exactly as the general path reads them.
    void scannedChunkAgreesWithTheGeneralPath_data()
    {
        QTest::addColumn<bool>("rest");
        QTest::addColumn<QByteArray>("data");
        const auto row = [](const char *name, bool rest, const QByteArray &data) {
            QTest::newRow(name) << rest << data;
        };
        row("1.0", false,
            R"({"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"r","parts":[{"text":"Hi"}]},"append":true}}})");
        row("1.0 last, named, metadata", false,
            R"({"jsonrpc":"2.0","id":"x","result":{"artifactUpdate":{"taskId":"t1","artifact":{"artifactId":"r","name":"a.txt","parts":[{"text":"end","mediaType":"text/plain"}],"metadata":{"k":[1,2]}},"append":false,"lastChunk":true}}})");
        row("0.3 kind", false,
            R"({"jsonrpc":"2.0","id":1,"result":{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"kind":"text","text":"x"}]},"append":true,"final":false}})");
        row("REST 1.0", true,
            R"({"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","parts":[{"text":"y"}]},"append":true}})");
        row("escapes and UTF-8", false,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"artifactUpdate\":{\"taskId\":\"t\",\"artifact\":{"
            "\"artifactId\":\"a\",\"parts\":[{\"text\":\"a\\\"b\\n\\u00e9 \xc3\xa4 "
            "\xf0\x9f\x98\x80\"}]},\"append\":true}}}");
        row("whitespace", false,
            " { \"jsonrpc\" : \"2.0\" , \"result\" : { \"artifactUpdate\" : { \"artifact\" : { "
            "\"artifactId\" : \"a\" , \"parts\" : [ { \"text\" : \"z\" } ] } , \"append\" : true } } }\n");
        row("odd types read as the general path reads them", false,
            R"({"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":7,"contextId":null,"artifact":{"artifactId":"a","name":false,"parts":[{"text":"w"}]},"append":"yes","lastChunk":1}}})");
    }
    void scannedChunkAgreesWithTheGeneralPath()
    {
        QFETCH(bool, rest);
        QFETCH(QByteArray, data);
        const Binding binding = rest ? Binding::HttpJson : Binding::JsonRpc;
        const std::optional<ArtifactChunk> scanned = scanArtifactChunk(binding, data);
        const std::optional<ArtifactChunk> general = generalChunk(binding, data);
        QVERIFY(scanned);
        QVERIFY(general);
        QCOMPARE(describe(*scanned), describe(*general));
    }

    // Everything else is left to the general path, which decides what it is.
    void unusualShapesTakeTheGeneralPath_data()
    {
        QTest::addColumn<bool>("rest");
        QTest::addColumn<QByteArray>("data");
        const auto row = [](const char *name, bool rest, const QByteArray &data) {
            QTest::newRow(name) << rest << data;
        };
        row("error", false, R"({"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"gone"}})");
        row("REST error", true,
            R"({"error":{"code":404,"message":"gone"},"artifactUpdate":{"artifact":{"artifactId":"a","parts":[{"text":"x"}]}}})");
        row("two parts", false,
            R"({"jsonrpc":"2.0","result":{"artifactUpdate":{"artifact":{"artifactId":"a","parts":[{"text":"x"},{"text":"y"}]}}}})");
        row("data part", false,
            R"({"jsonrpc":"2.0","result":{"artifactUpdate":{"artifact":{"artifactId":"a","parts":[{"data":{"k":1}}]}}}})");
        row("no parts", false,
            R"({"jsonrpc":"2.0","result":{"artifactUpdate":{"artifact":{"artifactId":"a","parts":[]}}}})");
        row("text not a string", false,
            R"({"jsonrpc":"2.0","result":{"artifactUpdate":{"artifact":{"artifactId":"a","parts":[{"text":1}]}}}})");
        row("member twice", false,
            R"({"jsonrpc":"2.0","result":{"artifactUpdate":{"artifact":{"artifactId":"a","parts":[{"text":"x","text":"y"}]}}}})");
        row("escaped member name", false,
            R"({"jsonrpc":"2.0","result":{"artifactUpdate":{"artifact":{"artifact\u0049d":"a","parts":[{"text":"x"}]}}}})");
        row("task beside it", false,
            R"({"jsonrpc":"2.0","result":{"task":{"id":"t"},"artifactUpdate":{"artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}})");
        row("status update", false,
            R"({"jsonrpc":"2.0","result":{"kind":"status-update","taskId":"t","status":{}}})");
        row("artifact not an object", false,
            R"({"jsonrpc":"2.0","result":{"artifactUpdate":{"artifact":[]}}})");
        row("cut off", false,
            R"({"jsonrpc":"2.0","result":{"artifactUpdate":{"artifact":{"artifactId":"a","parts":[{"text":"x"}]})");
        row("not UTF-8 elsewhere", false,
            "{\"jsonrpc\":\"2.0\",\"result\":{\"artifactUpdate\":{\"artifact\":{\"artifactId\":\"a\","
            "\"parts\":[{\"text\":\"x\"}]},\"metadata\":\"\xff\"}}}");
    }
    void unusualShapesTakeTheGeneralPath()
    {
        QFETCH(bool, rest);
        QFETCH(QByteArray, data);
        QVERIFY(!scanArtifactChunk(rest ? Binding::HttpJson : Binding::JsonRpc, data));
    }

    // Status updates of the usual shape are read as the general path reads them; hints only
    // save decoding, and ids left out are the only difference.
    void scannedStatusAgreesWithTheGeneralPath_data()
    {
        QTest::addColumn<bool>("rest");
        QTest::addColumn<QByteArray>("data");
        const auto row = [](const char *name, bool rest, const QByteArray &data) {
            QTest::newRow(name) << rest << data;
        };
        row("1.0 with a message", false,
            R"({"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m-1","role":"ROLE_AGENT","parts":[{"text":"step 1"}]}}}}})");
        row("0.3 kind, user role, ids in the message", false,
            R"({"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working","message":{"kind":"message","messageId":"m","taskId":"t","contextId":"c","role":"User","parts":[{"kind":"text","text":"hi"}]}},"final":false}})");
        row("no message", false,
            R"({"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_COMPLETED"}}}})");
        row("no state, message not an object", false,
            R"({"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t","status":{"message":null}}}})");
        row("status not an object", false,
            R"({"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t","status":1}}})");
        row("REST, escaped role", true,
            R"({"statusUpdate":{"taskId":"t","status":{"state":"working","message":{"messageId":"m","role":"user","parts":[{"text":"x"}]}}}})");
        row("odd types", false,
            R"({"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":1,"contextId":null,"status":{"state":5,"message":{"messageId":2,"role":true,"parts":[{"text":"y"}]}}}}})");
    }
    void scannedStatusAgreesWithTheGeneralPath()
    {
        QFETCH(bool, rest);
        QFETCH(QByteArray, data);
        const Binding binding = rest ? Binding::HttpJson : Binding::JsonRpc;
        const std::optional<StatusUpdate> general = generalStatus(binding, data);
        QVERIFY(general);
        const std::optional<ScannedEvent> scanned = scanStreamEvent(binding, data);
        QVERIFY(scanned);
        QCOMPARE(scanned->kind, ScannedEvent::Kind::StatusUpdate);
        QCOMPARE(describe(scanned->status), describe(*general));
        // Hints that match and hints that do not: the same values.
        for (const QString &state : {u"TASK_STATE_WORKING"_s, u"working"_s, u"other"_s}) {
            const std::optional<ScannedEvent> hinted
                = scanStreamEvent(binding, data, ScanHints{true, state, {}});
            QVERIFY(hinted);
            QCOMPARE(describe(hinted->status), describe(*general));
        }
        // Without ids: the ids are empty, the rest is the same.
        const std::optional<ScannedEvent> noIds = scanStreamEvent(binding, data, ScanHints{false, {}, {}});
        QVERIFY(noIds);
        StatusUpdate expected = *general;
        expected.taskId.clear();
        expected.contextId.clear();
        if (expected.status && expected.status->message) {
            expected.status->message->taskId.clear();
            expected.status->message->contextId.clear();
        }
        QCOMPARE(describe(noIds->status), describe(expected));
    }

    void unusualStatusUpdatesTakeTheGeneralPath_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::newRow("two parts") << QByteArray(
            R"({"jsonrpc":"2.0","result":{"statusUpdate":{"status":{"state":"working","message":{"messageId":"m","parts":[{"text":"a"},{"text":"b"}]}}}}})");
        QTest::newRow("content") << QByteArray(
            R"({"jsonrpc":"2.0","result":{"statusUpdate":{"status":{"state":"working","message":{"messageId":"m","content":[{"text":"a"}]}}}}})");
        QTest::newRow("status twice") << QByteArray(
            R"({"jsonrpc":"2.0","result":{"statusUpdate":{"status":{"state":"working"},"status":{"state":"failed"}}}})");
        QTest::newRow("both kinds") << QByteArray(
            R"({"jsonrpc":"2.0","result":{"statusUpdate":{"status":{}},"artifactUpdate":{"artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}})");
        QTest::newRow("bare shape") << QByteArray(R"({"jsonrpc":"2.0","result":{"taskId":"t","status":{}}})");
    }
    void unusualStatusUpdatesTakeTheGeneralPath()
    {
        QFETCH(QByteArray, data);
        QVERIFY(!scanStreamEvent(Binding::JsonRpc, data));
    }

    // An artifact id hint that matches, and one that only looks alike, read as without it.
    void artifactIdHint()
    {
        const QByteArray data
            = R"({"jsonrpc":"2.0","result":{"artifactUpdate":{"artifact":{"artifactId":"r1","parts":[{"text":"x"}]}}}})";
        for (const QString &hint : {u"r1"_s, u"r\u0031"_s, u"r"_s}) {
            const std::optional<ScannedEvent> scanned
                = scanStreamEvent(Binding::JsonRpc, data, ScanHints{true, {}, hint});
            QVERIFY(scanned);
            QCOMPARE(scanned->chunk.artifactId, u"r1"_s);
        }
    }

    // Events that begin with the bytes of one the memo holds, and differ after them in every way
    // the scanner looks at: each reads exactly as without the memo, usual or not. (The bodies of
    // these are outside the class: moc cannot skip raw strings with unbalanced braces.)
    void memoReadsAsAWalkFromTheStart_data() { memoRows(); }
    void memoReadsAsAWalkFromTheStart() { memoRow(); }
    // The memo goes on only from bytes it read under the same binding, and only with more of them.
    void memoKeepsToItsBinding() { memoBinding(); }
    // A long stream of status updates with a few others between them.
    void memoOverAStream() { memoStream(); }
};

QTEST_GUILESS_MAIN(TestA2aScan)
#include "tst_a2a_scan.moc"
