// SPDX-License-Identifier: GPL-3.0-or-later
// The MCP simulator's 2026-07-28 side (tasks as the io.modelcontextprotocol/tasks extension,
// mcp-tasks.md §9, shapes of ext-tasks 0.2.2) against a plain QNetworkAccessManager: discovery
// without a session, the Mcp-Method / Mcp-Name headers, the extension's opt-in, a task that asks
// for input answered by tasks/update from any client, failure, cancel, what the revision lacks,
// and a 2025-only server.
#include "mcpsimclient.h"

using namespace McpSimTest;
using namespace RunwatchSim;
using namespace Qt::StringLiterals;

namespace {

const QString kFast = u"interval_ms=2 poll_ms=20"_s;

// A 2026 client: no session, the _meta envelope and the headers on every request.
class Client2026
{
public:
    explicit Client2026(const QUrl &endpoint)
        : m_client(endpoint)
    {
        m_client.version = "2026-07-28";
    }

    bool declareTasks = true;
    QJsonObject capabilities{{u"elicitation"_s, QJsonObject{{u"form"_s, QJsonObject()}}}};

    // `name`: the Mcp-Name header (tools/call: the tool, tasks/*: the task id); empty: none.
    Reply send(const QString &method, QJsonObject params, const QString &name = QString(),
               const QByteArray &methodHeader = QByteArray())
    {
        QJsonObject clientCapabilities = capabilities;
        if (declareTasks) {
            clientCapabilities.insert(u"extensions"_s,
                                      QJsonObject{{u"io.modelcontextprotocol/tasks"_s, QJsonObject()}});
        }
        params.insert(
            u"_meta"_s,
            QJsonObject{{u"io.modelcontextprotocol/protocolVersion"_s, u"2026-07-28"_s},
                        {u"io.modelcontextprotocol/clientInfo"_s, QJsonObject{{u"name"_s, u"tst"_s}}},
                        {u"io.modelcontextprotocol/clientCapabilities"_s, clientCapabilities}});
        m_client.extraHeaders = {{"mcp-method", methodHeader.isNull() ? method.toUtf8() : methodHeader}};
        if (!name.isEmpty())
            m_client.extraHeaders.append({"mcp-name", name.toUtf8()});
        return m_client.post(m_client.request(method, params));
    }
    Reply call(const QString &tool, const QJsonObject &arguments)
    {
        return send(u"tools/call"_s, {{u"name"_s, tool}, {u"arguments"_s, arguments}}, tool);
    }
    QJsonObject getTask(const QString &taskId)
    {
        return send(u"tasks/get"_s, {{u"taskId"_s, taskId}}, taskId).result();
    }
    QJsonObject waitStatus(const QString &taskId, const QStringList &statuses)
    {
        QJsonObject task;
        Stream::waitUntil(
            [&] {
                task = getTask(taskId);
                return statuses.contains(task.value(u"status"_s).toString());
            },
            10000);
        return task;
    }

private:
    Client m_client;
};

QJsonObject topic(const QString &words)
{
    return QJsonObject{{u"topic"_s, words}};
}

} // namespace

