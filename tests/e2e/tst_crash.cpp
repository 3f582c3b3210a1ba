// SPDX-License-Identifier: GPL-3.0-or-later
// "Never lose a run": runwatch-cli processes following 20 streaming runs are killed with SIGKILL
// at random moments and restarted; every run must finish with exactly the text the server sent.
#include "cliprocess.h"
#include "openai/openaisim.h"
#include "store/runstore.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::CliResult;
using RunwatchTest::finishCli;
using RunwatchTest::runIdFrom;

namespace {
constexpr int kProcessWait = 120000;
} // namespace

class TestCrash final : public QObject
{
    Q_OBJECT

    RunwatchSim::OpenAiSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;

    QStringList globals() const
    {
        return {u"--backend"_s, u"openai"_s,
                u"--url"_s,     m_sim->baseUrl().toString(),
                u"--store"_s,   m_dir->filePath(u"runs.sqlite"_s)};
    }

    QProcess *launch(const QStringList &args)
    {
        return RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), globals() + args, this);
    }

    void killHard(QProcess *p, int afterMs)
    {
        QTest::qWait(afterMs);
        if (p->state() == QProcess::Running)
            ::kill(pid_t(p->processId()), SIGKILL);
        QSignalSpy done(p, &QProcess::finished);
        if (p->state() != QProcess::NotRunning)
            done.wait(10000);
        p->deleteLater();
    }

private Q_SLOTS:
    void init()
    {
        m_sim = new RunwatchSim::OpenAiSimulator(this);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    // 20 runs, the following process killed at several random points, then restarted.
    void twentyRunsSurviveSigkill_data()
    {
        QTest::addColumn<QList<int>>("killPointsMs");
        QTest::addRow("one early kill") << QList<int>{150};
        QTest::addRow("one late kill") << QList<int>{1200};
        QTest::addRow("three kills") << QList<int>{300, 500, 800};
    }
    void twentyRunsSurviveSigkill()
    {
        QFETCH(QList<int>, killPointsMs);
        constexpr int kRuns = 20;
        constexpr int kDeltas = 120;
        const quint32 seed = QRandomGenerator::global()->generate();
        qInfo("jitter seed %u", seed);
        QRandomGenerator rng(seed);

        QStringList ids;
        for (int i = 0; i < kRuns; ++i) {
            const CliResult started = finishCli(launch({u"--json"_s, u"start"_s, u"--prompt"_s,
                                                        u"normal deltas=%1 interval_ms=20"_s.arg(kDeltas)}),
                                                kProcessWait);
            QCOMPARE(started.exitCode, 0);
            ids << runIdFrom(started.out);
            QVERIFY(!ids.last().isEmpty());
        }
        for (int point : killPointsMs) {
            QProcess *follower = launch({u"resume"_s});
            killHard(follower, point + int(rng.bounded(200)));
        }
        // The final restart follows every run to its end.
        QCOMPARE(finishCli(launch({u"resume"_s}), kProcessWait).exitCode, 0);

        RunStore store;
        QVERIFY(store.open(m_dir->filePath(u"runs.sqlite"_s)));
        const QList<Run> runs = store.loadRuns();
        QCOMPARE(runs.size(), kRuns);
        for (const Run &run : runs) {
            QVERIFY(ids.contains(run.localId));
            QCOMPARE(run.status, RunStatus::Completed);
            const auto server = m_sim->response(run.remoteId);
            QVERIFY(server);
            QCOMPARE(run.primaryText, server->text);
            QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(kDeltas));
            QCOMPARE(run.reconciliations, 0);
        }
    }

    // `watch` killed mid-stream; a new `watch` prints the whole answer exactly once.
    void watchContinuesAfterKill()
    {
        const CliResult started = finishCli(
            launch({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=150 interval_ms=10"_s}),
            kProcessWait);
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        QProcess *first = launch({u"watch"_s, id});
        // Killed once it has printed a word of the answer (a fixed wait printed nothing yet on a
        // loaded machine: an ASan process's start alone can take longer).
        QByteArray partial;
        QTRY_VERIFY_WITH_TIMEOUT((partial += first->readAllStandardOutput()).contains(' '), 30000);
        killHard(first, 0);
        const CliResult watched = finishCli(launch({u"watch"_s, id}), kProcessWait);
        QCOMPARE(watched.exitCode, 0);
        const QByteArray full = watched.out;
        QCOMPARE(QString::fromUtf8(full), RunwatchSim::OpenAiSimulator::tokenText(150) + u'\n');
        QVERIFY(!partial.isEmpty());
        QVERIFY(full.startsWith(partial.left(partial.lastIndexOf(' ') + 1)));
    }
};

QTEST_GUILESS_MAIN(TestCrash)
#include "tst_crash.moc"
