// SPDX-License-Identifier: GPL-3.0-or-later
// How the A2aMapper assembles a task's artifacts into the primary text (§6: append, replace,
// lastChunk; artifacts in order of first appearance, a blank line between them). Chunks that
// extend the text at its end are mapped without composing the whole text again (issue 25); these
// tests hold that path to the same events as composing everything after every chunk, which is
// what the mapper did before and what `Composer` below still does.
#include "backends/a2a/a2amapper.h"
#include "backends/a2a/a2areply.h"
#include "backends/a2a/a2ascan.h"
#include "domain/runreducer.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <QtTest>

using namespace Runwatch;
using namespace Runwatch::A2a;
using namespace Qt::StringLiterals;

namespace {

QJsonObject artifactUpdate(const QString &id, const QString &text, bool append, bool last = false)
{
    QJsonObject artifact{{u"artifactId"_s, id}, {u"parts"_s, QJsonArray{QJsonObject{{u"text"_s, text}}}}};
    QJsonObject event{{u"taskId"_s, u"t"_s}, {u"artifact"_s, artifact}};
    if (append)
        event.insert(u"append"_s, true);
    if (last)
        event.insert(u"lastChunk"_s, true);
    return QJsonObject{{u"artifactUpdate"_s, event}};
}

QJsonObject task(const QList<std::pair<QString, QString>> &artifacts)
{
    QJsonArray list;
    for (const auto &[id, text] : artifacts)
        list << QJsonObject{{u"artifactId"_s, id}, {u"parts"_s, QJsonArray{QJsonObject{{u"text"_s, text}}}}};
    return QJsonObject{{u"task"_s, QJsonObject{{u"id"_s, u"t"_s},
                                               {u"status"_s, QJsonObject{{u"state"_s, u"working"_s}}},
                                               {u"artifacts"_s, list}}}};
}

// Only the primary text's events: the identity and status events are not what this is about.
QList<RunEvent> primaryOf(const QList<RunEvent> &events)
{
    QList<RunEvent> out;
    for (const RunEvent &e : events) {
        if (e.type == RunEvent::Type::PrimaryDelta || e.type == RunEvent::Type::PrimarySnapshot)
            out << e;
    }
    return out;
}

QList<RunEvent> apply(A2aMapper &mapper, const QJsonObject &item)
{
    QList<RunEvent> events;
    mapper.apply(classify(item), events);
    return primaryOf(events);
}

// The assembly as the mapper did it before issue 25: every chunk composes the whole text and
// compares it with what went out.
class Composer
{
public:
    QList<RunEvent> update(const QString &id, const QString &text, bool append)
    {
        auto it = std::find_if(m_artifacts.begin(), m_artifacts.end(),
                               [&](const auto &a) { return a.first == id; });
        bool extendsOnly = true;
        if (it == m_artifacts.end()) {
            m_artifacts.append({id, text});
        } else if (append) {
            it->second += text;
        } else {
            extendsOnly = it->second.isEmpty();
            it->second = text;
        }
        return compose(!extendsOnly);
    }
    QList<RunEvent> snapshot(const QList<std::pair<QString, QString>> &artifacts)
    {
        m_artifacts.clear();
        for (const auto &artifact : artifacts) {
            auto it = std::find_if(m_artifacts.begin(), m_artifacts.end(),
                                   [&](const auto &a) { return a.first == artifact.first; });
            if (it != m_artifacts.end()) {
                it->second += artifact.second;
            } else {
                m_artifacts.append(artifact);
            }
        }
        return compose(true);
    }
    const QString &emitted() const { return m_emitted; }

private:
    QList<RunEvent> compose(bool snapshot)
    {
        QString text;
        bool first = true;
        for (const auto &a : std::as_const(m_artifacts)) {
            if (a.second.isEmpty())
                continue;
            if (!first)
                text += u"\n\n"_s;
            text += a.second;
            first = false;
        }
        QList<RunEvent> out;
        if (snapshot) {
            if (text != m_emitted && m_emitted.startsWith(text))
                m_shrank = true;
            if (!text.isEmpty())
                out << RunEvent::primarySnapshot(text);
        } else if (text != m_emitted) {
            if (m_emitted.startsWith(text))
                m_shrank = true;
            out << (text.startsWith(m_emitted) && !m_shrank
                        ? RunEvent::primaryDelta(text.mid(m_emitted.size()))
                        : RunEvent::primarySnapshot(text));
        }
        m_emitted = text;
        return out;
    }

