// SPDX-License-Identifier: GPL-3.0-or-later
// The jobs connector and the engine against the jobs simulator over loopback: kickoff with an
// Idempotency-Key (retries, lost replies, rediscovery), polling paced by Retry-After, SSE resume
// with Last-Event-ID after drops at every event boundary, cancel 202/200/409, every suspension
// type answered through the engine (the GUI's path), multi-step approval, and a connection
// profile driving a differently shaped server.
#include "backends/jobs/jobsbackend.h"
#include "enginerig.h"
#include "jobs/jobssim.h"
#include "testdata.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QUuid>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchSim::JobsEndpoint;
using RunwatchSim::JobsSimulator;
using RunwatchTest::cancelAndWait;
using RunwatchTest::respondAndWait;
using RunwatchTest::waitInput;
using RunwatchTest::waitTerminal;

namespace {

constexpr int kWait = RunwatchTest::kEngineWait;

RunwatchSim::JobsSimConfig fastConfig()
{
    RunwatchSim::JobsSimConfig c;
    c.intervalMs = 1;
    c.pollRetryAfter = "0.02";
    return c;
}

struct Rig : RunwatchTest::ServerRig<JobsSimulator>
{
    explicit Rig(const RunwatchSim::JobsSimConfig &config = fastConfig(), const QJsonObject &options = {})
        : ServerRig(config)
    {
        QVERIFY(sim.listen());
        addConnection(connection(options));
    }

    Connection connection(const QJsonObject &options = {}) const
    {
        return RunwatchTest::plainConnection(u"jobs"_s, u"jobs"_s, sim.baseUrl(), options);
    }

    JobsBackend *backend() { return qobject_cast<JobsBackend *>(manager.backend(u"jobs"_s)); }
};

InputAnswer textAnswer(const QString &text)
{
    InputAnswer a;
    a.kind = InputAnswer::Kind::Text;
    a.text = text;
    return a;
}

InputAnswer approval(bool approve, const QString &comment = {})
{
    InputAnswer a;
    a.kind = approve ? InputAnswer::Kind::Approve : InputAnswer::Kind::Reject;
    a.comment = comment;
    return a;
}

InputAnswer choice(const QString &c)
{
    InputAnswer a;
    a.kind = InputAnswer::Kind::Choice;
    a.choice = c;
    return a;
}

// What an operator sees of a run, for "identical output" comparisons: the answer and every
// secondary item but the status-change log (whose timing differs from run to run).
QStringList visibleOutput(const Run &run)
{
    QStringList out{run.primaryText.toString(), statusName(run.status)};
    for (const SecondaryItem &item : run.secondary) {
        if (item.kind != SecondaryKind::StatusChange)
            out << secondaryKindName(item.kind) + u'|' + item.title + u'|' + item.text;
    }
    return out;
}

QJsonObject alternateProfile()
{
    return QJsonDocument::fromJson(RunwatchTest::readData(u"jobs/alternate-profile.json"_s)).object();
}

} // namespace

