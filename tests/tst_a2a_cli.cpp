// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli --backend a2a as a user runs it: real processes against the A2A simulator, one
// store shared between them.
#include "a2asim.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;
using RunwatchSim::A2aSimulator;

namespace {

struct Result
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

} // namespace

class TestA2aCli final : public QObject
{
    Q_OBJECT

    A2aSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;

    QStringList globals() const
    {
        return {u"--backend"_s, u"a2a"_s,
                u"--url"_s,     m_sim->baseUrl().toString(),
                u"--store"_s,   m_dir->filePath(u"runs.sqlite"_s)};
    }

    Result cli(const QStringList &args, int ms = 60000)
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(u"RUNWATCH_API_KEY"_s);
        env.remove(u"OPENAI_API_KEY"_s);
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(RUNWATCH_CLI_PATH), globals() + args);
        Result r;
        // The simulator lives in this thread's event loop: wait with a spy, not waitForFinished.
        QSignalSpy done(&p, &QProcess::finished);
        if (!done.wait(ms)) {
            p.kill();
            p.waitForFinished();
            qWarning("runwatch-cli did not finish in time");
        }
        r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        return r;
    }

    static QString runIdFrom(const QByteArray &jsonLines)
    {
        for (const QByteArray &line : jsonLines.split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            if (o.value(u"type"_s).toString() == u"run")
                return o.value(u"run"_s).toString();
        }
        return {};
    }

private Q_SLOTS:
    void init()
    {
        m_sim = new A2aSimulator(this);
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

    void startFollow()
    {
        const Result r = cli({u"start"_s, u"--prompt"_s, u"normal chunks=15"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out), A2aSimulator::chunkText(15) + u'\n');
        QVERIFY2(r.err.contains("completed"), r.err.constData());
        QCOMPARE(m_sim->tasksCreated(), 1);
    }

    // start --follow stops at the question (exit 5); respond answers it from another process;
    // watch follows the rest.
    void inputRequiredRespond()
    {
        const Result asked = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"input"_s, u"--follow"_s});
        QCOMPARE(asked.exitCode, 5);
        QVERIFY2(asked.out.contains("Which city?"), asked.out.constData());
        const QString id = runIdFrom(asked.out);
        QVERIFY(!id.isEmpty());

        const Result answered = cli({u"respond"_s, id, u"--text"_s, u"Paris"_s});
        // 6: still running (the agent is on it), 0: it already finished.
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        // Snapshots repeat the task's messages; each is shown once.
        QCOMPARE(answered.err.count("[log answer] Paris"), 1);
        QVERIFY(answered.err.count("Which city?") <= 1);

        QTRY_VERIFY_WITH_TIMEOUT(m_sim->task(m_sim->lastTaskId())->ended, 20000);
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        QVERIFY2(watched.err.contains("completed"), watched.err.constData());
        QCOMPARE(m_sim->tasksCreated(), 1);
        // The task finished before `watch` attached: its text comes as a snapshot (GetTask),
        // which the store has (status shows it) but which runwatch-cli does not print yet.
        QEXPECT_FAIL("",
                     "runwatch-cli prints PrimaryDelta events only; an A2A resume starts with a "
                     "PrimarySnapshot (CLI change described in the A2A report)",
                     Continue);
        QCOMPARE(QString::fromUtf8(watched.out).trimmed(), u"Weather in Paris: sunny."_s);
    }

    void cancelFromAnotherProcess()
    {
        const Result started = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"long interval_ms=10"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        const Result cancelled = cli({u"cancel"_s, id});
        QCOMPARE(cancelled.exitCode, 4);
        QVERIFY2(cancelled.err.contains("cancelled"), cancelled.err.constData());
        QCOMPARE(m_sim->task(m_sim->lastTaskId())->state, u"TASK_STATE_CANCELED"_s);
    }

    void deleteIsLocal()
    {
        const Result done
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal chunks=2"_s, u"--follow"_s});
        QCOMPARE(done.exitCode, 0);
        const QString id = runIdFrom(done.out);
        const Result deleted = cli({u"delete"_s, id});
        QCOMPARE(deleted.exitCode, 0);
        QVERIFY2(deleted.out.contains("locally only"), deleted.out.constData());
        QVERIFY(m_sim->task(m_sim->lastTaskId()));
    }

    void missingAgentCard()
    {
        RunwatchSim::A2aSimConfig config;
        config.cardMode = RunwatchSim::A2aSimConfig::CardMode::Missing;
        m_sim->setConfig(config);
        const Result r = cli({u"start"_s, u"--prompt"_s, u"normal"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("No A2A agent card found"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestA2aCli)
#include "tst_a2a_cli.moc"
