// SPDX-License-Identifier: GPL-3.0-or-later
// A connection's key goes to the origin it was given for and nowhere else, whatever a server says.
// Here the server is an A2A agent whose card is fetched without credentials and then names where
// requests go and how the key travels. Two loopback servers are two origins (another port is
// another origin): `home` is the connection's, `elsewhere` another one. RunManager drives the A2A
// connector as the app and the CLI do; a run that cannot go on ends with the reason.
#include "backends/a2a/a2aconnector.h"
#include "engine/runmanager.h"
#include "enginerig.h"
#include "scriptedserver.h"

#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::RecordedRequest;
using RunwatchTest::ScriptedReply;
using RunwatchTest::ScriptedServer;
using RunwatchTest::waitSettled;

namespace {

constexpr int kWait = 30000;
const QString kKey = u"sk-a2a-ORIGIN-4d2e9b7c1a"_s;

// An A2A 1.0 card whose one JSON-RPC interface is at `interfaceUrl`, asking for the key as
// `securityScheme` says (an empty object: nothing).
QByteArray card(const QUrl &interfaceUrl, const QByteArray &securityScheme = "{}")
{
    QByteArray schemes = "{}";
    QByteArray requirements = "[]";
    if (securityScheme != "{}") {
        schemes = "{\"key\":" + securityScheme + "}";
        requirements = R"([{"schemes":{"key":{"list":[]}}}])";
    }
    return R"({"name":"Agent","description":"d","version":"1","supportedInterfaces":[{"url":")"
           + interfaceUrl.toEncoded() + R"(","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
           "capabilities":{"streaming":false},"securitySchemes":)"
           + schemes + R"(,"securityRequirements":)" + requirements + R"(,"skills":[]})";
}

// Whatever the agent would answer: an error ends the run, which is all these tests need once the
// request itself has been seen.
ScriptedReply rpcError()
{
    return ScriptedReply::json(200,
                               R"({"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"scripted"}})");
}

Connection a2a(const QUrl &url, const QString &key, const QJsonObject &options = {})
{
    Connection c;
    c.name = u"agent"_s;
    c.backend = u"a2a"_s;
    c.baseUrl = url;
    c.auth = AuthStyle::Bearer;
    c.apiKey = key;
    c.options = options;
    return c;
}

QString origin(const ScriptedServer &server)
{
    return u"http://127.0.0.1:%1"_s.arg(server.port());
}

// The key appears nowhere in what `server` received.
bool neverSawKey(const ScriptedServer &server)
{
    for (const RecordedRequest &r : server.requests()) {
        for (const auto &h : r.headers) {
            if (h.second.contains(kKey.toUtf8()))
                return false;
        }
        if (r.target.contains(kKey.toUtf8()) || r.body.contains(kKey.toUtf8()))
            return false;
    }
    return true;
}

struct Outcome
{
    RunStatus status = RunStatus::Unknown;
    RunError error;
};

Outcome runOnce(const Connection &connection)
{
    RunManager manager;
    manager.setFollowPolicy(RunwatchTest::quickFollowPolicy());
    Outcome out;
    if (!manager.addConnection(connection))
        return out;
    StartRequest r;
    r.prompt = u"hello"_s;
    const QString id = manager.startRun(connection.name, r);
    if (!waitSettled(manager, id, kWait))
        return out;
    out.status = manager.run(id)->status;
    out.error = manager.run(id)->error;
    return out;
}

} // namespace

