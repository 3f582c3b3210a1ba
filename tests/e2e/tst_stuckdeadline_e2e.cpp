// SPDX-License-Identifier: GPL-3.0-or-later
// Stuck runs and deadlines end to end: the engine and the jobs connector against the jobs
// simulator over loopback. A job with a short estimated_duration_seconds that goes silent is
// flagged stuck and cancelled (the server confirms); a deadline with "cancel at the deadline"
// cancels a live job; a connection's default time budget becomes a new run's deadline.
#include "domain/runprogress.h"
#include "engine/rundeadlines.h"
#include "engine/stuckruns.h"
#include "enginerig.h"
#include "jobs/jobssim.h"

#include <QSignalSpy>
#include <QtTest>

#include <algorithm>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchSim::JobsSimulator;
using RunwatchTest::cancelAndWait;
using RunwatchTest::waitFor;
using RunwatchTest::waitTerminal;

namespace {

RunwatchSim::JobsSimConfig fastConfig()
{
    RunwatchSim::JobsSimConfig c;
    c.intervalMs = 1;
    c.pollRetryAfter = "0.02";
    return c;
}

struct Rig : RunwatchTest::ServerRig<JobsSimulator>
{
    explicit Rig(const QJsonObject &options = {})
        : ServerRig(fastConfig())
    {
        QVERIFY(sim.listen());
        addConnection(RunwatchTest::plainConnection(u"jobs"_s, u"jobs"_s, sim.baseUrl(), options));
    }
};

// A job that reports an estimate of about a second, then spends a minute in a status outside
// the contract without a word: silent far beyond its estimate.
const QString kSilentJob = u"unknown unknown_ms=60000"_s;

} // namespace

