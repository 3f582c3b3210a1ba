// SPDX-License-Identifier: GPL-3.0-or-later
// The MCP connector's requests on the wire (core/backends/mcp: McpBackend, its transport and run
// stream) against scripted loopback servers, for what the official SDK server cannot be made to
// do: the session and version headers on every request, a lost session (404), 429 + Retry-After,
// a malformed or hostile reply stream, an answer on the stored session, and the refusals that
// send nothing. Client request ids are "rw-1", "rw-2", … in the order a backend makes them; the
// scripts answer them by those ids. Bodies are written with single quotes (json()).
#include "awaitwithin.h"
#include "backends/mcp/mcpbackend.h"
#include "backends/mcp/mcpmapper.h"
#include "domain/runreducer.h"
#include "enginerig.h"
#include "scriptedserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QtTest>

using namespace Runwatch;
using namespace RunwatchTest;
using namespace Qt::StringLiterals;

namespace {

QByteArray json(const char *singleQuoted)
{
    return QByteArray(singleQuoted).replace('\'', '"');
}

QJsonObject bodyOf(const RecordedRequest &request)
{
    return QJsonDocument::fromJson(request.body).object();
}

// A JSON-RPC reply as the SDK server sends it: one SSE message event.
ScriptedReply sse(const QByteArray &message, HeaderList headers = {})
{
    headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("text/event-stream")));
    return ScriptedReply::stream(200, headers, {{0, "event: message\ndata: " + message + "\n\n"}});
}

ScriptedReply result(const QByteArray &id, const QByteArray &resultJson)
{
    return sse("{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"result\":" + resultJson + "}");
}

ScriptedReply accepted()
{
    return ScriptedReply::text(202, "text/plain", {});
}

// initialize (rw-1, answered with session `session`) and notifications/initialized.
void enqueueHandshake(ScriptedServer &server, const QByteArray &session, const QByteArray &id = "rw-1")
{
    server.enqueue(
        "/mcp",
        sse("{\"jsonrpc\":\"2.0\",\"id\":\"" + id
                + "\",\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tasks\":{"
                  "\"list\":{},\"cancel\":{},\"requests\":{\"tools\":{\"call\":{}}}}},\"serverInfo\":{"
                  "\"name\":\"scripted\",\"version\":\"1\"}}}",
            {{"Mcp-Session-Id", session}}));
    server.enqueue("/mcp", accepted());
}

const QByteArray kTools
    = json("{'tools':[{'name':'write','inputSchema':{'type':'object'},'execution':{'taskSupport':"
           "'required'}},{'name':'echo','inputSchema':{'type':'object'}}]}");

Connection connectionTo(const ScriptedServer &server)
{
    Connection c;
    c.name = u"m"_s;
    c.backend = u"mcp"_s;
    c.baseUrl = server.url(u"/mcp"_s);
    c.auth = AuthStyle::Bearer;
    c.apiKey = u"mcp-test-token"_s;
    // Straight to the 2025 handshake: its ids are then predictable (auto probes server/discover).
    c.options.insert(u"protocol_version"_s, u"2025-11-25"_s);
    return c;
}

// Follows a stream to its end, applying its events to `run`.
StreamEnd drive(RunStream *stream, Run &run, int ms = 15000)
{
    std::optional<StreamEnd> end;
    QObject::connect(stream, &RunStream::eventsReceived, stream, [&run](const QList<RunEvent> &events) {
        for (const RunEvent &e : events)
            applyEvent(run, e, QDateTime::currentDateTimeUtc());
    });
    QObject::connect(stream, &RunStream::finished, stream, [&end](const StreamEnd &e) { end = e; });
    waitFor([&] { return end.has_value(); }, ms);
    const StreamEnd result = end.value_or(StreamEnd{StreamEnd::Reason::Aborted, {}, std::nullopt});
    stream->abort();
    stream->deleteLater();
    return result;
}

