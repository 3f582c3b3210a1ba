// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli --backend mcp as scripts use it, against a scripted loopback MCP server: the refusals
// (usage errors exit 2 and a forbidden tool exit 1, nothing sent), the agents lines, start --follow
// stopping at input_required (exit 5, the request in JSON), and respond --text / --reject / --value in
// new processes, each posted as a JSON-RPC response on the stored session. Every process numbers its
// requests rw-1, rw-2, … from the start (the protocol version is pinned, so no server/discover comes
// first); the scripts answer those ids. The official SDK server's run of the same is tst_mcp_peer.
#include "cliprocess.h"
#include "scriptedserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

using namespace RunwatchTest;
using namespace Qt::StringLiterals;

namespace {

constexpr int kWait = 60000;

QByteArray json(const char *singleQuoted)
{
    return QByteArray(singleQuoted).replace('\'', '"');
}

ScriptedReply sse(const QByteArray &message, HeaderList headers = {})
{
    headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("text/event-stream")));
    return ScriptedReply::stream(200, headers, {{0, "event: message\ndata: " + message + "\n\n"}});
}

ScriptedReply result(const QByteArray &id, const QByteArray &resultJson)
{
    return sse("{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"result\":" + resultJson + "}");
}

void enqueueHandshake(ScriptedServer &server)
{
    server.enqueue(
        "/mcp", sse(json("{'jsonrpc':'2.0','id':'rw-1','result':{'protocolVersion':'2025-11-25',"
                         "'capabilities':{'tasks':{'list':{},'cancel':{},'requests':{'tools':{'call':{}}}}},"
                         "'serverInfo':{'name':'scripted','version':'1'}}}"),
                    {{"Mcp-Session-Id", "s-cli"}}));
    server.enqueue("/mcp", ScriptedReply::text(202, "text/plain", {}));
}

const QByteArray kTools = json(
    "{'tools':[{'name':'ask','description':'Asks a name','inputSchema':{'type':'object'},'execution':{"
    "'taskSupport':'required'}},{'name':'echo','description':'Echoes','inputSchema':{'type':'object'}}]}");

QJsonObject bodyOf(const RecordedRequest &request)
{
    return QJsonDocument::fromJson(request.body).object();
}

} // namespace

class TestMcpCli final : public QObject
{
    Q_OBJECT

    QStringList globals(const ScriptedServer &server, const QTemporaryDir &dir) const
    {
        return {u"--backend"_s,          u"mcp"_s,        u"--url"_s,   server.url(u"/mcp"_s).toString(),
                u"--protocol-version"_s, u"2025-11-25"_s, u"--store"_s, dir.filePath(u"runs.sqlite"_s)};
    }
    CliResult cli(const ScriptedServer &server, const QTemporaryDir &dir, const QStringList &args)
    {
        return finishCli(launchCli(QStringLiteral(RUNWATCH_CLI_PATH), globals(server, dir) + args, this),
                         kWait);
    }

    // start --follow up to the question: a one-string-field form, asked as request 0.
    QString startWaiting(ScriptedServer &server, const QTemporaryDir &dir)
    {
        enqueueHandshake(server);
        server.enqueue("/mcp", result("rw-2", kTools));
        server.enqueue("/mcp", result("rw-3", json("{'task':{'taskId':'t1','status':'working','ttl':60000,"
                                                   "'pollInterval':50}}")));
        server.enqueue("/mcp", result("rw-4", json("{'taskId':'t1','status':'input_required','statusMessage':"
                                                   "'waiting for a name'}")));
        server.enqueue("/mcp",
                       sse(json("{'jsonrpc':'2.0','id':0,'method':'elicitation/create','params':{'mode':"
                                "'form','message':'Your name?','requestedSchema':{'type':'object',"
                                "'properties':{'name':{'type':'string','minLength':2}},'required':["
                                "'name']}}}")));
        const CliResult started
            = cli(server, dir,
                  {u"--json"_s, u"start"_s, u"--agent"_s, u"ask"_s, u"--input"_s, u"{}"_s, u"--follow"_s});
        if (started.exitCode != 5)
            qWarning() << started.err;
        const QJsonObject asked = firstOfType(started.out, u"input_required"_s);
        if (asked.value(u"request"_s).toObject().value(u"prompt"_s).toString() != u"Your name?"_s)
            return {};
        if (!asked.value(u"request"_s).toObject().value(u"schema"_s).toObject().contains(u"properties"_s))
            return {};
        return started.exitCode == 5 ? runIdFrom(started.out) : QString();
    }

private Q_SLOTS:
    void usageRefusalsSendNothing()
    {
        ScriptedServer server;
        QTemporaryDir dir;
        QCOMPARE(cli(server, dir, {u"start"_s, u"--input"_s, u"{}"_s}).exitCode, 2);  // no tool
        QCOMPARE(cli(server, dir, {u"start"_s, u"--agent"_s, u"ask"_s}).exitCode, 2); // no input, no title
        QCOMPARE(cli(server, dir, {u"start"_s, u"--agent"_s, u"ask"_s, u"--input"_s, u"{x"_s}).exitCode, 2);
        QCOMPARE(cli(server, dir, {u"--protocol-version"_s, u"1999"_s, u"agents"_s}).exitCode, 2);
        QCOMPARE(server.requestCount(), 0);
    }