class TestJobsEndToEnd final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // A streamed job: the kickoff carries the key, Prefer and the prompt as input; output arrives
    // complete over SSE with numeric ids as the run's cursor; nothing is polled.
    void streamedRun()
    {
        Rig rig;
        const QString id = rig.start(u"normal deltas=20"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.rawStatus, u"succeeded"_s);
        QCOMPARE(run.primaryText, JobsSimulator::tokenText(0, 20));
        QCOMPARE(run.reconciliations, 0);
        QCOMPARE(run.remoteId, rig.sim.lastJobId());
        QVERIFY(run.token.streamable);
        const qint64 events = rig.sim.job(run.remoteId)->eventCount;
        QCOMPARE(run.token.eventId, QString::number(events));
        QCOMPARE(run.token.sequence, events);
        QCOMPARE(rig.sim.requestCount(JobsEndpoint::Status), 0);
        QCOMPARE(rig.sim.jobsCreated(), 1);

        const auto kickoff = rig.sim.requests(JobsEndpoint::Kickoff).first();
        QVERIFY(!QUuid::fromString(QString::fromLatin1(kickoff.header("idempotency-key"))).isNull());
        QCOMPARE(kickoff.header("prefer"), QByteArray("respond-async"));
        const QJsonObject body = QJsonDocument::fromJson(kickoff.body).object();
        QCOMPARE(body.value(u"input"_s).toString(), u"normal deltas=20"_s);
        QCOMPARE(body.value(u"metadata"_s).toObject().value(u"client_run_id"_s).toString(), id);

        bool progress = false, log = false;
        for (const SecondaryItem &item : run.secondary) {
            progress = progress || (item.kind == SecondaryKind::Progress && item.text.contains(u"step"_s));
            log = log || (item.kind == SecondaryKind::Log && item.text == u"Job started.");
        }
        QVERIFY(progress);
        QVERIFY(log);
    }

    // A job without events is polled at its status URL to the end.
    void polledRun()
    {
        Rig rig;
        const QString id = rig.start(u"normal deltas=10 interval_ms=5 events=0"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, JobsSimulator::tokenText(0, 10));
        QVERIFY(!run.token.streamable);
        QVERIFY(rig.sim.requestCount(JobsEndpoint::Status) >= 1);
        QCOMPARE(rig.sim.requestCount(JobsEndpoint::Events), 0);
    }

    // --no-stream polls even a job that offers events.
    void noStreamPolls()
    {
        Rig rig;
        const QString id = rig.start(u"normal deltas=6 interval_ms=5"_s, false);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).primaryText, JobsSimulator::tokenText(0, 6));
        QCOMPARE(rig.sim.requestCount(JobsEndpoint::Events), 0);
    }

    // A synchronous 200/201 is a finished run at once.
    void synchronousReply_data()
    {
        QTest::addColumn<int>("status");
        QTest::addRow("201") << 201;
        QTest::addRow("200") << 200;
    }
    void synchronousReply()
    {
        QFETCH(int, status);
        Rig rig;
        const QString id = rig.start(u"quick deltas=3 sync_status=%1"_s.arg(status));
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, JobsSimulator::tokenText(0, 3));
        QCOMPARE(rig.sim.requests(JobsEndpoint::Kickoff).first().status, status);
        QCOMPARE(rig.sim.requestCount(JobsEndpoint::Status), 0);
        QCOMPARE(rig.sim.requestCount(JobsEndpoint::Events), 0);
        QVERIFY(!rig.manager.isFollowing(id));
    }

    // Acceptance: a kickoff whose first two attempts get 503 creates exactly one job; every
    // attempt carries the same key, and the retries wait as long as Retry-After says.
    void kickoffRetriedWithSameKey()
    {
        Rig rig;
        rig.sim.addHttpFault(
            *RunwatchSim::jobsHttpFaultFromSpec(u"status=503,count=2,on=kickoff,retry-after=0.2"_s));
        const QString id = rig.start(u"normal deltas=5"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        const auto kickoffs = rig.sim.requests(JobsEndpoint::Kickoff);
        QCOMPARE(kickoffs.size(), 3);
        QCOMPARE(kickoffs[0].status, 503);
        QCOMPARE(kickoffs[1].status, 503);
        QCOMPARE(kickoffs[2].status, 202);
        const QByteArray key = kickoffs[0].header("idempotency-key");
        QVERIFY(!key.isEmpty());
        for (const auto &k : kickoffs) {
            QCOMPARE(k.header("idempotency-key"), key);
            QCOMPARE(k.body, kickoffs[0].body);
        }
        for (int i = 1; i < 3; ++i) {
            QVERIFY2(kickoffs[i].receivedMs - kickoffs[i - 1].answeredMs >= 200,
                     qPrintable(u"gap %1 ms"_s.arg(kickoffs[i].receivedMs - kickoffs[i - 1].answeredMs)));
        }
        QCOMPARE(rig.sim.jobsCreated(), 1);
    }

    // Replies lost after the job was created: the retries' key returns the original job.
    void lostKickoffRepliesKeepOneJob()
    {
        Rig rig;
        rig.sim.addHttpFault(*RunwatchSim::jobsHttpFaultFromSpec(u"status=0,count=2,on=kickoff"_s));
        const QString id = rig.start(u"normal deltas=5"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        const auto kickoffs = rig.sim.requests(JobsEndpoint::Kickoff);
        QVERIFY(kickoffs.size() >= 3);
        for (const auto &k : kickoffs)
            QCOMPARE(k.header("idempotency-key"), kickoffs[0].header("idempotency-key"));
        QCOMPARE(rig.sim.jobsCreated(), 1);
        QCOMPARE(rig.run(id).remoteId, rig.sim.lastJobId());
    }

    // No kickoff reply ever arrives: the listing finds the job by its idempotency key.
    void lostKickoffRediscovered()
    {
        Rig rig;
        rig.sim.addHttpFault(*RunwatchSim::jobsHttpFaultFromSpec(u"status=0,count=-1,on=kickoff"_s));
        const QString id = rig.start(u"normal deltas=5"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, JobsSimulator::tokenText(0, 5));
        QCOMPARE(rig.sim.jobsCreated(), 1);
        QCOMPARE(run.remoteId, rig.sim.lastJobId());
        const auto lists = rig.sim.requests(JobsEndpoint::List);
        QVERIFY(!lists.isEmpty());
        const QByteArray key = rig.sim.requests(JobsEndpoint::Kickoff).first().header("idempotency-key");
        QVERIFY2(lists.first().query.contains(u"idempotency_key="_s + QString::fromLatin1(key)),
                 qPrintable(lists.first().query));
    }

    // A kickoff refused for good (4xx) surfaces the error and tracks nothing.
    void kickoffRefused()
    {
        Rig rig;
        rig.sim.addHttpFault(
            *RunwatchSim::jobsHttpFaultFromSpec(u"status=403,count=1,on=kickoff,retry-after=none"_s));
        const QString id = rig.start(u"normal"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Failed);
        QCOMPARE(rig.run(id).rawStatus, u"start_failed"_s);
        QCOMPARE(rig.run(id).error.kind, ErrorKind::Auth);
        QVERIFY(rig.run(id).remoteId.isEmpty());
        QCOMPARE(rig.sim.requestCount(JobsEndpoint::Kickoff), 1);
        QCOMPARE(rig.sim.requestCount(JobsEndpoint::List), 0);
    }

    // Acceptance: polls never come sooner than the server's Retry-After (seconds or an HTTP
    // date), and never two at once. Measured on the server.
    void pollingHonoursRetryAfter_data()
    {
        QTest::addColumn<QString>("retryAfter");
        QTest::addRow("seconds") << u"1"_s;
        QTest::addRow("fraction") << u"0.4"_s;
        QTest::addRow("http date") << u"date:1"_s;
    }
    void pollingHonoursRetryAfter()
    {
        QFETCH(QString, retryAfter);
        Rig rig;
        const QString id
            = rig.start(u"normal deltas=20 interval_ms=150 events=0 retry_after=%1"_s.arg(retryAfter));
        QVERIFY(waitTerminal(rig.manager, id, 30000));
        QCOMPARE(rig.run(id).primaryText, JobsSimulator::tokenText(0, 20));
        const auto kickoff = rig.sim.requests(JobsEndpoint::Kickoff).first();
        const auto polls = rig.sim.requests(JobsEndpoint::Status);
        QVERIFY2(polls.size() >= 2, qPrintable(QString::number(polls.size())));
        const bool date = retryAfter.startsWith(u"date:"_s);
        const qint64 seconds = date ? 0 : qint64(retryAfter.toDouble() * 1000.0);
        auto previous = kickoff;
        for (const auto &poll : polls) {
            // One at a time: each poll arrives after the previous request was answered.
            QVERIFY(poll.receivedMs >= previous.answeredMs);
            if (date) {
                QVERIFY(previous.retryAfterUntilEpochMs > 0);
                QVERIFY2(
                    poll.receivedEpochMs >= previous.retryAfterUntilEpochMs,
                    qPrintable(u"%1 ms early"_s.arg(previous.retryAfterUntilEpochMs - poll.receivedEpochMs)));
            } else {
                QVERIFY2(poll.receivedMs - previous.answeredMs >= seconds,
                         qPrintable(
                             u"gap %1 ms < %2 ms"_s.arg(poll.receivedMs - previous.answeredMs).arg(seconds)));
            }
            previous = poll;
        }
    }

    // Without Retry-After the interval grows while nothing changes (exponential, with jitter).
    void pollingBacksOffWithoutRetryAfter()
    {
        Rig rig;
        FollowPolicy policy;
        policy.pollInitial = std::chrono::milliseconds(20);
        policy.pollMax = std::chrono::milliseconds(640);
        rig.manager.setFollowPolicy(policy);
        const QString id = rig.start(u"timeout deltas=0 timeout_ms=100000 events=0 retry_after=none"_s);
        QTRY_VERIFY_WITH_TIMEOUT(rig.sim.requestCount(JobsEndpoint::Status) >= 7, kWait);
        const auto polls = rig.sim.requests(JobsEndpoint::Status);
        QList<qint64> gaps;
        for (qsizetype i = 1; i < polls.size(); ++i)
            gaps << polls[i].receivedMs - polls[i - 1].answeredMs;
        // 20, 40, 80, 160, 320 ms (each up to 25 % less): the fifth gap is several times the first.
        QVERIFY2(gaps[4] >= 4 * std::max<qint64>(gaps[0], 5), qPrintable(QStringList([&] {
                                                                             QStringList s;
                                                                             for (qint64 g : gaps)
                                                                                 s << QString::number(g);
                                                                             return s;
                                                                         }())
                                                                             .join(u", "_s)));
        cancelAndWait(rig.manager, id);
    }

    // Acceptance: the event stream dropped after every possible number of events, and
    // resumed with Last-Event-ID, gives output identical to an undisturbed run.
    void sseResumeAtEveryEventBoundary()
    {
        const QString prompt = u"normal deltas=12 interval_ms=2"_s;
        QStringList baseline;
        qint64 events = 0;
        {
            Rig rig;
            const QString id = rig.start(prompt);
            QVERIFY(waitTerminal(rig.manager, id));
            baseline = visibleOutput(rig.run(id));
            events = rig.sim.job(rig.run(id).remoteId)->eventCount;
            QCOMPARE(rig.sim.requestCount(JobsEndpoint::Events), 1);
        }
        QVERIFY(events > 15);
        const QStringList modes{u"close"_s, u"mid"_s, u"reset"_s};
        for (const QString &mode : modes) {
            for (qint64 k = 1; k < events; ++k) {
                if (mode != u"close" && k % 4 != 1)
                    continue; // every boundary for close; a spread for the other modes
                Rig rig;
                const QString id = rig.start(prompt + u" drop_after=%1 drop_mode=%2"_s.arg(k).arg(mode));
                QVERIFY2(waitTerminal(rig.manager, id), qPrintable(u"%1 after %2"_s.arg(mode).arg(k)));
                const Run &run = rig.run(id);
                QVERIFY2(visibleOutput(run) == baseline, qPrintable(u"%1 after %2: %3"_s.arg(mode).arg(k).arg(
                                                             visibleOutput(run).join(u" / "_s))));
                QCOMPARE(run.reconciliations, 0);
                QVERIFY(!run.error.isError());
                // Every reconnect named the last event it had.
                const auto streams = rig.sim.requests(JobsEndpoint::Events);
                QVERIFY(streams.size() >= 2);
                QVERIFY(streams.first().header("last-event-id").isEmpty());
                qint64 last = 0;
                for (qsizetype i = 1; i < streams.size(); ++i) {
                    const qint64 id = streams[i].header("last-event-id").toLongLong();
                    QVERIFY2(id > last,
                             qPrintable(u"%1 after %2: Last-Event-ID %3"_s.arg(mode).arg(k).arg(id)));
                    last = id;
                }
            }
        }
    }

    // The retry: field sets the reconnection delay.
    void sseRetryFieldHonoured()
    {
        RunwatchSim::JobsSimConfig config = fastConfig();
        config.retryMs = 300;
        Rig rig(config);
        qint64 droppedAt = -1;
        connect(&rig.sim, &JobsSimulator::streamDropped, this, [&] { droppedAt = rig.sim.elapsedMs(); });
        const QString id = rig.start(u"normal deltas=10 interval_ms=5 drop_after=4 fault_connections=1"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).primaryText, JobsSimulator::tokenText(0, 10));
        const auto streams = rig.sim.requests(JobsEndpoint::Events);
        QCOMPARE(streams.size(), 2);
        QVERIFY(droppedAt >= 0);
        QVERIFY2(streams[1].receivedMs - droppedAt >= 300,
                 qPrintable(u"gap %1 ms"_s.arg(streams[1].receivedMs - droppedAt)));
    }

    // A malformed event stops following with a protocol error; the text before it stays.
    void malformedEvent()
    {
        Rig rig;
        QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
        // Events 1-3 are queued, running, log: output i is event 4 + i (no progress before 5).
        const QString id = rig.start(u"normal deltas=12 malformed_at=6"_s);
        QTRY_COMPARE_WITH_TIMEOUT(stopped.count(), 1, kWait);
        const Run &run = rig.run(id);
        QCOMPARE(run.primaryText, JobsSimulator::tokenText(0, 2));
        QCOMPARE(run.error.kind, ErrorKind::Protocol);
        QVERIFY2(run.error.message.contains(u"id 6"_s), qPrintable(run.error.message));
        QVERIFY(!run.isTerminal());
    }

    // Acceptance: cancel 200 → cancelled at once, partial result kept.
    void cancelImmediate_data()
    {
        QTest::addColumn<bool>("events");
        QTest::addRow("streamed") << true;
        QTest::addRow("polled") << false;
    }
    void cancelImmediate()
    {
        QFETCH(bool, events);
        Rig rig;
        const QString id = rig.start(u"long interval_ms=5 events=%1"_s.arg(events ? 1 : 0));
        // A polled job shows no output before it ends: wait until it has produced some.
        QTRY_VERIFY_WITH_TIMEOUT(
            !rig.run(id).remoteId.isEmpty() && rig.sim.job(rig.run(id).remoteId)->text.size() > 20, kWait);
        QTRY_COMPARE_WITH_TIMEOUT(rig.run(id).status, RunStatus::InProgress, kWait);
        const ActionResult r = cancelAndWait(rig.manager, id);
        QVERIFY2(r.ok(), qPrintable(r.error.toString()));
        QVERIFY(r.note.isEmpty());
        QCOMPARE(rig.run(id).status, RunStatus::Cancelled);
        QCOMPARE(rig.run(id).rawStatus, u"canceled"_s);
        QVERIFY(!rig.run(id).primaryText.isEmpty());
        QCOMPARE(rig.sim.requests(JobsEndpoint::Cancel).first().status, 200);
        QCOMPARE(rig.sim.requests(JobsEndpoint::Cancel).first().method, QByteArray("DELETE"));
        QCOMPARE(rig.sim.job(rig.run(id).remoteId)->status, u"canceled"_s);
    }

    // Acceptance: cancel 202 → "cancelling" until the job reports canceled.
    void cancelDeferred_data()
    {
        QTest::addColumn<bool>("events");
        QTest::addRow("streamed") << true;
        QTest::addRow("polled") << false;
    }
    void cancelDeferred()
    {
        QFETCH(bool, events);
        Rig rig;
        const QString id
            = rig.start(u"long interval_ms=5 cancel_delay_ms=400 events=%1"_s.arg(events ? 1 : 0));
        QTRY_VERIFY_WITH_TIMEOUT(
            !rig.run(id).remoteId.isEmpty() && rig.sim.job(rig.run(id).remoteId)->text.size() > 20, kWait);
        QTRY_COMPARE_WITH_TIMEOUT(rig.run(id).status, RunStatus::InProgress, kWait);
        const ActionResult r = cancelAndWait(rig.manager, id);
        QVERIFY2(r.ok(), qPrintable(r.error.toString()));
        QVERIFY2(r.note.contains(u"requested"_s), qPrintable(r.note));
        QCOMPARE(rig.run(id).status, RunStatus::Cancelling);
        QCOMPARE(rig.sim.requests(JobsEndpoint::Cancel).first().status, 202);
        QVERIFY(rig.manager.isFollowing(id));
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Cancelled);
    }

    // Acceptance: cancel 409 → "already finished", nothing changes; repeated cancel is harmless.
    void cancelFinishedAndRepeated()
    {
        Rig rig;
        const QString id = rig.start(u"normal deltas=3"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        auto *backend = rig.backend();
        QVERIFY(backend);
        const ActionResult r = QCoro::waitFor(backend->cancel(rig.run(id).token));
        QVERIFY(r.ok());
        QCOMPARE(r.note, u"already succeeded"_s);
        Run copy = rig.run(id);
        for (const RunEvent &e : r.events)
            applyEvent(copy, e);
        QCOMPARE(copy.status, RunStatus::Completed);
        QCOMPARE(copy.primaryText, JobsSimulator::tokenText(0, 3));
        QCOMPARE(rig.sim.requests(JobsEndpoint::Cancel).last().status, 409);
        QCOMPARE(rig.sim.job(copy.remoteId)->status, u"succeeded"_s);

        // Another client's stale view (it still thinks the job runs) learns the truth instead.
        Rig other;
        Run stale = rig.run(id);
        stale.localId = u"stale"_s;
        stale.status = RunStatus::InProgress;
        stale.connection = u"jobs"_s;
        Connection c = rig.connection();
        c.name = u"jobs"_s;
        other.manager.addConnection(c);
        other.manager.adoptRun(stale, false);
        const ActionResult viaEngine = cancelAndWait(other.manager, u"stale"_s);
        QVERIFY(viaEngine.ok());
        QCOMPARE(viaEngine.note, u"already succeeded"_s);
        QCOMPARE(other.run(u"stale"_s).status, RunStatus::Completed);

        // Cancelling a cancelled job answers 200 again.
        const QString longId = rig.start(u"long interval_ms=5"_s);
        QTRY_VERIFY_WITH_TIMEOUT(!rig.run(longId).primaryText.isEmpty(), kWait);
        QVERIFY(cancelAndWait(rig.manager, longId).ok());
        QCOMPARE(rig.run(longId).status, RunStatus::Cancelled);
        const ActionResult again = QCoro::waitFor(backend->cancel(rig.run(longId).token));
        QVERIFY(again.ok());
        QCOMPARE(rig.sim.requests(JobsEndpoint::Cancel).last().status, 200);
        Run copy2 = rig.run(longId);
        for (const RunEvent &e : again.events)
            applyEvent(copy2, e);
        QCOMPARE(copy2.status, RunStatus::Cancelled);
    }

    // Acceptance: every person-answered suspension, answered through the engine (the GUI's
    // Respond panel calls RunManager::respondToRun), streamed and polled.
    void answeredSuspensions_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<bool>("events");
        QTest::addColumn<int>("reason");
        QTest::addColumn<QString>("prompt");
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<int>("answerKind");
        QTest::addColumn<QString>("answerText");
        QTest::addColumn<QString>("comment");
        QTest::addColumn<QString>("expected");
        const QString t01 = JobsSimulator::tokenText(0, 2);
        const QString t23 = JobsSimulator::tokenText(2, 4);
        for (const bool events : {true, false}) {
            const char *mode = events ? "streamed" : "polled";
            QTest::addRow("ask_user %s", mode)
                << u"ask_user"_s << events << int(InputReason::Question)
                << u"Which region should the report cover?"_s << QStringList{} << int(InputAnswer::Kind::Text)
                << u"EMEA"_s << QString() << t01 + u"[answer: EMEA] "_s + t23;
            QTest::addRow("approve %s", mode) << u"approval"_s << events << int(InputReason::Approval)
                                              << u"Manager approval needed for the $1200 compute budget."_s
                                              << QStringList{} << int(InputAnswer::Kind::Approve) << QString()
                                              << u"ok"_s << t01 + u"[manager approved: ok] "_s + t23;
            QTest::addRow("reject %s", mode) << u"approval"_s << events << int(InputReason::Approval)
                                             << u"Manager approval needed for the $1200 compute budget."_s
                                             << QStringList{} << int(InputAnswer::Kind::Reject) << QString()
                                             << u"too much"_s << t01 + u"[manager rejected: too much] "_s;
            QTest::addRow("options %s", mode)
                << u"options"_s << events << int(InputReason::Options)
                << u"How thorough should the analysis be?"_s
                << QStringList{u"quick"_s, u"standard"_s, u"deep"_s} << int(InputAnswer::Kind::Choice)
                << u"deep"_s << QString() << t01 + u"[choice: deep] "_s + t23;
        }
    }
    void answeredSuspensions()
    {
        QFETCH(QString, scenario);
        QFETCH(bool, events);
        QFETCH(int, reason);
        QFETCH(QString, prompt);
        QFETCH(QStringList, options);
        QFETCH(int, answerKind);
        QFETCH(QString, answerText);
        QFETCH(QString, comment);
        QFETCH(QString, expected);
        Rig rig;
        const QString id
            = rig.start(u"%1 deltas=4 interval_ms=2 events=%2"_s.arg(scenario).arg(events ? 1 : 0));
        QVERIFY(waitInput(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(int(run.input->reason), reason);
        QCOMPARE(run.input->prompt, prompt);
        QCOMPARE(run.input->options, options);
        QCOMPARE(run.rawStatus, u"input_required"_s);
        InputAnswer answer;
        answer.kind = InputAnswer::Kind(answerKind);
        answer.text = answerText;
        answer.choice = answerText;
        answer.comment = comment;
        const ActionResult r = respondAndWait(rig.manager, id, answer);
        QVERIFY2(r.ok(), qPrintable(r.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, expected);
        QVERIFY(!rig.run(id).input);
        const auto inputs = rig.sim.requests(JobsEndpoint::Input);
        QCOMPARE(inputs.size(), 1);
        QCOMPARE(inputs.first().status, 202);
    }

    // Acceptance: multi-step approval (manager, then director) as repeated suspensions. "late
    // reply": the reply to the manager's answer (the job as it was then: running) arrives after
    // the event stream has already said the job asks the director; it must not undo that (seen
    // as a flaky tst_respondpanels under ASan: the run stayed "in progress" for good).
    void twoStepApproval_data()
    {
        QTest::addColumn<bool>("events");
        QTest::addColumn<int>("replyDelayMs");
        QTest::addRow("streamed") << true << 0;
        QTest::addRow("polled") << false << 0;
        QTest::addRow("streamed, late reply") << true << 500;
        QTest::addRow("polled, late reply") << false << 500;
    }
    void twoStepApproval()
    {
        QFETCH(bool, events);
        QFETCH(int, replyDelayMs);
        Rig rig;
        const QString id = rig.start(
            u"two_step deltas=4 interval_ms=2 events=%1 input_reply_delay_ms=%2"_s.arg(events ? 1 : 0)
                .arg(replyDelayMs));
        QVERIFY(waitInput(rig.manager, id));
        QVERIFY(rig.run(id).input->prompt.startsWith(u"Manager"_s));
        QVERIFY(respondAndWait(rig.manager, id, approval(true, u"fine"_s)).ok());
        QTRY_VERIFY_WITH_TIMEOUT(rig.run(id).input && rig.run(id).input->prompt.startsWith(u"Director"_s),
                                 kWait);
        QCOMPARE(rig.run(id).status, RunStatus::InputRequired);
        QCOMPARE(rig.run(id).input->reason, InputReason::Approval);
        QVERIFY(respondAndWait(rig.manager, id, approval(true)).ok());
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, JobsSimulator::tokenText(0, 2)
                                              + u"[manager approved: fine] [director approved] "_s
                                              + JobsSimulator::tokenText(2, 4));
        const auto answers = rig.sim.job(rig.run(id).remoteId)->answers;
        QCOMPARE(answers.size(), 2);
        QCOMPARE(answers[0], (QJsonObject{{u"approved"_s, true}, {u"comment"_s, u"fine"_s}}));
        QCOMPARE(answers[1], (QJsonObject{{u"approved"_s, true}}));
    }

    // A wrong answer shape is refused (400) and the job still waits.
    void wrongAnswerShape()
    {
        Rig rig;
        const QString id = rig.start(u"ask_user deltas=2"_s);
        QVERIFY(waitInput(rig.manager, id));
        const ActionResult r = respondAndWait(rig.manager, id, choice(u"deep"_s));
        QVERIFY(!r.ok());
        QCOMPARE(r.error.httpStatus, 400);
        QVERIFY2(r.error.message.contains(u"text"_s), qPrintable(r.error.message));
        QCOMPARE(rig.run(id).status, RunStatus::InputRequired);
        QVERIFY(respondAndWait(rig.manager, id, textAnswer(u"APAC"_s)).ok());
        QVERIFY(waitTerminal(rig.manager, id));
        QVERIFY(rig.run(id).primaryText.contains(u"[answer: APAC]"_s));
    }

    // A timer suspension shows its deadline and resumes by itself; the engine keeps following.
    void timerResumesByItself_data()
    {
        QTest::addColumn<bool>("events");
        QTest::addRow("streamed") << true;
        QTest::addRow("polled") << false;
    }
    void timerResumesByItself()
    {
        QFETCH(bool, events);
        Rig rig;
        const QDateTime before = QDateTime::currentDateTimeUtc();
        const QString id
            = rig.start(u"timer deltas=4 interval_ms=2 timer_ms=400 events=%1"_s.arg(events ? 1 : 0));
        QVERIFY(waitInput(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.input->reason, InputReason::Timer);
        QVERIFY(run.input->deadline.isValid());
        QVERIFY(run.input->deadline >= before.addMSecs(300));
        QVERIFY(run.input->deadline <= QDateTime::currentDateTimeUtc().addMSecs(1000));
        QCOMPARE(run.input->prompt, u"Waiting for the rate-limit window to reopen."_s);
        // It resumes by itself, so the engine keeps following it (the GUI shows a countdown).
        QVERIFY(rig.manager.isFollowing(id));
        // An answer is not what it waits for.
        const ActionResult r = respondAndWait(rig.manager, id, textAnswer(u"go"_s));
        QVERIFY(!r.ok());
        QCOMPARE(r.error.httpStatus, 409);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText,
                 JobsSimulator::tokenText(0, 2) + u"[timer elapsed] "_s + JobsSimulator::tokenText(2, 4));
        QCOMPARE(rig.sim.requestCount(JobsEndpoint::Input), 1);
    }

    // A webhook suspension shows the URL and waits for the external system's callback.
    void webhookResumesWhenCalled_data()
    {
        QTest::addColumn<bool>("events");
        QTest::addRow("streamed") << true;
        QTest::addRow("polled") << false;
    }
    void webhookResumesWhenCalled()
    {
        QFETCH(bool, events);
        Rig rig;
        const QString id = rig.start(u"webhook deltas=4 interval_ms=2 events=%1"_s.arg(events ? 1 : 0));
        QVERIFY(waitInput(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.input->reason, InputReason::Webhook);
        const QString url = rig.sim.job(run.remoteId)->inputRequest.value(u"webhook_url"_s).toString();
        QVERIFY(!url.isEmpty());
        QCOMPARE(run.input->callbackUrl, url);
        QCOMPARE(run.input->prompt, u"Waiting for the CI system to report back."_s);
        QVERIFY(rig.manager.isFollowing(id));
        QTest::qWait(100); // the job really waits
        QCOMPARE(rig.run(id).status, RunStatus::InputRequired);
        // The external system calls back.
        QNetworkAccessManager nam;
        QNetworkRequest request{QUrl(url)};
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply *reply = nam.post(request, QByteArrayLiteral("{\"build\":\"green\"}"));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        QVERIFY(finished.wait(5000));
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 202);
        reply->deleteLater();
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).primaryText, JobsSimulator::tokenText(0, 2)
                                              + u"[callback: {\"build\":\"green\"}] "_s
                                              + JobsSimulator::tokenText(2, 4));
    }

    // failed: the error object, and whether retrying may help.
    void failedRun()
    {
        Rig rig;
        const QString id = rig.start(u"fail deltas=10 fail_after=3 retryable=0"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.error.kind, ErrorKind::Run);
        QCOMPARE(run.error.code, u"upstream_error"_s);
        QVERIFY(!run.error.retryable);
        QCOMPARE(run.error.message, u"The upstream model stopped responding. (not retryable)"_s);
        QCOMPARE(run.primaryText, JobsSimulator::tokenText(0, 3));
    }

    // timed_out: the job's timeout is shown.
    void timedOutRun()
    {
        Rig rig;
        const QString id = rig.start(u"timeout deltas=2 timeout_ms=150 timeout_seconds=42 events=0"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::TimedOut);
        QCOMPARE(rig.run(id).error.message, u"The job ran longer than its timeout of 42 s."_s);
    }

    // A status outside the contract is Unknown with the raw label kept, and nothing breaks.
    void unknownStatusKept_data()
    {
        QTest::addColumn<bool>("events");
        QTest::addRow("streamed") << true;
        QTest::addRow("polled") << false;
    }
    void unknownStatusKept()
    {
        QFETCH(bool, events);
        Rig rig;
        bool sawUnknown = false;
        const QString id = rig.start(u"unknown deltas=3 unknown_ms=400 events=%1"_s.arg(events ? 1 : 0));
        connect(&rig.manager, &RunManager::runChanged, this, [&](const QString &rid) {
            const Run *r = rig.manager.run(rid);
            sawUnknown
                = sawUnknown || (r && r->status == RunStatus::Unknown && r->rawStatus == u"paused_by_admin");
        });
        QVERIFY(waitTerminal(rig.manager, id));
        QVERIFY(sawUnknown);
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
    }

    // A result over the inline limit comes from /result.
    void largeResult_data()
    {
        QTest::addColumn<bool>("events");
        QTest::addRow("streamed") << true;
        QTest::addRow("polled") << false;
    }
    void largeResult()
    {
        QFETCH(bool, events);
        Rig rig;
        const QString id = rig.start(u"large deltas=4 large_bytes=1500000 events=%1"_s.arg(events ? 1 : 0));
        QVERIFY(waitTerminal(rig.manager, id, 30000));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText.size(), 1500000);
        QVERIFY(run.primaryText.startsWith(JobsSimulator::tokenText(0, 4)));
        QCOMPARE(run.primaryText, rig.sim.job(run.remoteId)->result);
        QCOMPARE(run.reconciliations, 0);
        QCOMPARE(rig.sim.requestCount(JobsEndpoint::Result), 1);
    }

    // The status and events URLs the service names (Location, status_url, events_url) are
    // followed, not the default paths.
    void serviceUrlsFollowed_data()
    {
        QTest::addColumn<bool>("events");
        QTest::addRow("streamed") << true;
        QTest::addRow("polled") << false;
    }
    void serviceUrlsFollowed()
    {
        QFETCH(bool, events);
        RunwatchSim::JobsSimConfig config = fastConfig();
        config.opaqueUrls = true;
        Rig rig(config);
        const QString id = rig.start(u"normal deltas=6 interval_ms=5 events=%1"_s.arg(events ? 1 : 0));
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).primaryText, JobsSimulator::tokenText(0, 6));
        const auto follows = rig.sim.requests(events ? JobsEndpoint::Events : JobsEndpoint::Status);
        QVERIFY(!follows.isEmpty());
        for (const auto &r : follows)
            QVERIFY2(r.path.startsWith(u"/api/operations/"_s), qPrintable(r.path));
    }

    // A new process (new engine, new backend) reattaches from the stored run alone and
    // continues where the stream was, with Last-Event-ID and the service's own URLs.
    void reattachAfterRestart()
    {
        RunwatchSim::JobsSimConfig config = fastConfig();
        config.opaqueUrls = true;
        Rig rig(config);
        const QString id = rig.start(u"normal deltas=30 interval_ms=20"_s);
        QTRY_VERIFY_WITH_TIMEOUT(rig.run(id).primaryText.size() >= 20, kWait);
        rig.manager.stopFollowing(id);
        const Run stored = rig.run(id);
        QVERIFY(!stored.isTerminal());

        RunManager fresh;
        QVERIFY(fresh.addConnection(rig.connection()));
        Run copy = Run();
        copy = stored;
        copy.token = ContinuationToken::fromJson(stored.token.toJson()); // as persisted
        fresh.adoptRun(copy, true);
        QVERIFY(waitTerminal(fresh, id));
        QCOMPARE(fresh.run(id)->primaryText, JobsSimulator::tokenText(0, 30));
        const auto streams = rig.sim.requests(JobsEndpoint::Events);
        QCOMPARE(streams.last().header("last-event-id"), stored.token.eventId.toUtf8());
        QVERIFY(streams.last().path.startsWith(u"/api/operations/"_s));
    }

    // Acceptance: a profile with renamed fields and paths drives a differently shaped server.
    void profileDrivesAlternateServer()
    {
        RunwatchSim::JobsSimConfig config = fastConfig();
        config.shape = RunwatchSim::JobsShape::Alternate;
        config.inlineResultLimit = 2000;
        Rig rig(config, QJsonObject{{u"profile"_s, alternateProfile()}});
        QVERIFY(rig.backend()->profileError().isEmpty());

        // Streamed, suspended, answered.
        const QString id = rig.start(u"ask_user deltas=4 interval_ms=2"_s);
        QVERIFY(waitInput(rig.manager, id));
        QCOMPARE(rig.run(id).rawStatus, u"input_required"_s);
        QCOMPARE(rig.run(id).input->reason, InputReason::Question);
        QVERIFY(respondAndWait(rig.manager, id, textAnswer(u"EMEA"_s)).ok());
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).rawStatus, u"DONE"_s);
        QCOMPARE(rig.run(id).primaryText,
                 JobsSimulator::tokenText(0, 2) + u"[answer: EMEA] "_s + JobsSimulator::tokenText(2, 4));
        const auto kickoff = rig.sim.requests(JobsEndpoint::Kickoff).first();
        QCOMPARE(kickoff.path, u"/api/v2/tasks"_s);
        const QJsonObject body = QJsonDocument::fromJson(kickoff.body).object();
        QCOMPARE(body.value(u"prompt"_s).toString(), u"ask_user deltas=4 interval_ms=2"_s);
        QCOMPARE(body.value(u"kind"_s).toString(), u"report"_s);
        QCOMPARE(body.value(u"meta"_s).toObject().value(u"client_run_id"_s).toString(), id);
        QCOMPARE(rig.sim.requests(JobsEndpoint::Input).first().path,
                 u"/api/v2/tasks/"_s + rig.run(id).remoteId + u"/reply"_s);

        // Polled, with progress in percent, a large result from …/output.
        const QString polled = rig.start(u"large deltas=4 interval_ms=5 large_bytes=5000 events=0"_s);
        QVERIFY(waitTerminal(rig.manager, polled));
        QCOMPARE(rig.run(polled).primaryText, rig.sim.job(rig.run(polled).remoteId)->result);
        QCOMPARE(rig.run(polled).primaryText.size(), 5000);
        QVERIFY(rig.sim.requests(JobsEndpoint::Result).first().path.endsWith(u"/output"_s));

        // Failed with the renamed error object; timed out with the renamed timeout.
        const QString failed = rig.start(u"fail deltas=4 fail_after=1"_s);
        QVERIFY(waitTerminal(rig.manager, failed));
        QCOMPARE(rig.run(failed).status, RunStatus::Failed);
        QCOMPARE(rig.run(failed).rawStatus, u"ERROR"_s);
        QCOMPARE(rig.run(failed).error.code, u"upstream_error"_s);
        const QString expired = rig.start(u"timeout deltas=1 timeout_ms=100 timeout_seconds=7"_s);
        QVERIFY(waitTerminal(rig.manager, expired));
        QCOMPARE(rig.run(expired).status, RunStatus::TimedOut);
        QVERIFY(rig.run(expired).error.message.contains(u"7 s"_s));

        // Cancel with POST …/abort.
        const QString longId = rig.start(u"long interval_ms=5"_s);
        QTRY_VERIFY_WITH_TIMEOUT(!rig.run(longId).primaryText.isEmpty(), kWait);
        QVERIFY(cancelAndWait(rig.manager, longId).ok());
        QCOMPARE(rig.run(longId).status, RunStatus::Cancelled);
        const auto cancels = rig.sim.requests(JobsEndpoint::Cancel);
        QCOMPARE(cancels.first().method, QByteArray("POST"));
        QVERIFY(cancels.first().path.endsWith(u"/abort"_s));

        // The listing, through the renamed items and cursor.
        const ListResult listed = QCoro::waitFor(rig.backend()->list());
        QVERIFY2(!listed.error.isError(), qPrintable(listed.error.toString()));
        QCOMPARE(listed.runs.size(), rig.sim.jobIds().size());
        QCOMPARE(listed.runs.first().remoteId, rig.run(id).remoteId);
        QCOMPARE(listed.runs.first().rawStatus, u"DONE"_s);
        QCOMPARE(listed.runs.first().status, RunStatus::Completed);
    }

    // The same profile against the standard server fails clearly, not silently.
    void profileMismatchIsClear()
    {
        Rig rig(fastConfig(), QJsonObject{{u"profile"_s, alternateProfile()}});
        const QString id = rig.start(u"normal"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Failed);
        QCOMPARE(rig.run(id).error.kind, ErrorKind::NotFound);
    }

    // An invalid profile: every operation fails with a message that names the bad key.
    void invalidProfile()
    {
        Rig rig(fastConfig(),
                QJsonObject{
                    {u"profile"_s, QJsonObject{{u"pointers"_s, QJsonObject{{u"status"_s, u"state"_s}}}}}});
        QVERIFY(rig.backend()->profileError().contains(u"/pointers/status"_s));
        const QString id = rig.start(u"normal"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Failed);
        QCOMPARE(rig.run(id).error.code, u"invalid_profile"_s);
        QVERIFY(rig.run(id).error.message.contains(u"/pointers/status"_s));
        QCOMPARE(rig.sim.requests().size(), 0);
        const ListResult listed = QCoro::waitFor(rig.backend()->list());
        QCOMPARE(listed.error.code, u"invalid_profile"_s);
    }

    // A profile file that is missing or broken is reported with its path.
    void profileFile()
    {
        Connection c;
        c.options.insert(u"profile_file"_s, RunwatchTest::dataPath(u"jobs/alternate-profile.json"_s));
        QString error;
        const auto p = JobsBackend::profileFor(c, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->name, u"acme-tasks"_s);
        c.options.insert(u"profile_file"_s, u"/nonexistent/profile.json"_s);
        QVERIFY(!JobsBackend::profileFor(c, &error));
        QVERIFY(error.contains(u"/nonexistent/profile.json"_s));
        c.options.insert(u"profile"_s, QJsonObject());
        QVERIFY(!JobsBackend::profileFor(c, &error));
        QVERIFY(error.contains(u"not both"_s));
    }

    void listJobs()
    {
        Rig rig;
        const QString a = rig.start(u"normal deltas=2"_s);
        const QString b = rig.start(u"ask_user deltas=2"_s);
        QVERIFY(waitTerminal(rig.manager, a));
        QVERIFY(waitInput(rig.manager, b));
        const ListResult listed = QCoro::waitFor(rig.backend()->list());
        QVERIFY(!listed.error.isError());
        QCOMPARE(listed.runs.size(), 2);
        QCOMPARE(listed.runs[0].status, RunStatus::Completed);
        QCOMPARE(listed.runs[1].status, RunStatus::InputRequired);
        QVERIFY(listed.runs[0].createdAt.isValid());
        QVERIFY(rig.backend()->capabilities().testFlag(Capability::List));
        QVERIFY(rig.backend()->capabilities().testFlag(Capability::Respond));
        QVERIFY(!rig.backend()->capabilities().testFlag(Capability::Delete));
    }
};

QTEST_GUILESS_MAIN(TestJobsEndToEnd)
#include "tst_jobs_e2e.moc"
