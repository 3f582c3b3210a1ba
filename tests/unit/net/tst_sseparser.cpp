// SPDX-License-Identifier: GPL-3.0-or-later
#include "net/sseparser.h"
#include "testdata.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtTest>

#include <functional>

using namespace Qt::StringLiterals;
using Runwatch::SseEvent;
using Runwatch::SseParser;

namespace {

// What a parser produced, decoded the way the vectors state it (UTF-8 text).
struct Outcome
{
    struct Event
    {
        QString type;
        QString data;
        QString id;
        bool operator==(const Event &) const = default;
    };
    QList<Event> events;
    QString lastEventId;
    std::optional<qint64> retryMs;
    bool ok = true;
    QString error;
};

struct Vector
{
    QString name;
    QByteArray input;
    QList<Outcome::Event> events;
    QString lastEventId;
    std::optional<qint64> retryMs;
};

// Feeds `input` cut at `cuts` (ascending offsets) into a fresh parser.
Outcome parse(QByteArrayView input, const QList<qsizetype> &cuts,
              qsizetype maxEventSize = SseParser::DefaultMaxEventSize)
{
    SseParser parser(maxEventSize);
    Outcome out;
    const auto onEvent = [&out](const SseEvent &e) {
        out.events.append({QString::fromUtf8(e.type), QString::fromUtf8(e.data), QString::fromUtf8(e.id)});
    };
    qsizetype from = 0;
    for (const qsizetype cut : cuts) {
        out.ok = parser.feed(input.sliced(from, cut - from), onEvent) && out.ok;
        from = cut;
    }
    out.ok = parser.feed(input.sliced(from), onEvent) && out.ok;
    out.lastEventId = QString::fromUtf8(parser.lastEventId());
    out.retryMs = parser.retryMs();
    out.error = parser.errorString();
    if (parser.hasError() == out.ok)
        out.error += u" [hasError() disagrees with feed()]"_s;
    return out;
}

QString describe(const Outcome::Event &e)
{
    return u"{type=%1 data=%2 id=%3}"_s.arg(
        e.type, e.data.size() > 60 ? u"<%1 chars>"_s.arg(e.data.size()) : e.data, e.id);
}

// Empty when `got` matches the vector, else what differs.
QString difference(const Vector &want, const Outcome &got)
{
    if (!got.ok)
        return u"parser failed: "_s + got.error;
    if (got.events.size() != want.events.size())
        return u"%1 events instead of %2"_s.arg(got.events.size()).arg(want.events.size());
    for (qsizetype i = 0; i < want.events.size(); ++i) {
        if (!(got.events[i] == want.events[i]))
            return u"event %1 is %2, want %3"_s.arg(i).arg(describe(got.events[i]), describe(want.events[i]));
    }
    if (got.lastEventId != want.lastEventId)
        return u"last event ID '%1', want '%2'"_s.arg(got.lastEventId, want.lastEventId);
    if (got.retryMs != want.retryMs) {
        return u"retry %1, want %2"_s.arg(got.retryMs ? QString::number(*got.retryMs) : u"none"_s,
                                          want.retryMs ? QString::number(*want.retryMs) : u"none"_s);
    }
    return {};
}

// The vectors describe big inputs with a tiny language instead of hex, e.g.
// "bytes 'data:' + 1048576 bytes 'x' + '\n\n'". Anything else is rejected so a new construct
// fails loudly instead of generating the wrong bytes.
std::optional<QByteArray> generate(const QString &spec)
{
    static const QRegularExpression term(u"(?:(\\d+) )?(?:bytes )?'((?:[^'\\\\]|\\\\.)*)'"_s);
    QByteArray out;
    qsizetype pos = 0;
    bool first = true;
    while (pos < spec.size()) {
        if (!first) {
            if (!QStringView(spec).sliced(pos).startsWith(u" + "_s))
                return std::nullopt;
            pos += 3;
        }
        first = false;
        const QRegularExpressionMatch m = term.match(spec, pos, QRegularExpression::NormalMatch,
                                                     QRegularExpression::AnchorAtOffsetMatchOption);
        if (!m.hasMatch())
            return std::nullopt;
        QByteArray literal;
        const QString body = m.captured(2);
        for (qsizetype i = 0; i < body.size(); ++i) {
            QChar c = body[i];
            if (c == u'\\') {
                if (++i == body.size())
                    return std::nullopt;
                switch (body[i].unicode()) {
                case 'n':
                    c = u'\n';
                    break;
                case 'r':
                    c = u'\r';
                    break;
                case 't':
                    c = u'\t';
                    break;
                case '0':
                    c = QChar(0);
                    break;
                case '\\':
                    c = u'\\';
                    break;
                case '\'':
                    c = u'\'';
                    break;
                default:
                    return std::nullopt;
                }
            }
            literal += c.toLatin1();
        }
        out += m.captured(1).isEmpty() ? literal : literal.repeated(m.captured(1).toLongLong());
        pos = m.capturedEnd(0);
    }
    return out;
}

// Every offset for inputs up to 64 KiB (all vectors but one). The 1 MiB vector would need a
// million parses of 1 MiB each, so it gets every offset within 512 bytes of both ends (BOM, field
// name, line and event ends) and a prime stride through the uniform middle.
QList<qsizetype> splitOffsets(qsizetype size)
{
    QList<qsizetype> offsets;
    constexpr qsizetype Dense = 512;
    for (qsizetype i = 0; i <= size; ++i) {
        if (size <= 64 * 1024 || i <= Dense || i >= size - Dense || i % 65521 == 0)
            offsets.append(i);
    }
    return offsets;
}

// A realistic background stream (protocol reference §6.1) with what compatible servers add:
// keep-alive comments and a trailing [DONE].
QByteArray openAiStream()
{
    QByteArray s;
    const auto event = [&s](const char *type, const QByteArray &json) {
        s += "event: "_ba + type + "\ndata: "_ba + json + "\n\n"_ba;
    };
    event("response.created", R"({"type":"response.created","sequence_number":0,"response":{"id":"resp_abc",)"
                              R"("object":"response","status":"queued","background":true,"output":[]}})");
    s += ": keep-alive\n\n";
    event("response.in_progress",
          R"({"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_abc",)"
          R"("object":"response","status":"in_progress","background":true,"output":[]}})");
    const char *const deltas[] = {"Hi", " th\u00e9re", "! \u20ac\U0001F600"};
    qint64 seq = 2;
    for (const char *delta : deltas) {
        event("response.output_text.delta",
              R"({"type":"response.output_text.delta","sequence_number":)"_ba + QByteArray::number(seq++)
                  + R"(,"item_id":"msg_1","output_index":0,"content_index":0,"delta":")"_ba + delta
                  + R"(","logprobs":[]})"_ba);
    }
    s += ":\n";
    // JSON escapes here, raw UTF-8 in the deltas: the parser must pass both through untouched.
    event("response.completed",
          R"({"type":"response.completed","sequence_number":5,"response":{"id":"resp_abc",)"
          R"("object":"response","status":"completed","output":[{"id":"msg_1",)"
          R"("type":"message","content":[{"type":"output_text",)"
          R"("text":"Hi th\u00e9re! \u20ac\ud83d\ude00"}]}]}})");
    s += "data: [DONE]\n\n";
    return s;
}

