// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli --backend jobs as an operator runs it: real processes against the jobs simulator,
// sharing one store. Every suspension type is answered from the command line.
#include "jobssim.h"
#include "testdata.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;
using RunwatchSim::JobsEndpoint;
using RunwatchSim::JobsSimulator;

namespace {

struct Result
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

} // namespace

class TestJobsCli final : public QObject
{
    Q_OBJECT

    JobsSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;
    QStringList m_extraGlobals;

    QStringList globals() const
    {
        return QStringList{u"--backend"_s, u"jobs"_s,
                           u"--url"_s,     m_sim->baseUrl().toString(),
                           u"--store"_s,   m_dir->filePath(u"runs.sqlite"_s)}
               + m_extraGlobals;
    }

    // Starts the CLI without blocking our event loop (the simulator lives in it).
    QProcess *launch(const QStringList &args)
    {
        auto *p = new QProcess(this);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(u"RUNWATCH_API_KEY"_s);
        env.remove(u"OPENAI_API_KEY"_s);
        p->setProcessEnvironment(env);
        p->start(QStringLiteral(RUNWATCH_CLI_PATH), globals() + args);
        return p;
    }

    Result finish(QProcess *p, int ms = 60000)
    {
        Result r;
        if (p->state() != QProcess::NotRunning) {
            QSignalSpy done(p, &QProcess::finished);
            if (!done.wait(ms)) {
                p->kill();
                p->waitForFinished();
                qWarning("runwatch-cli did not finish in time");
            }
        }
        r.exitCode = p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1;
        r.out = p->readAllStandardOutput();
        r.err = p->readAllStandardError();
        p->deleteLater();
        return r;
    }

    Result cli(const QStringList &args) { return finish(launch(args)); }

    static QString runIdFrom(const QByteArray &jsonLines)
    {
        for (const QByteArray &line : jsonLines.split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            if (o.value(u"type"_s).toString() == u"run")
                return o.value(u"run"_s).toString();
        }
        return {};
    }

