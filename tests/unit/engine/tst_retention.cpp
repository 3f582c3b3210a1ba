// SPDX-License-Identifier: GPL-3.0-or-later
// Retention of finished runs: the one rule the CLI's `prune` and the app's "Remove finished runs
// older than…" and keep-days sweep share (engine/retention.h). Runs the engine holds and runs only
// the store holds go alike; unfinished and recent runs stay; the store applies the same notion of
// "finished" as the runs in memory.
#include "engine/retention.h"
#include "engine/runmanager.h"
#include "store/runstore.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

Run runFinished(const QString &id, RunStatus status, const QDateTime &finishedAt)
{
    Run run;
    run.localId = id;
    run.connection = u"gone"_s; // no such connection: nothing is followed
    run.backend = u"openai"_s;
    run.remoteId = u"resp_"_s + id;
    run.status = status;
    run.createdAt
        = finishedAt.isValid() ? finishedAt.addSecs(-60) : QDateTime::currentDateTimeUtc().addDays(-90);
    run.updatedAt = run.createdAt;
    run.finishedAt = finishedAt;
    return run;
}

} // namespace

class TestRetention final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(u"RunwatchTest"_s);
        QCoreApplication::setApplicationName(u"runwatch-retentiontest"_s);
        QSettings().clear();
    }

    // Runs in the engine and runs only in the store go together; the engine tells its views.
    void removesFromEngineAndStore()
    {
        QTemporaryDir dir;
        RunStore store;
        QVERIFY(store.open(dir.filePath(u"runs.sqlite"_s)));
        RunManager manager;
        manager.setStore(&store);
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const QList<Run> loaded{runFinished(u"old-loaded"_s, RunStatus::Completed, now.addDays(-40)),
                                runFinished(u"recent-loaded"_s, RunStatus::Failed, now.addDays(-2)),
                                runFinished(u"waiting"_s, RunStatus::InputRequired, QDateTime())};
        for (const Run &run : loaded) {
            QVERIFY(store.saveRun(run));
            manager.adoptRun(run, false);
        }
        // Written by another process after this one loaded its list.
        QVERIFY(store.saveRun(runFinished(u"old-elsewhere"_s, RunStatus::Cancelled, now.addDays(-31))));
        QVERIFY(store.saveRun(runFinished(u"new-elsewhere"_s, RunStatus::Completed, now.addDays(-1))));

        const QDateTime cutoff = Retention::cutoffFor(30, now);
        QCOMPARE(Retention::finishedBefore(&manager, cutoff), QStringList{u"old-loaded"_s});
        QSignalSpy removed(&manager, &RunManager::runRemoved);
        QCOMPARE(Retention::removeFinishedBefore(&manager, &store, cutoff), 2);
        QCOMPARE(removed.count(), 1);
        QVERIFY(!manager.run(u"old-loaded"_s));
        QVERIFY(manager.run(u"recent-loaded"_s));
        QVERIFY(manager.run(u"waiting"_s));
        QCOMPARE(store.runCount(), 3);
        QVERIFY(!store.loadRun(u"old-elsewhere"_s));
        QVERIFY(store.loadRun(u"new-elsewhere"_s));
        // Nothing left to take.
        QCOMPARE(Retention::removeFinishedBefore(&manager, &store, cutoff), 0);
        manager.shutdown();
    }

    // The CLI has no runs in its engine, only the store: the same call serves it.
    void storeOnly()
    {
        QTemporaryDir dir;
        RunStore store;
        QVERIFY(store.open(dir.filePath(u"runs.sqlite"_s)));
        const QDateTime now = QDateTime::currentDateTimeUtc();
        QVERIFY(store.saveRun(runFinished(u"a"_s, RunStatus::Expired, now.addSecs(-3 * 3600))));
        QVERIFY(store.saveRun(runFinished(u"b"_s, RunStatus::Completed, now.addSecs(-600))));
        // Fractions of a day, as `prune --older-than 0.05` gives (72 minutes).
        QCOMPARE(Retention::removeFinishedBefore(nullptr, &store, Retention::cutoffFor(0.05, now)), 1);
        QVERIFY(store.loadRun(u"b"_s));
        QCOMPARE(Retention::removeFinishedBefore(nullptr, nullptr, now), 0);
    }

    // Every status: the store removes exactly what the rule removes in memory.
    void storeAndMemoryAgreeOnEveryStatus()
    {
        QTemporaryDir dir;
        RunStore store;
        QVERIFY(store.open(dir.filePath(u"runs.sqlite"_s)));
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const QDateTime old = now.addDays(-10);
        QList<Run> runs;
        for (int s = int(RunStatus::Unknown); s <= int(Runwatch::kLastRunStatus); ++s) {
            runs << runFinished(u"s%1"_s.arg(s), RunStatus(s), old);
            QVERIFY(store.saveRun(runs.last()));
        }
        const QDateTime cutoff = Retention::cutoffFor(1, now);
        Retention::removeFinishedBefore(nullptr, &store, cutoff);
        for (const Run &run : std::as_const(runs))
            QCOMPARE(!store.loadRun(run.localId).has_value(), Retention::isFinishedBefore(run, cutoff));
        QVERIFY(Retention::isFinishedBefore(runs.at(int(RunStatus::Completed)), cutoff));
        QVERIFY(!Retention::isFinishedBefore(runs.at(int(RunStatus::InputRequired)), cutoff));
        Run noEnd = runs.at(int(RunStatus::Failed));
        noEnd.finishedAt = QDateTime();
        QVERIFY(!Retention::isFinishedBefore(noEnd, cutoff));
    }

    // The keep-days setting: 0 (the default) keeps everything; values are clamped.
    void keepDaysSetting()
    {
        QCOMPARE(Retention::keepDays(), 0);
        Retention::setKeepDays(14);
        QCOMPARE(Retention::keepDays(), 14);
        QCOMPARE(QSettings().value(u"retention/keepFinishedDays"_s).toInt(), 14);
        Retention::setKeepDays(-3);
        QCOMPARE(Retention::keepDays(), 0);
        Retention::setKeepDays(1'000'000);
        QCOMPARE(Retention::keepDays(), Retention::MaxDays);
        Retention::setKeepDays(0);
        const QDateTime now = QDateTime::currentDateTimeUtc();
        QCOMPARE(Retention::cutoffFor(30, now), now.addDays(-30));
    }
};

QTEST_GUILESS_MAIN(TestRetention)
#include "tst_retention.moc"
