// SPDX-License-Identifier: GPL-3.0-or-later
// Deadlines (DeadlineWatcher): the warning before, the cancel or "over deadline" at the deadline,
// a deadline that passed while nothing ran, and the time budget syntax, on an injected clock.
#include "domain/timebudget.h"
#include "engine/rundeadlines.h"
#include "engine/runmanager.h"
#include "store/runstore.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

const QDateTime kT0 = QDateTime(QDate(2026, 3, 1), QTime(10, 0), Qt::UTC);

Run liveRun(const QString &id, qint64 budgetSecs, bool cancel)
{
    Run run;
    run.localId = id;
    run.connection = u"c"_s;
    run.backend = u"jobs"_s;
    run.status = RunStatus::InProgress;
    run.createdAt = kT0;
    run.updatedAt = kT0;
    run.deadlineAt = kT0.addSecs(budgetSecs);
    run.cancelAtDeadline = cancel;
    return run;
}

} // namespace

class TestRunDeadlines : public QObject
{
    Q_OBJECT
private:
    QDateTime m_now;
    void useClock(DeadlineWatcher &w)
    {
        w.setClock([this] { return m_now; });
    }

private Q_SLOTS:
    void init() { m_now = kT0; }

    void warningLead()
    {
        // Five minutes ahead of a long budget, 10 % of a short one.
        QCOMPARE(deadlineWarningAt(liveRun(u"a"_s, 7200, false)), kT0.addSecs(7200 - 300));
        QCOMPARE(deadlineWarningAt(liveRun(u"a"_s, 600, false)), kT0.addSecs(540));
        QVERIFY(!deadlineWarningAt(Run{}).isValid());
        Run done = liveRun(u"a"_s, 60, false);
        QVERIFY(isOverDeadline(done, kT0.addSecs(60)));
        done.status = RunStatus::Completed;
        QVERIFY(!isOverDeadline(done, kT0.addSecs(60)));
    }