struct Collected
{
    QList<QByteArray> types;
    QList<QByteArray> data;
    QList<QByteArray> ids;
    void operator()(const SseEvent &e)
    {
        types.append(e.type.toByteArray());
        data.append(e.data.toByteArray());
        ids.append(e.id.toByteArray());
    }
};

} // namespace

class TestSseParser : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void vectors_data();
    void vectors();
    void openAiStream_data();
    void openAiStream();
    void eventInsideChunkIsNotCopied();
    void eventAcrossChunksIsCopiedOnce();
    void limitOnJoinedData();
    void limitOnNeverEndingLine();
    void limitOnLongLineInOneChunk();
    void tinyLimitKeepsMessageType();
    void defaultLimitMessage();
    void resetKeepsIdAndRetry();
    void resetClearsFailureAndRestartsBom();
    void idCommittedByBlankLineAlone();
    void retryEdgeCases();
    void callableKinds();
    void emptyFeeds();

private:
    QList<Vector> m_vectors;
};

void TestSseParser::initTestCase()
{
    const QString path = RunwatchTest::dataPath(u"sse-vectors.json"_s);
    QVERIFY2(QFileInfo::exists(path), qPrintable(path + u" not found"_s));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(RunwatchTest::readData(u"sse-vectors.json"_s), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonArray vectors = doc.object().value("vectors"_L1).toArray();
    QVERIFY(vectors.size() >= 30);
    for (const QJsonValue &value : vectors) {
        const QJsonObject o = value.toObject();
        Vector v;
        v.name = o.value("name"_L1).toString();
        if (o.contains("input_hex"_L1)) {
            v.input = QByteArray::fromHex(o.value("input_hex"_L1).toString().toLatin1());
        } else {
            const auto input = generate(o.value("input_generator"_L1).toString());
            QVERIFY2(input, qPrintable(u"%1: unknown input_generator"_s.arg(v.name)));
            v.input = *input;
        }
        QVERIFY2(!v.input.isEmpty(), qPrintable(v.name));
        for (const QJsonValue &ev : o.value("events"_L1).toArray()) {
            const QJsonObject e = ev.toObject();
            Outcome::Event want{e.value("type"_L1).toString(), e.value("data"_L1).toString(),
                                e.value("last_event_id"_L1).toString()};
            if (e.contains("data_generator"_L1)) {
                const auto data = generate(e.value("data_generator"_L1).toString());
                QVERIFY2(data, qPrintable(u"%1: unknown data_generator"_s.arg(v.name)));
                want.data = QString::fromUtf8(*data);
            }
            v.events.append(want);
        }
        v.lastEventId = o.value("last_event_id"_L1).toString();
        if (o.contains("retry_ms"_L1))
            v.retryMs = o.value("retry_ms"_L1).toInteger();
        m_vectors.append(v);
    }
}

void TestSseParser::vectors_data()
{
    QTest::addColumn<int>("index");
    for (int i = 0; i < m_vectors.size(); ++i)
        QTest::newRow(qPrintable(m_vectors[i].name)) << i;
}

void TestSseParser::vectors()
{
    QFETCH(int, index);
    const Vector &v = m_vectors[index];

    const QString whole = difference(v, parse(v.input, {}));
    QVERIFY2(whole.isEmpty(), qPrintable(u"fed whole: "_s + whole));

    for (const qsizetype cut : splitOffsets(v.input.size())) {
        const QString split = difference(v, parse(v.input, {cut}));
        QVERIFY2(split.isEmpty(), qPrintable(u"split at %1: %2"_s.arg(cut).arg(split)));
    }

    QList<qsizetype> everyByte;
    for (qsizetype i = 1; i < v.input.size(); ++i)
        everyByte.append(i);
    const QString bytewise = difference(v, parse(v.input, everyByte));
    QVERIFY2(bytewise.isEmpty(), qPrintable(u"one byte at a time: "_s + bytewise));
}

void TestSseParser::openAiStream_data()
{
    QTest::addColumn<bool>("crlf");
    QTest::addColumn<int>("chunk");
    for (const bool crlf : {false, true}) {
        for (const int chunk : {0, 1, 2, 3, 7, 64, 171, 4096})
            QTest::addRow("%s chunk %d", crlf ? "CRLF" : "LF", chunk) << crlf << chunk;
    }
}

void TestSseParser::openAiStream()
{
    QFETCH(bool, crlf);
    QFETCH(int, chunk);
    QByteArray stream = ::openAiStream();
    if (crlf)
        stream.replace("\n", "\r\n");

    SseParser parser;
    Collected got;
    if (chunk == 0) {
        QVERIFY(parser.feed(stream, got));
    } else {
        for (qsizetype i = 0; i < stream.size(); i += chunk) {
            QVERIFY(parser.feed(QByteArrayView(stream).sliced(i, qMin<qsizetype>(chunk, stream.size() - i)),
                                got));
        }
    }
    QCOMPARE(parser.bufferedBytes(), qsizetype(0));

    const QList<QByteArray> types{"response.created",
                                  "response.in_progress",
                                  "response.output_text.delta",
                                  "response.output_text.delta",
                                  "response.output_text.delta",
                                  "response.completed",
                                  "message"};
    QCOMPARE(got.types, types);
    QString text;
    for (qsizetype i = 0; i + 1 < got.data.size(); ++i) {
        QJsonParseError error;
        const QJsonObject o = QJsonDocument::fromJson(got.data[i], &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QCOMPARE(o.value("type"_L1).toString().toUtf8(), got.types[i]);
        QCOMPARE(o.value("sequence_number"_L1).toInteger(-1), i);
        if (got.types[i] == "response.output_text.delta")
            text += o.value("delta"_L1).toString();
    }
    QCOMPARE(text, u"Hi th\u00e9re! \u20ac\U0001F600"_s);
    QCOMPARE(got.data.last(), "[DONE]"_ba);
    QVERIFY(parser.lastEventId().isEmpty());
    QVERIFY(!parser.retryMs());
}

void TestSseParser::eventInsideChunkIsNotCopied()
{
    const QByteArray chunk = "event: a\ndata: first\n\nevent: b\ndata: second\n\n"_ba;
    const char *const begin = chunk.constData();
    const char *const end = begin + chunk.size();
    SseParser parser;
    int seen = 0;
    QVERIFY(parser.feed(chunk, [&](const SseEvent &e) {
        ++seen;
        // Views straight into the caller's chunk: nothing was copied.
        QVERIFY(e.data.data() >= begin && e.data.data() + e.data.size() <= end);
        QVERIFY(e.type.data() >= begin && e.type.data() + e.type.size() <= end);
    }));
    QCOMPARE(seen, 2);
    QCOMPARE(parser.bufferedBytes(), qsizetype(0));
}

void TestSseParser::eventAcrossChunksIsCopiedOnce()
{
    SseParser parser;
    Collected got;
    QVERIFY(parser.feed("event: split\ndata: one\ndata: tw", got));
    QVERIFY(got.types.isEmpty());
    // The unfinished event (type, first data line, partial second line) is all that is held.
    QCOMPARE(parser.bufferedBytes(), qsizetype(strlen("split") + strlen("one") + strlen("data: tw")));
    QVERIFY(parser.feed("o\n\ndata: next\n\n", got));
    QCOMPARE(got.types, (QList<QByteArray>{"split", "message"}));
    QCOMPARE(got.data, (QList<QByteArray>{"one\ntwo", "next"}));
    QCOMPARE(parser.bufferedBytes(), qsizetype(0));
}

void TestSseParser::limitOnJoinedData()
{
    constexpr qsizetype Limit = 1024;
    const QByteArray line = "data: "_ba + QByteArray(511, 'x') + "\n"_ba;
    SseParser parser(Limit);
    Collected got;
    // Exactly at the limit is fine: 511 + '\n' + 511 + ... let the last line top it up to 1024.
    QVERIFY(parser.feed(QByteArray(line + "data: "_ba + QByteArray(512, 'y') + "\n\n"_ba), got));
    QCOMPARE(got.data.size(), 1);
    QCOMPARE(got.data[0].size(), Limit);

    // One byte more fails the stream; the event before it is still delivered.
    const QByteArray over = "data: ok\n\n"_ba + line + "data: "_ba + QByteArray(513, 'z') + "\n\n"_ba;
    QVERIFY(!parser.feed(over, got));
    QCOMPARE(got.data.size(), 2);
    QCOMPARE(got.data[1], "ok"_ba);
    QVERIFY(parser.hasError());
    QCOMPARE(parser.errorString(), u"SSE event exceeds the 1 KiB limit"_s);
    QCOMPARE(parser.bufferedBytes(), qsizetype(0));
    // Failed for good: later input is ignored.
    QVERIFY(!parser.feed("data: late\n\n", got));
    QCOMPARE(got.data.size(), 2);
}

void TestSseParser::limitOnNeverEndingLine()
{
    constexpr qsizetype Limit = 4096;
    SseParser parser(Limit);
    const QByteArray piece(100, 'x');
    int events = 0;
    const auto onEvent = [&events](const SseEvent &) { ++events; };
    QVERIFY(parser.feed("data: before\n\ndata: ", onEvent));
    qsizetype fed = 6;
    int pieces = 0;
    while (parser.feed(piece, onEvent)) {
        fed += piece.size();
        QVERIFY(parser.bufferedBytes() <= Limit);
        QCOMPARE(parser.bufferedBytes(), fed);
        QVERIFY2(++pieces < 1000, "the limit never tripped");
    }
    // "data: " + 40 pieces = 4006 bytes fit; the 41st piece would take the line past 4096.
    QCOMPARE(pieces, 40);
    QCOMPARE(events, 1);
    QVERIFY(parser.hasError());
    QCOMPARE(parser.errorString(), u"SSE event line exceeds the 4 KiB limit"_s);
    QCOMPARE(parser.bufferedBytes(), qsizetype(0));
}

void TestSseParser::limitOnLongLineInOneChunk()
{
    // A complete line longer than the limit fails just as a partial one does, so the outcome does
    // not depend on how the bytes were chunked.
    const QByteArray input = "data: a\n\n: "_ba + QByteArray(1000, 'c') + "\ndata: b\n\n"_ba;
    QList<qsizetype> everyByte;
    for (qsizetype i = 1; i < input.size(); ++i)
        everyByte.append(i);
    for (const auto &cuts : {QList<qsizetype>{}, QList<qsizetype>{20}, everyByte}) {
        const Outcome out = parse(input, cuts, 1000);
        QVERIFY(!out.ok);
        QCOMPARE(out.error, u"SSE event line exceeds the 1000-byte limit"_s);
        QCOMPARE(out.events.size(), 1);
        QCOMPARE(out.events[0].data, u"a"_s);
    }
    QVERIFY(parse(input, {}, 1002).ok);
}

void TestSseParser::tinyLimitKeepsMessageType()
{
    // From fuzz_sse (corpus/sse/regression-tiny-limit-message-type): with a 5-byte limit the
    // default type "message" is longer than any line may be; it is still the type, and every
    // chunking agrees.
    const QByteArray input = "\x0f"
                             "d:9\n\ndata:\nidx\n:\n\nid:\n29\n\ndata:\nid\n\n"_ba;
    const Vector want{u"tiny"_s, input, {{u"message"_s, {}, {}}, {u"message"_s, {}, {}}}, {}, {}};
    QList<qsizetype> everyByte;
    for (qsizetype i = 1; i < input.size(); ++i)
        everyByte.append(i);
    for (const auto &cuts : {QList<qsizetype>{}, QList<qsizetype>{7}, everyByte}) {
        const QString diff = difference(want, parse(input, cuts, 5));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }
    // A 12-byte line is over it.
    QVERIFY(!parse(QByteArray(input + "data: 123456\n\n"_ba), {}, 5).ok);
}

void TestSseParser::defaultLimitMessage()
{
    SseParser parser;
    QCOMPARE(parser.maxEventSize(), qsizetype(32 * 1024 * 1024));
    const QByteArray mib(1024 * 1024, 'x');
    int events = 0;
    const auto onEvent = [&events](const SseEvent &) { ++events; };
    QVERIFY(parser.feed("data:", onEvent));
    int fed = 0;
    while (parser.feed(mib, onEvent))
        QVERIFY(++fed < 40);
    QCOMPARE(fed, 31); // "data:" + 31 MiB fits, one more MiB does not
    QCOMPARE(parser.errorString(), u"SSE event line exceeds the 32 MiB limit"_s);
    QCOMPARE(events, 0);

    parser.setMaxEventSize(1024 * 1024);
    QCOMPARE(parser.maxEventSize(), qsizetype(1024 * 1024));
    parser.setMaxEventSize(0);
    QCOMPARE(parser.maxEventSize(), qsizetype(1));
}

void TestSseParser::resetKeepsIdAndRetry()
{
    SseParser parser;
    Collected got;
    QVERIFY(parser.feed("id: 7\nretry: 3000\ndata: a\n\nid: 8\nevent: x\ndata: partial", got));
    QCOMPARE(parser.lastEventId(), "7"_ba);
    QVERIFY(parser.bufferedBytes() > 0);

    parser.reset(); // connection lost; the uncommitted id 8 and the partial event are gone
    QCOMPARE(parser.bufferedBytes(), qsizetype(0));
    QCOMPARE(parser.lastEventId(), "7"_ba);
    QCOMPARE(parser.retryMs().value_or(-1), 3000);
    // A blank line before any id: on the new connection does not lose the committed ID.
    QVERIFY(parser.feed("\xEF\xBB\xBF: hello\n\ndata: b\n\n", got));
    QCOMPARE(got.data, (QList<QByteArray>{"a", "b"}));
    QCOMPARE(got.types, (QList<QByteArray>{"message", "message"}));
    QCOMPARE(got.ids, (QList<QByteArray>{"7", "7"}));
    QCOMPARE(parser.lastEventId(), "7"_ba);
}

void TestSseParser::resetClearsFailureAndRestartsBom()
{
    SseParser parser(16);
    Collected got;
    QVERIFY(!parser.feed("data: 0123456789abcdef\n\n", got));
    QVERIFY(parser.hasError());
    parser.reset();
    QVERIFY(!parser.hasError());
    QVERIFY(parser.errorString().isEmpty());
    // Each connection is a new stream and may open with its own BOM, split over reads.
    QVERIFY(parser.feed("\xEF", got));
    QVERIFY(parser.feed("\xBB", got));
    QVERIFY(parser.feed("\xBF"
                        "data: ok\n\n",
                        got));
    QCOMPARE(got.data, QList<QByteArray>{"ok"});
    // Bytes that only start like a BOM are part of the first line (an unknown field here).
    parser.reset();
    QVERIFY(parser.feed("\xEF\xBB", got));
    QVERIFY(parser.feed("data: no\n\ndata: yes\n\n", got));
    QCOMPARE(got.data, (QList<QByteArray>{"ok", "yes"}));
}

void TestSseParser::idCommittedByBlankLineAlone()
{
    SseParser parser;
    Collected got;
    QVERIFY(parser.feed("id: 5\n\n", got));
    QVERIFY(got.data.isEmpty());
    QCOMPARE(parser.lastEventId(), "5"_ba);
    QVERIFY(parser.feed("id: 6\ndata: x", got)); // not committed before its blank line
    QCOMPARE(parser.lastEventId(), "5"_ba);
    QVERIFY(parser.feed("\n\nid\n\n", got)); // a colonless id line sets the empty ID
    QCOMPARE(got.ids, QList<QByteArray>{"6"});
    QCOMPARE(parser.lastEventId(), QByteArray());
}

void TestSseParser::retryEdgeCases()
{
    const auto retryOf = [](const QByteArray &input) { return parse(input, {}).retryMs.value_or(-1); };
    QCOMPARE(retryOf("retry: 0\n"), 0);
    QCOMPARE(retryOf("data: x\n\n"), -1);
    QCOMPARE(retryOf("retry:000150\n"), 150);
    QCOMPARE(retryOf("retry: 9223372036854775807\n"), std::numeric_limits<qint64>::max());
    QCOMPARE(retryOf("retry: 10\nretry: 9223372036854775808\n"), 10); // too large: ignored
    QCOMPARE(retryOf("retry: 10\nretry:\n"), 10);                     // empty: ignored
    QCOMPARE(retryOf("retry: 10\nretry\n"), 10);
    QCOMPARE(retryOf("retry: 10\nretry: 1 2\n"), 10);
    // Applied at once, not at dispatch, and kept when the event is never completed.
    QCOMPARE(retryOf("data: x\nretry: 5\n"), 5);
}

void TestSseParser::callableKinds()
{
    const QByteArray input = "data: 1\n\ndata: 2\n\n";
    SseParser parser;

    int count = 0;
    const auto constLambda = [&count](const SseEvent &) { ++count; };
    QVERIFY(parser.feed(input, constLambda));
    QCOMPARE(count, 2);

    QByteArray joined;
    QVERIFY(parser.feed(input, [calls = 0, &joined](const SseEvent &e) mutable {
        joined += e.data + QByteArray::number(++calls);
    }));
    QCOMPARE(joined, "1122"_ba);

    std::function<void(const SseEvent &)> function = [&count](const SseEvent &) { count += 10; };
    QVERIFY(parser.feed(input, function));
    QCOMPARE(count, 22);

    // A callback that returns something is fine; the value is ignored.
    QVERIFY(parser.feed(input, [&count](const SseEvent &) { return ++count; }));
    QCOMPARE(count, 24);
}

void TestSseParser::emptyFeeds()
{
    SseParser parser;
    Collected got;
    QVERIFY(parser.feed(QByteArrayView(), got));
    QVERIFY(parser.feed("data: a\r", got));
    QVERIFY(parser.feed(QByteArrayView(), got)); // does not forget the pending \r
    QVERIFY(parser.feed("\n", got));             // ... which pairs with this \n
    QVERIFY(parser.feed("\n", got));             // so this one is the blank line
    QCOMPARE(got.data, QList<QByteArray>{"a"});
    QCOMPARE(parser.bufferedBytes(), qsizetype(0));
}

QTEST_GUILESS_MAIN(TestSseParser)
#include "tst_sseparser.moc"
