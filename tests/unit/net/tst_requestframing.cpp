// SPDX-License-Identifier: GPL-3.0-or-later
// A line break (CR, LF) or a NUL in a header name or value, the method or the URL would let a key,
// a token command's output or a server-chosen header name write header lines of its own onto the
// wire. HttpClient refuses such a request before it is sent, on both transports: QNAM (every
// buffered request) and the stream pump (event streams). The server must see nothing at all.
#include "net/httpclient.h"

#include "awaitwithin.h"
#include "scriptedserver.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace Runwatch;
using RunwatchTest::awaitWithin;
using RunwatchTest::ScriptedReply;
using RunwatchTest::ScriptedServer;

class TestRequestFraming final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void refusedBeforeSending_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<bool>("stream");
        QTest::addColumn<QString>("field");
        const QList<std::pair<const char *, bool>> transports{{"QNAM", false}, {"stream pump", true}};
        for (const auto &entry : transports) {
            // Named copies: clang 14 (clang-tidy's) cannot capture a structured binding in a lambda.
            const char *transport = entry.first;
            const bool stream = entry.second;
            const auto row
                = [&](const char *what) -> QTestData & { return QTest::addRow("%s, %s", transport, what); };
            row("CRLF in a key") << QByteArray("Authorization") << QByteArray("Bearer sk-1\r\nX-Injected: 1")
                                 << stream << u"the value of header \"Authorization\""_s;
            row("bare LF in a value") << QByteArray("X-Api-Key") << QByteArray("k\nX-Injected: 1") << stream
                                      << u"the value of header \"X-Api-Key\""_s;
            row("bare CR in a value") << QByteArray("X-Api-Key") << QByteArray("k\rX") << stream
                                      << u"the value of header \"X-Api-Key\""_s;
            row("NUL in a value") << QByteArray("X-Api-Key") << QByteArray("k\0x", 3) << stream
                                  << u"the value of header \"X-Api-Key\""_s;
            row("CRLF in a name") << QByteArray("X-Key\r\nX-Injected") << QByteArray("1") << stream
                                  << u"a header name"_s;
            row("colon in a name") << QByteArray("X-Injected: 1\r\nX") << QByteArray("1") << stream
                                   << u"a header name"_s;
            row("empty name") << QByteArray() << QByteArray("1") << stream << u"a header name"_s;
        }
    }
    void refusedBeforeSending()
    {
        QFETCH(QByteArray, name);
        QFETCH(QByteArray, value);
        QFETCH(bool, stream);
        QFETCH(QString, field);
        ScriptedServer server;
        QVERIFY(server.isListening());
        server.enqueue("/r", ScriptedReply::json(200, "{}"), 2);
        HttpClient client;
        HttpRequest request;
        request.url = server.url(u"/r"_s);
        request.headers = {{"Accept", "application/json"}, {name, value}};

        HttpResponse response;
        if (stream) {
            const auto opened = awaitWithin(client.openStream(request));
            QVERIFY(opened);
            response = opened->response;
            QVERIFY(!opened->reply);
        } else {
            const auto sent = awaitWithin(client.send(request));
            QVERIFY(sent);
            response = *sent;
        }
        QCOMPARE(response.error.kind, ErrorKind::Client);
        QCOMPARE(response.error.code, u"invalid_request"_s);
        QVERIFY2(response.error.message.contains(field), qPrintable(response.error.message));
        // The value may be a secret: it is not quoted.
        QVERIFY(!response.error.message.contains(u"sk-1"_s));
        QCOMPARE(response.status, 0);
        QCOMPARE(server.requestCount(), 0);

        // The same request without the bad field goes through (the refusal is the field's).
        request.headers = {{"Accept", "application/json"}};
        const auto fine = awaitWithin(client.send(request));
        QVERIFY(fine);
        QVERIFY2(fine->ok(), qPrintable(fine->error.toString()));
        QCOMPARE(server.requestCount(), 1);
    }

    void methodAndUrlChecked()
    {
        ScriptedServer server;
        HttpClient client;
        HttpRequest request;
        request.url = server.url(u"/r"_s);
        request.method = "GET /x HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET";
        const auto badMethod = awaitWithin(client.send(request));
        QVERIFY(badMethod);
        QCOMPARE(badMethod->error.code, u"invalid_request"_s);
        QVERIFY2(badMethod->error.message.contains(u"the method"_s), qPrintable(badMethod->error.message));
        QCOMPARE(server.requestCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestRequestFraming)
#include "tst_requestframing.moc"
