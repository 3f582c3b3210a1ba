// SPDX-License-Identifier: GPL-3.0-or-later
// Http1ResponseParser (core/net/http1response.*): the HTTP/1.1 framing of event streams read by
// the stream pump. Every case is fed whole, in two pieces at every split point and one byte at a
// time: chunking must never change the result.
#include "net/http1response.h"

#include <QTest>

using namespace Qt::StringLiterals;
using Runwatch::Http1ResponseParser;
using State = Http1ResponseParser::State;

namespace {

struct Result
{
    State state = State::StatusLine;
    int status = 0;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    QString error;
    bool operator==(const Result &) const = default;
};

// Feeds `pieces`, then (when `close`) reports the connection closed.
Result parse(const QList<QByteArray> &pieces, bool close, bool head = false)
{
    Http1ResponseParser parser(head);
    Result r;
    for (const QByteArray &piece : pieces)
        parser.feed(piece, r.body);
    if (close)
        parser.closed();
    r.state = parser.state();
    r.status = parser.status();
    r.headers = parser.headers();
    r.error = parser.errorString();
    return r;
}

// The same bytes in every chunking give the same result; returns it.
Result parseEveryWay(const QByteArray &wire, bool close, bool head = false)
{
    const Result whole = parse({wire}, close, head);
    for (qsizetype split = 1; split < wire.size(); ++split) {
        const Result two = parse({wire.left(split), wire.mid(split)}, close, head);
        if (!(two == whole))
            qFatal("split at %lld changed the result", static_cast<long long>(split));
    }
    QList<QByteArray> bytes;
    for (char c : wire)
        bytes.append(QByteArray(1, c));
    if (!(parse(bytes, close, head) == whole))
        qFatal("one byte at a time changed the result");
    return whole;
}

QByteArray header(const Result &r, QByteArrayView name)
{
    for (const auto &h : r.headers) {
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return {};
}

} // namespace

class TestHttp1Response final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void chunkedEventStream()
    {
        const QByteArray wire = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                "Transfer-Encoding: chunked\r\nX-Request-Id:  req_1 \r\n\r\n"
                                "d\r\ndata: hello\n\n\r\n"
                                "7;name=\"x\"\r\ndata: w\r\n"
                                "3\r\n\n\n!\r\n"
                                "0\r\nX-Checksum: abc\r\n\r\n";
        const Result r = parseEveryWay(wire, false);
        QCOMPARE(r.state, State::Done);
        QCOMPARE(r.status, 200);
        QCOMPARE(r.body, QByteArray("data: hello\n\ndata: w\n\n!"));
        QCOMPARE(header(r, "x-request-id"), QByteArray("req_1")); // OWS trimmed
        QCOMPARE(header(r, "content-type"), QByteArray("text/event-stream"));
        QVERIFY(header(r, "x-checksum").isEmpty()); // trailers are not headers
    }

    void chunkedCutShortIsAnError()
    {
        const QByteArray wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel";
        const Result open = parseEveryWay(wire, false);
        QCOMPARE(open.state, State::Body);
        QCOMPARE(open.body, QByteArray("hel")); // what arrived is handed out at once
        const Result closed = parseEveryWay(wire, true);
        QCOMPARE(closed.state, State::Failed);
        QCOMPARE(closed.body, QByteArray("hel"));
        QVERIFY(closed.error.contains(u"closed"_s));
    }

    void contentLength()
    {
        const Result r = parseEveryWay("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n"
                                       "Retry-After: 2\r\n\r\nbusyIGNORED",
                                       false);
        QCOMPARE(r.state, State::Done);
        QCOMPARE(r.status, 503);
        QCOMPARE(r.body, QByteArray("busy"));
        QCOMPARE(header(r, "retry-after"), QByteArray("2"));

        const Result cut = parseEveryWay("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", true);
        QCOMPARE(cut.state, State::Failed);
        QCOMPARE(cut.body, QByteArray("abc"));

        const Result same = parseEveryWay("HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok", false);
        QCOMPARE(same.state, State::Done);
        QCOMPARE(same.body, QByteArray("ok"));
    }

    void closeDelimited()
    {
        const QByteArray wire
            = "HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: a\n\ndata: b\n\n";
        const Result open = parseEveryWay(wire, false);
        QCOMPARE(open.state, State::Body);
        const Result closed = parseEveryWay(wire, true);
        QCOMPARE(closed.state, State::Done);
        QCOMPARE(closed.body, QByteArray("data: a\n\ndata: b\n\n"));
    }

