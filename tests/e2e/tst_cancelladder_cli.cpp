// SPDX-License-Identifier: GPL-3.0-or-later
// `runwatch-cli cancel RUN --stop-watching-after DURATION` (issue 31) against the jobs simulator:
// a job that accepts the cancel and never confirms it ends stopped_watching (exit 1) with what the
// server last said in its timeline; a confirmation that comes later lands with `status`; without
// the option the exit codes are as before.
#include "cliprocess.h"
#include "jobs/jobssim.h"

#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;
using RunwatchSim::JobsEndpoint;
using RunwatchSim::JobsSimulator;
using Result = RunwatchTest::CliResult;
using RunwatchTest::finishCli;
using RunwatchTest::firstOfType;

class TestCancelLadderCli final : public QObject
{
    Q_OBJECT

    JobsSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;

    QStringList globals() const
    {
        return {u"--backend"_s, u"jobs"_s,
                u"--url"_s,     m_sim->baseUrl().toString(),
                u"--store"_s,   m_dir->filePath(u"runs.sqlite"_s)};
    }
    Result cli(const QStringList &args)
    {
        return finishCli(RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), globals() + args, this));
    }
    // Starts a job and returns its run line (the service has it).
    QJsonObject start(const QString &prompt)
    {
        const Result r = cli({u"--json"_s, u"start"_s, u"--prompt"_s, prompt});
        if (r.exitCode != 0)
            qWarning("start: exit %d, %s %s", r.exitCode, r.out.constData(), r.err.constData());
        return firstOfType(r.out, u"run"_s);
    }

private Q_SLOTS:
    void init()
    {
        RunwatchSim::JobsSimConfig config;
        config.intervalMs = 20;
        config.pollRetryAfter = "0.05";
        m_sim = new JobsSimulator(config, this);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    // Never confirmed: stopped watching, exit 1, the server's last word in the run's timeline;
    // the job itself is left as the service has it.
    void neverConfirmed()
    {
        const QJsonObject run = start(u"long cancel_ignore=1"_s);
        const QString id = run.value(u"run"_s).toString();
        const QString remote = run.value(u"remote_id"_s).toString();
        QVERIFY(!id.isEmpty());
        const Result r = cli({u"--json"_s, u"cancel"_s, id, u"--stop-watching-after"_s, u"500ms"_s});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(firstOfType(r.out, u"end"_s).value(u"status"_s).toString(), u"stopped_watching"_s);
        bool noted = false;
        for (const QJsonObject &line : RunwatchTest::jsonLines(r.out)) {
            noted = noted
                    || (line.value(u"type"_s) == u"note"_s
                        && line.value(u"text"_s).toString().contains(
                            u"stopped watching (it last said “running”)"_s));
        }
        QVERIFY2(noted, r.out.right(1500).constData());
        QCOMPARE(m_sim->requestCount(JobsEndpoint::Cancel), 1);
        QCOMPARE(m_sim->job(remote)->status, u"running"_s);
        const Result exported = cli({u"export"_s, id, u"--format"_s, u"json"_s});
        QVERIFY2(exported.out.contains("did not confirm the cancel") && exported.out.contains("“running”")
                     && exported.out.contains("--stop-watching-after 500ms"),
                 exported.out.left(3000).constData());
        // Terminal now: listed among finished runs, not active ones.
        QVERIFY(!cli({u"--json"_s, u"list"_s}).out.contains(id.toUtf8()));
    }

    // Confirmed after the operator stopped watching: `status` brings it in (exit 4, cancelled).
    void lateConfirmationLands()
    {
        const QJsonObject run = start(u"long cancel_delay_ms=2500"_s);
        const QString id = run.value(u"run"_s).toString();
        const QString remote = run.value(u"remote_id"_s).toString();
        QVERIFY(!id.isEmpty());
        QCOMPARE(cli({u"cancel"_s, id, u"--stop-watching-after"_s, u"300ms"_s}).exitCode, 1);
        QTRY_COMPARE_WITH_TIMEOUT(m_sim->job(remote)->status, u"canceled"_s, 20000);
        const Result status = cli({u"--json"_s, u"status"_s, id});
        QCOMPARE(status.exitCode, 4);
        QCOMPARE(firstOfType(status.out, u"run"_s).value(u"status"_s).toString(), u"cancelled"_s);
    }

    // Without the option, or confirmed in time: the documented exit codes; a bad duration is usage.
    void exitCodesAsBefore()
    {
        const QString quick = start(u"long cancel_delay_ms=200"_s).value(u"run"_s).toString();
        QCOMPARE(cli({u"cancel"_s, quick, u"--stop-watching-after"_s, u"20s"_s}).exitCode, 4);
        const QString plain = start(u"long"_s).value(u"run"_s).toString();
        QCOMPARE(cli({u"cancel"_s, plain}).exitCode, 4);
        QCOMPARE(cli({u"cancel"_s, plain, u"--stop-watching-after"_s, u"soon"_s}).exitCode, 2);
        QCOMPARE(cli({u"cancel"_s, plain, u"--stop-watching-after"_s}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCancelLadderCli)
#include "tst_cancelladder_cli.moc"