    QList<std::pair<QString, QString>> m_artifacts;
    QString m_emitted;
    bool m_shrank = false;
};

void compareEvents(const QList<RunEvent> &actual, const QList<RunEvent> &expected, const QString &where)
{
    QVERIFY2(actual.size() == expected.size(), qPrintable(where));
    for (qsizetype i = 0; i < actual.size(); ++i) {
        QVERIFY2(actual.at(i).type == expected.at(i).type, qPrintable(where));
        QVERIFY2(actual.at(i).text == expected.at(i).text, qPrintable(where));
    }
}

// What the general path (QJsonDocument, classify, the event's members) reads from `data`.
std::optional<ArtifactChunk> generalChunk(Binding binding, const QByteArray &data)
{
    const Reply reply = decodeReply(binding, data);
    if (!reply.ok())
        return std::nullopt;
    const StreamItem item = classify(reply.result);
    if (item.kind != StreamItem::Kind::ArtifactUpdate)
        return std::nullopt;
    return artifactChunkOf(item.object);
}

// What the general path reads from a status-update reply.
std::optional<StatusUpdate> generalStatus(Binding binding, const QByteArray &data)
{
    const Reply reply = decodeReply(binding, data);
    if (!reply.ok())
        return std::nullopt;
    const StreamItem item = classify(reply.result);
    if (item.kind != StreamItem::Kind::StatusUpdate)
        return std::nullopt;
    return statusUpdateOf(item.object);
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

} // namespace

class TestA2aArtifacts final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The usual stream: every chunk goes out as a delta of exactly that chunk.
    void appendedChunksAreTheirOwnDeltas()
    {
        A2aMapper mapper;
        Run run;
        QString expected;
        for (int i = 0; i < 5000; ++i) {
            const QString chunk = u"tok%1 "_s.arg(i);
            const QList<RunEvent> events = apply(mapper, artifactUpdate(u"r"_s, chunk, i > 0));
            QCOMPARE(events.size(), 1);
            QCOMPARE(events.first().type, RunEvent::Type::PrimaryDelta);
            QCOMPARE(events.first().text, chunk);
            applyEvent(run, events.first());
            expected += chunk;
        }
        QCOMPARE(mapper.primaryText(), expected);
        QCOMPARE(run.primaryText, expected);
        QCOMPARE(run.reconciliations, 0);
        // Empty chunks change nothing and say nothing.
        QVERIFY(apply(mapper, artifactUpdate(u"r"_s, {}, true)).isEmpty());
        QVERIFY(apply(mapper, artifactUpdate(u"empty"_s, {}, false)).isEmpty());
        QCOMPARE(mapper.primaryText(), expected);
    }

    // A second artifact starts after a blank line; an earlier one growing changes the middle
    // (a snapshot); the last one growing is a delta again.
    void artifactsInOrderOfFirstAppearance()
    {
        A2aMapper mapper;
        Run run;
        const auto step = [&](const QJsonObject &item, RunEvent::Type type, const QString &text) {
            const QList<RunEvent> events = apply(mapper, item);
            QCOMPARE(events.size(), 1);
            QCOMPARE(events.first().type, type);
            QCOMPARE(events.first().text, text);
            applyEvent(run, events.first());
            QCOMPARE(run.primaryText, mapper.primaryText());
        };
        step(artifactUpdate(u"a"_s, u"A"_s, false), RunEvent::Type::PrimaryDelta, u"A"_s);
        step(artifactUpdate(u"b"_s, u"B"_s, true), RunEvent::Type::PrimaryDelta, u"\n\nB"_s);
        step(artifactUpdate(u"b"_s, u"b"_s, true), RunEvent::Type::PrimaryDelta, u"b"_s);
        step(artifactUpdate(u"a"_s, u"a"_s, true), RunEvent::Type::PrimarySnapshot, u"Aa\n\nBb"_s);
        step(artifactUpdate(u"b"_s, u"!"_s, true, true), RunEvent::Type::PrimaryDelta, u"!"_s);
        // After the last chunk of one artifact the next one starts after a blank line.
        step(artifactUpdate(u"c"_s, u"C"_s, true, true), RunEvent::Type::PrimaryDelta, u"\n\nC"_s);
        QCOMPARE(mapper.primaryText(), u"Aa\n\nBb!\n\nC"_s);
        QCOMPARE(mapper.artifactCount(), 3);
    }

