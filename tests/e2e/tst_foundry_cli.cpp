// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli --backend foundry as a user runs it: real processes against the Foundry simulator,
// one store shared between them. The CLI contract of issue 15: start --agent, agents, respond
// --output/--text/--approve/--reject, input_required JSON, exit codes, --api-version,
// --token-command, reattach after SIGKILL.
#include "cliprocess.h"
#include "foundry/foundrysim.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace Qt::StringLiterals;
using RunwatchSim::FoundrySimulator;
using Result = RunwatchTest::CliResult;
using RunwatchTest::firstOfType;
using RunwatchTest::jsonLines;
using RunwatchTest::runIdFrom;

namespace {

constexpr auto kToken = "entra-token-cli-1";

} // namespace

class TestFoundryCli final : public QObject
{
    Q_OBJECT

    FoundrySimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;

    QStringList globals(const QStringList &extra = {}) const
    {
        return QStringList{u"--backend"_s, u"foundry"_s,
                           u"--url"_s,     m_sim->baseUrl().toString(),
                           u"--store"_s,   m_dir->filePath(u"runs.sqlite"_s)}
               + extra;
    }

    Result cli(const QStringList &args, const QStringList &extraGlobals = {}, int ms = 60000)
    {
        return RunwatchTest::runCli(globals(extraGlobals) + args, this,
                                    {u"RUNWATCH_API_KEY="_s + QString::fromLatin1(kToken)}, ms);
    }