class TestCredentialOrigin final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The card on the connection's origin names an interface on another origin: with a key, the
    // run stops before anything goes there and says why, naming both origins.
    void cardInterfaceOnAnotherOrigin()
    {
        ScriptedServer home;
        ScriptedServer elsewhere;
        home.enqueue("/.well-known/agent-card.json",
                     ScriptedReply::json(200, card(elsewhere.url(u"/a2a"_s))));
        elsewhere.enqueue("/a2a", rpcError(), 5);

        const Outcome out = runOnce(a2a(home.url(), kKey));
        QCOMPARE(out.status, RunStatus::Failed);
        QCOMPARE(out.error.code, u"credential_origin"_s);
        QVERIFY2(out.error.message.contains(origin(home)) && out.error.message.contains(origin(elsewhere)),
                 qPrintable(out.error.message));
        QCOMPARE(elsewhere.requestCount(), 0);
        QVERIFY(neverSawKey(home));
    }

    // Without a key there is nothing to keep from that origin: the agent is used there.
    void cardInterfaceOnAnotherOriginWithoutKey()
    {
        ScriptedServer home;
        ScriptedServer elsewhere;
        home.enqueue("/.well-known/agent-card.json",
                     ScriptedReply::json(200, card(elsewhere.url(u"/a2a"_s))));
        elsewhere.enqueue("/a2a", rpcError(), 5);
        runOnce(a2a(home.url(), {}));
        QVERIFY(elsewhere.requestCount() >= 1);
        QVERIFY(elsewhere.requests().at(0).header("authorization").isEmpty());
    }

    // An agent mounted under a path without a card of its own: the origin's root card describes
    // another agent, which must not get this connection's requests (and key).
    void rootCardOfAnotherAgent()
    {
        ScriptedServer home;
        home.enqueue("/.well-known/agent-card.json",
                     ScriptedReply::json(200, card(home.url(u"/other/rpc"_s))));
        home.enqueue("/other/rpc", rpcError(), 5);
        const Outcome out = runOnce(a2a(home.url(u"/agent"_s), kKey));
        QCOMPARE(out.status, RunStatus::Failed);
        QCOMPARE(out.error.code, u"agent_card_mismatch"_s);
        QCOMPARE(home.requestCount("/other/rpc"), 0);
        QVERIFY(neverSawKey(home));

        // The root card that does describe this agent is taken.
        ScriptedServer same;
        same.enqueue("/.well-known/agent-card.json",
                     ScriptedReply::json(200, card(same.url(u"/agent/rpc"_s))));
        same.enqueue("/agent/rpc", rpcError(), 5);
        runOnce(a2a(same.url(u"/agent"_s), kKey));
        QVERIFY(same.requestCount("/agent/rpc") >= 1);
    }

    // A card asks for the key in the URL query, a cookie or a header that is not one a server
    // may name: the key stays in the connection's own header unless the connection allows it.
    void cardCannotMoveTheKey_data()
    {
        QTest::addColumn<QByteArray>("scheme");
        QTest::addColumn<bool>("allowed");
        QTest::addColumn<QByteArray>("where"); // "query", "cookie", "header:<name>", "bearer"
        const QByteArray query = R"({"apiKeySecurityScheme":{"location":"query","name":"api_key"}})";
        const QByteArray cookie = R"({"apiKeySecurityScheme":{"location":"cookie","name":"sid"}})";
        QTest::newRow("query, not allowed") << query << false << QByteArray("bearer");
        QTest::newRow("cookie, not allowed") << cookie << false << QByteArray("bearer");
        QTest::newRow("query, allowed") << query << true << QByteArray("query");
        QTest::newRow("cookie, allowed") << cookie << true << QByteArray("cookie");
        QTest::newRow("header Host") << QByteArray(
            R"({"apiKeySecurityScheme":{"location":"header","name":"Host"}})")
                                     << true << QByteArray("bearer");
        QTest::newRow("header Proxy-Authorization")
            << QByteArray(R"({"apiKeySecurityScheme":{"location":"header","name":"Proxy-Authorization"}})")
            << true << QByteArray("bearer");
        QTest::newRow("header X-Agent-Key")
            << QByteArray(R"({"apiKeySecurityScheme":{"location":"header","name":"X-Agent-Key"}})") << false
            << QByteArray("header:x-agent-key");
    }
    void cardCannotMoveTheKey()
    {
        QFETCH(QByteArray, scheme);
        QFETCH(bool, allowed);
        QFETCH(QByteArray, where);
        ScriptedServer home;
        home.enqueue("/.well-known/agent-card.json",
                     ScriptedReply::json(200, card(home.url(u"/rpc"_s), scheme)));
        home.enqueue("/rpc", rpcError(), 5);
        QJsonObject options;
        if (allowed)
            options.insert(A2aOption::CardKeyInQueryOrCookie, u"yes"_s);
        runOnce(a2a(home.url(), kKey, options));
        const QList<RecordedRequest> calls = home.requests("/rpc");
        QVERIFY(!calls.isEmpty());
        const RecordedRequest &r = calls.first();
        const QByteArray key = kKey.toUtf8();
        QCOMPARE(r.target.contains(key), where == "query");
        QCOMPARE(r.header("cookie").contains(key), where == "cookie");
        QCOMPARE(r.header("authorization"), where == "bearer" ? "Bearer " + key : QByteArray());
        if (where.startsWith("header:"))
            QCOMPARE(r.header(where.mid(7)), key);
        QVERIFY(r.header("host").startsWith("127.0.0.1"));
    }
};

QTEST_GUILESS_MAIN(TestCredentialOrigin)
#include "tst_credentialorigin.moc"