ContinuationToken tokenOn(const QString &session, const QString &taskId = u"t1"_s)
{
    ContinuationToken token;
    token.remoteId = taskId;
    token.streamable = true;
    token.extra = {{u"session_id"_s, session}, {u"protocol_version"_s, u"2025-11-25"_s}};
    return token;
}

} // namespace

class TestMcpBackend final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // A start: initialize declares elicitation and tasks; every later request carries the session
    // and the version and the key; tools/call asks for a task; tasks/get, then tasks/result.
    void startFollowsATaskOnItsSession()
    {
        ScriptedServer server;
        enqueueHandshake(server, "s-1");
        server.enqueue("/mcp", result("rw-2", kTools));
        server.enqueue(
            "/mcp",
            result("rw-3", json("{'task':{'taskId':'t1','status':'working','ttl':60000,'pollInterval':"
                                "150,'createdAt':'2026-11-27T20:37:27.831Z'}}")));
        server.enqueue("/mcp",
                       result("rw-4", json("{'taskId':'t1','status':'working','statusMessage':'half'}")));
        server.enqueue("/mcp",
                       result("rw-5", json("{'taskId':'t1','status':'completed','pollInterval':150}")));
        server.enqueue("/mcp", result("rw-6", json("{'content':[{'type':'text','text':'done'}]}")));
        McpBackend backend(connectionTo(server));
        StartRequest request;
        request.agent = u"write"_s;
        request.input = QJsonObject{{u"text"_s, u"x"_s}};
        Run run;
        const StreamEnd end = drive(backend.start(request, nullptr), run);
        QCOMPARE(end.reason, StreamEnd::Reason::Terminal);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, u"done"_s);
        QCOMPARE(run.remoteId, u"t1"_s);
        QCOMPARE(run.token.extra.value(u"session_id"_s).toString(), u"s-1"_s);

        const QList<RecordedRequest> sent = server.requests("/mcp");
        QCOMPARE(sent.size(), 7);
        const QJsonObject init = bodyOf(sent.at(0));
        QCOMPARE(init.value(u"method"_s).toString(), u"initialize"_s);
        const QJsonObject caps = init.value(u"params"_s).toObject().value(u"capabilities"_s).toObject();
        QVERIFY(caps.value(u"elicitation"_s).toObject().contains(u"form"_s));
        QVERIFY(caps.value(u"elicitation"_s).toObject().contains(u"url"_s));
        QVERIFY(caps.contains(u"tasks"_s));
        QVERIFY(sent.at(0).header("mcp-session-id").isEmpty());
        QCOMPARE(bodyOf(sent.at(1)).value(u"method"_s).toString(), u"notifications/initialized"_s);
        for (qsizetype i = 1; i < sent.size(); ++i) {
            QCOMPARE(sent.at(i).header("mcp-session-id"), QByteArray("s-1"));
            QCOMPARE(sent.at(i).header("mcp-protocol-version"), QByteArray("2025-11-25"));
            QCOMPARE(sent.at(i).header("authorization"), QByteArray("Bearer mcp-test-token"));
            QVERIFY(sent.at(i).header("accept").contains("text/event-stream"));
        }
        const QJsonObject call = bodyOf(sent.at(3)).value(u"params"_s).toObject();
        QCOMPARE(call.value(u"name"_s).toString(), u"write"_s);
        QVERIFY(call.value(u"task"_s).toObject().value(u"ttl"_s).toInteger() > 0);
        QVERIFY(!call.value(u"_meta"_s).toObject().value(u"progressToken"_s).toString().isEmpty());
        // Never faster than pollInterval, the first poll included.
        QVERIFY(sent.at(4).receivedAtMs - sent.at(3).receivedAtMs >= 145);
        QVERIFY(sent.at(5).receivedAtMs - sent.at(4).receivedAtMs >= 145);
        QCOMPARE(bodyOf(sent.at(6)).value(u"method"_s).toString(), u"tasks/result"_s);
        // Client ids are strings: the server's own (0, 1, …) never collide with them.
        QVERIFY(bodyOf(sent.at(6)).value(u"id"_s).isString());
    }

    // A forbidden or unknown tool and non-object arguments are refused: no tools/call is sent.
    void refusalsSendNoToolCall()
    {
        for (const QString &tool : {u"echo"_s, u"nope"_s}) {
            ScriptedServer server;
            enqueueHandshake(server, "s-1");
            server.enqueue("/mcp", result("rw-2", kTools));
            McpBackend backend(connectionTo(server));
            StartRequest request;
            request.agent = tool;
            Run run;
            const StreamEnd end = drive(backend.start(request, nullptr), run);
            QCOMPARE(end.reason, StreamEnd::Reason::Error);
            QCOMPARE(end.error.code, tool == u"echo"_s ? u"task_forbidden"_s : u"unknown_tool"_s);
            QCOMPARE(server.requestCount("/mcp"), 3);
        }
        ScriptedServer server;
        McpBackend backend(connectionTo(server));
        StartRequest request;
        request.agent = u"write"_s;
        request.input = QJsonArray{1};
        Run run;
        QCOMPARE(drive(backend.start(request, nullptr), run).error.code, u"arguments_not_object"_s);
        QCOMPARE(server.requestCount(), 0);
    }

    // The stored session is gone (404): a new one is opened and the run says so; with a
    // session-bound store the task is gone too — said, and not retried.
    void lostSessionIsReplacedAndSaid()
    {
        ScriptedServer server;
        server.enqueue("/mcp",
                       ScriptedReply::json(404, json("{'jsonrpc':'2.0','error':{'code':-32001,'message':"
                                                     "'Session not found'},'id':null}")));
        // rw-1 is the first tasks/get (404); the new session's initialize is rw-2.
        enqueueHandshake(server, "s-new", "rw-2");
        server.enqueue(
            "/mcp",
            sse(json("{'jsonrpc':'2.0','id':'rw-3','error':{'code':-32602,'message':'Failed to retrieve "
                     "task: Task not found'}}")));
        McpBackend backend(connectionTo(server));
        ContinuationToken token = tokenOn(u"s-old"_s);
        token.extra.insert(u"elicitation"_s, QJsonObject{{u"id"_s, 0}, {u"session"_s, u"s-old"_s}});
        Run run;
        run.token = token;
        run.remoteId = token.remoteId;
        const StreamEnd end = drive(backend.follow(token, nullptr), run);
        QCOMPARE(end.reason, StreamEnd::Reason::Error);
        QCOMPARE(end.error.kind, ErrorKind::NotFound);
        QVERIFY(!end.error.retryable);
        QVERIFY2(end.error.message.contains(u"lost the session"_s), qPrintable(end.error.message));
        QCOMPARE(run.token.extra.value(u"session_id"_s).toString(), u"s-new"_s);
        QVERIFY(!run.token.extra.value(u"elicitation"_s).isObject());
        const auto lost = std::find_if(run.secondary.cbegin(), run.secondary.cend(),
                                       [](const SecondaryItem &i) { return i.id == u"session_lost"_s; });
        QVERIFY(lost != run.secondary.cend());
        QVERIFY2(lost->text.contains(u"can no longer be answered"_s), qPrintable(lost->text));
        const QList<RecordedRequest> sent = server.requests("/mcp");
        QCOMPARE(sent.first().header("mcp-session-id"), QByteArray("s-old"));
        QCOMPARE(sent.last().header("mcp-session-id"), QByteArray("s-new"));
    }

    // 429 with Retry-After: the next tasks/get waits at least that long.
    void retryAfterIsRespected()
    {
        ScriptedServer server;
        server.enqueue("/mcp",
                       ScriptedReply::json(429, json("{'error':'slow down'}"), {{"Retry-After", "1"}}));
        server.enqueue("/mcp", result("rw-1", json("{'taskId':'t1','status':'cancelled'}")));
        McpBackend backend(connectionTo(server));
        Run run;
        const StreamEnd end = drive(backend.follow(tokenOn(u"s-1"_s), nullptr), run);
        QCOMPARE(end.reason, StreamEnd::Reason::Terminal);
        QCOMPARE(run.status, RunStatus::Cancelled);
        const QList<RecordedRequest> sent = server.requests("/mcp");
        QCOMPARE(sent.size(), 2);
        QVERIFY2(sent.at(1).receivedAtMs - sent.at(0).receivedAtMs >= 990,
                 qPrintable(QString::number(sent.at(1).receivedAtMs - sent.at(0).receivedAtMs)));
    }

    // A reply stream with garbage, other requests' answers and a server request this client does
    // not offer, then the result: the garbage is skipped, the result taken.
    void malformedAndHostileResultStream()
    {
        ScriptedServer server;
        server.enqueue("/mcp", result("rw-1", json("{'taskId':'t1','status':'completed'}")));
        const QByteArray body
            = "event: message\ndata: {not json\n\n"
              "data: [1,2,3]\n\n"
              ": comment\n\n"
              "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sampling/createMessage\"}\n\n"
              "data: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"content\":[{\"type\":\"text\","
              "\"text\":\"not ours\"}]}}\n\n"
              "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{"
              "\"progress\":\"NaN\"}}\n\n"
              "data: {\"jsonrpc\":\"2.0\",\"id\":\"rw-2\",\"result\":{\"content\":[{\"type\":"
              "\"text\",\"text\":\"ours\"},{\"type\":\"text\",\"text\":42}]}}\n\n";
        server.enqueue("/mcp", ScriptedReply::stream(200, {{"Content-Type", "text/event-stream"}},
                                                     {{0, body.left(40)}, {20, body.mid(40)}}));
        McpBackend backend(connectionTo(server));
        Run run;
        const StreamEnd end = drive(backend.follow(tokenOn(u"s-1"_s), nullptr), run);
        QCOMPARE(end.reason, StreamEnd::Reason::Terminal);
        QCOMPARE(run.primaryText, u"ours"_s);
        QCOMPARE(run.status, RunStatus::Completed);
    }

    // A result stream that closes before the answer is no failure: the engine follows again.
    void resultStreamCutIsEof()
    {
        ScriptedServer server;
        server.enqueue("/mcp", result("rw-1", json("{'taskId':'t1','status':'completed'}")));
        server.enqueue(
            "/mcp", ScriptedReply::stream(200, {{"Content-Type", "text/event-stream"}},
                                          {{0, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"rw"}}));
        McpBackend backend(connectionTo(server));
        Run run;
        const StreamEnd end = drive(backend.follow(tokenOn(u"s-1"_s), nullptr), run);
        QCOMPARE(end.reason, StreamEnd::Reason::Eof);
    }

    // A tasks/get answer that is no JSON-RPC at all: a protocol error, retryable.
    void garbageReplyIsAProtocolError()
    {
        ScriptedServer server;
        server.enqueue("/mcp", ScriptedReply::text(200, "text/html", "<html>login</html>"), 3);
        McpBackend backend(connectionTo(server));
        const std::optional<ActionResult> got = awaitWithin(backend.get(tokenOn(u"s-1"_s)));
        QVERIFY(got);
        QVERIFY(!got->ok());
        QCOMPARE(got->error.kind, ErrorKind::Protocol);
    }

    // The answer: a JSON-RPC response with the server's request id, on the session the question
    // came on, after tasks/get says the task still waits.
    void answerGoesOnTheStoredSession()
    {
        ScriptedServer server;
        server.enqueue("/mcp", result("rw-1", json("{'taskId':'t1','status':'input_required'}")));
        server.enqueue("/mcp", accepted());
        McpBackend backend(connectionTo(server));
        ContinuationToken token = tokenOn(u"s-task"_s);
        token.extra.insert(
            u"elicitation"_s,
            QJsonObject{{u"id"_s, 0},
                        {u"session"_s, u"s-asked"_s},
                        {u"params"_s,
                         QJsonDocument::fromJson(json("{'mode':'form','message':'Name?','requestedSchema':"
                                                      "{'type':'object','properties':{'name':{'type':"
                                                      "'string'}}}}"))
                             .object()}});
        InputAnswer answer;
        answer.text = u"Ada"_s;
        const std::optional<ActionResult> sent = awaitWithin(backend.respond(token, answer));
        QVERIFY(sent);
        QVERIFY2(sent->ok(), qPrintable(sent->error.message));
        const QList<RecordedRequest> requests = server.requests("/mcp");
        QCOMPARE(requests.size(), 2);
        QCOMPARE(requests.at(1).header("mcp-session-id"), QByteArray("s-asked"));
        QCOMPARE(bodyOf(requests.at(1)),
                 QJsonDocument::fromJson(
                     json("{'jsonrpc':'2.0','id':0,'result':{'action':'accept','content':{'name':'Ada'}}}"))
                     .object());
        Run run;
        for (const RunEvent &e : sent->events)
            applyEvent(run, e, QDateTime::currentDateTimeUtc());
        QVERIFY(!run.token.extra.value(u"elicitation"_s).isObject());
        QCOMPARE(run.status, RunStatus::InProgress);

        // Not waiting any more: refused, nothing posted.
        ScriptedServer later;
        later.enqueue("/mcp", result("rw-1", json("{'taskId':'t1','status':'completed'}")));
        McpBackend again(connectionTo(later));
        const std::optional<ActionResult> refused = awaitWithin(again.respond(token, answer));
        QVERIFY(refused && !refused->ok());
        QCOMPARE(refused->error.kind, ErrorKind::Conflict);
        QCOMPARE(later.requestCount(), 1);
        // Nothing stored: refused before anything is sent.
        ScriptedServer none;
        McpBackend third(connectionTo(none));
        const std::optional<ActionResult> nothing = awaitWithin(third.respond(tokenOn(u"s"_s), answer));
        QVERIFY(nothing && !nothing->ok());
        QCOMPARE(none.requestCount(), 0);
    }

    // auto: server/discover first (a 2025 server refuses it), then the 2025 handshake.
    void autoNegotiationFallsBackTo2025()
    {
        ScriptedServer server;
        server.enqueue("/mcp", ScriptedReply::json(
                                   400, json("{'jsonrpc':'2.0','error':{'code':-32000,'message':"
                                             "'Bad Request: No valid session ID provided'},'id':null}")));
        enqueueHandshake(server, "s-1", "rw-2");
        server.enqueue("/mcp", result("rw-3", kTools));
        Connection c = connectionTo(server);
        c.options.remove(u"protocol_version"_s);
        McpBackend backend(c);
        const std::optional<CatalogResult> catalog = awaitWithin(backend.catalog());
        QVERIFY(catalog);
        QVERIFY2(!catalog->error.isError(), qPrintable(catalog->error.message));
        QCOMPARE(catalog->entries.size(), 2);
        const QList<RecordedRequest> sent = server.requests("/mcp");
        QCOMPARE(bodyOf(sent.at(0)).value(u"method"_s).toString(), u"server/discover"_s);
        QCOMPARE(sent.at(0).header("mcp-method"), QByteArray("server/discover"));
        QCOMPARE(bodyOf(sent.at(1)).value(u"method"_s).toString(), u"initialize"_s);
    }

    // tasks/list follows nextCursor to the last page.
    void listReadsEveryPage()
    {
        ScriptedServer server;
        enqueueHandshake(server, "s-1");
        server.enqueue(
            "/mcp", result("rw-2", json("{'tasks':[{'taskId':'a','status':'working'}],'nextCursor':'a'}")));
        server.enqueue("/mcp", result("rw-3", json("{'tasks':[{'taskId':'b','status':'completed'}]}")));
        McpBackend backend(connectionTo(server));
        const std::optional<ListResult> listed = awaitWithin(backend.list());
        QVERIFY(listed);
        QVERIFY2(!listed->error.isError(), qPrintable(listed->error.message));
        QCOMPARE(listed->runs.size(), 2);
        QCOMPARE(bodyOf(server.requests("/mcp").last())
                     .value(u"params"_s)
                     .toObject()
                     .value(u"cursor"_s)
                     .toString(),
                 u"a"_s);
    }

    // 2026-07-28 (written from the spec; no official server has it): server/discover, no session,
    // the _meta envelope and the Mcp-Method / Mcp-Name headers, a flat task, the question from
    // tasks/get answered by tasks/update (repeated until taken), the result inline.
    void revision2026OnTheWire()
    {
        ScriptedServer server;
        server.enqueue("/mcp",
                       ScriptedReply::json(200, json("{'jsonrpc':'2.0','id':'rw-1','result':{"
                                                     "'supportedVersions':['2026-07-28'],'capabilities':{"
                                                     "'tools':{},'extensions':{'io.modelcontextprotocol/"
                                                     "tasks':{}}},'resultType':'complete'}}")));
        server.enqueue("/mcp", ScriptedReply::json(
                                   200, "{\"jsonrpc\":\"2.0\",\"id\":\"rw-2\",\"result\":" + kTools + "}"));
        server.enqueue("/mcp",
                       ScriptedReply::json(200, json("{'jsonrpc':'2.0','id':'rw-3','result':{'resultType':"
                                                     "'task','taskId':'t26','status':'working','ttlMs':"
                                                     "30000,'pollIntervalMs':100}}")));
        const QByteArray waiting
            = json("{'taskId':'t26','status':'input_required','inputRequests':{'k1':{'method':"
                   "'elicitation/create','params':{'mode':'form','message':'Name?',"
                   "'requestedSchema':{'type':'object','properties':{'name':{'type':"
                   "'string'}}}}}}}");
        server.enqueue("/mcp", ScriptedReply::json(
                                   200, "{\"jsonrpc\":\"2.0\",\"id\":\"rw-4\",\"result\":" + waiting + "}"));
        Connection c = connectionTo(server);
        c.options.insert(u"protocol_version"_s, u"2026-07-28"_s);
        McpBackend backend(c);
        StartRequest request;
        request.agent = u"write"_s;
        Run run;
        QCOMPARE(drive(backend.start(request, nullptr), run).reason, StreamEnd::Reason::Terminal);
        QCOMPARE(run.status, RunStatus::InputRequired);
        QCOMPARE(run.remoteId, u"t26"_s);
        QCOMPARE(run.input->prompt, u"Name?"_s);
        QCOMPARE(run.token.extra.value(u"protocol_version"_s).toString(), u"2026-07-28"_s);
        QList<RecordedRequest> sent = server.requests("/mcp");
        QCOMPARE(bodyOf(sent.at(0)).value(u"method"_s).toString(), u"server/discover"_s);
        for (const RecordedRequest &r : sent) {
            QVERIFY(r.header("mcp-session-id").isEmpty());
            QCOMPARE(r.header("mcp-protocol-version"), QByteArray("2026-07-28"));
            const QJsonObject meta = bodyOf(r).value(u"params"_s).toObject().value(u"_meta"_s).toObject();
            QVERIFY(meta.value(u"io.modelcontextprotocol/clientCapabilities"_s)
                        .toObject()
                        .value(u"extensions"_s)
                        .toObject()
                        .contains(u"io.modelcontextprotocol/tasks"_s));
        }
        QCOMPARE(sent.at(2).header("mcp-method"), QByteArray("tools/call"));
        QCOMPARE(sent.at(2).header("mcp-name"), QByteArray("write"));
        QVERIFY(!bodyOf(sent.at(2)).value(u"params"_s).toObject().contains(u"task"_s));
        QCOMPARE(sent.at(3).header("mcp-name"), QByteArray("t26"));

        // The answer: tasks/update with inputResponses, from the token alone.
        server.enqueue("/mcp",
                       ScriptedReply::json(200, json("{'jsonrpc':'2.0','id':'rw-5','result':{'resultType':"
                                                     "'complete'}}")));
        InputAnswer answer;
        answer.text = u"Ada"_s;
        const std::optional<ActionResult> sentAnswer = awaitWithin(backend.respond(run.token, answer));
        QVERIFY(sentAnswer);
        QVERIFY2(sentAnswer->ok(), qPrintable(sentAnswer->error.message));
        for (const RunEvent &e : sentAnswer->events)
            applyEvent(run, e, QDateTime::currentDateTimeUtc());
        QCOMPARE(
            bodyOf(server.requests("/mcp").last()).value(u"params"_s).toObject().value(u"inputResponses"_s),
            QJsonValue(QJsonDocument::fromJson(json("{'k1':{'action':'accept','content':{'name':'Ada'}}}"))
                           .object()));
        // Not taken yet (the same question again): working; then the result inline.
        server.enqueue("/mcp", ScriptedReply::json(
                                   200, "{\"jsonrpc\":\"2.0\",\"id\":\"rw-6\",\"result\":" + waiting + "}"));
        server.enqueue("/mcp",
                       ScriptedReply::json(200, json("{'jsonrpc':'2.0','id':'rw-7','result':{'taskId':'t26',"
                                                     "'status':'completed','result':{'content':[{'type':"
                                                     "'text','text':'Hello Ada'}]}}}")));
        QCOMPARE(drive(backend.follow(run.token, nullptr), run).reason, StreamEnd::Reason::Terminal);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, u"Hello Ada"_s);
    }

    // A server that answers with plain JSON instead of SSE, tasks/result included.
    void plainJsonReplies()
    {
        ScriptedServer server;
        server.enqueue("/mcp",
                       ScriptedReply::json(200, json("{'jsonrpc':'2.0','id':'rw-1','result':{'taskId':'t1',"
                                                     "'status':'completed'}}")));
        server.enqueue("/mcp",
                       ScriptedReply::json(200, json("{'jsonrpc':'2.0','id':'rw-2','result':{'content':[{"
                                                     "'type':'text','text':'plain'}]}}")));
        McpBackend backend(connectionTo(server));
        Run run;
        QCOMPARE(drive(backend.follow(tokenOn(u"s-1"_s), nullptr), run).reason, StreamEnd::Reason::Terminal);
        QCOMPARE(run.primaryText, u"plain"_s);
        QCOMPARE(run.status, RunStatus::Completed);
    }

    // Cancelling a task that has ended: the server refuses; the run says how it ended instead.
    void cancelOfAnEndedTask()
    {
        ScriptedServer server;
        server.enqueue("/mcp",
                       sse(json("{'jsonrpc':'2.0','id':'rw-1','error':{'code':-32602,'message':'Cannot "
                                "cancel task in terminal status: completed'}}")));
        server.enqueue("/mcp", result("rw-2", json("{'taskId':'t1','status':'completed'}")));
        server.enqueue("/mcp", result("rw-3", json("{'content':[{'type':'text','text':'was done'}]}")));
        McpBackend backend(connectionTo(server));
        const std::optional<ActionResult> cancelled = awaitWithin(backend.cancel(tokenOn(u"s-1"_s)));
        QVERIFY(cancelled);
        QVERIFY2(cancelled->ok(), qPrintable(cancelled->error.message));
        QVERIFY(!cancelled->note.isEmpty());
        Run run;
        for (const RunEvent &e : cancelled->events)
            applyEvent(run, e, QDateTime::currentDateTimeUtc());
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, u"was done"_s);
        QCOMPARE(bodyOf(server.requests("/mcp").first()).value(u"method"_s).toString(), u"tasks/cancel"_s);
    }
};

QTEST_GUILESS_MAIN(TestMcpBackend)
#include "tst_mcp_backend.moc"
