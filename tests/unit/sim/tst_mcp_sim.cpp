// SPDX-License-Identifier: GPL-3.0-or-later
// The MCP simulator's 2025-11-25 side against a plain QNetworkAccessManager (never the client's
// code): handshake, session routing, every method, the tasks/result stream (progress, the
// elicitation delivered once, the answer bound to its session), cancel and list pages, as
// docs/protocols/mcp-tasks.md §2–§6 and §10 describe them. Faults and session loss:
// tst_mcp_sim_faults; 2026-07-28: tst_mcp_sim_2026; the official client: tests/peers/mcp-client-peer.
#include "mcpsimclient.h"

using namespace McpSimTest;
using namespace RunwatchSim;
using namespace Qt::StringLiterals;

namespace {

const QString kFast = u"interval_ms=2 poll_ms=20"_s;

QJsonObject topic(const QString &words)
{
    return QJsonObject{{u"topic"_s, words}};
}

} // namespace

class TestMcpSim final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // initialize over SSE with a session id; a 2026-07-28 request negotiates 2025-11-25, an older
    // supported one is kept; notifications/initialized → 202; ping.
    void handshake()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        QCOMPARE(sim.baseUrl().path(), u"/mcp"_s);
        Client client(sim.baseUrl());
        const Reply init = client.rpc(
            u"initialize"_s, {{u"protocolVersion"_s, u"2026-07-28"_s},
                              {u"capabilities"_s, QJsonObject{{u"elicitation"_s, QJsonObject()}}},
                              {u"clientInfo"_s, QJsonObject{{u"name"_s, u"t"_s}, {u"version"_s, u"1"_s}}}});
        QCOMPARE(init.status, 200);
        QVERIFY(init.isSse());
        QVERIFY(init.body.startsWith("event: message\ndata: {"));
        QVERIFY(!init.body.contains("\nid:"));
        const QString session = QString::fromLatin1(init.header("mcp-session-id"));
        QCOMPARE(session.size(), 36);
        QCOMPARE(sim.sessionIds(), QStringList{session});
        QCOMPARE(init.result().value(u"protocolVersion"_s).toString(), u"2025-11-25"_s);
        const QJsonObject tasks = init.result()[u"capabilities"_s][u"tasks"_s].toObject();
        QVERIFY(tasks.contains(u"list"_s) && tasks.contains(u"cancel"_s));
        QVERIFY(tasks[u"requests"_s][u"tools"_s][u"call"_s].isObject());
        QCOMPARE(init.last().value(u"id"_s).toInt(), 1);

        client.sessionId = session;
        const Reply initialized = client.post(
            QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"method"_s, u"notifications/initialized"_s}});
        QCOMPARE(initialized.status, 202);
        QVERIFY(initialized.body.isEmpty());
        // No MCP-Protocol-Version header is accepted; ping answers {}.
        QCOMPARE(client.rpc(u"ping"_s).result(), QJsonObject());

        Client older(sim.baseUrl());
        QVERIFY(older.initialize({}, u"2025-06-18"_s));
        QCOMPARE(older.version, QByteArray("2025-06-18"));
        QCOMPARE(sim.sessionIds().size(), 2);
    }

    // The example's routing and the transport's checks, with their status codes and texts.
    void sessionAndTransportRules()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        Reply r = client.rpc(u"tools/list"_s);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.error().value(u"code"_s).toInt(), -32000);
        QCOMPARE(r.error().value(u"message"_s).toString(), u"Bad Request: No valid session ID provided"_s);
        QVERIFY(r.last().value(u"id"_s).isNull());
        client.sessionId = u"0f0e0d0c-0000-4000-8000-000000000000"_s;
        r = client.rpc(u"tools/list"_s);
        QCOMPARE(r.status, 404);
        QCOMPARE(r.error().value(u"code"_s).toInt(), -32001);
        QCOMPARE(r.error().value(u"message"_s).toString(), u"Session not found"_s);

        QVERIFY(client.initialize());
        r = client.rpc(u"initialize"_s, {{u"protocolVersion"_s, u"2025-11-25"_s}});
        QCOMPARE(r.status, 400);
        QCOMPARE(r.error().value(u"message"_s).toString(), u"Invalid Request: Server already initialized"_s);
        client.version = "1999-01-01";
        r = client.rpc(u"tools/list"_s);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.error().value(u"message"_s).toString(),
                 u"Bad Request: Unsupported protocol version: 1999-01-01 (supported versions: 2025-11-25, "
                 u"2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07)"_s);
        client.version = "2025-11-25";
        client.accept = "application/json";
        QCOMPARE(client.rpc(u"tools/list"_s).status, 406);
        client.accept = "application/json, text/event-stream";
        QNetworkReply *plain = client.start("POST", "{}");
        r = finish(plain);
        QCOMPARE(r.status, 400); // not JSON-RPC
        QCOMPARE(QJsonDocument::fromJson(r.body)[u"error"_s][u"message"_s].toString(),
                 u"Parse error: Invalid JSON-RPC message"_s);
        r = finish(client.start("POST", "{nope"));
        QCOMPARE(r.status, 400);
        QCOMPARE(QJsonDocument::fromJson(r.body)[u"error"_s][u"code"_s].toInt(), -32700);
        r = client.rpc(u"resources/list"_s);
        QCOMPARE(r.status, 200);
        QCOMPARE(r.error().value(u"code"_s).toInt(), -32601);
        QCOMPARE(r.error().value(u"message"_s).toString(), u"Method not found"_s);

        // GET and DELETE without a session: the example's plain 400.
        Client bare(sim.baseUrl());
        r = finish(bare.start("GET"));
        QCOMPARE(r.status, 400);
        QCOMPARE(r.body, QByteArray("Missing session ID"));
        r = finish(client.start("DELETE"));
        QCOMPARE(r.status, 200);
        QVERIFY(sim.sessionIds().isEmpty());
        QCOMPARE(client.rpc(u"ping"_s).status, 404);
        QCOMPARE(finish(client.start("DELETE")).status, 404);

        // The bearer token: missing or wrong → 401 with WWW-Authenticate; another path → 404.
        Client stranger(sim.baseUrl(), "wrong");
        r = stranger.rpc(u"ping"_s);
        QCOMPARE(r.status, 401);
        QVERIFY(r.header("www-authenticate").startsWith("Bearer error=\"invalid_token\""));
        QCOMPARE(Client(sim.baseUrl(), QByteArray()).rpc(u"ping"_s).status, 401);
        QUrl other = sim.baseUrl();
        other.setPath(u"/other"_s);
        QCOMPARE(Client(other).rpc(u"ping"_s).status, 404);
    }

    // tools/list: the SDK's shape, with execution.taskSupport for every tool.
    void toolsList()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        const QJsonArray tools = client.rpc(u"tools/list"_s).result().value(u"tools"_s).toArray();
        QHash<QString, QString> support;
        for (const QJsonValue &tool : tools) {
            support.insert(tool[u"name"_s].toString(), tool[u"execution"_s][u"taskSupport"_s].toString());
            QCOMPARE(tool[u"inputSchema"_s][u"type"_s].toString(), u"object"_s);
            QCOMPARE(tool[u"inputSchema"_s][u"$schema"_s].toString(),
                     u"http://json-schema.org/draft-07/schema#"_s);
            QVERIFY(!tool[u"description"_s].toString().isEmpty());
        }
        QCOMPARE(support.size(), 8);
        QCOMPARE(support.value(u"write"_s), u"required"_s);
        QCOMPARE(support.value(u"summarize"_s), u"optional"_s);
        QCOMPARE(support.value(u"echo"_s), u"forbidden"_s);
        QCOMPARE(tools.at(0)[u"inputSchema"_s][u"required"_s].toArray(), QJsonArray{u"topic"_s});
        QCOMPARE(tools.at(0)[u"inputSchema"_s][u"properties"_s][u"steps"_s][u"type"_s].toString(),
                 u"integer"_s);
    }

    // A task from handle to result: the CreateTaskResult, tasks/get until completed (no _meta), then
    // tasks/result with the queued progress first and the result with the related-task meta.
    void taskToCompletion()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        const Reply created = client.rpc(
            u"tools/call"_s, {{u"name"_s, u"write"_s},
                              {u"arguments"_s, QJsonObject{{u"topic"_s, u"batteries"_s}, {u"steps"_s, 4}}},
                              {u"task"_s, QJsonObject{{u"ttl"_s, 60000}}},
                              {u"_meta"_s, QJsonObject{{u"progressToken"_s, u"p-1"_s}}}});
        const QJsonObject task = created.result().value(u"task"_s).toObject();
        QCOMPARE(task.keys(), (QStringList{u"createdAt"_s, u"lastUpdatedAt"_s, u"pollInterval"_s, u"status"_s,
                                           u"taskId"_s, u"ttl"_s}));
        const QString id = task.value(u"taskId"_s).toString();
        QVERIFY(QRegularExpression(u"^[0-9a-f]{32}$"_s).match(id).hasMatch());
        QCOMPARE(task.value(u"status"_s).toString(), u"working"_s);
        QCOMPARE(task.value(u"ttl"_s).toInt(), 60000);
        QCOMPARE(task.value(u"pollInterval"_s).toInt(), 20);
        QVERIFY(QRegularExpression(u"^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$"_s)
                    .match(task.value(u"createdAt"_s).toString())
                    .hasMatch());
        QCOMPARE(sim.lastTaskId(), id);

        const QJsonObject done = client.waitStatus(id, {u"completed"_s});
        QCOMPARE(done.value(u"status"_s).toString(), u"completed"_s);
        QCOMPARE(done.value(u"statusMessage"_s).toString(), u"Writing part 4 of 4"_s);
        QVERIFY(!done.contains(u"_meta"_s));

        const Reply result = client.rpc(u"tasks/result"_s, {{u"taskId"_s, id}});
        const QList<QJsonObject> messages = result.messages();
        QCOMPARE(messages.size(), 5);
        for (int i = 0; i < 4; ++i) {
            const QJsonObject progress = messages.at(i);
            QCOMPARE(progress.value(u"method"_s).toString(), u"notifications/progress"_s);
            QVERIFY(!progress.contains(u"id"_s));
            const QJsonObject params = progress.value(u"params"_s).toObject();
            QCOMPARE(params.value(u"progressToken"_s).toString(), u"p-1"_s);
            QCOMPARE(params.value(u"progress"_s).toInt(), i + 1);
            QCOMPARE(params.value(u"total"_s).toInt(), 4);
            QCOMPARE(params[u"_meta"_s][u"io.modelcontextprotocol/related-task"_s][u"taskId"_s].toString(),
                     id);
        }
        const QJsonObject payload = result.result();
        QCOMPARE(textOf(payload), expectedText(4));
        QCOMPARE(payload[u"structuredContent"_s][u"parts"_s].toInt(), 4);
        QCOMPARE(payload[u"_meta"_s][u"io.modelcontextprotocol/related-task"_s][u"taskId"_s].toString(), id);
        QCOMPARE(sim.task(id)->text, expectedText(4));
        // Delivered once: a second tasks/result has the result only.
        QCOMPARE(client.rpc(u"tasks/result"_s, {{u"taskId"_s, id}}).messages().size(), 1);
        // No ttl asked: null (kept).
        const QString kept
            = client.startTask(u"write"_s, topic(kFast), QJsonValue(QJsonValue::Undefined), -1);
        QVERIFY(!kept.isEmpty());
        const QJsonObject keptTask = client.getTask(kept);
        QVERIFY2(keptTask.value(u"ttl"_s).isNull(), compactJson(keptTask).constData());
    }

    // tools/call without and with params.task for each kind of tool, with the SDK's answers.
    void toolCallRules()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        const auto call = [&](const QString &name, const QJsonObject &arguments, bool task) {
            QJsonObject params{{u"name"_s, name}, {u"arguments"_s, arguments}};
            if (task)
                params.insert(u"task"_s, QJsonObject{{u"ttl"_s, 1000}});
            return client.rpc(u"tools/call"_s, params);
        };
        const QString invalidCreation = mcpInvalidTaskCreationText();
        QVERIFY(invalidCreation.startsWith(u"MCP error -32602: Invalid task creation result: [\n  {\n"_s));
        for (const auto &[name, arguments] :
             {std::pair{u"echo"_s, QJsonObject{{u"text"_s, u"hi"_s}}}, std::pair{u"nope"_s, QJsonObject()},
              std::pair{u"write"_s, QJsonObject{{u"topic"_s, 7}}},
              std::pair{u"write"_s, topic(u"steps=0"_s)}}) {
            const Reply r = call(name, arguments, true);
            QCOMPARE(r.error().value(u"code"_s).toInt(), -32602);
            QCOMPARE(r.error().value(u"message"_s).toString(), invalidCreation);
        }
        QCOMPARE(sim.tasksCreated(), 0);
        Reply r = call(u"write"_s, topic(u"x"_s), false);
        QCOMPARE(r.result().value(u"isError"_s).toBool(), true);
        QCOMPARE(textOf(r.result()),
                 u"MCP error -32601: Tool write requires task augmentation (taskSupport: 'required')"_s);
        r = call(u"echo"_s, QJsonObject{{u"text"_s, u"héllo"_s}}, false);
        QCOMPARE(textOf(r.result()), u"héllo"_s);
        QVERIFY(!r.result().contains(u"isError"_s));
        QCOMPARE(textOf(call(u"nope"_s, {}, false).result()), u"MCP error -32602: Tool nope not found"_s);
        QCOMPARE(
            textOf(call(u"echo"_s, {}, false).result()),
            u"MCP error -32602: Input validation error: Invalid arguments for tool echo: text: Required"_s);
        // An optional tool without a task: the call blocks and answers with the result itself.
        r = call(u"summarize"_s, QJsonObject{{u"topic"_s, kFast}, {u"steps"_s, 3}}, false);
        QCOMPARE(textOf(r.result()), expectedText(3));
        QCOMPARE(sim.tasksCreated(), 1);
        // ... and with one it is a task.
        QVERIFY(
            !call(u"summarize"_s, topic(kFast), true).result()[u"task"_s][u"taskId"_s].toString().isEmpty());
    }

    // input_required: the elicitation arrives once, on the tasks/result stream of the session that
    // started the task; an answer on another session is accepted and dropped; the answer on the
    // original session, over a new connection, finishes the task on the still-open stream.
    void elicitationOnceAndBoundToItsSession()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        const QString id = client.startTask(u"approve"_s, topic(u"plan steps=3 "_s + kFast), 9);
        const QJsonObject waiting = client.waitStatus(id, {u"input_required"_s});
        QCOMPARE(
            waiting.value(u"statusMessage"_s).toString(),
            u"Waiting for approval: Go ahead with the plan for \"plan steps=3 interval_ms=2 poll_ms=20\"?"_s);

        QJsonObject request;
        {
            Stream first(client.startResult(id));
            QVERIFY(first.waitForMessages(2));
            const QList<QJsonObject> messages = first.messages();
            QCOMPARE(messages.at(0).value(u"method"_s).toString(), u"notifications/progress"_s);
            request = messages.at(1);
            QCOMPARE(request.value(u"method"_s).toString(), u"elicitation/create"_s);
            QCOMPARE(request.value(u"id"_s).toInt(), 0); // the session's own counter
            const QJsonObject params = request.value(u"params"_s).toObject();
            QCOMPARE(params.value(u"mode"_s).toString(), u"form"_s);
            QCOMPARE(params[u"_meta"_s][u"io.modelcontextprotocol/related-task"_s][u"taskId"_s].toString(),
                     id);
            QCOMPARE(params[u"requestedSchema"_s][u"required"_s].toArray(), QJsonArray{u"approve"_s});
            QCOMPARE(params[u"requestedSchema"_s][u"properties"_s][u"priority"_s][u"enum"_s].toArray().size(),
                     3);
            QVERIFY(!first.isFinished());
        } // the stream is cut after the request arrived
        QCOMPARE(sim.task(id)->status, u"input_required"_s);
        QCOMPARE(sim.task(id)->queued, 0);

        // Not repeated: a later tasks/result of the same session blocks without it.
        Stream second(client.startResult(id));
        QVERIFY(!second.waitForMessages(1, 300));
        // Another session: the task is not found (session-bound store), and its answer is dropped.
        Client other(sim.baseUrl());
        QVERIFY(other.initialize());
        const Reply foreign = other.rpc(u"tasks/result"_s, {{u"taskId"_s, id}});
        QCOMPARE(foreign.error().value(u"message"_s).toString(),
                 u"MCP error -32602: Task not found: "_s + id);
        QCOMPARE(other.rpc(u"tasks/get"_s, {{u"taskId"_s, id}}).error().value(u"message"_s).toString(),
                 u"MCP error -32602: Failed to retrieve task: Task not found"_s);
        QSignalSpy dropped(&sim, &McpSimulator::answerDropped);
        const QJsonObject accept{
            {u"action"_s, u"accept"_s},
            {u"content"_s, QJsonObject{{u"approve"_s, true}, {u"priority"_s, u"low"_s}}}};
        QCOMPARE(other.answer(request.value(u"id"_s), accept).status, 202);
        QCOMPARE(dropped.size(), 1);
        QCOMPARE(sim.answersDropped(), 1);
        QCOMPARE(client.getTask(id).value(u"status"_s).toString(), u"input_required"_s);
        // An id nothing waits for on the right session: dropped too.
        QCOMPARE(client.answer(42, accept).status, 202);
        QCOMPARE(sim.answersDropped(), 2);

        const Reply answered = client.answer(request.value(u"id"_s), accept);
        QCOMPARE(answered.status, 202);
        QVERIFY(answered.body.isEmpty());
        QVERIFY(second.waitFinished());
        const QJsonObject result = second.messages().last().value(u"result"_s).toObject();
        QCOMPARE(textOf(result), u"Approved (priority: low). "_s + expectedText(3));
        QCOMPARE(client.getTask(id).value(u"status"_s).toString(), u"completed"_s);
        QCOMPARE(sim.task(id)->inputsAsked, 1);
    }

    // Decline and cancel finish the tool normally; content that breaks the schema, or a JSON-RPC
    // error as the answer, fails it; a question with one string field; the client's capabilities.
    void elicitationAnswers()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        // Answers the task's input request with `answer` and returns the task's text.
        const auto answerWith = [&](const QString &tool, const QJsonObject &answer) {
            const QString id = client.startTask(tool, topic(kFast + u" steps=2"_s));
            client.waitStatus(id, {u"input_required"_s});
            const QList<QJsonObject> messages = [&] {
                Stream s(client.startResult(id));
                s.waitForMessages(1);
                return s.messages();
            }();
            const QJsonValue requestIdValue
                = messages.isEmpty() ? QJsonValue() : messages.last().value(u"id"_s);
            if (answer.contains(u"error"_s)) {
                client.post(QJsonObject{
                    {u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, requestIdValue}, {u"error"_s, answer[u"error"_s]}});
            } else {
                client.answer(requestIdValue, answer);
            }
            client.waitStatus(id, {u"completed"_s, u"failed"_s});
            return std::pair{sim.task(id)->status, sim.task(id)->text};
        };
        QCOMPARE(answerWith(u"approve"_s, {{u"action"_s, u"decline"_s}}),
                 std::pair(u"completed"_s, u"Declined: nothing was written."_s));
        QCOMPARE(answerWith(u"approve"_s, {{u"action"_s, u"cancel"_s}}),
                 std::pair(u"completed"_s, u"Cancelled: nothing was written."_s));
        QCOMPARE(answerWith(u"ask"_s, {{u"action"_s, u"accept"_s},
                                       {u"content"_s, QJsonObject{{u"answer"_s, u"costs"_s}}}}),
                 std::pair(u"completed"_s, QString(u"Answer: costs. "_s + expectedText(2))));
        QCOMPARE(answerWith(u"approve"_s, {{u"action"_s, u"accept"_s},
                                           {u"content"_s, QJsonObject{{u"approve"_s, u"yes"_s}}}}),
                 std::pair(u"failed"_s,
                           u"Could not ask for input: MCP error -32602: Elicitation response content does "
                           u"not match requested schema: approve: expected boolean"_s));
        QCOMPARE(
            answerWith(u"approve"_s, {{u"action"_s, u"accept"_s},
                                      {u"content"_s, QJsonObject{{u"approve"_s, true}, {u"budget"_s, 5000}}}})
                .first,
            u"failed"_s);
        QCOMPARE(answerWith(u"approve"_s,
                            {{u"error"_s, QJsonObject{{u"code"_s, -32600}, {u"message"_s, u"no"_s}}}}),
                 std::pair(u"failed"_s, u"Could not ask for input: MCP error -32600: no"_s));

        // Without the capability the tool fails at once (form), and url needs elicitation.url.
        Client bare(sim.baseUrl());
        QVERIFY(bare.initialize(QJsonObject()));
        QString id = bare.startTask(u"approve"_s, topic(kFast));
        QCOMPARE(bare.waitStatus(id, {u"failed"_s}).value(u"status"_s).toString(), u"failed"_s);
        QCOMPARE(textOf(bare.rpc(u"tasks/result"_s, {{u"taskId"_s, id}}).result()),
                 u"Could not ask for input: Client does not support form elicitation."_s);
        id = client.startTask(u"sign_in"_s, topic(kFast));
        client.waitStatus(id, {u"failed"_s});
        QCOMPARE(sim.task(id)->text, u"Could not ask for input: Client does not support url elicitation."_s);
        Client urls(sim.baseUrl());
        QVERIFY(urls.initialize(QJsonObject{{u"elicitation"_s, QJsonObject{{u"url"_s, QJsonObject()}}}}));
        id = urls.startTask(u"sign_in"_s, topic(kFast + u" steps=1"_s));
        urls.waitStatus(id, {u"input_required"_s});
        const Reply signIn = urls.rpc(u"tasks/get"_s, {{u"taskId"_s, id}});
        QCOMPARE(signIn.result().value(u"statusMessage"_s).toString(),
                 u"Waiting for sign-in: Sign in to the report service to continue."_s);
        Stream stream(urls.startResult(id));
        QVERIFY(stream.waitForMessages(1));
        const QJsonObject params = stream.messages().constLast().value(u"params"_s).toObject();
        QCOMPARE(params.value(u"mode"_s).toString(), u"url"_s);
        QVERIFY(params.value(u"url"_s).toString().startsWith(u"https://"_s));
        QCOMPARE(params.value(u"elicitationId"_s).toString(), u"sign-in-"_s + id);
        QCOMPARE(
            urls.answer(stream.messages().constLast().value(u"id"_s), {{u"action"_s, u"accept"_s}}).status,
            202);
        QVERIFY(stream.waitFinished());
        QCOMPARE(textOf(stream.messages().constLast().value(u"result"_s).toObject()),
                 u"Signed in. "_s + expectedText(1));
    }

    // failed: the status message is stale, the text only in tasks/result; a task failed with a
    // status only has no result (-32603).
    void failedTasks()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        QString id = client.startTask(u"fail"_s, topic(u"doomed steps=4 fail_after=2 "_s + kFast));
        const QJsonObject failed = client.waitStatus(id, {u"failed"_s});
        QCOMPARE(failed.value(u"statusMessage"_s).toString(), u"Writing part 2 of 4"_s);
        const QJsonObject result = client.rpc(u"tasks/result"_s, {{u"taskId"_s, id}}).result();
        QCOMPARE(result.value(u"isError"_s).toBool(), true);
        QVERIFY(textOf(result).startsWith(u"Simulated failure after 2 steps: doomed"_s));

        id = client.startTask(u"fail"_s, topic(u"fail_mode=status "_s + kFast));
        QCOMPARE(client.waitStatus(id, {u"failed"_s}).value(u"statusMessage"_s).toString(),
                 u"Failed: simulated failure after 3 steps"_s);
        const QJsonObject error = client.rpc(u"tasks/result"_s, {{u"taskId"_s, id}}).error();
        QCOMPARE(error.value(u"code"_s).toInt(), -32603);
        QCOMPARE(error.value(u"message"_s).toString(), u"Task %1 has no result stored"_s.arg(id));
    }

    // tasks/cancel flips the task at once and stops its work; a blocked tasks/result then gets
    // -32603; cancelling again and unknown ids are -32602.
    void cancel()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        const QString id = client.startTask(u"long_job"_s, topic(kFast));
        Stream blocked(client.startResult(id));
        QVERIFY(Stream::waitUntil([&] { return sim.task(id)->resultStreams == 1; }, 5000));
        const QJsonObject cancelled = client.rpc(u"tasks/cancel"_s, {{u"taskId"_s, id}}).result();
        QCOMPARE(cancelled.value(u"status"_s).toString(), u"cancelled"_s);
        QCOMPARE(cancelled.value(u"statusMessage"_s).toString(), u"Client cancelled task execution."_s);
        QCOMPARE(cancelled.value(u"_meta"_s).toObject(), QJsonObject());
        QCOMPARE(client.getTask(id).value(u"status"_s).toString(), u"cancelled"_s);
        QVERIFY(blocked.waitFinished());
        QCOMPARE(blocked.messages().constLast()[u"error"_s][u"code"_s].toInt(), -32603);
        const QString updated = client.getTask(id).value(u"lastUpdatedAt"_s).toString();
        QTest::qWait(30);
        QCOMPARE(client.getTask(id).value(u"lastUpdatedAt"_s).toString(), updated); // the work stopped

        Reply r = client.rpc(u"tasks/cancel"_s, {{u"taskId"_s, id}});
        QCOMPARE(r.error().value(u"code"_s).toInt(), -32602);
        QCOMPARE(r.error().value(u"message"_s).toString(),
                 u"MCP error -32602: Cannot cancel task in terminal status: cancelled"_s);
        r = client.rpc(u"tasks/result"_s, {{u"taskId"_s, id}});
        QCOMPARE(r.error().value(u"message"_s).toString(), u"Task %1 has no result stored"_s.arg(id));
        r = client.rpc(u"tasks/cancel"_s, {{u"taskId"_s, u"nope"_s}});
        QCOMPARE(r.error().value(u"message"_s).toString(), u"MCP error -32602: Task not found: nope"_s);
        QCOMPARE(client.rpc(u"tasks/get"_s, {}).error().value(u"code"_s).toInt(), -32602);
    }

    // tasks/list: pages of 10 in creation order, nextCursor the page's last id; the session-bound
    // store shows a session its own tasks only, the session-free one every task (but queued
    // messages stay with the session that started the task).
    void listPagesAndStoreRules()
    {
        for (const bool free : {false, true}) {
            McpSimConfig config = fastConfig();
            config.sessionFreeStore = free;
            McpSimulator sim(config);
            QVERIFY(sim.listen());
            Client client(sim.baseUrl());
            QVERIFY(client.initialize());
            QStringList ids;
            for (int i = 0; i < 23; ++i)
                ids.append(client.startTask(u"write"_s, topic(u"steps=1 "_s + kFast)));
            QStringList listed;
            QString cursor;
            QList<qsizetype> sizes;
            do {
                const QJsonObject page
                    = client
                          .rpc(u"tasks/list"_s,
                               cursor.isEmpty() ? QJsonObject() : QJsonObject{{u"cursor"_s, cursor}})
                          .result();
                const QJsonArray tasks = page.value(u"tasks"_s).toArray();
                sizes.append(tasks.size());
                for (const QJsonValue &task : tasks)
                    listed.append(task[u"taskId"_s].toString());
                QCOMPARE(page.value(u"_meta"_s).toObject(), QJsonObject());
                cursor = page.value(u"nextCursor"_s).toString();
                if (!cursor.isEmpty())
                    QCOMPARE(cursor, listed.last());
            } while (!cursor.isEmpty());
            QCOMPARE(sizes, (QList<qsizetype>{10, 10, 3}));
            QCOMPARE(listed, ids);
            QCOMPARE(
                client.rpc(u"tasks/list"_s, {{u"cursor"_s, u"zz"_s}}).error().value(u"message"_s).toString(),
                u"MCP error -32602: Failed to list tasks: Invalid cursor: zz"_s);

            Client other(sim.baseUrl());
            QVERIFY(other.initialize());
            QCOMPARE(other.rpc(u"tasks/list"_s).result().value(u"tasks"_s).toArray().size(), free ? 10 : 0);
            QCOMPARE(other.getTask(ids.first()).value(u"taskId"_s).toString(),
                     free ? ids.first() : QString());
            if (free) {
                // Another session follows an asking task, but the request stays with the first.
                const QString asking = client.startTask(u"approve"_s, topic(kFast));
                other.waitStatus(asking, {u"input_required"_s});
                Stream foreign(other.startResult(asking));
                QVERIFY(!foreign.waitForMessages(1, 300));
                QCOMPARE(sim.task(asking)->queued, 1);
            }
        }
    }

    // GET opens the session's standalone stream: one at a time, and notifications/tasks/status
    // with the full Task on every change of the session's tasks.
    void standaloneStream()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        Stream standalone(client.start("GET"));
        QVERIFY(Stream::waitUntil([&] { return sim.activeStreamCount() == 1; }, 5000));
        QCOMPARE(finish(client.start("GET")).status, 409);
        const QString id = client.startTask(u"write"_s, topic(u"steps=2 "_s + kFast));
        client.waitStatus(id, {u"completed"_s});
        QVERIFY(standalone.waitForMessages(3));
        const QList<QJsonObject> notes = standalone.messages();
        for (const QJsonObject &note : notes) {
            QCOMPARE(note.value(u"method"_s).toString(), u"notifications/tasks/status"_s);
            QCOMPARE(note[u"params"_s][u"taskId"_s].toString(), id);
        }
        QCOMPARE(notes.constLast()[u"params"_s][u"status"_s].toString(), u"completed"_s);
        // Another session's stream hears nothing of it.
        Client other(sim.baseUrl());
        QVERIFY(other.initialize());
        Stream quiet(other.start("GET"));
        client.startTask(u"write"_s, topic(u"steps=1 "_s + kFast));
        QVERIFY(standalone.waitForMessages(notes.size() + 2));
        QVERIFY(quiet.messages().isEmpty());
    }

    // DELETE ends the session and fails the elicitation pending on it; a ttl forgets the task.
    void deleteAndTtl()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        const QString asking = client.startTask(u"approve"_s, topic(kFast));
        client.waitStatus(asking, {u"input_required"_s});
        const QString shortLived = client.startTask(u"write"_s, topic(u"steps=1 "_s + kFast),
                                                    QJsonValue(QJsonValue::Undefined), 40);
        client.waitStatus(shortLived, {u"completed"_s});
        // 40 ms after its end the store forgets it.
        QVERIFY(Stream::waitUntil(
            [&] {
                return client.rpc(u"tasks/get"_s, {{u"taskId"_s, shortLived}})
                           .error()
                           .value(u"code"_s)
                           .toInt()
                       == -32602;
            },
            5000));
        QVERIFY(!sim.task(shortLived));
        QCOMPARE(finish(client.start("DELETE")).status, 200);
        QCOMPARE(sim.task(asking)->status, u"failed"_s);
        QCOMPARE(sim.task(asking)->text, u"Could not ask for input: MCP error -32000: Connection closed"_s);
    }
};

QTEST_GUILESS_MAIN(TestMcpSim)
#include "tst_mcp_sim.moc"
