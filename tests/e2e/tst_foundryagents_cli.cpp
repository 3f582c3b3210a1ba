// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli on a Foundry project's agents (issue 26) as a script runs it: real processes against
// the OpenAI simulator's Foundry project, one store shared between them. `watch` killed with
// SIGKILL in the middle of an agent run and started again prints the simulator's whole text once,
// from the same response in the same conversation; --token-command on the project endpoint runs
// at start and once more after a 401, and no token reaches the CLI's output.
#include "cliprocess.h"
#include "openai/openaisim.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <functional>

using namespace Qt::StringLiterals;
using RunwatchSim::OpenAiEndpoint;
using RunwatchSim::OpenAiSimulator;
using Result = RunwatchTest::CliResult;
using RunwatchTest::runIdFrom;

namespace {

constexpr int kProcessWait = 120000;

// Turns the event loop (the simulator lives in it) until `done` holds or `ms` have passed.
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

class TestFoundryAgentsCli final : public QObject
{
    Q_OBJECT

    OpenAiSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;

    // The contract's form: --backend openai on the project's /openai/v1 base.
    QStringList globals() const
    {
        return {u"--backend"_s, u"openai"_s,
                u"--url"_s,     m_sim->foundryBaseUrl().toString(),
                u"--store"_s,   m_dir->filePath(u"runs.sqlite"_s)};
    }
    Result cli(const QStringList &args, int ms = kProcessWait)
    {
        return RunwatchTest::runCli(globals() + args, this, {}, ms);
    }
    QProcess *launch(const QStringList &args)
    {
        return RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), globals() + args, this);
    }
    int creates() const { return m_sim->requestCount(OpenAiEndpoint::Create); }

private Q_SLOTS:
    void init()
    {
        m_sim = new OpenAiSimulator(this);
        m_sim->setIntervalMs(2);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    // An agent run started without --follow; `watch` is killed with SIGKILL after part of the
    // text; the next `watch` prints the simulator's whole text once, resuming the same response's
    // stream after the events the store kept (never a second create, nor a second conversation).
    void watchSurvivesSigkill()
    {
        const Result started = cli({u"--json"_s, u"start"_s, u"--prompt"_s,
                                    u"normal deltas=300 interval_ms=10"_s, u"--agent"_s, u"researcher"_s});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        QCOMPARE(creates(), 1);
        QCOMPARE(m_sim->conversationIds().size(), 1);
        const QString responseId = m_sim->lastResponseId();
        QCOMPARE(m_sim->response(responseId)->agentName, u"researcher"_s);

        QProcess *first = launch({u"watch"_s, id});
        QByteArray partial;
        QVERIFY(waitUntil([&] {
            partial += first->readAllStandardOutput();
            // Long enough for the store to have kept some of it (it writes every 200 ms).
            return partial.count(' ') >= 100;
        }));
        ::kill(pid_t(first->processId()), SIGKILL);
        QSignalSpy done(first, &QProcess::finished);
        QVERIFY(first->state() == QProcess::NotRunning || done.wait(10000));
        first->deleteLater();
        // Killed mid-run: the response was still going.
        QVERIFY(!m_sim->response(responseId)->ended);
        const int streamsBefore = m_sim->requestCount(OpenAiEndpoint::Stream);
        const qsizetype resumesBefore = m_sim->startingAfterValues().size();
        const int retrievesBefore = m_sim->requestCount(OpenAiEndpoint::Retrieve);

        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        const QString expected = m_sim->response(responseId)->text;
        QCOMPARE(expected, OpenAiSimulator::tokenText(300));
        QCOMPARE(QString::fromUtf8(watched.out), expected + u'\n');
        QVERIFY(expected.toUtf8().startsWith(partial.left(partial.lastIndexOf(' ') + 1)));
        QVERIFY(m_sim->requestCount(OpenAiEndpoint::Stream) > streamsBefore); // read from the service again
        // Resumed after what the store held (starting_after), and the text needed no repair from
        // the response object (a GET without stream): nothing was lost or doubled on the way.
        QVERIFY(m_sim->startingAfterValues().size() > resumesBefore);
        QVERIFY2(m_sim->startingAfterValues().at(resumesBefore) > 20,
                 qPrintable(QString::number(m_sim->startingAfterValues().at(resumesBefore))));
        QCOMPARE(m_sim->requestCount(OpenAiEndpoint::Retrieve), retrievesBefore);
        QCOMPARE(creates(), 1);
        QCOMPARE(m_sim->responseIds(), QStringList{responseId});
        QCOMPARE(m_sim->conversationIds().size(), 1);
    }

    // --token-command on the project endpoint: the service takes only the second token, so the
    // first (printed at start) is refused once, the command runs once more and the request goes
    // again; the rest of the run carries the second. No token in what the CLI printed.
    void tokenCommandOnTheProject()
    {
        m_sim->setApiKey(u"tok-entra-fresh-2"_s);
        const QString tokens = m_dir->filePath(u"tokens"_s);
        {
            QFile f(tokens);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("tok-entra-stale-1\ntok-entra-fresh-2\n");
        }
        const QString count = m_dir->filePath(u"count"_s);
        // The n-th run of the command prints the n-th token.
        const QString command
            = u"printf x >> '%1'; n=$(wc -c < '%1'); sed -n \"${n}p\" '%2'"_s.arg(count, tokens);
        const Result r = cli({u"--token-command"_s, command, u"start"_s, u"--prompt"_s, u"normal deltas=7"_s,
                              u"--agent"_s, u"writer:1"_s, u"--follow"_s});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QString::fromUtf8(r.out), m_sim->response(m_sim->lastResponseId())->text + u'\n');

        QFile ran(count);
        QVERIFY(ran.open(QIODevice::ReadOnly));
        QCOMPARE(ran.readAll(), QByteArray("xx"));
        const QList<RunwatchSim::OpenAiRequestRecord> seen = m_sim->requests();
        QVERIFY(seen.size() >= 3);
        QCOMPARE(seen.first().status, 401);
        QCOMPARE(seen.first().header("authorization"), QByteArray("Bearer tok-entra-stale-1"));
        QCOMPARE(seen.at(1).path, seen.first().path); // the refused request, sent again
        for (qsizetype i = 1; i < seen.size(); ++i) {
            QVERIFY2(seen.at(i).header("authorization") == "Bearer tok-entra-fresh-2",
                     qPrintable(seen.at(i).path));
            QVERIFY(seen.at(i).status != 401);
        }
        QCOMPARE(creates(), 1);
        QVERIFY(!r.out.contains("tok-entra") && !r.err.contains("tok-entra"));
    }
};

QTEST_GUILESS_MAIN(TestFoundryAgentsCli)
#include "tst_foundryagents_cli.moc"
