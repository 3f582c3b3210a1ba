// SPDX-License-Identifier: GPL-3.0-or-later
// The MCP connector against a server built only from the official @modelcontextprotocol/sdk 1.32.2
// (tests/peers/mcp-server-peer/server.mjs: McpServer per session, experimental tasks, the SDK's
// session-bound InMemoryTaskStore), installed by scripts/setup-test-peers.sh. Started once for the
// whole program, over loopback; it logs every request it receives, which proves what was (not)
// sent and when.
#include "backends/mcp/mcpbackend.h"
#include "cliprocess.h"
#include "engine/runmanager.h"
#include "enginerig.h"
#include "mcppeer.h"
#include "store/runstore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

constexpr int kWait = 30000;
// server.mjs's tasks poll every 500 ms (its --poll-interval default).
constexpr qint64 kPollIntervalMs = 500;

using Peer = RunwatchTest::McpPeer;
using RunwatchTest::waitFor;
using RunwatchTest::waitTerminal;

struct Rig : RunwatchTest::EngineRig
{
    explicit Rig(const QUrl &url, const QJsonObject &options = {})
    {
        FollowPolicy policy;
        policy.reconnectInitial = std::chrono::milliseconds(5);
        policy.reconnectMax = std::chrono::milliseconds(100);
        policy.pollInitial = std::chrono::milliseconds(50);
        policy.pollMax = std::chrono::milliseconds(200);
        manager.setFollowPolicy(policy);
        Connection c = RunwatchTest::plainConnection(u"peer"_s, u"mcp"_s, url, options);
        c.auth = AuthStyle::None;
        QVERIFY(addConnection(c));
    }
    McpBackend *backend() { return qobject_cast<McpBackend *>(manager.backend(connectionName)); }
    QString startTool(const QString &tool, const QJsonObject &arguments)
    {
        StartRequest request;
        request.prompt = tool;
        request.agent = tool;
        request.input = arguments;
        return manager.startRun(connectionName, request);
    }
};

// The requests of `method` the server received, optionally only those naming `taskId`.
QList<QJsonObject> requestsOf(const QList<QJsonObject> &log, const QString &method,
                              const QString &taskId = {})
{
    QList<QJsonObject> found;
    for (const QJsonObject &r : log) {
        if (r.value(u"method"_s).toString() == method
            && (taskId.isEmpty() || r.value(u"taskId"_s).toString() == taskId))
            found << r;
    }
    return found;
}

} // namespace

class TestMcpPeer final : public QObject
{
    Q_OBJECT

    std::unique_ptr<Peer> m_peer;