class TestMcpSim2026 final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // server/discover: plain JSON, no session, the tasks extension among the capabilities; every
    // request names its method (and target) in headers.
    void discoveryAndHeaders()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client2026 client(sim.baseUrl());
        const Reply discover = client.send(u"server/discover"_s, {});
        QCOMPARE(discover.status, 200);
        QVERIFY(discover.header("content-type").startsWith("application/json"));
        QVERIFY(discover.header("mcp-session-id").isEmpty());
        const QJsonObject result = discover.result();
        QCOMPARE(result.value(u"supportedVersions"_s).toArray(), QJsonArray{u"2026-07-28"_s});
        QCOMPARE(result.value(u"resultType"_s).toString(), u"complete"_s);
        QVERIFY(result[u"capabilities"_s][u"extensions"_s][u"io.modelcontextprotocol/tasks"_s].isObject());
        QCOMPARE(result[u"_meta"_s][u"io.modelcontextprotocol/serverInfo"_s][u"name"_s].toString(),
                 u"runwatch-sim"_s);
        QVERIFY(sim.sessionIds().isEmpty());
        QVERIFY(sim.requests().constLast().revision2026);

        const Reply tools = client.send(u"tools/list"_s, {});
        QCOMPARE(tools.result().value(u"tools"_s).toArray().size(), 8);
        QCOMPARE(tools.result().value(u"resultType"_s).toString(), u"complete"_s);
        QCOMPARE(client.send(u"tools/list"_s, {}, QString(), "tools/call").status, 400);
        QCOMPARE(client.send(u"tools/call"_s, {{u"name"_s, u"echo"_s}}, u"write"_s).status, 400);
        QCOMPARE(client.send(u"tools/call"_s, {{u"name"_s, u"echo"_s}}).status, 400);
        // Not in the revision.
        for (const QString &method : {u"tasks/result"_s, u"tasks/list"_s, u"initialize"_s})
            QCOMPARE(client.send(method, {}).error().value(u"code"_s).toInt(), -32601);
    }

    // The extension is opt-in per request: a task tool or tasks/* without it → -32021; a plain
    // tool answers at once; an optional tool runs to its result for a client without it.
    void extensionOptIn()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client2026 client(sim.baseUrl());
        client.declareTasks = false;
        QCOMPARE(client.call(u"write"_s, topic(kFast)).error().value(u"code"_s).toInt(), -32021);
        QCOMPARE(sim.tasksCreated(), 0);
        Reply r = client.call(u"echo"_s, {{u"text"_s, u"hi"_s}});
        QCOMPARE(textOf(r.result()), u"hi"_s);
        QCOMPARE(r.result().value(u"resultType"_s).toString(), u"complete"_s);
        r = client.call(u"summarize"_s, {{u"topic"_s, kFast}, {u"steps"_s, 2}});
        QCOMPARE(textOf(r.result()), expectedText(2));
        QCOMPARE(r.result().value(u"resultType"_s).toString(), u"complete"_s);

        client.declareTasks = true;
        const QString id = client.call(u"write"_s, topic(kFast)).result().value(u"taskId"_s).toString();
        QVERIFY(!id.isEmpty());
        client.declareTasks = false;
        QCOMPARE(client.send(u"tasks/get"_s, {{u"taskId"_s, id}}, id).error().value(u"code"_s).toInt(),
                 -32021);
        client.declareTasks = true;
        QCOMPARE(client.send(u"tasks/get"_s, {{u"taskId"_s, u"nope"_s}}, u"nope"_s)
                     .error()
                     .value(u"code"_s)
                     .toInt(),
                 -32602);
        QCOMPARE(client.call(u"write"_s, topic(u"steps=0"_s)).error().value(u"code"_s).toInt(), -32602);
    }

    // A task that asks: the flat handle, tasks/get repeating inputRequests until answered,
    // tasks/update from another client (no session binding), then the result inline.
    void inputByUpdate()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client2026 client(sim.baseUrl());
        const QJsonObject handle = client.call(u"approve"_s, topic(u"steps=2 "_s + kFast)).result();
        QCOMPARE(handle.value(u"resultType"_s).toString(), u"task"_s);
        QCOMPARE(handle.value(u"status"_s).toString(), u"working"_s);
        QCOMPARE(handle.value(u"pollIntervalMs"_s).toInt(), 20);
        QCOMPARE(handle.value(u"ttlMs"_s).toInteger(), fastConfig().ttl2026Ms);
        QVERIFY(!handle.contains(u"task"_s) && !handle.contains(u"ttl"_s));
        const QString id = handle.value(u"taskId"_s).toString();
        QVERIFY(sim.sessionIds().isEmpty());

        const QJsonObject waiting = client.waitStatus(id, {u"input_required"_s});
        QCOMPARE(waiting.value(u"resultType"_s).toString(), u"complete"_s);
        const QJsonObject requests = waiting.value(u"inputRequests"_s).toObject();
        QCOMPARE(requests.keys(), QStringList{u"elicit-1"_s});
        QCOMPARE(requests[u"elicit-1"_s][u"method"_s].toString(), u"elicitation/create"_s);
        QCOMPARE(requests[u"elicit-1"_s][u"params"_s][u"requestedSchema"_s][u"required"_s].toArray(),
                 QJsonArray{u"approve"_s});
        QCOMPARE(client.getTask(id).value(u"inputRequests"_s).toObject(), requests); // repeated

        Client2026 other(sim.baseUrl());
        // A key nobody waits for is acknowledged and ignored.
        Reply r = other.send(
            u"tasks/update"_s,
            {{u"taskId"_s, id},
             {u"inputResponses"_s, QJsonObject{{u"elicit-9"_s, QJsonObject{{u"action"_s, u"decline"_s}}}}}},
            id);
        QCOMPARE(r.result(), QJsonObject({{u"resultType"_s, u"complete"_s}}));
        QCOMPARE(other.getTask(id).value(u"status"_s).toString(), u"input_required"_s);
        r = other.send(
            u"tasks/update"_s,
            {{u"taskId"_s, id},
             {u"inputResponses"_s,
              QJsonObject{{u"elicit-1"_s, QJsonObject{{u"action"_s, u"accept"_s},
                                                      {u"content"_s, QJsonObject{{u"approve"_s, true}}}}}}}},
            id);
        QCOMPARE(r.result().value(u"resultType"_s).toString(), u"complete"_s);
        const QJsonObject done = client.waitStatus(id, {u"completed"_s});
        QVERIFY(!done.contains(u"inputRequests"_s));
        QCOMPARE(textOf(done.value(u"result"_s).toObject()), u"Approved. "_s + expectedText(2));
        QCOMPARE(done[u"result"_s][u"resultType"_s].toString(), u"complete"_s);
        QCOMPARE(sim.task(id)->inputsAsked, 1);
    }

    // failed carries a JSON-RPC error; cancel is an acknowledgement and the task ends cancelled.
    void failAndCancel()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client2026 client(sim.baseUrl());
        QString id = client.call(u"fail"_s, topic(u"doomed steps=2 fail_after=1 "_s + kFast))
                         .result()[u"taskId"_s]
                         .toString();
        const QJsonObject failed = client.waitStatus(id, {u"failed"_s});
        QCOMPARE(failed[u"error"_s][u"code"_s].toInt(), -32603);
        QVERIFY(failed[u"error"_s][u"message"_s].toString().startsWith(u"Simulated failure after 1 steps"_s));
        QVERIFY(!failed.contains(u"result"_s));

        id = client.call(u"long_job"_s, topic(kFast)).result()[u"taskId"_s].toString();
        const Reply r = client.send(u"tasks/cancel"_s, {{u"taskId"_s, id}}, id);
        QCOMPARE(r.result(), QJsonObject({{u"resultType"_s, u"complete"_s}}));
        QCOMPARE(client.getTask(id).value(u"status"_s).toString(), u"cancelled"_s);
        // Again: still an acknowledgement.
        QCOMPARE(client.send(u"tasks/cancel"_s, {{u"taskId"_s, id}}, id)
                     .result()
                     .value(u"resultType"_s)
                     .toString(),
                 u"complete"_s);
    }

    // A 2025-only server (SDK 1.32.2): server/discover without a session meets the example's
    // routing, and a 2026 version header on a session is unsupported.
    void revision2025Only()
    {
        McpSimConfig config = fastConfig();
        config.serve2026 = false;
        McpSimulator sim(config);
        QVERIFY(sim.listen());
        Client2026 client(sim.baseUrl());
        const Reply r = client.send(u"server/discover"_s, {});
        QCOMPARE(r.status, 400);
        QCOMPARE(r.error().value(u"message"_s).toString(), u"Bad Request: No valid session ID provided"_s);
        Client legacy(sim.baseUrl());
        QVERIFY(legacy.initialize());
        legacy.version = "2026-07-28";
        QCOMPARE(legacy.rpc(u"tools/list"_s).status, 400);
    }
};

QTEST_GUILESS_MAIN(TestMcpSim2026)
#include "tst_mcp_sim_2026.moc"