    void transferEncodingOverridesLength()
    {
        // RFC 9112 §6.3: chunked wins over Content-Length; a non-chunked final coding reads to
        // the close.
        const Result chunked = parseEveryWay("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: "
                                             "chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
                                             false);
        QCOMPARE(chunked.state, State::Done);
        QCOMPARE(chunked.body, QByteArray("ok"));
        const Result gzip = parseEveryWay(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 1\r\n\r\nabc", true);
        QCOMPARE(gzip.state, State::Done);
        QCOMPARE(gzip.body, QByteArray("abc"));
    }

    void interimResponsesSkipped()
    {
        const Result r
            = parseEveryWay("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                            "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
                            false);
        QCOMPARE(r.state, State::Done);
        QCOMPARE(r.status, 201);
        QCOMPARE(r.headers.size(), 1); // the interim response's Link is gone
        QCOMPARE(r.body, QByteArray("ok"));
        QCOMPARE(parseEveryWay("HTTP/1.1 101 Switching Protocols\r\n\r\n", false).state, State::Failed);
    }

    void responsesWithoutBody()
    {
        QCOMPARE(parseEveryWay("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", false).state,
                 State::Done);
        QCOMPARE(parseEveryWay("HTTP/1.1 304 Not Modified\r\n\r\n", false).state, State::Done);
        const Result head = parseEveryWay("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", false, true);
        QCOMPARE(head.state, State::Done);
        QVERIFY(head.body.isEmpty());
    }

    void lenientWhereTheRfcAllows()
    {
        // Bare LF line ends, leading empty lines, a missing reason phrase, obs-fold.
        const Result r = parseEveryWay("\r\nHTTP/1.1 200\nX-A: one\n  two\nContent-Length: 1\n\nz", false);
        QCOMPARE(r.state, State::Done);
        QCOMPARE(r.status, 200);
        QCOMPARE(header(r, "x-a"), QByteArray("one two"));
        QCOMPARE(r.body, QByteArray("z"));
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("wire");
        QTest::newRow("html instead of HTTP") << QByteArray("<html><body>hi</body></html>\r\n");
        QTest::newRow("HTTP/2 preface") << QByteArray("PRI * HTTP/2.0\r\n\r\n");
        QTest::newRow("status not digits") << QByteArray("HTTP/1.1 2x0 OK\r\n\r\n");
        QTest::newRow("status too short") << QByteArray("HTTP/1.1 20\r\n\r\n");
        QTest::newRow("status 099") << QByteArray("HTTP/1.1 099 Low\r\n\r\n");
        QTest::newRow("header without colon") << QByteArray("HTTP/1.1 200 OK\r\nNoColon\r\n\r\n");
        QTest::newRow("space in header name") << QByteArray("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n");
        QTest::newRow("fold without field") << QByteArray("HTTP/1.1 200 OK\r\n folded\r\n\r\n");
        QTest::newRow("conflicting lengths")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd");
        QTest::newRow("negative length") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n");
        QTest::newRow("huge length") << QByteArray(
            "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n");
        QTest::newRow("bad chunk size")
            << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
        QTest::newRow("chunk size overflow")
            << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n");
        QTest::newRow("no CRLF after chunk")
            << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokX\r\n");
    }
    void malformed()
    {
        QFETCH(QByteArray, wire);
        const Result r = parseEveryWay(wire, false);
        QCOMPARE(r.state, State::Failed);
        QVERIFY(!r.error.isEmpty());
    }

    void goodChunksBeforeABadOneAreKept()
    {
        const Result r
            = parseEveryWay("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n", false);
        QCOMPARE(r.state, State::Failed);
        QCOMPARE(r.body, QByteArray("abc"));
    }

    // A server that never ends its header section, or a chunk-size line, cannot make us buffer
    // without bound.
    void limits()
    {
        QByteArray endless = "HTTP/1.1 200 OK\r\n";
        while (endless.size() <= Http1ResponseParser::MaxHeaderBytes)
            endless += "X-Filler: 0123456789012345678901234567890123456789\r\n";
        QCOMPARE(parse({endless}, false).state, State::Failed);
        QVERIFY(parse({endless}, false).error.contains(u"larger than"_s));

        QByteArray oneLine
            = "HTTP/1.1 200 OK\r\nX-Long: " + QByteArray(Http1ResponseParser::MaxHeaderBytes, 'a');
        QCOMPARE(parse({oneLine}, false).state, State::Failed);

        const QByteArray longSize
            = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + QByteArray(5000, '0');
        QCOMPARE(parse({longSize}, false).state, State::Failed);
    }

    // After the end, later bytes (a server that keeps talking) are ignored, not appended.
    void bytesAfterTheEndIgnored()
    {
        Http1ResponseParser parser;
        QByteArray body;
        QVERIFY(parser.feed("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", body));
        QVERIFY(parser.isDone());
        QVERIFY(parser.feed("HTTP/1.1 200 OK\r\n\r\nmore", body));
        QCOMPARE(body, QByteArray("ok"));
        QVERIFY(parser.closed());
    }
};

QTEST_GUILESS_MAIN(TestHttp1Response)
#include "tst_http1response.moc"