    // start --follow up to the first suspension: exit 5, and the run id.
    QString startUntilInput(const QString &prompt)
    {
        const Result r = cli({u"--json"_s, u"start"_s, u"--prompt"_s, prompt, u"--follow"_s});
        if (r.exitCode != 5)
            qWarning("start: exit %d, %s %s", r.exitCode, r.out.constData(), r.err.constData());
        return r.exitCode == 5 ? runIdFrom(r.out) : QString();
    }

private Q_SLOTS:
    void init()
    {
        RunwatchSim::JobsSimConfig config;
        config.intervalMs = 2;
        config.pollRetryAfter = "0.05";
        m_sim = new JobsSimulator(config, this);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
        m_extraGlobals.clear();
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    // start --prompt sends the prompt as the job's input; --follow prints the answer.
    void startFollow()
    {
        const Result r = cli({u"start"_s, u"--prompt"_s, u"normal deltas=12"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out), JobsSimulator::tokenText(0, 12) + u'\n');
        QVERIFY2(r.err.contains("completed"), r.err.constData());
        const auto kickoff = m_sim->requests(JobsEndpoint::Kickoff).first();
        QCOMPARE(QJsonDocument::fromJson(kickoff.body).object().value(u"input"_s).toString(),
                 u"normal deltas=12"_s);
        QVERIFY(!kickoff.header("idempotency-key").isEmpty());
    }

    // A polled job: start returns once the job exists; watch from another process finishes it.
    void startThenWatchPolled()
    {
        const Result started
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=10 interval_ms=20 events=0"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        QCOMPARE(QString::fromUtf8(watched.out), JobsSimulator::tokenText(0, 10) + u'\n');
    }

    // Acceptance: each person-answered suspension answered from the CLI.
    void answerFromCli_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<QStringList>("answer");
        QTest::addColumn<QString>("prompt");
        QTest::addColumn<QString>("marker");
        QTest::addColumn<bool>("continues");
        QTest::addRow("text") << u"ask_user"_s << QStringList{u"--text"_s, u"EMEA"_s}
                              << u"Which region should the report cover?"_s << u"[answer: EMEA] "_s << true;
        QTest::addRow("approve") << u"approval"_s << QStringList{u"--approve"_s, u"--comment"_s, u"ok"_s}
                                 << u"Manager approval needed"_s << u"[manager approved: ok] "_s << true;
        QTest::addRow("reject") << u"approval"_s << QStringList{u"--reject"_s, u"--comment"_s, u"no budget"_s}
                                << u"Manager approval needed"_s << u"[manager rejected: no budget] "_s
                                << false;
        QTest::addRow("choice") << u"options"_s << QStringList{u"--choice"_s, u"deep"_s}
                                << u"How thorough should the analysis be?"_s << u"[choice: deep] "_s << true;
    }
    void answerFromCli()
    {
        QFETCH(QString, scenario);
        QFETCH(QStringList, answer);
        QFETCH(QString, prompt);
        QFETCH(QString, marker);
        QFETCH(bool, continues);
        const Result r = cli({u"start"_s, u"--prompt"_s, scenario + u" deltas=4"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 5);
        QVERIFY2(r.err.contains(QByteArray(QByteArray("[input required] ") + prompt.toUtf8())),
                 r.err.constData());
        const QString id = runIdFrom(cli({u"--json"_s, u"list"_s}).out);
        QVERIFY(!id.isEmpty());
        // Another process sees it waiting too.
        QCOMPARE(cli({u"status"_s, id}).exitCode, 5);
        const Result answered = cli(QStringList{u"respond"_s, id} + answer);
        QVERIFY2(answered.exitCode == 6 || answered.exitCode == 0, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        const QString expected = JobsSimulator::tokenText(0, 2) + marker
                                 + (continues ? JobsSimulator::tokenText(2, 4) : QString());
        QCOMPARE(QString::fromUtf8(watched.out), expected + u'\n');
    }

    // Acceptance: two-step approval from the CLI (manager, then director).
    void twoStepApproval()
    {
        const QString id = startUntilInput(u"two_step deltas=4"_s);
        QVERIFY(!id.isEmpty());
        QVERIFY(cli({u"respond"_s, id, u"--approve"_s, u"--comment"_s, u"fine"_s}).exitCode != 1);
        const Result director = cli({u"watch"_s, id});
        QCOMPARE(director.exitCode, 5);
        QVERIFY2(director.err.contains("Director approval needed"), director.err.constData());
        QVERIFY(cli({u"respond"_s, id, u"--approve"_s}).exitCode != 1);
        const Result done = cli({u"watch"_s, id});
        QCOMPARE(done.exitCode, 0);
        QCOMPARE(QString::fromUtf8(done.out), JobsSimulator::tokenText(0, 2)
                                                  + u"[manager approved: fine] [director approved] "_s
                                                  + JobsSimulator::tokenText(2, 4) + u'\n');
    }

    // A wrong answer shape: a clear error, exit 1, the job still waits.
    void wrongAnswer()
    {
        const QString id = startUntilInput(u"options deltas=2"_s);
        QVERIFY(!id.isEmpty());
        const Result r = cli({u"respond"_s, id, u"--choice"_s, u"gigantic"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("400") && r.err.contains("Expected {\"choice\""), r.err.constData());
        QCOMPARE(m_sim->job(m_sim->lastJobId())->status, u"input_required"_s);
    }

    // A timer resumes by itself: start --follow rides it out.
    void timerFollowedThrough()
    {
        const Result r = cli({u"start"_s, u"--prompt"_s, u"timer deltas=4 timer_ms=300"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out), JobsSimulator::tokenText(0, 2) + u"[timer elapsed] "_s
                                               + JobsSimulator::tokenText(2, 4) + u'\n');
    }

    // A webhook: the answer comes from the external system; watch waits for it.
    void webhookWaitsForCallback()
    {
        const Result started = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"webhook deltas=4 events=0"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QTRY_COMPARE_WITH_TIMEOUT(m_sim->job(m_sim->lastJobId())->status, u"input_required"_s, 10000);
        // The operator cannot answer it…
        const Result answered = cli({u"respond"_s, id, u"--text"_s, u"done"_s});
        QCOMPARE(answered.exitCode, 1);
        QVERIFY2(answered.err.contains("webhook"), answered.err.constData());
        // …but watch follows it until the callback arrives.
        QProcess *watch = launch({u"watch"_s, id});
        QTRY_VERIFY_WITH_TIMEOUT(m_sim->requestCount(JobsEndpoint::Status) >= 3, 10000);
        QVERIFY(watch->state() == QProcess::Running);
        QVERIFY(m_sim->fireWebhook(m_sim->lastJobId(), QJsonObject{{u"ok"_s, true}}));
        const Result watched = finish(watch);
        QCOMPARE(watched.exitCode, 0);
        QCOMPARE(QString::fromUtf8(watched.out), JobsSimulator::tokenText(0, 2)
                                                     + u"[callback: {\"ok\":true}] "_s
                                                     + JobsSimulator::tokenText(2, 4) + u'\n');
    }

    // cancel: 200 → cancelled (exit 4), again harmless; a finished job → "already", exit 0.
    void cancel()
    {
        const Result started = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"long interval_ms=20"_s});
        const QString id = runIdFrom(started.out);
        QCOMPARE(cli({u"cancel"_s, id}).exitCode, 4);
        QCOMPARE(cli({u"cancel"_s, id}).exitCode, 4);
        QCOMPARE(m_sim->job(m_sim->lastJobId())->status, u"canceled"_s);

        // 202: cancelling until the job stops.
        const QString slow = runIdFrom(
            cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"long interval_ms=20 cancel_delay_ms=300"_s}).out);
        const Result deferred = cli({u"cancel"_s, slow});
        QCOMPARE(deferred.exitCode, 4);
        QVERIFY2(deferred.err.contains("cancellation requested"), deferred.err.constData());

