// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli --backend openai-agents as a script runs it: real processes against the OpenAI
// Agents API simulator, one store shared between them. The CLI contract of issue 29: agents,
// start --prompt T --agent AGENT_ID [--follow] (the run line's remote_id is the session id), watch
// (also after SIGKILL), status, cancel, delete, respond --approve | --reject | --output
// CALL_ID=TEXT | --value JSON, followup (the next turn, same session), list --remote (sessions),
// attach SESSION_ID, the key from OPENAI_API_KEY as the client sends it, and the exit codes every
// backend has.
#include "cliprocess.h"
#include "openaiagents/openaiagentssim.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#include <csignal>
#include <functional>

using namespace Qt::StringLiterals;
using RunwatchSim::OpenAiAgentsEndpoint;
using RunwatchSim::OpenAiAgentsSimulator;
using Result = RunwatchTest::CliResult;
using RunwatchTest::firstOfType;
using RunwatchTest::jsonLines;
using RunwatchTest::runIdFrom;

namespace {

constexpr auto kKey = "sk-cli-agents-0001";
constexpr auto kAgent = "agent_68e1runwatch0research";
constexpr int kProcessWait = 120000;

bool waitUntil(const std::function<bool()> &done, int ms = 30000)
{
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > ms)
            return false;
        QTest::qWait(5);
    }
    return true;
}

} // namespace

class TestOpenAiAgentsCli final : public QObject
{
    Q_OBJECT

    OpenAiAgentsSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;

    QStringList globals() const
    {
        return {u"--backend"_s, u"openai-agents"_s,
                u"--url"_s,     m_sim->baseUrl().toString(),
                u"--store"_s,   m_dir->filePath(u"runs.sqlite"_s)};
    }
    // The key from the environment variable the openai client reads too.
    QStringList env(const QString &key = QString::fromLatin1(kKey)) const
    {
        return {u"OPENAI_API_KEY="_s + key};
    }
    Result cli(const QStringList &args, int ms = kProcessWait)
    {
        return RunwatchTest::runCli(globals() + args, this, env(), ms);
    }
    QProcess *launch(const QStringList &args)
    {
        return RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), globals() + args, this, env());
    }
    QStringList start(const QString &prompt) const
    {
        return {u"start"_s, u"--prompt"_s, prompt, u"--agent"_s, QString::fromLatin1(kAgent)};
    }
    QString lastText() const { return m_sim->turnText(m_sim->lastSessionId()); }

