// SPDX-License-Identifier: GPL-3.0-or-later
// OpenAiAgentsBackend on the wire against a scripted server: the key and the beta header on every
// call, every page of a listing followed by its cursor (after = the last id), the service's error
// words, a tool result sent before the service registered its call retried as the SDK does (one
// Idempotency-Key for all attempts), a respond that finds the turn no longer waiting sends
// nothing, the environment a session is created in, and "Test connection" reading one page.
#include "awaitwithin.h"
#include "backends/openaiagents/openaiagentsbackend.h"
#include "backends/openaiagents/openaiagentsconnector.h"
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
    c.name = u"agents"_s;
    c.backend = u"openai-agents"_s;
    c.baseUrl = server.url(u"/v1"_s);
    c.auth = AuthStyle::Bearer;
    c.apiKey = u"sk-wire"_s;
    return c;
}

QByteArray json(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

QByteArray page(const QJsonArray &data, bool more = false)
{
    return json({{u"object"_s, u"list"_s}, {u"data"_s, data}, {u"has_more"_s, more}});
}

// A session whose turn t1 waits on function call c1.
void enqueueWaiting(ScriptedServer &server, bool answered = false)
{
    const QJsonObject session{
        {u"id"_s, u"s1"_s},
        {u"status"_s, answered ? u"in_progress"_s : u"requires_action"_s},
        {u"required_actions"_s, answered ? QJsonArray()
                                         : QJsonArray{QJsonObject{{u"type"_s, u"function_call"_s},
                                                                  {u"call_id"_s, u"c1"_s},
                                                                  {u"name"_s, u"lookup"_s},
                                                                  {u"arguments"_s, QJsonObject()},
                                                                  {u"turn_id"_s, u"t1"_s}}}}};
    server.enqueue("/v1/agents/sessions/s1", ScriptedReply::json(200, json(session)));
    server.enqueue("/v1/agents/sessions/s1/turns",
                   ScriptedReply::json(200, page({QJsonObject{{u"id"_s, u"t1"_s},
                                                              {u"status"_s, u"waiting"_s},
                                                              {u"subagent_id"_s, QJsonValue::Null}}})));
    server.enqueue("/v1/agents/sessions/s1/items", ScriptedReply::json(200, page({})));
}

ContinuationToken tokenOf(const QString &session, const QString &turn)
{
    ContinuationToken token;
    token.remoteId = session;
    token.extra.insert(AgentSessions::kTurnKey, turn);
    return token;
}

} // namespace