        // 409: the job finished while nobody watched; the store still says running.
        const QString quick = runIdFrom(
            cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=3 interval_ms=200"_s}).out);
        QTRY_COMPARE_WITH_TIMEOUT(m_sim->job(m_sim->lastJobId())->status, u"succeeded"_s, 10000);
        const Result conflict = cli({u"cancel"_s, quick});
        QCOMPARE(conflict.exitCode, 0);
        QVERIFY2(conflict.err.contains("already succeeded; nothing changed"), conflict.err.constData());
        QCOMPARE(m_sim->requests(JobsEndpoint::Cancel).last().status, 409);
    }

    // failed: exit 3, the error and whether it is retryable on stderr.
    void failedJob()
    {
        const Result r = cli({u"start"_s, u"--prompt"_s, u"fail deltas=4 fail_after=1"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("upstream_error") && r.err.contains("(retryable)"), r.err.constData());
    }

    // --profile drives a differently shaped service from the command line.
    void profileFromCommandLine()
    {
        RunwatchSim::JobsSimConfig config;
        config.intervalMs = 2;
        config.shape = RunwatchSim::JobsShape::Alternate;
        m_sim->setConfig(config);
        m_extraGlobals = {u"--profile"_s, RunwatchTest::dataPath(u"jobs/alternate-profile.json"_s)};
        const QString id = startUntilInput(u"ask_user deltas=2"_s);
        QVERIFY(!id.isEmpty());
        QVERIFY(cli({u"respond"_s, id, u"--text"_s, u"EMEA"_s}).exitCode != 1);
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        QCOMPARE(QString::fromUtf8(watched.out), JobsSimulator::tokenText(0, 1) + u"[answer: EMEA] "_s
                                                     + JobsSimulator::tokenText(1, 2) + u'\n');
        QCOMPARE(m_sim->requests(JobsEndpoint::Kickoff).first().path, u"/api/v2/tasks"_s);
        // A broken profile is a clear error before anything is sent.
        m_extraGlobals = {u"--profile"_s, u"/nonexistent/profile.json"_s};
        const Result broken = cli({u"start"_s, u"--prompt"_s, u"normal"_s, u"--follow"_s});
        QCOMPARE(broken.exitCode, 1);
        QVERIFY2(broken.err.contains("/nonexistent/profile.json"), broken.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestJobsCli)
#include "tst_jobs_cli.moc"