private Q_SLOTS:
    void init()
    {
        RunwatchSim::OpenAiAgentsSimConfig config;
        config.apiKey = QString::fromLatin1(kKey);
        config.intervalMs = 2;
        config.maxPageSize = 4; // every read of the history goes over several pages
        m_sim = new OpenAiAgentsSimulator(config, this);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    void startFollow()
    {
        const Result r = cli(start(u"normal deltas=15"_s) << u"--follow"_s);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QString::fromUtf8(r.out), lastText() + u'\n');
        QCOMPARE(m_sim->sessionsCreated(), 1);
        for (const RunwatchSim::OpenAiAgentsRequestRecord &request : m_sim->requests()) {
            QCOMPARE(request.header("authorization"), "Bearer " + QByteArray(kKey));
            QCOMPARE(request.header("openai-beta"), QByteArray("agents=v1"));
        }
        QVERIFY(!r.out.contains(kKey) && !r.err.contains(kKey));
    }

    // The run line's remote_id is the session id.
    void runLineNamesTheSession()
    {
        const Result r = cli(QStringList{u"--json"_s} + start(u"normal deltas=3"_s) << u"--follow"_s);
        QCOMPARE(r.exitCode, 0);
        const QJsonObject run = firstOfType(r.out, u"run"_s);
        QCOMPARE(run.value(u"remote_id"_s).toString(), m_sim->lastSessionId());
    }

    // `watch` killed with SIGKILL mid-turn (an agent's turn of 30 messages); the next `watch` opens
    // the stream, reads the turns and items and prints the whole answer once.
    void watchSurvivesSigkill()
    {
        const Result started
            = cli(QStringList{u"--json"_s} + start(u"normal deltas=300 messages=30 interval_ms=10"_s));
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        QProcess *first = launch({u"watch"_s, id});
        QByteArray partial;
        QVERIFY(waitUntil([&] {
            partial += first->readAllStandardOutput();
            return partial.count(' ') >= 100;
        }));
        ::kill(pid_t(first->processId()), SIGKILL);
        QSignalSpy done(first, &QProcess::finished);
        QVERIFY(first->state() == QProcess::NotRunning || done.wait(10000));
        first->deleteLater();
        const qsizetype before = m_sim->requests().size();
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        const QString expected = lastText();
        QCOMPARE(QString::fromUtf8(watched.out), expected + u'\n');
        QVERIFY(expected.toUtf8().startsWith(partial.left(partial.lastIndexOf(' ') + 1)));
        QCOMPARE(m_sim->sessionsCreated(), 1);
        QCOMPARE(m_sim->session(m_sim->lastSessionId())->turns.size(), 1);
        // The second watch followed the same session: stream, then the history.
        const QList<RunwatchSim::OpenAiAgentsRequestRecord> after = m_sim->requests().mid(before);
        QVERIFY(
            std::any_of(after.cbegin(), after.cend(), [](const RunwatchSim::OpenAiAgentsRequestRecord &r) {
                return r.endpoint == OpenAiAgentsEndpoint::Stream;
            }));
        QVERIFY(
            std::any_of(after.cbegin(), after.cend(), [](const RunwatchSim::OpenAiAgentsRequestRecord &r) {
                return r.endpoint == OpenAiAgentsEndpoint::Items;
            }));
    }

    // An MCP approval: exit 5 with the call; --reject denies it (the API takes no comment).
    void reject()
    {
        const Result asked = cli(QStringList{u"--json"_s} + start(u"approve deltas=3"_s) << u"--follow"_s);
        QCOMPARE(asked.exitCode, 5);
        const QJsonObject request
            = firstOfType(asked.out, u"input_required"_s).value(u"request"_s).toObject();
        QCOMPARE(request.value(u"reason"_s).toString(), u"approval"_s);
        QCOMPARE(request.value(u"tool_calls"_s).toArray().size(), 1);
        const QString id = runIdFrom(asked.out);
        const Result answered = cli({u"respond"_s, id, u"--reject"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(QString::fromUtf8(watched.out), lastText() + u'\n');
        QCOMPARE(m_sim->session(m_sim->lastSessionId())->turns.constLast().decision, u"deny"_s);
    }

    void approve()
    {
        const Result asked = cli(QStringList{u"--json"_s} + start(u"approve deltas=2"_s) << u"--follow"_s);
        QCOMPARE(asked.exitCode, 5);
        const QString id = runIdFrom(asked.out);
        const Result answered = cli({u"respond"_s, id, u"--approve"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QVERIFY(QString::fromUtf8(watched.out).contains(u"Approved."_s));
    }

    void toolOutput()
    {
        const Result asked = cli(QStringList{u"--json"_s} + start(u"tool"_s) << u"--follow"_s);
        QCOMPARE(asked.exitCode, 5);
        const QJsonObject request
            = firstOfType(asked.out, u"input_required"_s).value(u"request"_s).toObject();
        const QString call
            = request.value(u"tool_calls"_s).toArray().at(0).toObject().value(u"id"_s).toString();
        QVERIFY(!call.isEmpty());
        const QString id = runIdFrom(asked.out);
        const Result answered = cli({u"respond"_s, id, u"--output"_s, call + u"=in transit"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(QString::fromUtf8(watched.out), lastText() + u'\n');
        QCOMPARE(lastText(), u"The order says: in transit"_s);
    }

    // A sign-in form answered with --value.
    void formValue()
    {
        const Result asked = cli(QStringList{u"--json"_s} + start(u"signin"_s) << u"--follow"_s);
        QCOMPARE(asked.exitCode, 5);
        const QString id = runIdFrom(asked.out);
        const Result answered
            = cli({u"respond"_s, id, u"--value"_s, uR"({"username":"ada","password":"pw"})"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(QString::fromUtf8(watched.out), u"Signed in as ada.\n"_s);
    }

    void followUpSameSession()
    {
        const Result parent = cli(QStringList{u"--json"_s} + start(u"normal deltas=3"_s) << u"--follow"_s);
        QCOMPARE(parent.exitCode, 0);
        const QString parentId = runIdFrom(parent.out);
        const Result next
            = cli({u"followup"_s, parentId, u"--prompt"_s, u"normal deltas=6"_s, u"--follow"_s});
        QVERIFY2(next.exitCode == 0, next.err.constData());
        QVERIFY2(QString::fromUtf8(next.out).endsWith(lastText() + u'\n'), next.out.constData());
        QCOMPARE(m_sim->sessionsCreated(), 1);
        QCOMPARE(m_sim->session(m_sim->lastSessionId())->turns.size(), 2);
    }

    void cancelAndStatus()
    {
        const Result started = cli(QStringList{u"--json"_s} + start(u"long interval_ms=20"_s));
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QVERIFY(
            waitUntil([&] { return m_sim->session(m_sim->lastSessionId())->status == u"in_progress"_s; }));
        const Result cancelled = cli({u"cancel"_s, id});
        QVERIFY2(cancelled.exitCode == 0 || cancelled.exitCode == 4, cancelled.err.constData());
        QTRY_VERIFY_WITH_TIMEOUT(
            m_sim->session(m_sim->lastSessionId())->turns.constLast().status == u"cancelled"_s, 10000);
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 4);
        const Result status = cli({u"status"_s, id});
        QCOMPARE(status.exitCode, 4);
    }

    void deleteOnTheService()
    {
        const Result done = cli(QStringList{u"--json"_s} + start(u"normal deltas=2"_s) << u"--follow"_s);
        QCOMPARE(done.exitCode, 0);
        const QString id = runIdFrom(done.out);
        const QString session = m_sim->lastSessionId();
        const Result deleted = cli({u"delete"_s, id});
        QVERIFY2(deleted.exitCode == 0, deleted.err.constData());
        QVERIFY(m_sim->session(session)->deleted);
        QCOMPARE(m_sim->requestCount(OpenAiAgentsEndpoint::DeleteSession), 1);
        QVERIFY(cli({u"status"_s, id}).exitCode != 0);
    }

    void failureExitCodeAndReason()
    {
        const Result r = cli(start(u"fail deltas=2"_s) << u"--follow"_s);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("The model is overloaded."), r.err.constData());
    }

    void wrongKey()
    {
        const Result r = RunwatchTest::runCli(globals() + start(u"normal"_s) << u"--follow"_s, this,
                                              env(u"sk-wrong"_s), kProcessWait);
        QVERIFY2(r.exitCode != 0, r.out.constData());
        QVERIFY(!r.err.contains("sk-wrong"));
    }

    void agentsListsTheAccountsAgents()
    {
        const Result r = cli({u"--json"_s, u"agents"_s});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QList<QJsonObject> agents;
        for (const QJsonObject &line : jsonLines(r.out)) {
            if (line.value(u"type"_s).toString() == u"agent"_s)
                agents << line;
        }
        QCOMPARE(agents.size(), 2);
        QCOMPARE(agents.at(0).value(u"id"_s).toString(), QString::fromLatin1(kAgent));
        QCOMPARE(agents.at(0).value(u"name"_s).toString(), u"Research assistant"_s);
    }

    void listRemoteAndAttach()
    {
        QStringList sessions;
        for (int i = 0; i < 6; ++i)
            sessions << m_sim->startSessionElsewhere(QString::fromLatin1(kAgent), u"normal deltas=4"_s);
        QVERIFY(waitUntil([&] { return m_sim->session(sessions.constLast())->status == u"idle"_s; }));
        const Result listed = cli({u"--json"_s, u"list"_s, u"--remote"_s});
        QVERIFY2(listed.exitCode == 0, listed.err.constData());
        QStringList ids;
        for (const QJsonObject &line : jsonLines(listed.out))
            ids << line.value(u"remote_id"_s).toString();
        for (const QString &session : std::as_const(sessions))
            QVERIFY2(ids.contains(session), listed.out.constData());
        const Result attached = cli({u"attach"_s, sessions.at(2)});
        QVERIFY2(attached.exitCode == 0, attached.err.constData());
        QCOMPARE(QString::fromUtf8(attached.out), m_sim->turnText(sessions.at(2)) + u'\n');
    }
};

QTEST_GUILESS_MAIN(TestOpenAiAgentsCli)
#include "tst_openai_agents_cli.moc"