class TestOpenAiAgentsBackend final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void headersAndPagesOnEveryCall()
    {
        ScriptedServer server;
        server.enqueue("/v1/agents", ScriptedReply::json(200, page({QJsonObject{{u"id"_s, u"a1"_s}}}, true)));
        server.enqueue("/v1/agents", ScriptedReply::json(200, page({QJsonObject{{u"id"_s, u"a2"_s},
                                                                                {u"name"_s, u"Two"_s},
                                                                                {u"model"_s, u"gpt-5"_s}}})));
        OpenAiAgentsBackend backend(connectionTo(server));
        const std::optional<CatalogResult> agents = RunwatchTest::awaitWithin(backend.catalog());
        QVERIFY(agents && !agents->error.isError());
        QCOMPARE(agents->entries.size(), 2);
        QCOMPARE(agents->entries.at(1).name, u"Two"_s);
        QCOMPARE(agents->entries.at(1).detail, u"gpt-5"_s);
        QCOMPARE(server.requestCount(), 2);
        for (const auto &r : server.requests()) {
            QCOMPARE(r.header("authorization"), QByteArray("Bearer sk-wire"));
            QCOMPARE(r.header("openai-beta"), QByteArray("agents=v1"));
        }
        QVERIFY(server.requests().at(0).target.startsWith("/v1/agents?"));
        QVERIFY(server.requests().at(1).target.contains("after=a1"));
    }

    // Refused with the service's words; a listing that is no page is a protocol error.
    void serviceErrors()
    {
        ScriptedServer server;
        server.enqueue(
            "/v1/agents/sessions",
            ScriptedReply::json(403, R"({"error":{"type":"invalid_request_error","code":"no_beta_access",)"
                                     R"("message":"This organization has no access to the Agents API."}})"));
        OpenAiAgentsBackend backend(connectionTo(server));
        const std::optional<ListResult> listed = RunwatchTest::awaitWithin(backend.list());
        QVERIFY(listed);
        QCOMPARE(listed->error.code, u"no_beta_access"_s);
        QCOMPARE(listed->error.message, u"This organization has no access to the Agents API."_s);
        server.enqueue("/v1/agents/sessions", ScriptedReply::json(200, R"({"sessions":[]})"));
        const std::optional<ListResult> odd = RunwatchTest::awaitWithin(backend.list());
        QVERIFY(odd && odd->error.kind == ErrorKind::Protocol);
    }

    // A tool result refused because the call is not registered yet goes again after 100 and
    // 300 ms, with the same Idempotency-Key, then is taken (202, no body).
    void unregisteredCallRetried()
    {
        ScriptedServer server;
        enqueueWaiting(server);
        const QByteArray refusal
            = R"({"error":{"type":"invalid_request_error","code":null,"message":"Unknown pending tool call: c1"}})";
        server.enqueue("/v1/agents/sessions/s1/events", ScriptedReply::json(400, refusal), 2);
        server.enqueue("/v1/agents/sessions/s1/events", ScriptedReply::json(202, QByteArray()));
        OpenAiAgentsBackend backend(connectionTo(server));
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Text;
        answer.text = u"42"_s;
        const std::optional<ActionResult> sent
            = RunwatchTest::awaitWithin(backend.respond(tokenOf(u"s1"_s, u"t1"_s), answer));
        QVERIFY(sent);
        QVERIFY2(sent->ok(), qPrintable(sent->error.toString()));
        QList<RunwatchTest::RecordedRequest> posts;
        for (const auto &r : server.requests()) {
            if (r.method == "POST")
                posts << r;
        }
        QCOMPARE(posts.size(), 3);
        QVERIFY(posts.at(1).receivedAtMs - posts.at(0).receivedAtMs >= 90);
        QVERIFY(posts.at(2).receivedAtMs - posts.at(1).receivedAtMs >= 280);
        QVERIFY(!posts.at(0).header("idempotency-key").isEmpty());
        QCOMPARE(posts.at(1).header("idempotency-key"), posts.at(0).header("idempotency-key"));
        QCOMPARE(posts.at(2).header("idempotency-key"), posts.at(0).header("idempotency-key"));
        const QJsonObject result = QJsonDocument::fromJson(posts.at(0).body)
                                       .object()
                                       .value(u"events"_s)
                                       .toArray()
                                       .at(0)
                                       .toObject();
        QCOMPARE(result.value(u"type"_s).toString(), u"agent.session.input.tool_result"_s);
        QCOMPARE(result.value(u"call_id"_s).toString(), u"c1"_s);
        QCOMPARE(result.value(u"turn_id"_s).toString(), u"t1"_s);
        QCOMPARE(result.value(u"output"_s).toString(), u"42"_s);
    }

    // The service says the turn goes on already (answered elsewhere): nothing is sent.
    void answerToATurnNoLongerWaiting()
    {
        ScriptedServer server;
        enqueueWaiting(server, true);
        OpenAiAgentsBackend backend(connectionTo(server));
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Text;
        answer.text = u"late"_s;
        const std::optional<ActionResult> sent
            = RunwatchTest::awaitWithin(backend.respond(tokenOf(u"s1"_s, u"t1"_s), answer));
        QVERIFY(sent && !sent->ok());
        QCOMPARE(sent->error.code, u"not_waiting"_s);
        for (const auto &r : server.requests())
            QVERIFY(r.method != "POST");
    }

    // "Test connection": one page of the sessions, however many follow.
    void probeReadsOnePage()
    {
        ScriptedServer server;
        server.enqueue("/v1/agents/sessions",
                       ScriptedReply::json(200, page({QJsonObject{{u"id"_s, u"s1"_s}}}, true)));
        OpenAiAgentsBackend backend(connectionTo(server));
        const std::optional<ConnectionProbe> probe = RunwatchTest::awaitWithin(backend.probe());
        QVERIFY(probe && probe->ok);
        QCOMPARE(probe->runsListed, 1);
        QCOMPARE(server.requestCount(), 1);
    }

    // Sessions are created in the connection's environment, {"type":"none"} by default, with the
    // prompt as their input.
    void environmentOfTheConnection()
    {
        ScriptedServer server;
        OpenAiAgentsBackend plain(connectionTo(server));
        const QJsonObject none
            = QJsonDocument::fromJson(plain.createRequest(u"a1"_s, u"hi"_s, {}, true).body).object();
        QCOMPARE(none.value(u"environment"_s).toObject(), QJsonObject({{u"type"_s, u"none"_s}}));
        QCOMPARE(none.value(u"input"_s).toString(), u"hi"_s);
        QCOMPARE(none.value(u"agent_id"_s).toString(), u"a1"_s);
        QVERIFY(none.value(u"stream"_s).toBool());
        Connection c = connectionTo(server);
        c.options.insert(OpenAiAgentsOption::Environment, uR"({"type":"openai_hosted","image":"x"})"_s);
        OpenAiAgentsBackend hosted(c);
        const HttpRequest r = hosted.createRequest(u"a1"_s, u"hi"_s, u"cr1"_s, false);
        const QJsonObject body = QJsonDocument::fromJson(r.body).object();
        QCOMPARE(body.value(u"environment"_s).toObject().value(u"type"_s).toString(), u"openai_hosted"_s);
        QCOMPARE(body.value(u"metadata"_s).toObject().value(u"runwatch_client_run_id"_s).toString(),
                 u"cr1"_s);
        QVERIFY(!body.contains(u"stream"_s));
        QVERIFY(!r.idempotent);
    }
};

QTEST_GUILESS_MAIN(TestOpenAiAgentsBackend)
#include "tst_openai_agents_backend.moc"