    // A chunk without append replaces its artifact: a snapshot when it had text, a delta when it
    // was empty (nothing to replace). A shorter replacement makes only snapshots go out.
    void replaceAndShrink()
    {
        A2aMapper mapper;
        QCOMPARE(apply(mapper, artifactUpdate(u"a"_s, {}, false)).size(), 0);
        QList<RunEvent> events = apply(mapper, artifactUpdate(u"a"_s, u"first"_s, false));
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first().type, RunEvent::Type::PrimaryDelta);
        events = apply(mapper, artifactUpdate(u"a"_s, u"first, longer"_s, false));
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first().type, RunEvent::Type::PrimarySnapshot);
        QCOMPARE(events.first().text, u"first, longer"_s);
        QVERIFY(!mapper.shrank());
        events = apply(mapper, artifactUpdate(u"a"_s, u"first"_s, false));
        QCOMPARE(events.first().type, RunEvent::Type::PrimarySnapshot);
        QVERIFY(mapper.shrank());
        // From here the run holds text the agent no longer has: a delta would land after it.
        events = apply(mapper, artifactUpdate(u"a"_s, u"!"_s, true));
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first().type, RunEvent::Type::PrimarySnapshot);
        QCOMPARE(events.first().text, u"first!"_s);
        events = apply(mapper, artifactUpdate(u"b"_s, u"B"_s, true));
        QCOMPARE(events.first().type, RunEvent::Type::PrimarySnapshot);
        QCOMPARE(events.first().text, u"first!\n\nB"_s);
    }

    // A Task snapshot replaces what was assembled (entries of one id add up, empty artifacts
    // take no place); chunks after it extend the snapshot's text.
    void chunksAfterATaskSnapshot()
    {
        A2aMapper mapper;
        apply(mapper, artifactUpdate(u"old"_s, u"gone"_s, false));
        QList<RunEvent> events
            = apply(mapper, task({{u"a"_s, u"A1"_s}, {u"e"_s, {}}, {u"a"_s, u"A2"_s}, {u"c"_s, u"C"_s}}));
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first().type, RunEvent::Type::PrimarySnapshot);
        QCOMPARE(events.first().text, u"A1A2\n\nC"_s);
        events = apply(mapper, artifactUpdate(u"c"_s, u"c"_s, true));
        QCOMPARE(events.first().type, RunEvent::Type::PrimaryDelta);
        QCOMPARE(events.first().text, u"c"_s);
        // The empty artifact between them fills in the middle.
        events = apply(mapper, artifactUpdate(u"e"_s, u"E"_s, true));
        QCOMPARE(events.first().type, RunEvent::Type::PrimarySnapshot);
        QCOMPARE(events.first().text, u"A1A2\n\nE\n\nCc"_s);
        events = apply(mapper, artifactUpdate(u"old"_s, u"new"_s, true));
        QCOMPARE(events.first().type, RunEvent::Type::PrimaryDelta);
        QCOMPARE(events.first().text, u"\n\nnew"_s);
        QCOMPARE(mapper.artifactCount(), 4);
    }

    // Many artifacts: each chunk finds its own.
    void manyArtifacts()
    {
        A2aMapper mapper;
        Run run;
        for (int i = 0; i < 3000; ++i) {
            for (const RunEvent &e : apply(mapper, artifactUpdate(u"art-%1"_s.arg(i), u"%1"_s.arg(i), false)))
                applyEvent(run, e);
        }
        QCOMPARE(mapper.artifactCount(), 3000);
        QStringList parts;
        for (int i = 0; i < 3000; ++i)
            parts << u"%1"_s.arg(i);
        QCOMPARE(run.primaryText, parts.join(u"\n\n"_s));
        for (const int i : {0, 1500, 2999}) {
            for (const RunEvent &e : apply(mapper, artifactUpdate(u"art-%1"_s.arg(i), u"+"_s, true)))
                applyEvent(run, e);
            parts[i] += u"+"_s;
        }
        QCOMPARE(mapper.artifactCount(), 3000);
        QCOMPARE(mapper.primaryText(), parts.join(u"\n\n"_s));
        QCOMPARE(run.primaryText, mapper.primaryText());
    }

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

    // Random sequences of chunks and snapshots give exactly the events of composing the whole
    // text after every one.
    void sameEventsAsComposingEverything()
    {
        const QStringList ids{u"a"_s, u"b"_s, u"c"_s, u"d"_s};
        const QStringList texts{u""_s, u"x"_s, u"yz"_s, u"a longer chunk"_s, u"\n"_s};
        for (quint32 seed = 1; seed <= 40; ++seed) {
            QRandomGenerator random(seed);
            A2aMapper mapper;
            Composer reference;
            Run run;
            for (int op = 0; op < 300; ++op) {
                const QString where = u"seed %1, op %2"_s.arg(seed).arg(op);
                QList<RunEvent> actual;
                QList<RunEvent> expected;
                if (random.bounded(25) == 0) {
                    QList<std::pair<QString, QString>> artifacts;
                    for (int n = int(random.bounded(4)); n > 0; --n) {
                        artifacts.append(
                            {ids.at(random.bounded(ids.size())), texts.at(random.bounded(texts.size()))});
                    }
                    actual = apply(mapper, task(artifacts));
                    expected = reference.snapshot(artifacts);
                } else {
                    const QString id = ids.at(random.bounded(ids.size()));
                    const QString text = texts.at(random.bounded(texts.size()));
                    const bool append = random.bounded(5) != 0;
                    actual = apply(mapper, artifactUpdate(id, text, append, random.bounded(3) == 0));
                    expected = reference.update(id, text, append);
                }
                compareEvents(actual, expected, where);
                if (QTest::currentTestFailed())
                    return;
                QCOMPARE(mapper.primaryText(), reference.emitted());
                for (const RunEvent &e : std::as_const(actual))
                    applyEvent(run, e);
                if (!mapper.shrank())
                    QCOMPARE(run.primaryText, mapper.primaryText());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestA2aArtifacts)
#include "tst_a2a_artifacts.moc"
