// SPDX-License-Identifier: GPL-3.0-or-later
// The stuck-run rule (StuckRunWatcher): the expected duration from the service's estimate or the
// median of completed runs, the floor, one announcement per episode, and the one timer, all
// against an injected clock (no waiting).
#include "domain/runprogress.h"
#include "engine/runmanager.h"
#include "engine/stuckruns.h"
#include "store/runstore.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

const QDateTime kT0 = QDateTime(QDate(2026, 3, 1), QTime(10, 0), Qt::UTC);

Run liveRun(const QString &id, const QString &model = u"m"_s)
{
    Run run;
    run.localId = id;
    run.connection = u"c"_s;
    run.backend = u"jobs"_s;
    run.model = model;
    run.remoteId = u"r-"_s + id;
    run.status = RunStatus::InProgress;
    run.createdAt = kT0;
    run.updatedAt = kT0;
    return run;
}

Run withEstimate(Run run, double seconds)
{
    run.token.remoteId = run.remoteId;
    run.token.extra.insert(QLatin1StringView(kEstimatedDurationKey), seconds);
    return run;
}

Run completedRun(const QString &id, qint64 minutes, const QString &model = u"m"_s)
{
    Run run = liveRun(id, model);
    run.status = RunStatus::Completed;
    run.createdAt = kT0.addDays(-1);
    run.finishedAt = run.createdAt.addSecs(minutes * 60);
    run.updatedAt = run.finishedAt;
    return run;
}

} // namespace

class TestStuckRuns : public QObject
{
    Q_OBJECT
private:
    QDateTime m_now;
    void useClock(StuckRunWatcher &w)
    {
        w.setClock([this] { return m_now; });
    }

private Q_SLOTS:
    void init() { m_now = kT0; }

