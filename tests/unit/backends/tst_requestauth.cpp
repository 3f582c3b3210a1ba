// SPDX-License-Identifier: GPL-3.0-or-later
// RequestAuth (core/backends/requestauth.*), the one way every connector puts its credential on
// a request, with the HttpClient it is attached to, against a scripted loopback server that
// records the headers: Bearer, a named header, none; a token command's token, fetched once,
// renewed once after a 401; what is refused before anything is sent; the key redacted from
// errors whatever header carried it.
#include "awaitwithin.h"
#include "backends/requestauth.h"
#include "backends/tokensource.h"
#include "net/httpclient.h"
#include "scriptedserver.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::awaitWithin;
using RunwatchTest::RecordedRequest;
using RunwatchTest::ScriptedReply;
using RunwatchTest::ScriptedServer;

namespace {

Connection connectionTo(const ScriptedServer &server, AuthStyle style, const QString &header = {})
{
    Connection c;
    c.name = u"t"_s;
    c.backend = u"jobs"_s;
    c.baseUrl = server.url();
    c.auth = style;
    c.authHeader = header;
    return c;
}

HttpRequest get(const ScriptedServer &server, const QString &path = u"/x"_s)
{
    HttpRequest r;
    r.url = server.url(path);
    return r;
}

// A command printing the next line of `tokens` on each run (and counting its runs in `count`).
QString rotatingCommand(const QTemporaryDir &dir, const QStringList &tokens)
{
    QFile f(dir.filePath(u"tokens"_s));
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(tokens.join(u'\n').toUtf8() + '\n');
    f.close();
    const QString count = dir.filePath(u"count"_s);
    return u"printf x >> '%1'; n=$(wc -c < '%1'); sed -n \"${n}p\" '%2'"_s.arg(count, f.fileName());
}

} // namespace

