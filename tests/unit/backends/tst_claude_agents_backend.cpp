// SPDX-License-Identifier: GPL-3.0-or-later
// ClaudeAgentsBackend on the wire against a scripted server: the headers every call carries (the
// key as the SDK sends it, or in x-api-key when the connection says so), the connection's
// environment, an answer sent before the service registered its call retried as the SDKs' helpers
// do, every page of a listing followed by its cursor, the service's error words, and a respond that
// finds the turn no longer waiting sends nothing.
#include "awaitwithin.h"
#include "backends/claudeagents/claudeagentsbackend.h"
#include "backends/claudeagents/claudeagentsconnector.h"
#include "scriptedserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::ScriptedReply;
using RunwatchTest::ScriptedServer;

namespace {

Connection connectionTo(const ScriptedServer &server)
{
    Connection c;
    c.name = u"claude"_s;
    c.backend = u"claude-agents"_s;
    c.baseUrl = server.url(u"/"_s);
    c.auth = AuthStyle::Bearer;
    c.apiKey = u"sk-ant-wire"_s;
    return c;
}

QByteArray json(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

QByteArray page(const QJsonArray &data, const QString &next = {})
{
    return json({{u"data"_s, data},
                 {u"next_page"_s, next.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(next)}});
}

QJsonObject logEvent(const QString &id, const QString &type, QJsonObject rest = {})
{
    rest.insert(u"id"_s, id);
    rest.insert(u"type"_s, type);
    return rest;
}

// A log whose turn u1 waits on custom tool c1.
QByteArray waitingLog()
{
    return page(QJsonArray{
        logEvent(u"u1"_s, u"user.message"_s,
                 {{u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, u"go"_s}}}}}),
        logEvent(u"c1"_s, u"agent.custom_tool_use"_s,
                 {{u"name"_s, u"lookup"_s}, {u"input"_s, QJsonObject()}}),
        logEvent(u"i1"_s, u"session.status_idle"_s,
                 {{u"stop_reason"_s,
                   QJsonObject{{u"type"_s, u"requires_action"_s}, {u"event_ids"_s, QJsonArray{u"c1"_s}}}}})});
}

ContinuationToken tokenOf(const QString &session, const QString &turn)
{
    ContinuationToken token;
    token.remoteId = session;
    token.extra.insert(AgentSessions::kTurnKey, turn);
    return token;
}

} // namespace