    void estimatedDurationTimesFactor()
    {
        RunManager manager;
        manager.adoptRun(withEstimate(liveRun(u"a"_s), 60), false);
        StuckRunWatcher w(&manager);
        useClock(w);
        QSignalSpy stuck(&w, &StuckRunWatcher::runStuck);
        QCOMPARE(w.expectedDurationMs(u"a"_s), 60000);
        // 3 × 60 s: the single timer is armed for exactly that moment.
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(180));
        QVERIFY(w.isTimerActive());
        m_now = kT0.addSecs(179);
        w.check();
        QVERIFY(!w.isStuck(u"a"_s));
        QCOMPARE(stuck.size(), 0);
        m_now = kT0.addSecs(180);
        w.check();
        QVERIFY(w.isStuck(u"a"_s));
        QCOMPARE(stuck.size(), 1);
        QCOMPARE(stuck.at(0).at(0).toString(), u"a"_s);
        // Nothing else can become stuck: no timer runs while idle.
        QVERIFY(!w.nextCheckAt().isValid());
        QVERIFY(!w.isTimerActive());
    }

    void notifiesOncePerEpisode()
    {
        RunManager manager;
        Run run = withEstimate(liveRun(u"a"_s), 60);
        manager.adoptRun(run, false);
        StuckRunWatcher w(&manager);
        useClock(w);
        QSignalSpy stuck(&w, &StuckRunWatcher::runStuck);
        QSignalSpy changed(&w, &StuckRunWatcher::stuckChanged);
        m_now = kT0.addSecs(200);
        w.check();
        m_now = kT0.addSecs(400);
        w.check();
        QCOMPARE(stuck.size(), 1); // still the same silence
        // Progress (output, a status change: a newer updatedAt) ends the episode …
        run.updatedAt = m_now;
        run.primaryText = u"more"_s;
        manager.adoptRun(run, false);
        QVERIFY(!w.isStuck(u"a"_s));
        QCOMPARE(changed.size(), 2);
        QCOMPARE(changed.last().at(1).toBool(), false);
        QCOMPARE(w.nextCheckAt(), m_now.addSecs(180));
        // … and the next silence is a new one, announced again.
        m_now = m_now.addSecs(180);
        w.check();
        QVERIFY(w.isStuck(u"a"_s));
        QCOMPARE(stuck.size(), 2);
    }

    void medianOfCompletedRunsOfConnectionAndModel()
    {
        RunManager manager;
        manager.adoptRun(completedRun(u"d1"_s, 10), false);
        manager.adoptRun(completedRun(u"d2"_s, 30), false);
        manager.adoptRun(completedRun(u"d3"_s, 20), false);
        manager.adoptRun(completedRun(u"x1"_s, 1, u"other"_s), false);
        Run failed = completedRun(u"f1"_s, 500);
        failed.status = RunStatus::Failed; // only completed runs say how long a run takes
        manager.adoptRun(failed, false);
        manager.adoptRun(liveRun(u"a"_s), false);
        StuckRunWatcher w(&manager);
        useClock(w);
        QCOMPARE(w.durations().sampleCount(u"c"_s, u"m"_s), 3);
        QCOMPARE(w.expectedDurationMs(u"a"_s), 20 * 60000);
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(3 * 20 * 60));
        // A fourth completed run moves the median (mean of the middle two) and the timer with it.
        manager.adoptRun(completedRun(u"d4"_s, 40), false);
        QCOMPARE(w.expectedDurationMs(u"a"_s), 25 * 60000);
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(3 * 25 * 60));
        // Removing one moves it back.
        manager.deleteRun(u"d4"_s, false);
        QTRY_COMPARE_WITH_TIMEOUT(manager.run(u"d4"_s) == nullptr, true, 5000);
        QCOMPARE(w.expectedDurationMs(u"a"_s), 20 * 60000);
    }

    void noEstimateNoMedianNeverStuck()
    {
        RunManager manager;
        // Two completed runs are below DurationStats::kMinSamples: no basis.
        manager.adoptRun(completedRun(u"d1"_s, 10), false);
        manager.adoptRun(completedRun(u"d2"_s, 10), false);
        manager.adoptRun(liveRun(u"a"_s), false);
        StuckRunWatcher w(&manager);
        useClock(w);
        QVERIFY(!w.expectedDurationMs(u"a"_s));
        QVERIFY(!w.nextCheckAt().isValid());
        QVERIFY(!w.isTimerActive());
        m_now = kT0.addDays(30);
        w.check();
        QVERIFY(!w.isStuck(u"a"_s));
    }

    void floorKeepsShortRunsFromJitter()
    {
        RunManager manager;
        manager.adoptRun(withEstimate(liveRun(u"a"_s), 5), false);
        StuckRunWatcher w(&manager);
        useClock(w);
        // 3 × 5 s would be 15 s; the 2-minute floor applies.
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(120));
        m_now = kT0.addSecs(60);
        w.check();
        QVERIFY(!w.isStuck(u"a"_s));
        // Without the floor, 2 × 5 s have long passed: flagged on the spot.
        w.setPolicy({.factor = 2.0, .floorMs = 0});
        QVERIFY(w.isStuck(u"a"_s));
        QVERIFY(!w.nextCheckAt().isValid());
    }

    void waitingOrReconnectingOrFinishedIsNotStuck()
    {
        RunManager manager;
        Run waiting = withEstimate(liveRun(u"w"_s), 1);
        waiting.status = RunStatus::InputRequired;
        Run lost = withEstimate(liveRun(u"l"_s), 1);
        lost.connectionLost = true;
        Run done = withEstimate(completedRun(u"d"_s, 1), 1);
        manager.adoptRun(waiting, false);
        manager.adoptRun(lost, false);
        manager.adoptRun(done, false);
        StuckRunWatcher w(&manager);
        useClock(w);
        m_now = kT0.addDays(1);
        w.check();
        QVERIFY(w.stuckIds().isEmpty());
        QVERIFY(!w.isTimerActive());
    }

    void earliestRunArmsTheTimer()
    {
        RunManager manager;
        manager.adoptRun(withEstimate(liveRun(u"slow"_s), 600), false);
        StuckRunWatcher w(&manager);
        useClock(w);
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(1800));
        manager.adoptRun(withEstimate(liveRun(u"fast"_s), 60), false);
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(180));
        m_now = kT0.addSecs(180);
        w.check();
        QCOMPARE(w.stuckIds(), QStringList{u"fast"_s});
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(1800));
        // The run ending clears its flag.
        Run ended = withEstimate(liveRun(u"fast"_s), 60);
        ended.status = RunStatus::Cancelled;
        ended.finishedAt = m_now;
        manager.adoptRun(ended, false);
        QVERIFY(w.stuckIds().isEmpty());
    }

    // The watcher keeps the earliest moment without a pass over every run per change: progress of
    // the run that holds it moves the timer to the next one, progress of any other run leaves it.
    void timerFollowsTheEarliestAsRunsProgress()
    {
        RunManager manager;
        manager.adoptRun(withEstimate(liveRun(u"a"_s), 60), false);  // due at T0 + 180 s
        manager.adoptRun(withEstimate(liveRun(u"b"_s), 100), false); // T0 + 300 s
        manager.adoptRun(withEstimate(liveRun(u"c"_s), 600), false); // T0 + 1800 s
        StuckRunWatcher w(&manager);
        useClock(w);
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(180));
        Run c = withEstimate(liveRun(u"c"_s), 600);
        c.updatedAt = kT0.addSecs(60);
        manager.adoptRun(c, false);
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(180));
        Run a = withEstimate(liveRun(u"a"_s), 60);
        a.updatedAt = kT0.addSecs(200); // now due at T0 + 380 s: b is the earliest
        manager.adoptRun(a, false);
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(300));
        QVERIFY(w.isTimerActive());
        Run b = withEstimate(liveRun(u"b"_s), 100);
        b.status = RunStatus::Completed;
        b.finishedAt = kT0.addSecs(250);
        b.updatedAt = b.finishedAt;
        manager.adoptRun(b, false);
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(380));
        a.updatedAt = kT0.addSecs(10); // an earlier moment arms the timer at once
        a.status = RunStatus::Queued;
        manager.adoptRun(a, false);
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(190));
        m_now = kT0.addSecs(190);
        w.check();
        QCOMPARE(w.stuckIds(), QStringList{u"a"_s});
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(1860));
    }

    void policyFromStoreSettings()
    {
        QTemporaryDir dir;
        RunStore store;
        QVERIFY(store.open(dir.filePath(u"runs.db"_s)));
        QCOMPARE(StuckPolicy::load(&store), StuckPolicy{});
        const StuckPolicy custom{.factor = 5.0, .floorMs = 30000};
        QVERIFY(custom.save(&store));
        QCOMPARE(StuckPolicy::load(&store), custom);
        // Nonsense keeps the defaults: a factor below 1 would flag runs before they are due.
        QCOMPARE(StuckPolicy::fromJson({{u"factor"_s, 0.5}, {u"floor_seconds"_s, -3}}), StuckPolicy{});
        RunManager manager;
        manager.setStore(&store);
        StuckRunWatcher w(&manager);
        QCOMPARE(w.policy(), custom);
        manager.shutdown();
    }
};

QTEST_GUILESS_MAIN(TestStuckRuns)
#include "tst_stuckruns.moc"