    QStringList cliGlobals(const QTemporaryDir &dir) const
    {
        return {u"--backend"_s,           u"mcp"_s,     u"--url"_s,
                m_peer->url().toString(), u"--store"_s, dir.filePath(u"runs.sqlite"_s)};
    }
    RunwatchTest::CliResult cli(const QTemporaryDir &dir, const QStringList &args, int ms = kWait)
    {
        return RunwatchTest::finishCli(
            RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), cliGlobals(dir) + args, this), ms);
    }
    static std::optional<Run> stored(const QTemporaryDir &dir, const QString &id)
    {
        RunStore store;
        if (!store.open(dir.filePath(u"runs.sqlite"_s)))
            return std::nullopt;
        return store.loadRun(id);
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QString node = QStringLiteral(RUNWATCH_NODE);
        const QString dir = QStringLiteral(RUNWATCH_MCP_PEER_DIR);
        if (const QString why = Peer::missing(node, dir); !why.isEmpty())
            QFAIL(qPrintable(why));
        m_peer = std::make_unique<Peer>(node, dir);
        QVERIFY2(m_peer->url().isValid(), qPrintable(u"the MCP server did not start: "_s + m_peer->error()));
    }
    void cleanupTestCase() { m_peer.reset(); }

    // initialize declares elicitation and tasks; the server's tools come with their task support.
    void describesTheServerAndItsTools()
    {
        Rig rig(m_peer->url());
        const ConnectionInfo info = QCoro::waitFor(rig.backend()->describe());
        QVERIFY2(info.ok(), qPrintable(info.error.message));
        QCOMPARE(info.name, u"runwatch-mcp-server-peer"_s);
        QCOMPARE(info.protocol, u"MCP 2025-11-25 (Streamable HTTP)"_s);
        QVERIFY(info.capabilities.size() >= 3);
        const CatalogResult catalog = QCoro::waitFor(rig.backend()->catalog());
        QVERIFY2(!catalog.error.isError(), qPrintable(catalog.error.message));
        QHash<QString, QString> support;
        for (const CatalogEntry &e : catalog.entries)
            support.insert(e.id, e.cliFields.value(u"task_support"_s).toString());
        QCOMPARE(support.value(u"write"_s), u"required"_s);
        QCOMPARE(support.value(u"summarize"_s), u"optional"_s);
        QCOMPARE(support.value(u"echo"_s), u"forbidden"_s);
        const auto write = std::find_if(catalog.entries.cbegin(), catalog.entries.cend(),
                                        [](const CatalogEntry &e) { return e.id == u"write"_s; });
        QVERIFY(write->inputSchema.value(u"properties"_s).toObject().contains(u"text"_s));
        QCOMPARE(write->description, u"Writes the text after a few steps of work"_s);
    }

    // A task followed to its end: the text is the tool's result, every tasks/get at least
    // pollInterval after the one before, the status lines as progress, structuredContent kept.
    void taskFollowedToCompletionAtThePollInterval()
    {
        Rig rig(m_peer->url());
        const QString id = rig.startTool(u"write"_s, {{u"text"_s, u"héllo 日本 🎉"_s}, {u"steps"_s, 4}});
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, u"Wrote: héllo 日本 🎉\n(4 steps)"_s);
        QCOMPARE(run.remoteId.size(), 32);
        QCOMPARE(run.model, u"write"_s);
        QVERIFY(!run.token.extra.value(u"session_id"_s).toString().isEmpty());
        QCOMPARE(run.token.extra.value(u"protocol_version"_s).toString(), u"2025-11-25"_s);
        const auto item = [&](const QString &itemId) {
            const auto it = std::find_if(run.secondary.cbegin(), run.secondary.cend(),
                                         [&](const SecondaryItem &i) { return i.id == itemId; });
            return it == run.secondary.cend() ? SecondaryItem{} : *it;
        };
        QCOMPARE(QJsonDocument::fromJson(item(u"structured_content"_s).text.toUtf8()).object(),
                 (QJsonObject{{u"text"_s, u"héllo 日本 🎉"_s}, {u"steps"_s, 4}}));
        QVERIFY(item(u"status"_s).text.startsWith(u"step "_s));
        QVERIFY(item(u"ttl"_s).text.contains(u"86400 s"_s));

        const QList<QJsonObject> polls = requestsOf(m_peer->requests(), u"tasks/get"_s, run.remoteId);
        QVERIFY2(polls.size() >= 2, qPrintable(QString::number(polls.size())));
        for (qsizetype i = 1; i < polls.size(); ++i) {
            const qint64 gap
                = polls.at(i).value(u"t"_s).toInteger() - polls.at(i - 1).value(u"t"_s).toInteger();
            QVERIFY2(gap >= kPollIntervalMs - 5,
                     qPrintable(u"poll %1 came %2 ms after the last"_s.arg(i).arg(gap)));
        }
        // Every request after the handshake carried the session and the version.
        for (const QJsonObject &r : requestsOf(m_peer->requests(), u"tasks/get"_s, run.remoteId)) {
            QCOMPARE(r.value(u"session"_s).toString(), run.token.extra.value(u"session_id"_s).toString());
            QCOMPARE(r.value(u"version"_s).toString(), u"2025-11-25"_s);
        }
        QCOMPARE(requestsOf(m_peer->requests(), u"tasks/result"_s, run.remoteId).size(), 1);
    }

    // A failed task's message is only in tasks/result (the status message is stale).
    void failingTaskWithItsMessage()
    {
        Rig rig(m_peer->url());
        const QString id = rig.startTool(u"fail"_s, {{u"why"_s, u"disk full"_s}});
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        QCOMPARE(rig.run(id).status, RunStatus::Failed);
        QCOMPARE(rig.run(id).error.message, u"The tool failed: disk full"_s);
        QCOMPARE(rig.run(id).error.kind, ErrorKind::Run);
    }

    // A forbidden tool is refused before tools/call is sent (the log proves it).
    void forbiddenToolRefusedWithNothingSent()
    {
        Rig rig(m_peer->url());
        const qsizetype before = requestsOf(m_peer->requests(), u"tools/call"_s).size();
        const QString id = rig.startTool(u"echo"_s, {{u"text"_s, u"hi"_s}});
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        QCOMPARE(rig.run(id).status, RunStatus::Failed);
        QCOMPARE(rig.run(id).error.code, u"task_forbidden"_s);
        QVERIFY(rig.run(id).remoteId.isEmpty());
        QCOMPARE(requestsOf(m_peer->requests(), u"tools/call"_s).size(), before);
    }

    // input_required in the engine (one process): the elicitation's typed form, answered accept.
    void elicitationAnsweredInTheEngine()
    {
        Rig rig(m_peer->url());
        const QString id = rig.startTool(u"approve"_s, {{u"action"_s, u"deploy"_s}});
        QVERIFY(RunwatchTest::waitInput(rig.manager, id, kWait));
        const Run &waiting = rig.run(id);
        QCOMPARE(waiting.input->prompt, u"Approve deploy?"_s);
        const QJsonObject properties = waiting.input->schema.value(u"properties"_s).toObject();
        QCOMPARE(properties.keys(), (QStringList{u"approve"_s, u"priority"_s, u"reason"_s}));
        QVERIFY(waiting.token.extra.value(u"elicitation"_s).isObject());
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Value;
        answer.value = QJsonObject{{u"approve"_s, true}, {u"reason"_s, u"ok"_s}, {u"priority"_s, u"high"_s}};
        const ActionResult sent = RunwatchTest::respondAndWait(rig.manager, id, answer);
        QVERIFY2(sent.ok(), qPrintable(sent.error.message));
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, u"deploy: approved (reason: ok, priority: high)"_s);
        // The answer went on the session that started the task.
        const QList<QJsonObject> answers = requestsOf(m_peer->requests(), u"response"_s);
        QVERIFY(!answers.isEmpty());
        QCOMPARE(answers.last().value(u"session"_s).toString(),
                 rig.run(id).token.extra.value(u"session_id"_s).toString());
        QCOMPARE(answers.last().value(u"action"_s).toString(), u"accept"_s);
    }

    // The CLI contract: agents; start --follow stops at input_required (exit 5, the message and
    // the schema's fields); respond in a NEW process (accept with --value, decline with --reject)
    // on the stored session; watch in another new process to the end.
    void cliAnswersAcceptAndDeclineInNewProcesses()
    {
        QTemporaryDir dir;
        const RunwatchTest::CliResult agents = cli(dir, {u"--json"_s, u"agents"_s});
        QCOMPARE(agents.exitCode, 0);
        const QList<QJsonObject> tools = RunwatchTest::jsonLines(agents.out);
        const auto echo = std::find_if(tools.cbegin(), tools.cend(),
                                       [](const QJsonObject &o) { return o.value(u"id"_s) == u"echo"_s; });
        QVERIFY(echo != tools.cend());
        QCOMPARE(echo->value(u"type"_s).toString(), u"agent"_s);
        QCOMPARE(echo->value(u"name"_s).toString(), u"echo"_s);
        QCOMPARE(echo->value(u"task_support"_s).toString(), u"forbidden"_s);

        for (const bool accept : {true, false}) {
            const RunwatchTest::CliResult started
                = cli(dir, {u"--json"_s, u"start"_s, u"--agent"_s, u"approve"_s, u"--input"_s,
                            accept ? u"{\"action\":\"ship\"}"_s : u"{\"action\":\"drop\"}"_s, u"--follow"_s});
            QCOMPARE(started.exitCode, 5);
            const QString id = RunwatchTest::runIdFrom(started.out);
            QVERIFY(!id.isEmpty());
            const QJsonObject asked = RunwatchTest::firstOfType(started.out, u"input_required"_s);
            const QJsonObject request = asked.value(u"request"_s).toObject();
            QCOMPARE(request.value(u"prompt"_s).toString(), accept ? u"Approve ship?"_s : u"Approve drop?"_s);
            QVERIFY(request.value(u"schema"_s)
                        .toObject()
                        .value(u"properties"_s)
                        .toObject()
                        .contains(u"reason"_s));

            QCOMPARE(cli(dir, {u"status"_s, id}).exitCode, 5);
            const RunwatchTest::CliResult answered
                = accept ? cli(dir,
                               {u"respond"_s, id, u"--value"_s, u"{\"approve\":true,\"reason\":\"fine\"}"_s})
                         : cli(dir, {u"respond"_s, id, u"--reject"_s});
            QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
            const RunwatchTest::CliResult watched = cli(dir, {u"watch"_s, id});
            QCOMPARE(watched.exitCode, 0);
            const std::optional<Run> run = stored(dir, id);
            QVERIFY(run);
            QCOMPARE(run->status, RunStatus::Completed);
            QCOMPARE(run->primaryText,
                     accept ? u"ship: approved (reason: fine, priority: -)"_s : u"drop: decline"_s);
            // A second answer finds nothing pending: refused, nothing sent.
            QVERIFY(cli(dir, {u"respond"_s, id, u"--reject"_s}).exitCode != 0);
        }
    }

    // A value that does not fit the form is refused by the CLI before anything is sent.
    void cliRefusesAnAnswerOutsideTheForm()
    {
        QTemporaryDir dir;
        const RunwatchTest::CliResult started
            = cli(dir, {u"--json"_s, u"start"_s, u"--agent"_s, u"approve"_s, u"--input"_s,
                        u"{\"action\":\"x\"}"_s, u"--follow"_s});
        QCOMPARE(started.exitCode, 5);
        const QString id = RunwatchTest::runIdFrom(started.out);
        const qsizetype before = requestsOf(m_peer->requests(), u"response"_s).size();
        const RunwatchTest::CliResult wrong
            = cli(dir, {u"respond"_s, id, u"--value"_s, u"{\"approve\":\"yes\",\"priority\":\"urgent\"}"_s});
        QCOMPARE(wrong.exitCode, 2);
        QVERIFY2(wrong.err.contains("priority"), wrong.err.constData());
        // --text needs a form of one string field.
        QVERIFY(cli(dir, {u"respond"_s, id, u"--text"_s, u"ok"_s}).exitCode != 0);
        QCOMPARE(requestsOf(m_peer->requests(), u"response"_s).size(), before);
        QCOMPARE(cli(dir, {u"cancel"_s, id}).exitCode, 4);
    }

    // Cancel: tasks/cancel, confirmed by the server's tasks/get.
    void cancelConfirmedByTasksGet()
    {
        QTemporaryDir dir;
        const RunwatchTest::CliResult started
            = cli(dir, {u"--json"_s, u"start"_s, u"--agent"_s, u"long"_s, u"--input"_s, u"{}"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = RunwatchTest::runIdFrom(started.out);
        const RunwatchTest::CliResult cancelled = cli(dir, {u"cancel"_s, id});
        QCOMPARE(cancelled.exitCode, 4);
        const std::optional<Run> run = stored(dir, id);
        QVERIFY(run);
        QCOMPARE(run->status, RunStatus::Cancelled);
        // The server says so too, asked on the task's session.
        Rig rig(m_peer->url());
        const ActionResult now = QCoro::waitFor(rig.backend()->get(run->token));
        QVERIFY2(now.ok(), qPrintable(now.error.message));
        QVERIFY(std::any_of(now.events.cbegin(), now.events.cend(), [](const RunEvent &e) {
            return e.type == RunEvent::Type::Status && e.status == RunStatus::Cancelled;
        }));
        QVERIFY(!requestsOf(m_peer->requests(), u"tasks/cancel"_s, run->remoteId).isEmpty());
        // Delete is local: the task stays until its ttl, and the run said how long that is.
        QVERIFY(std::any_of(run->secondary.cbegin(), run->secondary.cend(),
                            [](const SecondaryItem &i) { return i.id == u"ttl"_s; }));
        const RunwatchTest::CliResult deleted = cli(dir, {u"--json"_s, u"delete"_s, id});
        QCOMPARE(deleted.exitCode, 0);
        QCOMPARE(RunwatchTest::firstOfType(deleted.out, u"deleted"_s).value(u"scope"_s).toString(),
                 u"local"_s);
    }

    // A forbidden tool from the CLI: refused, exit 1, no tools/call on the wire.
    void cliRefusesAForbiddenTool()
    {
        QTemporaryDir dir;
        const qsizetype before = requestsOf(m_peer->requests(), u"tools/call"_s).size();
        const RunwatchTest::CliResult refused
            = cli(dir, {u"start"_s, u"--agent"_s, u"echo"_s, u"--input"_s, u"{\"text\":\"x\"}"_s});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("forbidden"), refused.err.constData());
        QCOMPARE(requestsOf(m_peer->requests(), u"tools/call"_s).size(), before);
    }

    // runwatch-cli's `watch` killed with SIGKILL mid-task; a new `watch` follows the stored task on
    // its stored session to the end: the same text.
    void cliWatchSurvivesSigkill()
    {
        QTemporaryDir dir;
        const RunwatchTest::CliResult started
            = cli(dir, {u"--json"_s, u"start"_s, u"--agent"_s, u"write"_s, u"--input"_s,
                        u"{\"text\":\"after the kill\",\"steps\":6,\"delay_ms\":400}"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = RunwatchTest::runIdFrom(started.out);
        const QString taskId
            = RunwatchTest::firstOfType(started.out, u"run"_s).value(u"remote_id"_s).toString();
        QCOMPARE(taskId.size(), 32);
        QProcess *first = RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH),
                                                  cliGlobals(dir) + QStringList{u"watch"_s, id}, this);
        QVERIFY(waitFor([&] { return requestsOf(m_peer->requests(), u"tasks/get"_s, taskId).size() >= 2; },
                        kWait));
        ::kill(pid_t(first->processId()), SIGKILL);
        QVERIFY(first->waitForFinished(10000));
        const RunwatchTest::CliResult watched = cli(dir, {u"watch"_s, id}, kWait * 2);
        QCOMPARE(watched.exitCode, 0);
        QCOMPARE(QString::fromUtf8(watched.out).trimmed(), u"Wrote: after the kill\n(6 steps)"_s);
        const std::optional<Run> run = stored(dir, id);
        QVERIFY(run);
        QCOMPARE(run->status, RunStatus::Completed);
        QCOMPARE(run->primaryText, u"Wrote: after the kill\n(6 steps)"_s);
        // No second session: every poll went on the one the task was created on.
        QSet<QString> sessions;
        for (const QJsonObject &r : requestsOf(m_peer->requests(), u"tasks/get"_s, taskId))
            sessions.insert(r.value(u"session"_s).toString());
        QCOMPARE(sessions.size(), 1);
    }

    // A task the official SDK client started, on its session: list --remote and attach (joining
    // that session: the SDK's default store shows a task only there), followed to the end.
    void attachATaskStartedByTheSdkClient()
    {
        QProcess sdk;
        sdk.setWorkingDirectory(QStringLiteral(RUNWATCH_MCP_PEER_DIR));
        sdk.start(QStringLiteral(RUNWATCH_NODE),
                  {u"sdk-start.mjs"_s, m_peer->url().toString(), u"started by the SDK"_s});
        QVERIFY(waitFor([&] { return sdk.state() == QProcess::NotRunning; }, kWait));
        const QJsonObject line = QJsonDocument::fromJson(sdk.readAllStandardOutput().trimmed()).object();
        QVERIFY2(!line.value(u"taskId"_s).toString().isEmpty(), sdk.readAllStandardError().constData());
        const QString session = line.value(u"session"_s).toString();
        const QString taskId = line.value(u"taskId"_s).toString();

        QTemporaryDir dir;
        const RunwatchTest::CliResult listed
            = cli(dir, {u"--session"_s, session, u"--json"_s, u"list"_s, u"--remote"_s});
        QCOMPARE(listed.exitCode, 0);
        const QList<QJsonObject> tasks = RunwatchTest::jsonLines(listed.out);
        QVERIFY(std::any_of(tasks.cbegin(), tasks.cend(), [&](const QJsonObject &o) {
            return o.value(u"type"_s) == u"remote_run"_s && o.value(u"remote_id"_s) == taskId;
        }));
        const RunwatchTest::CliResult attached
            = cli(dir, {u"--session"_s, session, u"attach"_s, taskId}, kWait * 2);
        QCOMPARE(attached.exitCode, 0);
        QVERIFY2(attached.out.contains("Wrote: started by the SDK"), attached.out.constData());
        // The run keeps the session: a later command needs no --session.
        const RunwatchTest::CliResult status = cli(dir, {u"--json"_s, u"status"_s, taskId});
        QCOMPARE(status.exitCode, 0);
    }

    // The server forgets its sessions (a restart): the run says the session was lost, and with
    // the session-bound store the task is gone with it.
    void lostSessionIsSaidClearly()
    {
        Rig rig(m_peer->url());
        const QString id = rig.startTool(u"write"_s, {{u"text"_s, u"lost"_s}, {u"steps"_s, 20}});
        QVERIFY(waitFor([&] { return !rig.run(id).remoteId.isEmpty(); }, kWait));
        QNetworkAccessManager nam;
        QUrl forget = m_peer->url();
        forget.setPath(u"/forget-sessions"_s);
        QNetworkReply *reply = nam.post(QNetworkRequest(forget), QByteArray());
        QVERIFY(waitFor([&] { return reply->isFinished(); }, kWait));
        reply->deleteLater();
        QVERIFY(RunwatchTest::waitSettled(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QVERIFY2(run.error.message.contains(u"lost the session"_s), qPrintable(run.error.message));
        QVERIFY(std::any_of(run.secondary.cbegin(), run.secondary.cend(),
                            [](const SecondaryItem &i) { return i.id == u"session_lost"_s; }));
    }
};

QTEST_GUILESS_MAIN(TestMcpPeer)
#include "tst_mcp_peer.moc"
