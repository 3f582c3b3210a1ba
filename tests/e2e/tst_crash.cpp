// SPDX-License-Identifier: GPL-3.0-or-later
// "Never lose a run": runwatch-cli processes following 20 streaming runs are killed with SIGKILL
// at random moments and restarted; every run must finish with exactly the text the server sent.
#include "engine/runstore.h"
#include "openai/openaisim.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace Runwatch;
using namespace Qt::StringLiterals;

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
        auto *p = new QProcess(this);
        p->start(QStringLiteral(RUNWATCH_CLI_PATH), globals() + args);
        return p;
    }

    // Waits (with our event loop running, so the simulator keeps serving) for the process.
    int finish(QProcess *p, QByteArray *out = nullptr, int ms = 120000)
    {
        if (p->state() != QProcess::NotRunning) {
            QSignalSpy done(p, &QProcess::finished);
            if (!done.wait(ms)) {
                p->kill();
                p->waitForFinished();
                return -1;
            }
        }
        if (out)
            *out = p->readAllStandardOutput();
        const int code = p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -2;
        p->deleteLater();
        return code;
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
            QByteArray out;
            const int code = finish(launch({u"--json"_s, u"start"_s, u"--prompt"_s,
                                            u"normal deltas=%1 interval_ms=20"_s.arg(kDeltas)}),
                                    &out);
            QCOMPARE(code, 0);
            const qsizetype at = out.indexOf("\"run\":\"");
            QVERIFY(at >= 0);
            ids << QString::fromUtf8(out.mid(at + 7, out.indexOf('"', at + 7) - at - 7));
        }
        for (int point : killPointsMs) {
            QProcess *follower = launch({u"resume"_s});
            killHard(follower, point + int(rng.bounded(200)));
        }
        // The final restart follows every run to its end.
        QCOMPARE(finish(launch({u"resume"_s})), 0);

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
        QByteArray out;
        QCOMPARE(
            finish(launch({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=150 interval_ms=10"_s}),
                   &out),
            0);
        const qsizetype at = out.indexOf("\"run\":\"");
        const QString id = QString::fromUtf8(out.mid(at + 7, out.indexOf('"', at + 7) - at - 7));
        QProcess *first = launch({u"watch"_s, id});
        QTest::qWait(600);
        const QByteArray partial = first->readAllStandardOutput();
        killHard(first, 0);
        QByteArray full;
        QCOMPARE(finish(launch({u"watch"_s, id}), &full), 0);
        QCOMPARE(QString::fromUtf8(full), RunwatchSim::OpenAiSimulator::tokenText(150) + u'\n');
        QVERIFY(!partial.isEmpty());
        QVERIFY(full.startsWith(partial.left(partial.lastIndexOf(' ') + 1)));
    }
};

QTEST_GUILESS_MAIN(TestCrash)
#include "tst_crash.moc"