    void warnsThenFlagsOverDeadline()
    {
        RunManager manager;
        manager.adoptRun(liveRun(u"a"_s, 600, false), false);
        DeadlineWatcher w(&manager);
        useClock(w);
        QSignalSpy warned(&w, &DeadlineWatcher::deadlineApproaching);
        QSignalSpy reached(&w, &DeadlineWatcher::deadlineReached);
        QSignalSpy cancels(&manager, &RunManager::actionFinished);
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(540));
        m_now = kT0.addSecs(539);
        w.check();
        QCOMPARE(warned.size(), 0);
        m_now = kT0.addSecs(540);
        w.check();
        QCOMPARE(warned.size(), 1);
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(600));
        w.check();
        QCOMPARE(warned.size(), 1); // once
        QVERIFY(!w.isOverDeadline(u"a"_s));
        m_now = kT0.addSecs(600);
        w.check();
        QCOMPARE(reached.size(), 1);
        QCOMPARE(reached.at(0).at(1).toBool(), false);
        QVERIFY(w.isOverDeadline(u"a"_s));
        QVERIFY(!w.isTimerActive()); // nothing left to wait for
        QTest::qWait(0);
        QCOMPARE(cancels.size(), 0); // not asked to cancel
        // A new deadline arms both again and clears "over deadline".
        QVERIFY(manager.setDeadline(u"a"_s, m_now.addSecs(3600), false));
        QVERIFY(!w.isOverDeadline(u"a"_s));
        QTRY_COMPARE(w.nextCheckAt(), m_now.addSecs(3600 - 300));
    }

    void cancelsAtTheDeadline()
    {
        RunManager manager;
        manager.adoptRun(liveRun(u"a"_s, 600, true), false);
        DeadlineWatcher w(&manager);
        useClock(w);
        QSignalSpy reached(&w, &DeadlineWatcher::deadlineReached);
        QSignalSpy actions(&manager, &RunManager::actionFinished);
        m_now = kT0.addSecs(600);
        w.check();
        QCOMPARE(reached.size(), 1);
        QCOMPARE(reached.at(0).at(1).toBool(), true);
        // The cancel went to the engine; without a backend it refuses (the outcome is always the
        // engine's, as for the Cancel action; tst_stuckdeadline_e2e has the server confirm it).
        QTRY_COMPARE(actions.size(), 1);
        QCOMPARE(actions.at(0).at(1).value<RunManager::Action>(), RunManager::Action::Cancel);
        QVERIFY(w.isOverDeadline(u"a"_s));
    }

    void finishedOrClearedRunsAreLeftAlone()
    {
        RunManager manager;
        manager.adoptRun(liveRun(u"a"_s, 600, true), false);
        DeadlineWatcher w(&manager);
        useClock(w);
        QSignalSpy reached(&w, &DeadlineWatcher::deadlineReached);
        QVERIFY(manager.setDeadline(u"a"_s, {}, true)); // cleared
        QVERIFY(!manager.run(u"a"_s)->cancelAtDeadline);
        m_now = kT0.addDays(1);
        w.check();
        QCOMPARE(reached.size(), 0);
        QVERIFY(!w.isTimerActive());
        Run done = liveRun(u"b"_s, 600, true);
        done.status = RunStatus::Completed;
        manager.adoptRun(done, false);
        QString error;
        QVERIFY(!manager.setDeadline(u"b"_s, m_now.addSecs(60), true, &error));
        QVERIFY(!error.isEmpty());
        w.check();
        QCOMPARE(reached.size(), 0);
    }

    void passedWhileClosedActsAtStart()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"runs.db"_s);
        {
            RunStore store;
            QVERIFY(store.open(path));
            RunManager manager;
            manager.setStore(&store);
            manager.adoptRun(liveRun(u"a"_s, 600, false), false);
            manager.adoptRun(liveRun(u"b"_s, 7200, false), false);
            QVERIFY(manager.setDeadline(u"a"_s, kT0.addSecs(600), true));
            QVERIFY(manager.setDeadline(u"b"_s, kT0.addSecs(7200), false));
            manager.shutdown();
            store.close();
        }
        RunStore store;
        QVERIFY(store.open(path));
        RunManager manager;
        manager.setStore(&store);
        for (const Run &run : store.loadRuns())
            manager.adoptRun(run, false);
        QCOMPARE(manager.run(u"a"_s)->deadlineAt, kT0.addSecs(600));
        QVERIFY(manager.run(u"a"_s)->cancelAtDeadline);
        QVERIFY(!manager.run(u"b"_s)->cancelAtDeadline);
        // The app starts an hour after a's deadline, an hour before b's.
        m_now = kT0.addSecs(3600);
        DeadlineWatcher w(&manager);
        useClock(w);
        QSignalSpy reached(&w, &DeadlineWatcher::deadlineReached);
        QSignalSpy warned(&w, &DeadlineWatcher::deadlineApproaching);
        QSignalSpy actions(&manager, &RunManager::actionFinished);
        QTRY_COMPARE(reached.size(), 1); // on the first event-loop turn
        QCOMPARE(reached.at(0).at(0).toString(), u"a"_s);
        QCOMPARE(reached.at(0).at(1).toBool(), true);
        QTRY_COMPARE(actions.size(), 1);
        QCOMPARE(warned.size(), 0); // a passed deadline is acted on, not warned about
        QCOMPARE(w.nextCheckAt(), kT0.addSecs(7200 - 300));
        manager.shutdown();
    }

    void timeBudgetSyntax()
    {
        QCOMPARE(parseTimeBudgetMs(u"90s"_s), 90000);
        QCOMPARE(parseTimeBudgetMs(u"45m"_s), 45 * 60000);
        QCOMPARE(parseTimeBudgetMs(u"1.5h"_s), 90 * 60000);
        QCOMPARE(parseTimeBudgetMs(u"1h30m"_s), 90 * 60000);
        QCOMPARE(parseTimeBudgetMs(u" 2d "_s), 2LL * 86400000);
        QCOMPARE(parseTimeBudgetMs(u"30"_s), 30 * 60000); // bare: minutes
        QVERIFY(!parseTimeBudgetMs(u""_s));
        QVERIFY(!parseTimeBudgetMs(u"-5m"_s));
        QVERIFY(!parseTimeBudgetMs(u"0"_s));
        QVERIFY(!parseTimeBudgetMs(u"5 parsecs"_s));
        QVERIFY(!parseTimeBudgetMs(u"m5"_s));
        QVERIFY(!parseTimeBudgetMs(u"400d"_s));
        QCOMPARE(formatTimeBudget(90 * 60000), u"1h30m"_s);
        QCOMPARE(formatTimeBudget(90000), u"1m30s"_s);
        QCOMPARE(formatTimeBudget(2LL * 86400000), u"2d"_s);
        QCOMPARE(formatTimeBudget(0), QString());
    }
};

QTEST_GUILESS_MAIN(TestRunDeadlines)
#include "tst_rundeadlines.moc"