    void forbiddenToolRefusedWithExit1()
    {
        ScriptedServer server;
        QTemporaryDir dir;
        enqueueHandshake(server);
        server.enqueue("/mcp", result("rw-2", kTools));
        const CliResult refused
            = cli(server, dir, {u"start"_s, u"--agent"_s, u"echo"_s, u"--input"_s, u"{}"_s});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("forbidden"), refused.err.constData());
        QCOMPARE(server.requestCount("/mcp"), 3);
        for (const RecordedRequest &r : server.requests("/mcp"))
            QVERIFY(bodyOf(r).value(u"method"_s).toString() != u"tools/call"_s);
    }

    void agentsLines()
    {
        ScriptedServer server;
        QTemporaryDir dir;
        enqueueHandshake(server);
        server.enqueue("/mcp", result("rw-2", kTools));
        const CliResult agents = cli(server, dir, {u"--json"_s, u"agents"_s});
        QCOMPARE(agents.exitCode, 0);
        const QList<QJsonObject> lines = jsonLines(agents.out);
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines.at(0).value(u"type"_s).toString(), u"agent"_s);
        QCOMPARE(lines.at(0).value(u"id"_s).toString(), u"ask"_s);
        QCOMPARE(lines.at(0).value(u"name"_s).toString(), u"ask"_s);
        QCOMPARE(lines.at(0).value(u"task_support"_s).toString(), u"required"_s);
        QCOMPARE(lines.at(0).value(u"description"_s).toString(), u"Asks a name"_s);
        QCOMPARE(lines.at(1).value(u"task_support"_s).toString(), u"forbidden"_s);
    }

    // respond --text: the form's one string field, posted with the request's id on the stored
    // session; then the task goes on and the process that answered follows it.
    void respondTextOnTheStoredSession()
    {
        ScriptedServer server;
        QTemporaryDir dir;
        const QString id = startWaiting(server, dir);
        QVERIFY(!id.isEmpty());
        server.clearRecorded();
        // A value outside the form: refused, nothing sent.
        QCOMPARE(cli(server, dir, {u"respond"_s, id, u"--value"_s, u"{\"name\":\"A\"}"_s}).exitCode, 2);
        QCOMPARE(server.requestCount(), 0);
        server.enqueue("/mcp", result("rw-1", json("{'taskId':'t1','status':'input_required'}")));
        server.enqueue("/mcp", ScriptedReply::text(202, "text/plain", {}));
        server.enqueue("/mcp", result("rw-2", json("{'taskId':'t1','status':'completed'}")));
        server.enqueue("/mcp", result("rw-3", json("{'content':[{'type':'text','text':'Hello Ada'}]}")));
        const CliResult answered = cli(server, dir, {u"respond"_s, id, u"--text"_s, u"Ada"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const QList<RecordedRequest> sent = server.requests("/mcp");
        QVERIFY(sent.size() >= 2);
        QCOMPARE(sent.at(1).header("mcp-session-id"), QByteArray("s-cli"));
        QCOMPARE(
            bodyOf(sent.at(1)),
            QJsonDocument::fromJson(json("{'jsonrpc':'2.0','id':0,'result':{'action':'accept','content':{"
                                         "'name':'Ada'}}}"))
                .object());
    }

    void respondRejectDeclines()
    {
        ScriptedServer server;
        QTemporaryDir dir;
        const QString id = startWaiting(server, dir);
        QVERIFY(!id.isEmpty());
        server.clearRecorded();
        server.enqueue("/mcp", result("rw-1", json("{'taskId':'t1','status':'input_required'}")));
        server.enqueue("/mcp", ScriptedReply::text(202, "text/plain", {}));
        server.enqueue("/mcp", result("rw-2", json("{'taskId':'t1','status':'completed'}")));
        server.enqueue("/mcp", result("rw-3", json("{'content':[{'type':'text','text':'declined'}]}")));
        const CliResult answered = cli(server, dir, {u"respond"_s, id, u"--reject"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        QCOMPARE(bodyOf(server.requests("/mcp").at(1)).value(u"result"_s).toObject(),
                 QJsonDocument::fromJson(json("{'action':'decline'}")).object());
    }
};

QTEST_GUILESS_MAIN(TestMcpCli)
#include "tst_mcp_cli.moc"