class TestClaudeAgentsBackend final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void headersOnEveryCall()
    {
        ScriptedServer server;
        server.enqueue("/v1/agents",
                       ScriptedReply::json(200, page({QJsonObject{{u"id"_s, u"a1"_s}}}, u"p2"_s)));
        server.enqueue(
            "/v1/agents?limit=100&page=p2",
            ScriptedReply::json(200, page({QJsonObject{{u"id"_s, u"a2"_s}, {u"name"_s, u"Two"_s}}})));
        ClaudeAgentsBackend backend(connectionTo(server));
        const std::optional<CatalogResult> agents = RunwatchTest::awaitWithin(backend.catalog());
        QVERIFY(agents && !agents->error.isError());
        QCOMPARE(agents->entries.size(), 2);
        QCOMPARE(agents->entries.at(1).name, u"Two"_s);
        QCOMPARE(server.requestCount(), 2);
        for (const auto &r : server.requests()) {
            QCOMPARE(r.header("authorization"), QByteArray("Bearer sk-ant-wire"));
            QCOMPARE(r.header("anthropic-beta"), QByteArray("managed-agents-2026-04-01"));
            QCOMPARE(r.header("anthropic-version"), QByteArray("2026-10-21"));
        }
        QVERIFY(server.requests().at(1).target.contains("page=p2"));
    }

    // A connection that names x-api-key (the docs' curl) sends the key there and nowhere else.
    void keyInXApiKeyWhenAsked()
    {
        ScriptedServer server;
        server.enqueue("/v1/agents", ScriptedReply::json(200, page({})));
        Connection c = connectionTo(server);
        c.auth = AuthStyle::Header;
        c.authHeader = u"x-api-key"_s;
        ClaudeAgentsBackend backend(c);
        QVERIFY(RunwatchTest::awaitWithin(backend.catalog()));
        QCOMPARE(server.requests().at(0).header("x-api-key"), QByteArray("sk-ant-wire"));
        QVERIFY(server.requests().at(0).header("authorization").isEmpty());
    }

    // Refused with the service's words; a listing that is no page is a protocol error.
    void serviceErrors()
    {
        ScriptedServer server;
        server.enqueue(
            "/v1/sessions",
            ScriptedReply::json(
                403, R"({"type":"error","error":{"type":"permission_error","message":"no beta access"}})"));
        ClaudeAgentsBackend backend(connectionTo(server));
        const std::optional<ListResult> listed = RunwatchTest::awaitWithin(backend.list());
        QVERIFY(listed);
        QCOMPARE(listed->error.code, u"permission_error"_s);
        QCOMPARE(listed->error.message, u"no beta access"_s);
        server.enqueue("/v1/sessions", ScriptedReply::json(200, R"({"sessions":[]})"));
        const std::optional<ListResult> odd = RunwatchTest::awaitWithin(backend.list());
        QVERIFY(odd && odd->error.kind == ErrorKind::Protocol);
    }

    // An answer the service refuses because the call is not registered yet goes again after
    // 100, 300 ms, then is taken.
    void unregisteredCallRetried()
    {
        ScriptedServer server;
        server.enqueue("/v1/sessions/s1/events", ScriptedReply::json(200, waitingLog()));
        const QByteArray refusal
            = R"({"type":"error","error":{"type":"invalid_request_error","message":"custom_tool_use_id c1 is not yet registered"}})";
        server.enqueue("/v1/sessions/s1/events", ScriptedReply::json(400, refusal), 2);
        server.enqueue(
            "/v1/sessions/s1/events",
            ScriptedReply::json(200, R"({"data":[{"id":"r1","type":"user.custom_tool_result"}]})"));
        ClaudeAgentsBackend backend(connectionTo(server));
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Text;
        answer.text = u"42"_s;
        const std::optional<ActionResult> sent
            = RunwatchTest::awaitWithin(backend.respond(tokenOf(u"s1"_s, u"u1"_s), answer));
        QVERIFY(sent);
        QVERIFY2(sent->ok(), qPrintable(sent->error.toString()));
        const QList<RunwatchTest::RecordedRequest> posts = [&] {
            QList<RunwatchTest::RecordedRequest> p;
            for (const auto &r : server.requests()) {
                if (r.method == "POST")
                    p << r;
            }
            return p;
        }();
        QCOMPARE(posts.size(), 3);
        QVERIFY(posts.at(1).receivedAtMs - posts.at(0).receivedAtMs >= 90);
        // (Qt's coarse timers may fire 5 % early.)
        QVERIFY(posts.at(2).receivedAtMs - posts.at(1).receivedAtMs >= 280);
        const QJsonObject body = QJsonDocument::fromJson(posts.at(0).body).object();
        const QJsonObject result = body.value(u"events"_s).toArray().at(0).toObject();
        QCOMPARE(result.value(u"type"_s).toString(), u"user.custom_tool_result"_s);
        QCOMPARE(result.value(u"custom_tool_use_id"_s).toString(), u"c1"_s);
        QCOMPARE(result.value(u"content"_s).toArray().at(0).toObject().value(u"text"_s).toString(), u"42"_s);
    }

    // The log says the turn goes on already (answered elsewhere): nothing is sent.
    void answerToATurnNoLongerWaiting()
    {
        ScriptedServer server;
        QJsonArray log = QJsonDocument::fromJson(waitingLog()).object().value(u"data"_s).toArray();
        log.append(logEvent(u"r0"_s, u"user.custom_tool_result"_s, {{u"custom_tool_use_id"_s, u"c1"_s}}));
        server.enqueue("/v1/sessions/s1/events", ScriptedReply::json(200, page(log)));
        ClaudeAgentsBackend backend(connectionTo(server));
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Text;
        answer.text = u"late"_s;
        const std::optional<ActionResult> sent
            = RunwatchTest::awaitWithin(backend.respond(tokenOf(u"s1"_s, u"u1"_s), answer));
        QVERIFY(sent && !sent->ok());
        QCOMPARE(sent->error.code, u"not_waiting"_s);
        QCOMPARE(server.requestCount(), 1);
    }

    // "Test connection": one page of the sessions, however many follow.
    void probeReadsOnePage()
    {
        ScriptedServer server;
        server.enqueue("/v1/sessions",
                       ScriptedReply::json(200, page({QJsonObject{{u"id"_s, u"s1"_s}}}, u"p2"_s)));
        ClaudeAgentsBackend backend(connectionTo(server));
        const std::optional<ConnectionProbe> probe = RunwatchTest::awaitWithin(backend.probe());
        QVERIFY(probe && probe->ok);
        QCOMPARE(probe->kind, ConnectionProbe::Kind::Listed);
        QCOMPARE(probe->runsListed, 1);
        QCOMPARE(server.requestCount(), 1);
    }

    // The connection's environment is the one sessions run in; without one, the account's first.
    void environmentOfTheConnection()
    {
        ScriptedServer server;
        Connection c = connectionTo(server);
        c.options.insert(ClaudeAgentsOption::Environment, u"env_mine"_s);
        ClaudeAgentsBackend backend(c);
        const std::optional<ClaudeAgentsBackend::Fetched> mine
            = RunwatchTest::awaitWithin(backend.environment());
        QVERIFY(mine);
        QCOMPARE(mine->object.value(u"id"_s).toString(), u"env_mine"_s);
        QCOMPARE(server.requestCount(), 0);

        ClaudeAgentsBackend plain(connectionTo(server));
        server.enqueue("/v1/environments", ScriptedReply::json(200, page({})));
        const std::optional<ClaudeAgentsBackend::Fetched> none
            = RunwatchTest::awaitWithin(plain.environment());
        QVERIFY(none);
        QCOMPARE(none->error.code, u"no_environment"_s);
        server.enqueue("/v1/environments",
                       ScriptedReply::json(200, page({QJsonObject{{u"id"_s, u"env_first"_s}},
                                                      QJsonObject{{u"id"_s, u"env_2"_s}}})));
        const std::optional<ClaudeAgentsBackend::Fetched> first
            = RunwatchTest::awaitWithin(plain.environment());
        QVERIFY(first);
        QCOMPARE(first->object.value(u"id"_s).toString(), u"env_first"_s);
    }
};

QTEST_GUILESS_MAIN(TestClaudeAgentsBackend)
#include "tst_claude_agents_backend.moc"
