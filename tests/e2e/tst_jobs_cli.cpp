// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli --backend jobs as an operator runs it: real processes against the jobs simulator,
// sharing one store. Every suspension type is answered from the command line.
#include "cliprocess.h"
#include "jobs/jobssim.h"
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
using Result = RunwatchTest::CliResult;
using RunwatchTest::finishCli;
using RunwatchTest::runIdFrom;

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
        return RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), globals() + args, this);
    }

    Result cli(const QStringList &args) { return finishCli(launch(args)); }

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
        const Result watched = finishCli(watch);
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
        // Only a running job takes time to stop; a queued one is cancelled at once (200).
        QTRY_COMPARE_WITH_TIMEOUT(m_sim->job(m_sim->lastJobId())->status, u"running"_s, 10000);
        const Result deferred = cli({u"cancel"_s, slow});
        QCOMPARE(deferred.exitCode, 4);
        QVERIFY2(deferred.err.contains("cancellation requested"), deferred.err.constData());
        QCOMPARE(m_sim->requests(JobsEndpoint::Cancel).last().status, 202);

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

    // The profile's cancel path and method from the command line: POST …/abort.
    void profileCancelFromCommandLine()
    {
        RunwatchSim::JobsSimConfig config;
        config.intervalMs = 2;
        config.shape = RunwatchSim::JobsShape::Alternate;
        m_sim->setConfig(config);
        m_extraGlobals = {u"--profile"_s, RunwatchTest::dataPath(u"jobs/alternate-profile.json"_s)};
        const QString id
            = runIdFrom(cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"long interval_ms=20"_s}).out);
        QVERIFY(!id.isEmpty());
        const Result cancelled = cli({u"--json"_s, u"cancel"_s, id});
        QCOMPARE(cancelled.exitCode, 4);
        QVERIFY2(cancelled.out.contains("\"raw\":\"ABORTED\""), cancelled.out.constData());
        const auto cancels = m_sim->requests(JobsEndpoint::Cancel);
        QCOMPARE(cancels.size(), 1);
        QCOMPARE(cancels.first().method, QByteArray("POST"));
        QCOMPARE(cancels.first().path, u"/api/v2/tasks/"_s + m_sim->lastJobId() + u"/abort"_s);
        QCOMPARE(m_sim->job(m_sim->lastJobId())->status, u"canceled"_s);
        // --profile belongs to the jobs backend only.
        m_extraGlobals = {u"--backend"_s, u"openai"_s};
        QCOMPARE(cli({u"--profile"_s, RunwatchTest::dataPath(u"jobs/alternate-profile.json"_s), u"list"_s})
                     .exitCode,
                 2);
    }

    // Acceptance: a kickoff whose first two attempts get 503 creates exactly one job; every
    // attempt carries the same Idempotency-Key and body, and waits out Retry-After.
    void kickoffRetriedWithSameKey()
    {
        m_sim->addHttpFault(
            *RunwatchSim::jobsHttpFaultFromSpec(u"status=503,count=2,on=kickoff,retry-after=0.3"_s));
        const Result r = cli({u"start"_s, u"--prompt"_s, u"normal deltas=5"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out), JobsSimulator::tokenText(0, 5) + u'\n');
        const auto kickoffs = m_sim->requests(JobsEndpoint::Kickoff);
        QCOMPARE(kickoffs.size(), 3);
        QCOMPARE(kickoffs[0].status, 503);
        QCOMPARE(kickoffs[1].status, 503);
        QCOMPARE(kickoffs[2].status, 202);
        for (const auto &k : kickoffs) {
            QCOMPARE(k.header("idempotency-key"), kickoffs[0].header("idempotency-key"));
            QCOMPARE(k.header("prefer"), QByteArray("respond-async"));
            QCOMPARE(k.body, kickoffs[0].body);
        }
        for (int i = 1; i < 3; ++i) {
            QVERIFY2(kickoffs[i].receivedMs - kickoffs[i - 1].answeredMs >= 300,
                     qPrintable(u"gap %1 ms"_s.arg(kickoffs[i].receivedMs - kickoffs[i - 1].answeredMs)));
        }
        QCOMPARE(m_sim->jobsCreated(), 1);
    }

    // No kickoff reply ever arrives: the job is found again in the listing by its key.
    void lostKickoffRediscovered()
    {
        m_sim->addHttpFault(*RunwatchSim::jobsHttpFaultFromSpec(u"status=0,count=-1,on=kickoff"_s));
        const Result r = cli({u"start"_s, u"--prompt"_s, u"normal deltas=5"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out), JobsSimulator::tokenText(0, 5) + u'\n');
        QCOMPARE(m_sim->jobsCreated(), 1);
        const QByteArray key = m_sim->requests(JobsEndpoint::Kickoff).first().header("idempotency-key");
        const auto lists = m_sim->requests(JobsEndpoint::List);
        QVERIFY(!lists.isEmpty());
        QVERIFY2(lists.first().query.contains(u"idempotency_key="_s + QString::fromLatin1(key)),
                 qPrintable(lists.first().query));
    }

    // A synchronous 200/201 is a finished run: nothing is polled or streamed.
    void synchronousReply()
    {
        const Result r = cli({u"start"_s, u"--prompt"_s, u"quick deltas=3 sync_status=201"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out), JobsSimulator::tokenText(0, 3) + u'\n');
        QCOMPARE(m_sim->requests(JobsEndpoint::Kickoff).first().status, 201);
        QCOMPARE(m_sim->requestCount(JobsEndpoint::Status), 0);
        QCOMPARE(m_sim->requestCount(JobsEndpoint::Events), 0);
    }

    // Acceptance: the CLI polls no sooner than Retry-After (seconds or an HTTP date) and never
    // has two status requests in flight. Measured on the server's clock.
    void pollingHonoursRetryAfter_data()
    {
        QTest::addColumn<QString>("retryAfter");
        QTest::addRow("seconds") << u"1.5"_s;
        QTest::addRow("http date") << u"date:2"_s;
    }
    void pollingHonoursRetryAfter()
    {
        QFETCH(QString, retryAfter);
        const Result r = cli({u"start"_s, u"--prompt"_s,
                              u"normal deltas=8 interval_ms=400 events=0 retry_after=%1"_s.arg(retryAfter),
                              u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out), JobsSimulator::tokenText(0, 8) + u'\n');
        const auto polls = m_sim->requests(JobsEndpoint::Status);
        QVERIFY2(polls.size() >= 2, qPrintable(QString::number(polls.size())));
        const bool date = retryAfter.startsWith(u"date:"_s);
        const qint64 minimumMs = date ? 0 : qint64(retryAfter.toDouble() * 1000.0);
        auto previous = m_sim->requests(JobsEndpoint::Kickoff).first();
        for (const auto &poll : polls) {
            QVERIFY(previous.answeredMs >= 0);
            QVERIFY2(poll.receivedMs >= previous.answeredMs, "two status requests in flight");
            if (date) {
                QVERIFY(previous.retryAfterUntilEpochMs > 0);
                QVERIFY2(
                    poll.receivedEpochMs >= previous.retryAfterUntilEpochMs,
                    qPrintable(u"%1 ms early"_s.arg(previous.retryAfterUntilEpochMs - poll.receivedEpochMs)));
            } else {
                QVERIFY2(poll.receivedMs - previous.answeredMs >= minimumMs,
                         qPrintable(u"gap %1 ms"_s.arg(poll.receivedMs - previous.answeredMs)));
            }
            previous = poll;
        }
    }

    // Acceptance: `start --follow` whose event stream drops after every possible number of
    // events resumes with Last-Event-ID and prints exactly the undisturbed output.
    void sseResumeAtEveryEventBoundary()
    {
        const QString prompt = u"normal deltas=6"_s;
        const Result baseline = cli({u"start"_s, u"--prompt"_s, prompt, u"--follow"_s});
        QCOMPARE(baseline.exitCode, 0);
        QCOMPARE(QString::fromUtf8(baseline.out), JobsSimulator::tokenText(0, 6) + u'\n');
        const qint64 events = m_sim->job(m_sim->lastJobId())->eventCount;
        QVERIFY(events > 8);
        for (qint64 k = 1; k < events; ++k) {
            const QString mode = k % 3 == 0 ? u"reset"_s : u"close"_s;
            m_sim->resetCounters();
            const Result r
                = cli({u"start"_s, u"--prompt"_s,
                       prompt + u" drop_after=%1 drop_mode=%2 fault_connections=1"_s.arg(k).arg(mode),
                       u"--follow"_s});
            const QString where = u"%1 after %2"_s.arg(mode).arg(k);
            QVERIFY2(r.exitCode == 0, qPrintable(where + u": "_s + QString::fromUtf8(r.err)));
            QVERIFY2(r.out == baseline.out, qPrintable(where + u": "_s + QString::fromUtf8(r.out)));
            // The client's reconnect names the last event it had. (Within a few ms of the drop a
            // second copy of the first request, without Last-Event-ID, may also arrive: the
            // network layer re-sending it on its own. Its replayed overlap is dropped by event
            // id, as the identical output above shows.)
            const auto streams = m_sim->requests(JobsEndpoint::Events);
            QVERIFY2(streams.size() >= 2, qPrintable(where));
            QVERIFY(streams[0].header("last-event-id").isEmpty());
            QList<qint64> resumedAt;
            for (qsizetype i = 1; i < streams.size(); ++i) {
                if (!streams[i].header("last-event-id").isEmpty())
                    resumedAt << streams[i].header("last-event-id").toLongLong();
            }
            // A reset may discard what was in flight: the client resumes from what it really got.
            const bool named = mode == u"reset" ? (resumedAt.isEmpty() || resumedAt.last() <= k)
                                                : resumedAt == QList<qint64>{k};
            QVERIFY2(named, qPrintable(where + u": resumed with Last-Event-ID "_s
                                       + QString::number(resumedAt.isEmpty() ? -1 : resumedAt.last())));
        }
    }

    // A run left by one process is resumed by another: the stored text, then the rest of the
    // stream after Last-Event-ID; every byte printed once.
    void watchResumesAfterLastEventId()
    {
        const Result started
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=30 interval_ms=30"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        QCOMPARE(QString::fromUtf8(watched.out), JobsSimulator::tokenText(0, 30) + u'\n');
        const auto streams = m_sim->requests(JobsEndpoint::Events);
        QCOMPARE(streams.size(), 2);
        QVERIFY(streams[1].header("last-event-id").toLongLong() >= 1);
    }

    // Large results come from …/result, streamed or polled.
    void largeResult_data()
    {
        QTest::addColumn<bool>("events");
        QTest::addRow("streamed") << true;
        QTest::addRow("polled") << false;
    }
    void largeResult()
    {
        QFETCH(bool, events);
        const Result r
            = cli({u"start"_s, u"--prompt"_s,
                   u"large deltas=4 large_bytes=1500000 events=%1"_s.arg(events ? 1 : 0), u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        const QString result = m_sim->job(m_sim->lastJobId())->result;
        QCOMPARE(result.size(), 1500000);
        QCOMPARE(r.out.size(), 1500001);
        QVERIFY(QString::fromUtf8(r.out) == result + u'\n');
        QCOMPARE(m_sim->requestCount(JobsEndpoint::Result), 1);
    }

    // The stuck rule from the command line: `stuck-rule` sets it in the store, `list --stuck`
    // lists the silent job ("stuck" where the status would be), `status --json` says since when
    // and what was expected; the job's end takes it off.
    void stuckRunListedAndReported()
    {
        const Result rule = cli({u"--json"_s, u"stuck-rule"_s, u"--factor"_s, u"2"_s, u"--floor"_s, u"0"_s});
        QCOMPARE(rule.exitCode, 0);
        const QJsonObject ruleJson = QJsonDocument::fromJson(rule.out).object();
        QCOMPARE(ruleJson.value(u"factor"_s).toDouble(), 2.0);
        QCOMPARE(ruleJson.value(u"floor_seconds"_s).toDouble(), 0.0);
        QVERIFY(cli({u"stuck-rule"_s, u"--factor"_s, u"0.5"_s}).exitCode != 0); // stuck before it is due

        // An estimate of about a second, then a minute without a word.
        const Result started
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"unknown deltas=1 unknown_ms=60000"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        QByteArray listed;
        QTRY_VERIFY_WITH_TIMEOUT((listed = cli({u"list"_s, u"--stuck"_s}).out).contains(id.toUtf8()), 30000);
        QVERIFY2(listed.contains("  stuck "), listed.constData());

        // `status` refreshes first: a status it learns only now (the job's "unknown") is progress,
        // so the silence may start again from there.
        QByteArray status;
        const auto runLine = [](const QByteArray &out) {
            for (const QByteArray &line : out.split('\n')) {
                const QJsonObject o = QJsonDocument::fromJson(line).object();
                if (o.value(u"type"_s) == u"run"_s)
                    return o;
            }
            return QJsonObject();
        };
        QTRY_VERIFY_WITH_TIMEOUT(
            runLine(status = cli({u"--json"_s, u"status"_s, id}).out).value(u"stuck"_s).toBool(), 30000);
        const QJsonObject s = runLine(status);
        QVERIFY(QDateTime::fromString(s.value(u"stuck_since"_s).toString(), Qt::ISODateWithMs).isValid());
        QVERIFY2(s.value(u"expected_seconds"_s).toDouble() > 0, status.constData());
        QCOMPARE(s.value(u"status"_s).toString(), u"unknown"_s); // the status itself is unchanged
        const Result text = cli({u"status"_s, id});
        QVERIFY2(text.out.contains("stuck: no progress since"), text.out.constData());

        // A run that is not stuck says so in JSON; a finished one leaves `list --stuck`.
        QCOMPARE(cli({u"stuck-rule"_s, u"--factor"_s, u"1000"_s, u"--floor"_s, u"7d"_s}).exitCode, 0);
        QCOMPARE(runLine(cli({u"--json"_s, u"list"_s}).out).value(u"stuck"_s), QJsonValue(false));
        QCOMPARE(cli({u"stuck-rule"_s, u"--factor"_s, u"2"_s, u"--floor"_s, u"0"_s}).exitCode, 0);
        QCOMPARE(cli({u"cancel"_s, id}).exitCode, 4);
        QVERIFY(!cli({u"list"_s, u"--stuck"_s, u"--all"_s}).out.contains(id.toUtf8()));
    }

    // timed_out names the job's timeout; an unknown status is shown with its raw label.
    void timedOutAndUnknown()
    {
        const Result timedOut = cli({u"start"_s, u"--prompt"_s,
                                     u"timeout deltas=2 timeout_ms=150 timeout_seconds=42"_s, u"--follow"_s});
        QCOMPARE(timedOut.exitCode, 3);
        QVERIFY2(timedOut.err.contains("timeout of 42 s"), timedOut.err.constData());

        const Result unknown = cli(
            {u"--json"_s, u"start"_s, u"--prompt"_s, u"unknown deltas=3 unknown_ms=400"_s, u"--follow"_s});
        QCOMPARE(unknown.exitCode, 0);
        bool sawUnknown = false;
        for (const QByteArray &line : unknown.out.split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            sawUnknown = sawUnknown
                         || (o.value(u"type"_s) == u"status"_s && o.value(u"status"_s) == u"unknown"_s
                             && o.value(u"raw"_s) == u"paused_by_admin"_s);
        }
        QVERIFY2(sawUnknown, unknown.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestJobsCli)
#include "tst_jobs_cli.moc"