class TestRequestAuth final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void styles_data()
    {
        QTest::addColumn<int>("style");
        QTest::addColumn<QString>("header");
        QTest::addColumn<QByteArray>("carrier");
        QTest::addColumn<QByteArray>("value");
        QTest::newRow("bearer") << int(AuthStyle::Bearer) << QString() << QByteArray("authorization")
                                << QByteArray("Bearer sk-test-key-0001");
        QTest::newRow("api-key") << int(AuthStyle::Header) << u"api-key"_s << QByteArray("api-key")
                                 << QByteArray("sk-test-key-0001");
        QTest::newRow("x-goog-api-key") << int(AuthStyle::Header) << u"x-goog-api-key"_s
                                        << QByteArray("x-goog-api-key") << QByteArray("sk-test-key-0001");
        QTest::newRow("X-Custom-Key") << int(AuthStyle::Header) << u"X-Custom-Key"_s
                                      << QByteArray("x-custom-key") << QByteArray("sk-test-key-0001");
        QTest::newRow("none") << int(AuthStyle::None) << QString() << QByteArray() << QByteArray();
    }
    void styles()
    {
        QFETCH(int, style);
        QFETCH(QString, header);
        QFETCH(QByteArray, carrier);
        QFETCH(QByteArray, value);
        ScriptedServer server;
        server.enqueue("/x", ScriptedReply::json(200, "{}"));
        Connection c = connectionTo(server, AuthStyle(style), header);
        c.apiKey = u"sk-test-key-0001"_s;
        HttpClient http;
        RequestAuth auth(c);
        auth.attach(&http);
        const auto response = awaitWithin(http.send(get(server)));
        QVERIFY(response && response->ok());
        const RecordedRequest sent = server.requests().first();
        if (!carrier.isEmpty())
            QCOMPARE(sent.header(carrier), value);
        // The key is in its one header and nowhere else.
        int carrying = 0;
        for (const auto &[name, v] : sent.headers)
            carrying += v.contains("sk-test-key-0001") ? 1 : 0;
        QCOMPARE(carrying, carrier.isEmpty() ? 0 : 1);
        if (carrier != "authorization")
            QVERIFY(sent.header("authorization").isEmpty());
    }

    // No key, no command: nothing is put on the request whatever the style.
    void noCredential()
    {
        ScriptedServer server;
        server.enqueue("/x", ScriptedReply::json(200, "{}"));
        HttpClient http;
        RequestAuth auth(connectionTo(server, AuthStyle::Header, u"x-api-key"_s));
        auth.attach(&http);
        QVERIFY(!auth.hasCredential());
        QVERIFY(awaitWithin(http.send(get(server)))->ok());
        QVERIFY(server.requests().first().header("x-api-key").isEmpty());
        QVERIFY(server.requests().first().header("authorization").isEmpty());
    }

    // A request marked withCredentials = false (a public agent card) goes out without the key.
    void requestWithoutCredentials()
    {
        ScriptedServer server;
        server.enqueue("/x", ScriptedReply::json(200, "{}"));
        Connection c = connectionTo(server, AuthStyle::Bearer);
        c.apiKey = u"sk-test-key-0001"_s;
        HttpClient http;
        RequestAuth auth(c);
        auth.attach(&http);
        HttpRequest r = get(server);
        r.withCredentials = false;
        QVERIFY(awaitWithin(http.send(r))->ok());
        QVERIFY(server.requests().first().header("authorization").isEmpty());
    }

    // A header name or a key that would break the header apart is refused before anything is sent.
    void refusedBeforeSending()
    {
        ScriptedServer server;
        HttpClient http;
        Connection c = connectionTo(server, AuthStyle::Header, u"x-key\r\nx-injected"_s);
        c.apiKey = u"sk-test-key-0001"_s;
        {
            RequestAuth auth(c);
            auth.attach(&http);
            const auto response = awaitWithin(http.send(get(server)));
            QVERIFY(response && !response->ok());
            QCOMPARE(response->error.code, u"invalid_auth_header"_s);
        }
        c.authHeader = u"x-api-key"_s;
        c.apiKey = u"sk-test\r\nx-injected: 1"_s;
        RequestAuth auth(c);
        auth.attach(&http);
        const auto response = awaitWithin(http.send(get(server)));
        QVERIFY(response && !response->ok());
        QCOMPARE(response->error.code, u"invalid_credential"_s);
        QVERIFY(!response->error.message.contains(u"sk-test"_s));
        QCOMPARE(server.requestCount(), 0);
    }

    // A service that quotes the key back: the error shows "[redacted]", whatever header carried it.
    void redactedFromErrors()
    {
        ScriptedServer server;
        server.enqueue(
            "/x", ScriptedReply::json(403, R"({"error":{"message":"key sk-test-key-0001 is not allowed"}})"));
        Connection c = connectionTo(server, AuthStyle::Header, u"x-goog-api-key"_s);
        c.apiKey = u"sk-test-key-0001"_s;
        HttpClient http;
        RequestAuth auth(c);
        auth.attach(&http);
        const auto response = awaitWithin(http.send(get(server)));
        QVERIFY(response && !response->ok());
        QVERIFY(!response->body.contains("sk-test-key-0001"));
        QVERIFY(!response->error.message.contains(u"sk-test-key-0001"_s));
        QVERIFY(response->body.contains("[redacted]"));
    }

    // The token command: run once for many requests; after a 401 once more and the request sent
    // once more with the new token; a second 401 is the answer (no loop). A static key is
    // never renewed: its 401 is the answer at once.
    void tokenCommandRenewsOnceAfter401()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ScriptedServer server;
        server.enqueue("/x", ScriptedReply::json(200, "{}"), 2);
        Connection c = connectionTo(server, AuthStyle::Header, u"X-Custom-Key"_s);
        c.options.insert(u"token_command"_s,
                         rotatingCommand(dir, {u"tok-one"_s, u"tok-two"_s, u"tok-three"_s}));
        HttpClient http;
        RequestAuth auth(c);
        auth.attach(&http);
        QVERIFY(auth.canRenew());
        QVERIFY(awaitWithin(http.send(get(server)))->ok());
        QVERIFY(awaitWithin(http.send(get(server)))->ok());
        QCOMPARE(auth.tokenSource()->commandRuns(), 1);
        QCOMPARE(server.requests().at(0).header("x-custom-key"), QByteArray("tok-one"));
        QCOMPARE(server.requests().at(1).header("x-custom-key"), QByteArray("tok-one"));
        QVERIFY(server.requests().at(1).header("authorization").isEmpty());

        server.enqueue("/x", ScriptedReply::json(401, R"({"error":"expired"})"));
        server.enqueue("/x", ScriptedReply::json(200, "{}"));
        const auto renewed = awaitWithin(http.send(get(server)));
        QVERIFY(renewed && renewed->ok());
        QCOMPARE(auth.tokenSource()->commandRuns(), 2);
        QCOMPARE(server.requests().at(2).header("x-custom-key"), QByteArray("tok-one"));
        QCOMPARE(server.requests().at(3).header("x-custom-key"), QByteArray("tok-two"));

        server.enqueue("/x", ScriptedReply::json(401, R"({"error":"no"})"), 2);
        const auto refused = awaitWithin(http.send(get(server)));
        QVERIFY(refused && !refused->ok());
        QCOMPARE(refused->status, 401);
        QCOMPARE(auth.tokenSource()->commandRuns(), 3);
        QCOMPARE(server.requestCount(), 6);

        // A key (no command): its 401 is final.
        Connection keyed = connectionTo(server, AuthStyle::Bearer);
        keyed.apiKey = u"sk-static-key-01"_s;
        HttpClient other;
        RequestAuth keyAuth(keyed);
        keyAuth.attach(&other);
        QVERIFY(!keyAuth.canRenew());
        server.enqueue("/x", ScriptedReply::json(401, R"({"error":"no"})"), 2);
        QCOMPARE(awaitWithin(other.send(get(server)))->status, 401);
        QCOMPARE(server.requestCount(), 7);
    }

    // The origin rule: a key or a token goes only to the origin (scheme, host, port) of the
    // connection it belongs to, whoever named the URL. Another origin gets nothing: not the
    // request, not a run of the token command.
    void credentialsStayWithTheirOrigin_data()
    {
        QTest::addColumn<bool>("command");
        QTest::newRow("key") << false;
        QTest::newRow("token command") << true;
    }
    void credentialsStayWithTheirOrigin()
    {
        QFETCH(bool, command);
        QTemporaryDir dir;
        ScriptedServer home;
        ScriptedServer elsewhere;
        home.enqueue("/x", ScriptedReply::json(200, "{}"));
        elsewhere.enqueue("/x", ScriptedReply::json(200, "{}"), 3);
        Connection c = connectionTo(home, AuthStyle::Bearer);
        if (command) {
            c.options.insert(u"token_command"_s, rotatingCommand(dir, {u"tok-origin-1"_s}));
        } else {
            c.apiKey = u"sk-origin-bound-key"_s;
        }
        HttpClient http;
        RequestAuth auth(c);
        auth.attach(&http);

        // Another port on the same host is another origin; so is another scheme.
        const auto refused = awaitWithin(http.send(get(elsewhere)));
        QVERIFY(refused);
        QCOMPARE(refused->error.code, u"credential_origin"_s);
        const QString homeOrigin = u"http://127.0.0.1:%1"_s.arg(home.port());
        const QString otherOrigin = u"http://127.0.0.1:%1"_s.arg(elsewhere.port());
        QVERIFY2(refused->error.message.contains(homeOrigin) && refused->error.message.contains(otherOrigin),
                 qPrintable(refused->error.message));
        QCOMPARE(elsewhere.requestCount(), 0);
        QCOMPARE(auth.tokenSource()->commandRuns(), 0);

        // A request that carries no credentials may go there (a public agent card).
        HttpRequest publicCard = get(elsewhere);
        publicCard.withCredentials = false;
        QVERIFY(awaitWithin(http.send(publicCard))->ok());
        QCOMPARE(elsewhere.requestCount(), 1);
        QVERIFY(elsewhere.requests().at(0).header("authorization").isEmpty());

        // Its own origin, with any path, gets it.
        const auto ok = awaitWithin(http.send(get(home)));
        QVERIFY(ok && ok->ok());
        QVERIFY(home.requests().at(0).header("authorization").startsWith("Bearer "));

        // A connection without any credential has nothing to keep: it may go anywhere.
        HttpClient open;
        RequestAuth none(connectionTo(home, AuthStyle::None));
        none.attach(&open);
        QVERIFY(awaitWithin(open.send(get(elsewhere)))->ok());
    }

    // A token command and "no authentication": the token is meant to be sent, as Bearer.
    void tokenCommandWithoutStyleIsBearer()
    {
        ScriptedServer server;
        server.enqueue("/x", ScriptedReply::json(200, "{}"));
        Connection c = connectionTo(server, AuthStyle::None);
        c.options.insert(u"token_command"_s, u"printf '%s\\n' tok-from-command"_s);
        HttpClient http;
        RequestAuth auth(c);
        auth.attach(&http);
        QVERIFY(awaitWithin(http.send(get(server)))->ok());
        QCOMPARE(server.requests().first().header("authorization"), QByteArray("Bearer tok-from-command"));
    }

    // A failing command: its error is the answer, nothing is sent; shutdown ends a running one.
    void failingAndStoppedCommand()
    {
        ScriptedServer server;
        Connection c = connectionTo(server, AuthStyle::Bearer);
        c.options.insert(u"token_command"_s, u"echo 'Please run login' >&2; exit 4"_s);
        HttpClient http;
        RequestAuth auth(c);
        auth.attach(&http);
        const auto failed = awaitWithin(http.send(get(server)));
        QVERIFY(failed && !failed->ok());
        QCOMPARE(failed->error.kind, ErrorKind::Auth);
        QVERIFY2(failed->error.message.contains(u"Please run login"_s), qPrintable(failed->error.message));

        Connection slow = connectionTo(server, AuthStyle::Bearer);
        slow.options.insert(u"token_command"_s, u"sleep 30; echo late"_s);
        HttpClient slowHttp;
        RequestAuth slowAuth(slow);
        slowAuth.attach(&slowHttp);
        QCoro::Task<HttpResponse> pending = slowHttp.send(get(server));
        QTRY_COMPARE_WITH_TIMEOUT(slowAuth.tokenSource()->commandRuns(), 1, 5000);
        QVERIFY(HttpClient::liveRequests() > 0);
        const auto drained = awaitWithin(
            [](HttpClient *client) -> QCoro::Task<bool> {
                co_await client->shutdown();
                co_return true;
            }(&slowHttp),
            10000);
        QVERIFY(drained);
        const auto cancelled = awaitWithin(std::move(pending));
        QVERIFY(cancelled && cancelled->error.kind == ErrorKind::Cancelled);
        QCOMPARE(server.requestCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestRequestAuth)
#include "tst_requestauth.moc"