class TestStuckDeadlineE2E : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void silentJobIsStuckThenCancelled()
    {
        Rig rig;
        StuckRunWatcher watcher(&rig.manager);
        // The production floor (2 min) would make this test wait; the rule is the same.
        watcher.setPolicy({.factor = 2.0, .floorMs = 0});
        QSignalSpy stuck(&watcher, &StuckRunWatcher::runStuck);
        const QString id = rig.start(kSilentJob);
        QVERIFY(waitFor([&] { return estimatedDurationMs(rig.run(id)).has_value(); }));
        QCOMPARE(watcher.expectedDurationMs(id), estimatedDurationMs(rig.run(id)));
        QVERIFY2(waitFor([&] { return watcher.isStuck(id); }), qPrintable(statusName(rig.run(id).status)));
        QCOMPARE(stuck.size(), 1);
        QVERIFY(!rig.run(id).isTerminal());
        // The operator cancels the stuck run; the run ends only when the server confirms.
        const ActionResult r = cancelAndWait(rig.manager, id);
        QVERIFY2(r.ok(), qPrintable(r.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Cancelled);
        QVERIFY(!watcher.isStuck(id));
        QCOMPARE(stuck.size(), 1);         // announced once
        QVERIFY(!watcher.isTimerActive()); // nothing left to watch
    }

    void deadlineCancelsTheJob()
    {
        Rig rig;
        DeadlineWatcher watcher(&rig.manager);
        QSignalSpy reached(&watcher, &DeadlineWatcher::deadlineReached);
        QSignalSpy actions(&rig.manager, &RunManager::actionFinished);
        const QString id = rig.start(kSilentJob);
        QVERIFY(waitFor([&] { return !rig.run(id).remoteId.isEmpty(); }));
        QVERIFY(rig.manager.setDeadline(id, QDateTime::currentDateTimeUtc().addMSecs(800), true));
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(reached.size(), 1);
        QCOMPARE(reached.at(0).at(1).toBool(), true);
        QCOMPARE(rig.run(id).status, RunStatus::Cancelled);
        // The cancel's outcome is the server's, reported like the Cancel action's.
        // The run may end (its stream says canceled) before the cancel request's own answer is in.
        const auto cancelResult = [&]() -> std::optional<ActionResult> {
            for (const QList<QVariant> &a : std::as_const(actions)) {
                if (a.at(1).value<RunManager::Action>() == RunManager::Action::Cancel)
                    return a.at(2).value<ActionResult>();
            }
            return std::nullopt;
        };
        QVERIFY(waitFor([&] { return cancelResult().has_value(); }));
        QVERIFY(cancelResult()->ok());
        QVERIFY(!watcher.isOverDeadline(id)); // it ended
    }

    // A cancel at the deadline that meets a 503 is sent again after the backoff and ends the job;
    // a refusal (403) stands: the run stays over deadline, nothing is retried.
    void deadlineCancelRetriedAfterTrouble()
    {
        Rig rig;
        QDateTime offset; // the watcher's clock: real time, or a moment the test moved it to
        DeadlineWatcher watcher(&rig.manager);
        watcher.setClock([&offset] { return offset.isValid() ? offset : QDateTime::currentDateTimeUtc(); });
        const auto cancelRequests = [&] {
            const auto requests = rig.sim.requests();
            return std::count_if(requests.cbegin(), requests.cend(), [](const auto &r) {
                return r.endpoint == RunwatchSim::JobsEndpoint::Cancel;
            });
        };
        // Every cancel meets a 503 until the test clears it: more than the connector's own retries.
        rig.sim.addHttpFault({{RunwatchSim::JobsEndpoint::Cancel}, -1, 503, "0", false});
        const QString id = rig.start(kSilentJob);
        QVERIFY(waitFor([&] { return !rig.run(id).remoteId.isEmpty(); }));
        const QDateTime before = QDateTime::currentDateTimeUtc();
        QVERIFY(rig.manager.setDeadline(id, before.addMSecs(300), true));
        QVERIFY(waitFor([&] { return watcher.cancelRetryAt(id).isValid(); }));
        const auto refusedCancels = cancelRequests();             // the connector's own retries included
        QVERIFY(watcher.cancelRetryAt(id) >= before.addSecs(30)); // backed off, not hammering
        QVERIFY(!rig.run(id).isTerminal());
        QVERIFY(watcher.isOverDeadline(id));
        QVERIFY(refusedCancels >= 1);
        rig.sim.clearFaults();
        offset = watcher.cancelRetryAt(id);
        watcher.check();
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Cancelled);
        QCOMPARE(cancelRequests(), refusedCancels + 1);

        offset = {};
        // (409 is this contract's "already finished"; a 403 is a refusal.)
        rig.sim.addHttpFault({{RunwatchSim::JobsEndpoint::Cancel}, 1, 403, {}, false});
        const QString refused = rig.start(kSilentJob);
        QVERIFY(waitFor([&] { return !rig.run(refused).remoteId.isEmpty(); }));
        QSignalSpy actions(&rig.manager, &RunManager::actionFinished);
        QVERIFY(rig.manager.setDeadline(refused, QDateTime::currentDateTimeUtc().addMSecs(300), true));
        QVERIFY(waitFor([&] { return actions.size() > 0; }));
        QCOMPARE(actions.at(0).at(1).value<RunManager::Action>(), RunManager::Action::Cancel);
        QVERIFY(!actions.at(0).at(2).value<ActionResult>().ok());
        QVERIFY(!watcher.cancelRetryAt(refused).isValid());
        QVERIFY(watcher.isOverDeadline(refused));
        QVERIFY(!rig.run(refused).isTerminal());
        QVERIFY(cancelAndWait(rig.manager, refused).ok());
    }

    void deadlineWithoutCancelLeavesTheJobRunning()
    {
        Rig rig;
        DeadlineWatcher watcher(&rig.manager);
        QSignalSpy warned(&watcher, &DeadlineWatcher::deadlineApproaching);
        const QString id = rig.start(kSilentJob);
        QVERIFY(waitFor([&] { return !rig.run(id).remoteId.isEmpty(); }));
        QVERIFY(rig.manager.setDeadline(id, QDateTime::currentDateTimeUtc().addMSecs(1500), false));
        QVERIFY(waitFor([&] { return watcher.isOverDeadline(id); }));
        QCOMPARE(warned.size(), 1);
        QVERIFY(!rig.run(id).isTerminal());
        for (const auto &request : rig.sim.requests())
            QVERIFY(request.endpoint != RunwatchSim::JobsEndpoint::Cancel);
        QVERIFY(cancelAndWait(rig.manager, id).ok());
    }

    void connectionDefaultBudget()
    {
        Rig rig({{u"default_time_budget"_s, u"1h30m"_s}});
        const QString id = rig.start(u"normal"_s);
        const Run &run = rig.run(id);
        QCOMPARE(run.deadlineAt, run.createdAt.addSecs(90 * 60));
        QVERIFY(!run.cancelAtDeadline);
        QVERIFY(waitTerminal(rig.manager, id));
    }
};

QTEST_MAIN(TestStuckDeadlineE2E)
#include "tst_stuckdeadline_e2e.moc"