    QStringList start(const QString &prompt, const QStringList &more = {}) const
    {
        return QStringList{u"start"_s, u"--prompt"_s, prompt, u"--agent"_s, u"asst_sim_weather"_s} + more;
    }

private Q_SLOTS:
    void init()
    {
        RunwatchSim::FoundrySimConfig config;
        config.intervalMs = 2;
        config.token = QString::fromLatin1(kToken);
        m_sim = new FoundrySimulator(config, this);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    void startFollowStreamed()
    {
        const Result r = cli(start(u"normal deltas=15"_s, {u"--follow"_s}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QString::fromUtf8(r.out), FoundrySimulator::tokenText(0, 15) + u'\n');
        QVERIFY2(r.err.contains("completed"), r.err.constData());
        QCOMPARE(m_sim->runsCreated(), 1);
        QVERIFY(m_sim->requests().first().body.contains("\"assistant_id\":\"asst_sim_weather\""));
        // No model override unless asked for: the agent's own model runs.
        QVERIFY(!m_sim->requests().first().body.contains("\"model\""));
    }

    void startFollowPolled()
    {
        const Result r = cli(start(u"normal deltas=9"_s, {u"--no-stream"_s, u"--follow"_s}),
                             {u"--api-version"_s, u"2025-05-15-preview"_s});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QString::fromUtf8(r.out), FoundrySimulator::tokenText(0, 9) + u'\n');
        for (const auto &request : m_sim->requests())
            QCOMPARE(request.apiVersion, u"2025-05-15-preview"_s);
    }

    void startWithoutFollowThenWatch()
    {
        const Result started = cli(QStringList{u"--json"_s} + start(u"normal deltas=20 interval_ms=20"_s));
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(QString::fromUtf8(watched.out), FoundrySimulator::tokenText(0, 20) + u'\n');
        QCOMPARE(m_sim->runsCreated(), 1);
    }

    // Two tool calls: input_required names both (id, name, arguments) and the deadline; one
    // respond with both outputs; watch follows the rest.
    void twoToolOutputs()
    {
        const Result asked = cli(QStringList{u"--json"_s} + start(u"tools deltas=3"_s, {u"--follow"_s}));
        QCOMPARE(asked.exitCode, 5);
        const QJsonObject input = firstOfType(asked.out, u"input_required"_s);
        QVERIFY2(!input.isEmpty(), asked.out.constData());
        const QJsonObject request = input.value(u"request"_s).toObject();
        QCOMPARE(request.value(u"reason"_s).toString(), u"tool_output"_s);
        QVERIFY(!request.value(u"deadline"_s).toString().isEmpty());
        const QJsonArray calls = request.value(u"tool_calls"_s).toArray();
        QCOMPARE(calls.size(), 2);
        QCOMPARE(calls.at(0).toObject().value(u"name"_s).toString(), u"get_weather"_s);
        QCOMPARE(calls.at(0).toObject().value(u"arguments"_s).toString(), u"{\"location\":\"Seattle\"}"_s);
        const QString a = calls.at(0).toObject().value(u"id"_s).toString();
        const QString b = calls.at(1).toObject().value(u"id"_s).toString();
        const QString id = runIdFrom(asked.out);

        const Result tooFew = cli({u"respond"_s, id, u"--text"_s, u"x"_s});
        QCOMPARE(tooFew.exitCode, 2); // a usage error: nothing is sent
        QCOMPARE(m_sim->requestCount(RunwatchSim::FoundryEndpoint::SubmitToolOutputs), 0);
        QVERIFY2(tooFew.err.contains("2 tool calls"), tooFew.err.constData());

        const Result answered
            = cli({u"respond"_s, id, u"--output"_s, a + u"=sunny"_s, u"--output"_s, b + u"=09:30"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        QCOMPARE(m_sim->requestCount(RunwatchSim::FoundryEndpoint::SubmitToolOutputs), 1);
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        const QString expected = u"[%1: sunny] [%2: 09:30] "_s.arg(a, b) + FoundrySimulator::tokenText(0, 3);
        QVERIFY2(QString::fromUtf8(watched.out).endsWith(expected + u'\n'), watched.out.constData());
        QCOMPARE(m_sim->run(m_sim->lastRunId())->text, expected);
    }

    void oneToolOutputByText()
    {
        const Result asked = cli(QStringList{u"--json"_s} + start(u"tool deltas=2"_s, {u"--follow"_s}));
        QCOMPARE(asked.exitCode, 5);
        const QString id = runIdFrom(asked.out);
        const Result answered = cli({u"respond"_s, id, u"--text"_s, u"12C"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        QVERIFY(watched.out.contains(": 12C] tok0 tok1 "));
    }

    void approveAndReject_data()
    {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("word");
        QTest::newRow("approve") << u"--approve"_s << u"approved"_s;
        QTest::newRow("reject") << u"--reject"_s << u"rejected"_s;
    }
    void approveAndReject()
    {
        QFETCH(QString, flag);
        QFETCH(QString, word);
        const Result asked = cli(QStringList{u"--json"_s} + start(u"approval deltas=1"_s, {u"--follow"_s}));
        QCOMPARE(asked.exitCode, 5);
        const QJsonObject request
            = firstOfType(asked.out, u"input_required"_s).value(u"request"_s).toObject();
        QCOMPARE(request.value(u"reason"_s).toString(), u"approval"_s);
        QCOMPARE(request.value(u"tool_calls"_s).toArray().at(0).toObject().value(u"name"_s).toString(),
                 u"search_docs"_s);
        const QString id = runIdFrom(asked.out);
        const Result answered = cli({u"respond"_s, id, flag});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        QVERIFY(watched.out.contains(u"[%1: search_docs] tok0 "_s.arg(word).toUtf8()));
    }

    // The store says the run waits for tool outputs; the service says its expires_at passed.
    // watch, resume and attach read a waiting run again before reporting it: expired (3), not
    // input_required (5) from the stored state.
    void waitingRunReadAgain()
    {
        const Result asked
            = cli(QStringList{u"--json"_s} + start(u"expire expires_ms=400"_s, {u"--follow"_s}));
        QCOMPARE(asked.exitCode, 5);
        const QString id = runIdFrom(asked.out);
        QTRY_COMPARE_WITH_TIMEOUT(m_sim->run(m_sim->lastRunId())->status, u"expired"_s, 10000);
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 3, watched.err.constData());
        QVERIFY2(watched.err.contains("expired"), watched.err.constData());
        QVERIFY(!watched.err.contains("input_required") && !watched.out.contains("input_required"));

        // resume reads the next such run again too, and reports it.
        const Result asked2
            = cli(QStringList{u"--json"_s} + start(u"expire expires_ms=400"_s, {u"--follow"_s}));
        QCOMPARE(asked2.exitCode, 5);
        QTRY_COMPARE_WITH_TIMEOUT(m_sim->run(m_sim->lastRunId())->status, u"expired"_s, 10000);
        const Result resumed = cli({u"resume"_s});
        QVERIFY2(resumed.err.contains("expired"), resumed.err.constData());
        const Result status = cli({u"status"_s, runIdFrom(asked2.out)});
        QCOMPARE(status.exitCode, 3);
    }

    void exitCodes()
    {
        QCOMPARE(cli(start(u"fail deltas=4"_s, {u"--follow"_s})).exitCode, 3);
        QCOMPARE(cli(start(u"incomplete deltas=2"_s, {u"--follow"_s})).exitCode, 3);
        const Result failed = cli(start(u"fail deltas=4"_s, {u"--follow"_s}));
        QVERIFY2(failed.err.contains("The agent's tool backend is unavailable (simulated)."),
                 failed.err.constData());

        // Nobody answers: `status` after the deadline says expired (3).
        const Result asked
            = cli(QStringList{u"--json"_s} + start(u"expire expires_ms=400"_s, {u"--follow"_s}));
        QCOMPARE(asked.exitCode, 5);
        const QString id = runIdFrom(asked.out);
        QTRY_COMPARE_WITH_TIMEOUT(m_sim->run(m_sim->lastRunId())->status, u"expired"_s, 10000);
        const Result expired = cli({u"status"_s, id});
        QCOMPARE(expired.exitCode, 3);
        QVERIFY2(expired.err.contains("expired"), expired.err.constData());

        // Cancel: 4.
        const Result slow = cli(QStringList{u"--json"_s} + start(u"slow interval_ms=20"_s));
        const QString slowId = runIdFrom(slow.out);
        const Result cancelled = cli({u"cancel"_s, slowId});
        QVERIFY2(cancelled.exitCode == 4, cancelled.err.constData());
        QCOMPARE(m_sim->run(m_sim->lastRunId())->status, u"cancelled"_s);

        // The service has no run delete: local only, and the CLI says so.
        const Result deleted = cli({u"delete"_s, slowId});
        QCOMPARE(deleted.exitCode, 0);
        QVERIFY2(deleted.out.contains("locally only"), deleted.out.constData());
        QCOMPARE(m_sim->runIds().size(), m_sim->runsCreated()); // nothing asked of the service
    }

    void agents()
    {
        const Result r = cli({u"agents"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out), u"asst_sim_weather\tweather-agent\tgpt-4o\n"
                                           u"asst_sim_research\tresearch-agent\tgpt-4.1\n"_s);
        const Result json = cli({u"--json"_s, u"agents"_s});
        QCOMPARE(jsonLines(json.out).size(), 2);
        QCOMPARE(jsonLines(json.out).first().value(u"name"_s).toString(), u"weather-agent"_s);
    }

    void usageErrors()
    {
        QCOMPARE(cli({u"start"_s, u"--prompt"_s, u"hi"_s}).exitCode, 2); // no --agent
        // Another connector's option is refused (the token command is every connector's, see
        // tst_auth_cli); so is a style that is none of bearer, header:NAME and none.
        const Result openai = RunwatchTest::finishCli(RunwatchTest::launchCli(
            QStringLiteral(RUNWATCH_CLI_PATH),
            {u"--backend"_s, u"openai"_s, u"--url"_s, u"http://127.0.0.1:9/v1"_s, u"--profile"_s,
             u"/tmp/p.json"_s, u"--store"_s, m_dir->filePath(u"x.sqlite"_s), u"list"_s},
            this));
        QCOMPARE(openai.exitCode, 2);
        QVERIFY2(openai.err.contains("--profile is not an option of the openai backend"),
                 openai.err.constData());
        for (const QString &bad :
             {u"api-keys"_s, u"header:"_s, u"header:x api key"_s, u"header:x-key\r\nx: y"_s}) {
            const Result refused = RunwatchTest::finishCli(RunwatchTest::launchCli(
                QStringLiteral(RUNWATCH_CLI_PATH),
                {u"--backend"_s, u"foundry"_s, u"--url"_s, u"http://127.0.0.1:9/api/projects/p"_s,
                 u"--auth"_s, bad, u"--store"_s, m_dir->filePath(u"x.sqlite"_s), u"list"_s},
                this));
            QVERIFY2(refused.exitCode == 2, qPrintable(bad));
            QVERIFY2(refused.err.contains("--auth"), refused.err.constData());
        }
    }

    // The token command instead of a key: its token is used, and it is in no output and no file.
    void tokenCommand()
    {
        const QString tokenFile = m_dir->filePath(u"token.txt"_s);
        const QByteArray secret = "eyJ-secret-from-the-command-4711";
        {
            QFile f(tokenFile);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(secret + '\n');
        }
        m_sim->setToken(QString::fromLatin1(secret));
        const Result r = RunwatchTest::runCli(globals({u"--token-command"_s, u"cat '%1'"_s.arg(tokenFile)})
                                                  + start(u"normal deltas=4"_s, {u"--follow"_s}),
                                              this);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QString::fromUtf8(r.out), FoundrySimulator::tokenText(0, 4) + u'\n');
        QVERIFY(!r.out.contains(secret) && !r.err.contains(secret));
        QVERIFY(m_sim->requests().first().header("authorization").endsWith(secret));
        const QString id
            = jsonLines(cli({u"--json"_s, u"list"_s, u"--all"_s}).out).value(0).value(u"run"_s).toString();
        const Result exported = cli({u"export"_s, id, u"--format"_s, u"json"_s});
        QVERIFY(!exported.out.contains(secret));
        // Nothing the CLI wrote under the store's directory holds the token.
        QFile::remove(tokenFile);
        const QStringList files = QDir(m_dir->path()).entryList(QDir::Files);
        QVERIFY(!files.isEmpty());
        for (const QString &name : files) {
            QFile f(m_dir->filePath(name));
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(!f.readAll().contains(secret), qPrintable(name));
        }
    }

    void failingTokenCommand()
    {
        const Result r = RunwatchTest::finishCli(RunwatchTest::launchCli(
            QStringLiteral(RUNWATCH_CLI_PATH),
            globals({u"--token-command"_s, u"echo 'Please run az login' >&2; exit 3"_s})
                + start(u"normal"_s, {u"--follow"_s}),
            this));
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("token command failed"), r.err.constData());
        QVERIFY2(r.err.contains("az login"), r.err.constData());
        QCOMPARE(m_sim->requestCount(), 0);
    }

    // SIGKILL mid-run, then watch from a new process: the whole text, identical, once.
    void reattachAfterSigkill()
    {
        QProcess *p
            = RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH),
                                      globals() + QStringList{u"--json"_s}
                                          + start(u"normal deltas=150 interval_ms=15"_s, {u"--follow"_s}),
                                      this, {u"RUNWATCH_API_KEY="_s + QString::fromLatin1(kToken)});
        QTRY_VERIFY_WITH_TIMEOUT(
            !m_sim->lastRunId().isEmpty() && m_sim->run(m_sim->lastRunId())->text.size() > 100, 20000);
        ::kill(pid_t(p->processId()), SIGKILL);
        const Result killed = RunwatchTest::finishCli(p, 10000);
        QVERIFY(killed.exitCode != 0);
        const QString id = runIdFrom(killed.out);
        QVERIFY(!id.isEmpty());
        QVERIFY(!m_sim->run(m_sim->lastRunId())->ended);
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(QString::fromUtf8(watched.out), FoundrySimulator::tokenText(0, 150) + u'\n');
        QCOMPARE(m_sim->runsCreated(), 1);
    }
};

QTEST_GUILESS_MAIN(TestFoundryCli)
#include "tst_foundry_cli.moc"
