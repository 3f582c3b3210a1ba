// SPDX-License-Identifier: GPL-3.0-or-later
// The MCP simulator's faults against a plain QNetworkAccessManager: injected HTTP answers with
// Retry-After, tasks/result streams cut mid-SSE (each queued message still delivered once),
// malformed and CRLF-split framing, session loss (forgotten, lost after a call, idle), an input
// request that times out, and the --mcp command line.
#include "mcpsimclient.h"
#include "simcommandline.h"

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

class TestMcpSimFaults final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Configured faults answer the first matching requests with their status, Retry-After and a
    // JSON-RPC (or HTML) body; per-task ones hit only requests naming that task.
    void httpFaults()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        McpHttpFault busy;
        busy.endpoints = {McpEndpoint::TasksGet};
        busy.status = 429;
        busy.retryAfterSeconds = 2;
        sim.addHttpFault(busy);
        McpHttpFault down
            = *mcpHttpFaultFromSpec(u"status=503,count=1,on=tools/list,retry-after=none,body=html");
        sim.addHttpFault(down);
        const QString id = client.startTask(u"write"_s, topic(u"steps=1 "_s + kFast));
        Reply r = client.rpc(u"tasks/get"_s, {{u"taskId"_s, id}});
        QCOMPARE(r.status, 429);
        QCOMPARE(r.header("retry-after"), QByteArray("2"));
        QCOMPARE(QJsonDocument::fromJson(r.body)[u"error"_s][u"code"_s].toInt(), -32000);
        QVERIFY(!client.getTask(id).isEmpty()); // used up
        r = client.rpc(u"tools/list"_s);
        QCOMPARE(r.status, 503);
        QVERIFY(r.header("content-type").startsWith("text/html"));
        QVERIFY(r.header("retry-after").isEmpty());
        QCOMPARE(client.rpc(u"tools/list"_s).status, 200);
        QVERIFY(sim.requests().at(sim.requests().size() - 2).faulted);

        const QString flaky = client.startTask(
            u"write"_s,
            topic(u"steps=2 http_error_status=503 http_error_count=2 http_error_on=tasks/result "_s + kFast));
        QCOMPARE(client.rpc(u"tasks/get"_s, {{u"taskId"_s, flaky}}).status, 200);
        QCOMPARE(client.rpc(u"tasks/result"_s, {{u"taskId"_s, flaky}}).status, 503);
        QCOMPARE(client.rpc(u"tasks/result"_s, {{u"taskId"_s, id}}).status, 200); // another task
        QCOMPARE(client.rpc(u"tasks/result"_s, {{u"taskId"_s, flaky}}).header("retry-after"),
                 QByteArray("1"));
        QCOMPARE(textOf(client.rpc(u"tasks/result"_s, {{u"taskId"_s, flaky}}).result()), expectedText(2));
        QVERIFY(!mcpHttpFaultFromSpec(u"on=tasks/nope"));
    }

    // A tasks/result stream cut after N events (close, reset, mid-event): what was not written
    // whole stays queued, and the next tasks/result delivers it — every progress exactly once,
    // the elicitation once.
    void droppedResultStreams()
    {
        for (const QString &mode : {u"close"_s, u"reset"_s, u"mid"_s}) {
            McpSimulator sim(fastConfig());
            QVERIFY(sim.listen());
            Client client(sim.baseUrl());
            QVERIFY(client.initialize());
            const QString id = client.startTask(
                u"write"_s,
                topic(u"steps=5 drop_after=2 fault_connections=1 drop_mode="_s + mode + u' ' + kFast), 1);
            client.waitStatus(id, {u"completed"_s});
            const Reply cut = client.rpc(u"tasks/result"_s, {{u"taskId"_s, id}});
            const QList<QJsonObject> first = sseMessages(cut.body);
            // A reset may lose what was in flight; a close or a cut event loses nothing written whole.
            if (mode != "reset"_L1)
                QCOMPARE(first.size(), 2);
            QVERIFY(first.size() <= 2);
            QVERIFY(first.isEmpty() || !first.last().contains(u"result"_s));
            if (mode == "mid"_L1)
                QVERIFY(!cut.body.endsWith("\n\n"));
            QCOMPARE(sim.task(id)->queued, 3);
            const QList<QJsonObject> rest = client.rpc(u"tasks/result"_s, {{u"taskId"_s, id}}).messages();
            QCOMPARE(rest.size(), 4);
            QList<int> progress;
            for (const QJsonObject &m : first + rest) {
                if (m.contains(u"method"_s))
                    progress.append(m[u"params"_s][u"progress"_s].toInt());
            }
            const QList<int> all{1, 2, 3, 4, 5};
            QCOMPARE(progress, mode == "reset"_L1 ? all.mid(all.size() - progress.size()) : all);
            QCOMPARE(textOf(rest.last().value(u"result"_s).toObject()), expectedText(5));
        }
        // Cut before the elicitation went out: it comes on the next stream, and only there.
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        const QString id = client.startTask(u"ask"_s, topic(u"drop_after=0 fault_connections=1 "_s + kFast));
        client.waitStatus(id, {u"input_required"_s});
        QVERIFY(sseMessages(client.rpc(u"tasks/result"_s, {{u"taskId"_s, id}}).body).isEmpty());
        Stream second(client.startResult(id));
        QVERIFY(second.waitForMessages(1));
        QCOMPARE(second.messages().constFirst().value(u"method"_s).toString(), u"elicitation/create"_s);
    }

    // Framing faults: one event with truncated JSON; CRLF line endings with events split in
    // pieces of 5 bytes (a piece may end between CR and LF); the whole config's line ending.
    void framing()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        QString id = client.startTask(u"write"_s, topic(u"steps=2 malformed_at=1 "_s + kFast), 1);
        client.waitStatus(id, {u"completed"_s});
        const QList<QByteArray> data = sseData(client.rpc(u"tasks/result"_s, {{u"taskId"_s, id}}).body);
        QCOMPARE(data.size(), 3);
        QVERIFY(!QJsonDocument::fromJson(data.at(0)).isNull());
        QVERIFY(QJsonDocument::fromJson(data.at(1)).isNull());
        QCOMPARE(textOf(QJsonDocument::fromJson(data.at(2))[u"result"_s].toObject()), expectedText(2));

        id = client.startTask(u"write"_s, topic(u"steps=3 line_ending=crlf split=5 "_s + kFast), 1);
        client.waitStatus(id, {u"completed"_s});
        const Reply crlf = client.rpc(u"tasks/result"_s, {{u"taskId"_s, id}});
        QVERIFY(crlf.body.startsWith("event: message\r\ndata: {"));
        QVERIFY(crlf.body.endsWith("}\r\n\r\n"));
        QCOMPARE(crlf.messages().size(), 4);
        QCOMPARE(textOf(crlf.result()), expectedText(3));
        QCOMPARE(client.startTask(u"write"_s, topic(u"line_ending=lfcr"_s)), QString());
    }

    // The server loses sessions: forgotten (as after a restart), right after a call
    // (lose_session=1), or idle; then 404 for every request naming it. A task waiting for input
    // on a lost session fails, and the session-bound store shows it to nobody else.
    void sessionLoss()
    {
        McpSimConfig config = fastConfig();
        config.sessionIdleMs = 150;
        McpSimulator sim(config);
        QVERIFY(sim.listen());
        QSignalSpy forgotten(&sim, &McpSimulator::sessionForgotten);
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        const QString asking = client.startTask(u"approve"_s, topic(kFast));
        client.waitStatus(asking, {u"input_required"_s});
        sim.forgetSession(client.sessionId);
        QCOMPARE(forgotten.size(), 1);
        const Reply lost = client.rpc(u"tasks/get"_s, {{u"taskId"_s, asking}});
        QCOMPARE(lost.status, 404);
        QCOMPARE(lost.error().value(u"message"_s).toString(), u"Session not found"_s);
        QCOMPARE(finish(client.start("GET")).status, 404);
        QCOMPARE(sim.task(asking)->status, u"failed"_s);

        QVERIFY(client.initialize());
        const QString id = client.startTask(u"write"_s, topic(u"lose_session=1 "_s + kFast));
        QVERIFY(!id.isEmpty());
        QCOMPARE(client.rpc(u"tasks/get"_s, {{u"taskId"_s, id}}).status, 404);
        QVERIFY(client.initialize());
        QCOMPARE(client.rpc(u"tasks/get"_s, {{u"taskId"_s, id}}).error().value(u"code"_s).toInt(), -32602);

        // At the session cap, a new session pushes out the one used longest ago.
        McpSimConfig capped = fastConfig();
        capped.maxSessions = 2;
        McpSimulator small(capped);
        QVERIFY(small.listen());
        Client a(small.baseUrl()), b(small.baseUrl()), c(small.baseUrl());
        QVERIFY(a.initialize());
        QVERIFY(b.initialize());
        QCOMPARE(a.rpc(u"ping"_s).status, 200); // b is now the least recently used
        QVERIFY(c.initialize());
        QCOMPARE(small.sessionIds().size(), 2);
        QCOMPARE(b.rpc(u"ping"_s).status, 404);
        QCOMPARE(a.rpc(u"ping"_s).status, 200);

        QCOMPARE(client.rpc(u"ping"_s).status, 200);
        QTest::qWait(250);
        QCOMPARE(client.rpc(u"ping"_s).status, 404);
        QVERIFY(sim.sessionIds().isEmpty());
    }

    // An input request not answered in time fails the task, as the SDK's request timeout does.
    void inputTimeout()
    {
        McpSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QVERIFY(client.initialize());
        const QString id = client.startTask(u"approve"_s, topic(u"input_timeout_ms=60 "_s + kFast));
        client.waitStatus(id, {u"input_required"_s});
        QCOMPARE(client.waitStatus(id, {u"failed"_s}).value(u"status"_s).toString(), u"failed"_s);
        QCOMPARE(sim.task(id)->text, u"Could not ask for input: MCP error -32001: Request timed out"_s);
    }

    void commandLine()
    {
        const CommandLineResult r = parseCommandLine({u"runwatch-sim"_s,
                                                      u"--mcp"_s,
                                                      u"--key"_s,
                                                      u"t"_s,
                                                      u"--deltas"_s,
                                                      u"9"_s,
                                                      u"--mcp-poll-ms"_s,
                                                      u"250"_s,
                                                      u"--mcp-session-free"_s,
                                                      u"--mcp-no-2026"_s,
                                                      u"--mcp-session-idle-ms"_s,
                                                      u"5000"_s,
                                                      u"--mcp-input-timeout-ms"_s,
                                                      u"60000"_s,
                                                      u"--mcp-split"_s,
                                                      u"3"_s,
                                                      u"--line-ending"_s,
                                                      u"crlf"_s,
                                                      u"--mcp-fault"_s,
                                                      u"status=503,on=tasks/get+tasks/result"_s,
                                                      u"--drop-after"_s,
                                                      u"4"_s,
                                                      u"--rate-limit"_s,
                                                      u"2"_s});
        QCOMPARE(int(r.action), int(CommandLineResult::Action::Run));
        QVERIFY(r.options.mcp);
        const McpSimConfig &c = r.options.mcpConfig;
        QCOMPARE(c.bearerToken, u"t"_s);
        QCOMPARE(c.steps, 9);
        QCOMPARE(c.pollIntervalMs, 250);
        QVERIFY(c.sessionFreeStore);
        QVERIFY(!c.serve2026);
        QCOMPARE(c.sessionIdleMs, 5000);
        QCOMPARE(c.inputTimeoutMs, 60000);
        QCOMPARE(c.splitWrites, 3);
        QCOMPARE(c.lineEnding, QByteArray("\r\n"));
        QCOMPARE(c.streamFaults.dropAfterEvents, 4);
        QCOMPARE(c.httpFaults.size(), 2);
        QVERIFY(c.httpFaults.first().aimsAt(McpEndpoint::TasksResult));
        QVERIFY(!c.httpFaults.first().aimsAt(McpEndpoint::ToolsCall));
        QCOMPARE(c.httpFaults.last().status, 429);
        QCOMPARE(int(parseCommandLine({u"runwatch-sim"_s, u"--mcp-fault"_s, u"on=nowhere"_s}).action),
                 int(CommandLineResult::Action::Error));
        QCOMPARE(int(parseCommandLine({u"runwatch-sim"_s, u"--mcp"_s, u"--openai"_s}).action),
                 int(CommandLineResult::Action::Error));
        const QString help = parseCommandLine({u"runwatch-sim"_s, u"--help"_s}).message;
        QVERIFY(help.contains(u"--mcp-session-free"_s));
        QVERIFY(help.contains(u"MCP (--mcp) tools"_s));
    }
};

QTEST_GUILESS_MAIN(TestMcpSimFaults)
#include "tst_mcp_sim_faults.moc"
