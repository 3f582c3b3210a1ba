// SPDX-License-Identifier: GPL-3.0-or-later
// What RunListModel tells its views, and when (core/models/runlistmodel_ticks.cpp): a cell that
// changes what it shows, one range when most rows changed, each duration when its own clock moves
// on, and a heavy tick in a frame of its own.
#include "domain/heavyframes.h"
#include "engine/runmanager.h"
#include "fakebackend.h"
#include "models/runformat.h"
#include "models/runlistmodel.h"
#include "otherheavychore.h"

#include <QSignalSpy>
#include <QtTest>

#include <algorithm>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::listedRun;
using RunwatchTest::OtherHeavyChore;

class TestRunListModelTicks final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // A streaming run's output changes its last activity many times a second; the cell shows
    // seconds, so the view is told when the text it shows changes, not for every delta.
    void activityCellChangesOncePerShownSecond()
    {
        using namespace std::chrono_literals;
        RunwatchTest::FakeRig rig;
        RunwatchTest::FakeStreamScript script
            = RunwatchTest::FakeStreamScript::open({{RunEvent::identity(u"r-1"_s, u"m"_s, true, 0),
                                                     RunEvent::statusChange(RunStatus::InProgress, {}, 1)}});
        for (int i = 0; i < 120; ++i)
            script.batches.append({RunEvent::primaryDelta(u"x"_s, 2 + i)});
        script.interval = 20ms; // 2.4 s of output: two or three new seconds
        rig.backend->queueStart(script);
        RunListModel model(&rig.manager);
        model.setUpdateInterval(20);
        const QString id = rig.start(u"stream"_s);
        QVERIFY(RunwatchTest::waitFor([&] { return model.rowOf(id) >= 0; }));
        QStringList shown;
        connect(&model, &QAbstractItemModel::dataChanged, this,
                [&](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                    if (topLeft.column() == LastActivityColumn && bottomRight.column() == LastActivityColumn)
                        shown << model.data(topLeft).toString();
                });
        QVERIFY(RunwatchTest::waitFor([&] { return rig.run(id).primaryText.size() == 120; }));
        model.flush();
        QVERIFY2(shown.size() >= 1 && shown.size() <= 4, qPrintable(shown.join(u", ")));
        for (qsizetype i = 1; i < shown.size(); ++i)
            QVERIFY2(shown.at(i) != shown.at(i - 1), qPrintable(shown.join(u", ")));
        QCOMPARE(model.data(model.index(model.rowOf(id), LastActivityColumn)).toString(),
                 formatTimestamp(rig.run(id).updatedAt, QDateTime::currentDateTimeUtc()));
    }

    // When more than half of the rows changed, one signal covers the whole table.
    void wholeRangeWhenMostRowsChanged()
    {
        RunManager manager;
        for (int i = 0; i < 10; ++i)
            manager.adoptRun(listedRun(u"r%1"_s.arg(i), RunStatus::InProgress, u"R"_s), false);
        RunListModel model(&manager);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        for (int i = 0; i < 6; ++i) {
            Run r = *manager.run(u"r%1"_s.arg(i));
            r.status = RunStatus::Completed;
            manager.adoptRun(r, false);
        }
        model.flush();
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>().row(), 0);
        QCOMPARE(changed.first().at(1).value<QModelIndex>().row(), 9);
    }

    // Each unfinished row's duration is repainted when its own clock moves on — rows started half
    // a second apart in different looks, not every row in one frame a second — and a run older
    // than an hour (shown to the minute) or finished not each second.
    void durationsTickEachAtItsOwnInstant()
    {
        const QDateTime now = QDateTime::currentDateTimeUtc();
        Run a = listedRun(u"a"_s, RunStatus::InProgress, u"A"_s);
        a.createdAt = now.addMSecs(-10'000);
        Run b = listedRun(u"b"_s, RunStatus::InProgress, u"B"_s);
        b.createdAt = now.addMSecs(-10'500);
        Run old = listedRun(u"old"_s, RunStatus::InProgress, u"Old"_s);
        old.createdAt = now.addMSecs(-(2 * 3'600'000 + 30'000)); // its next minute in 30 s
        RunManager manager;
        for (const Run &run : {a, b, old, listedRun(u"done"_s, RunStatus::Completed, u"Done"_s)})
            manager.adoptRun(run, false);
        RunListModel model(&manager);
        QVERIFY(model.isTicking());
        QElapsedTimer clock;
        clock.start();
        QHash<QString, QList<qint64>> ticks;
        connect(&model, &QAbstractItemModel::dataChanged, this,
                [&](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                    for (int row = topLeft.row(); row <= bottomRight.row(); ++row) {
                        if (topLeft.column() <= DurationColumn && DurationColumn <= bottomRight.column()) {
                            ticks[model.index(row, 0).data(RunListModel::IdRole).toString()]
                                << clock.elapsed();
                        }
                    }
                });
        QTRY_VERIFY_WITH_TIMEOUT(ticks.value(u"a"_s).size() >= 3 && ticks.value(u"b"_s).size() >= 3, 10'000);
        const qint64 span = clock.elapsed();
        QVERIFY2(ticks.value(u"old"_s).isEmpty(), qPrintable(u"%1"_s.arg(ticks.value(u"old"_s).size())));
        QVERIFY(!ticks.contains(u"done"_s));
        // About once a second each (not at every look, four a second).
        for (const QString &id : {u"a"_s, u"b"_s}) {
            QVERIFY2(
                ticks.value(id).size() <= span / 1000 + 2,
                qPrintable(u"%1 ticked %2 times in %3 ms"_s.arg(id).arg(ticks.value(id).size()).arg(span)));
        }
        // Apart: some tick of one run is far from every tick of the other.
        const auto apart = [&ticks](qint64 t) {
            return std::all_of(ticks.value(u"b"_s).cbegin(), ticks.value(u"b"_s).cend(),
                               [t](qint64 u) { return std::abs(t - u) > 100; });
        };
        QVERIFY(std::any_of(ticks.value(u"a"_s).cbegin(), ticks.value(u"a"_s).cend(), apart));
    }

    // A tick that moves many clocks at once (runs started in one second) repaints a column: it
    // takes a frame no other heavy chore took (HeavyFrames), and still comes.
    void aHeavyTickTakesAFrameOfItsOwn()
    {
        const QDateTime now = QDateTime::currentDateTimeUtc();
        RunManager manager;
        for (int i = 0; i < 12; ++i) {
            Run run = listedRun(u"r%1"_s.arg(i), RunStatus::InProgress, u"R"_s);
            run.createdAt = now.addMSecs(-10'000);
            manager.adoptRun(run, false);
        }
        RunListModel model(&manager);
        OtherHeavyChore other;
        // A tick's signals (cell by cell for a few rows, a range for many) come at one instant.
        QList<qint64> heavyTicks;
        int cellsNow = 0;
        connect(&model, &QAbstractItemModel::dataChanged, this,
                [&](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                    if (topLeft.column() > DurationColumn || DurationColumn > bottomRight.column())
                        return;
                    const qint64 at = other.now();
                    if (heavyTicks.isEmpty() || at - heavyTicks.constLast() > 2) {
                        heavyTicks << at;
                        cellsNow = 0;
                    }
                    cellsNow += bottomRight.row() - topLeft.row() + 1;
                });
        QTRY_VERIFY_WITH_TIMEOUT(heavyTicks.size() >= 3, 10'000);
        QCOMPARE(cellsNow, 12); // every clock moved on in one tick
        other.stop();
        QVERIFY(other.claims() > 20);
        for (const qint64 tick : std::as_const(heavyTicks)) {
            QVERIFY2(other.sinceItsFrame(tick) >= HeavyFrames::kFrame.count() - 1,
                     qPrintable(
                         u"a tick %1 ms after another chore's frame began"_s.arg(other.sinceItsFrame(tick))));
        }
    }
};

QTEST_GUILESS_MAIN(TestRunListModelTicks)
#include "tst_runlistmodel_ticks.moc"
