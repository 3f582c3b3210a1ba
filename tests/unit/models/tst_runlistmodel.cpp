// SPDX-License-Identifier: GPL-3.0-or-later
// The run list model and its filter/sort proxy, without widgets: rows follow the engine, updates
// are coalesced, counts stay right, and the proxy sorts and filters. (The action rules:
// tst_runactions; what the model signals and when, its clocks: tst_runlistmodel_ticks.)
#include "engine/runmanager.h"
#include "engine/stuckruns.h"
#include "fakebackend.h"
#include "models/runactions.h"
#include "models/runfilterproxy.h"
#include "models/runformat.h"
#include "models/runlistmodel.h"
#include "store/runstore.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <vector>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::listedRun;

Q_DECLARE_METATYPE(Runwatch::StatusCategory)

namespace {

// Rows of the proxy as run ids, in order.
QStringList proxyIds(const RunFilterProxy &proxy)
{
    QStringList ids;
    for (int r = 0; r < proxy.rowCount(); ++r)
        ids << proxy.runId(r);
    return ids;
}

// Fails when a cell's multiData() (what a delegate asks, seven roles at a time) differs from its
// data() for any role, on `model` (the list or its proxy).
void verifyMultiDataIsData(const QAbstractItemModel &model)
{
    QList<int> roles{Qt::DisplayRole,       Qt::ToolTipRole,    Qt::AccessibleTextRole,
                     Qt::TextAlignmentRole, Qt::FontRole,       Qt::ForegroundRole,
                     Qt::DecorationRole,    Qt::CheckStateRole, Qt::BackgroundRole};
    for (int role = RunListModel::IdRole; role <= RunListModel::DeadlineRole; ++role)
        roles.append(role);
    for (int row = 0; row < model.rowCount(); ++row) {
        for (int column = 0; column < model.columnCount(); ++column) {
            const QModelIndex cell = model.index(row, column);
            std::vector<QModelRoleData> asked;
            for (int role : std::as_const(roles))
                asked.emplace_back(role);
            model.multiData(cell, asked);
            for (const QModelRoleData &answer : asked) {
                QVERIFY2(answer.data() == cell.data(answer.role()),
                         qPrintable(u"row %1, column %2, role %3: %4 against %5"_s.arg(row)
                                        .arg(column)
                                        .arg(answer.role())
                                        .arg(answer.data().toString(), cell.data(answer.role()).toString())));
            }
        }
    }
}

} // namespace

class TestRunListModel final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Runs known before the model exists are rows at once; later ones arrive in one batch.
    void rowsFollowTheManager()
    {
        RunManager manager;
        manager.adoptRun(listedRun(u"a"_s, RunStatus::Completed, u"First"_s), false);
        RunListModel model(&manager);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 1);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        for (int i = 0; i < 5; ++i)
            manager.adoptRun(listedRun(u"n%1"_s.arg(i), RunStatus::InProgress, u"Live %1"_s.arg(i)), false);
        QCOMPARE(model.rowCount(), 1); // not yet: inserted on the next event-loop turn
        QTRY_COMPARE(model.rowCount(), 6);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(model.rowOf(u"n3"_s), 4);
        QCOMPARE(model.data(model.index(4, TitleColumn)).toString(), u"Live 3"_s);
        QCOMPARE(model.data(model.index(4, 0), RunListModel::StatusRole).toInt(), int(RunStatus::InProgress));
        QCOMPARE(model.data(model.index(4, 0), RunListModel::IdRole).toString(), u"n3"_s);
    }

    // A bulk load (the stored history) goes in by inserts of bounded size, one event-loop turn
    // apart, so the proxy's sort of one insert never holds the window for long; flush() still
    // inserts everything at once, and endBulkLoad() does not wait for the bulk interval.
    void bulkLoadInsertsInBoundedSteps()
    {
        RunManager manager;
        RunListModel model(&manager);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        const auto adopt = [&manager](int from, int count) {
            for (int i = from; i < from + count; ++i)
                manager.adoptRun(listedRun(u"h%1"_s.arg(i), RunStatus::Completed, u"H"_s), false);
        };
        adopt(0, 40000);
        QTRY_COMPARE(model.rowCount(), 40000);
        QList<int> sizes;
        for (const QList<QVariant> &args : std::as_const(inserted))
            sizes << args.at(2).toInt() - args.at(1).toInt() + 1;
        QCOMPARE(sizes, (QList<int>{16384, 16384, 7232}));

        // The last inserts were bulk-sized: the next waits for the bulk interval (250 ms) ...
        QElapsedTimer clock;
        clock.start();
        adopt(40000, 500);
        for (int pass = 0; pass < 3; ++pass)
            QCoreApplication::processEvents();
        if (clock.elapsed() < 200) // (a machine that stalled this long proves nothing either way)
            QCOMPARE(model.rowCount(), 40000);
        // ... unless the load has ended.
        model.endBulkLoad();
        for (int pass = 0; pass < 3 && model.rowCount() < 40500; ++pass)
            QCoreApplication::processEvents();
        QCOMPARE(model.rowCount(), 40500);

        adopt(40500, 20000);
        model.flush();
        QCOMPARE(model.rowCount(), 60500);
        QCOMPARE(model.rowOf(u"h60499"_s), 60499);
    }

    // Runs still waiting to be inserted when the engine goes away are dropped, not waited for.
    void flushAfterTheManagerIsGone()
    {
        auto manager = std::make_unique<RunManager>();
        RunListModel model(manager.get());
        manager->adoptRun(listedRun(u"late"_s, RunStatus::Completed, u"Late"_s), false);
        manager.reset();
        model.flush(); // returns
        QCOMPARE(model.rowCount(), 0);
    }

    // Many changes to one run within the interval make one dataChanged, with the roles.
    void changesAreCoalesced()
    {
        RunManager manager;
        manager.adoptRun(listedRun(u"a"_s, RunStatus::InProgress, u"A"_s), false);
        manager.adoptRun(listedRun(u"b"_s, RunStatus::InProgress, u"B"_s), false);
        manager.adoptRun(listedRun(u"c"_s, RunStatus::InProgress, u"C"_s), false);
        RunListModel model(&manager);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setUpdateInterval(50);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        // (A change the row shows: a run read again with only more text is no news to the list.)
        for (int i = 0; i < 20; ++i) {
            Run r = *manager.run(u"b"_s);
            r.title = u"B, take %1"_s.arg(i);
            manager.adoptRun(r, false);
        }
        QCOMPARE(changed.count(), 0);
        QTRY_COMPARE(changed.count(), 1);
        const QModelIndex topLeft = changed.first().at(0).value<QModelIndex>();
        const QModelIndex bottomRight = changed.first().at(1).value<QModelIndex>();
        QCOMPARE(topLeft.row(), 1);
        QCOMPARE(bottomRight.row(), 1);
        QCOMPARE(topLeft.column(), 0);
        QCOMPARE(bottomRight.column(), RunColumnCount - 1);
        const auto roles = changed.first().at(2).value<QList<int>>();
        QVERIFY(roles.contains(RunListModel::StatusRole));
        QVERIFY(roles.contains(Qt::DisplayRole));
    }

    // Category counts follow status changes, insertions and removals.
    void countsAreLive()
    {
        RunManager manager;
        manager.adoptRun(listedRun(u"a"_s, RunStatus::InProgress, u"A"_s), false);
        manager.adoptRun(listedRun(u"b"_s, RunStatus::InputRequired, u"B"_s), false);
        manager.adoptRun(listedRun(u"c"_s, RunStatus::Failed, u"C"_s), false);
        manager.adoptRun(listedRun(u"d"_s, RunStatus::TimedOut, u"D"_s), false);
        manager.adoptRun(listedRun(u"e"_s, RunStatus::Cancelled, u"E"_s), false);
        RunListModel model(&manager);
        QCOMPARE(model.counts().value(StatusCategory::All), 5);
        QCOMPARE(model.counts().value(StatusCategory::Active), 1);
        QCOMPARE(model.counts().value(StatusCategory::NeedsInput), 1);
        QCOMPARE(model.counts().value(StatusCategory::Failed), 2);
        QCOMPARE(model.counts().value(StatusCategory::Cancelled), 1);
        QCOMPARE(model.counts().value(StatusCategory::Completed), 0);
        QVERIFY(model.isTicking()); // unfinished runs: durations tick

        QSignalSpy counts(&model, &RunListModel::countsChanged);
        Run a = *manager.run(u"a"_s);
        a.status = RunStatus::Completed;
        manager.adoptRun(a, false);
        Run b = *manager.run(u"b"_s);
        b.status = RunStatus::Completed;
        manager.adoptRun(b, false);
        model.flush();
        QCOMPARE(counts.count(), 1);
        QCOMPARE(model.counts().value(StatusCategory::Active), 0);
        QCOMPARE(model.counts().value(StatusCategory::NeedsInput), 0);
        QCOMPARE(model.counts().value(StatusCategory::Completed), 2);
        QVERIFY(!model.isTicking()); // nothing unfinished: no timer fires
        manager.deleteRun(u"c"_s, false);
        QTRY_COMPARE(model.rowCount(), 4);
        QCOMPARE(model.counts().value(StatusCategory::Failed), 1);
        QCOMPARE(model.counts().value(StatusCategory::All), 4);
        QCOMPARE(model.rowOf(u"e"_s), 3);
    }

    // The proxy filters by category, text (title, ids, connection) and connection.
    void proxyFilters()
    {
        RunManager manager;
        manager.adoptRun(listedRun(u"a"_s, RunStatus::InProgress, u"Audit TLS"_s, u"alpha"_s), false);
        manager.adoptRun(listedRun(u"b"_s, RunStatus::InputRequired, u"Patch gateway"_s, u"beta"_s), false);
        manager.adoptRun(listedRun(u"c"_s, RunStatus::Completed, u"Release notes"_s, u"alpha"_s), false);
        manager.adoptRun(listedRun(u"d"_s, RunStatus::Failed, u"Timeline"_s, u"beta"_s), false);
        RunListModel model(&manager);
        RunFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.sort(TitleColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.rowCount(), 4);
        proxy.setCategory(StatusCategory::Active);
        QCOMPARE(proxyIds(proxy), QStringList{u"a"_s});
        proxy.setCategory(StatusCategory::NeedsInput);
        QCOMPARE(proxyIds(proxy), QStringList{u"b"_s});
        proxy.setCategory(StatusCategory::All);
        proxy.setText(u"  tls "_s);
        QCOMPARE(proxyIds(proxy), QStringList{u"a"_s});
        proxy.setText(u"RESP_C"_s); // remote id, case-insensitive
        QCOMPARE(proxyIds(proxy), QStringList{u"c"_s});
        proxy.setText(u"beta"_s); // connection name
        QCOMPARE(proxyIds(proxy), (QStringList{u"b"_s, u"d"_s}));
        proxy.setText({});
        proxy.setConnection(u"alpha"_s);
        QCOMPARE(proxyIds(proxy), (QStringList{u"a"_s, u"c"_s}));
        // A status change moves a run out of the filtered view once the model emits.
        proxy.setConnection({});
        proxy.setCategory(StatusCategory::Active);
        Run a = *manager.run(u"a"_s);
        a.status = RunStatus::Completed;
        manager.adoptRun(a, false);
        model.flush();
        QCOMPARE(proxy.rowCount(), 0);
    }

    // The text is also searched in the store (RunStore::search): a run is found by what its
    // answer or items say, the tooltip shows the part (escaped), a query that does not parse says
    // why and the list falls back to titles, ids and connections.
    void proxySearchesTheStore()
    {
        QTemporaryDir dir;
        RunStore store;
        QVERIFY(store.open(dir.filePath(u"runs.sqlite"_s)));
        RunManager manager;
        // What another process stored, and the list shows.
        const auto stored = [&](Run run) {
            QVERIFY(store.saveRun(run));
            manager.adoptRun(run, false);
        };
        Run walrus = listedRun(u"w"_s, RunStatus::Completed, u"Zoo report"_s, u"alpha"_s);
        walrus.primaryText = u"The <b>walrus</b> count rose."_s;
        stored(walrus);
        stored(listedRun(u"x"_s, RunStatus::Failed, u"Walrus title"_s, u"beta"_s));
        stored(listedRun(u"y"_s, RunStatus::Completed, u"Other"_s, u"beta"_s));
        RunListModel model(&manager);
        RunFilterProxy proxy;
        proxy.setSourceModel(&model);
        QSignalSpy searched(&proxy, &RunFilterProxy::searchChanged);
        proxy.setStore(&store);
        proxy.sort(TitleColumn, Qt::AscendingOrder);
        proxy.setText(u"walrus"_s);
        QCOMPARE(proxyIds(proxy), (QStringList{u"x"_s, u"w"_s}));
        QCOMPARE(searched.last().at(0).toString(), QString());
        QCOMPARE(searched.last().at(1).toInt(), 2);
        const QString tip = proxy.index(1, TitleColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(u"&lt;b&gt;[walrus]&lt;/b&gt;"_s), qPrintable(tip));
        // A delegate's many roles at once, through the proxy (the snippet too) and without it.
        verifyMultiDataIsData(proxy);
        verifyMultiDataIsData(model);
        // Filters: the failed one.
        proxy.setText(u"walrus status:failed"_s);
        QCOMPARE(proxyIds(proxy), QStringList{u"x"_s});
        // Not a query: why, and the plain text filter alone.
        proxy.setText(u"Other foo:bar"_s);
        QVERIFY(searched.last().at(0).toString().contains(u"foo:"_s));
        QCOMPARE(proxyIds(proxy), QStringList{});
        proxy.setText(u"oth"_s);
        QCOMPARE(proxyIds(proxy), QStringList{u"y"_s});
        // A run written after the search is found once asked again.
        Run late = listedRun(u"z"_s, RunStatus::Completed, u"Late"_s, u"beta"_s);
        late.primaryText = u"another walrus"_s;
        stored(late);
        model.flush();
        proxy.setText(u"walrus"_s);
        QCOMPARE(proxyIds(proxy), (QStringList{u"z"_s, u"x"_s, u"w"_s}));
    }

    // "Stuck" is a view across the categories: the runs StuckRunWatcher flags (they stay Active
    // and in All), counted by the watcher; a flag that comes or goes moves the run in or out of
    // the view and changes the chip's count.
    void stuckIsAViewWithItsOwnCount()
    {
        RunManager manager;
        const QDateTime t0 = QDateTime::currentDateTimeUtc().addSecs(-3600);
        for (int i = 0; i < 3; ++i) { // the median of like runs: 10 s
            Run done = listedRun(u"done%1"_s.arg(i), RunStatus::Completed, u"Done"_s);
            done.createdAt = t0.addSecs(-100);
            done.finishedAt = done.createdAt.addSecs(10);
            manager.adoptRun(done, false);
        }
        for (const QString &id : {u"s1"_s, u"s2"_s, u"other"_s}) {
            Run live = listedRun(id, RunStatus::InProgress, u"Live "_s + id);
            if (id == u"other")
                live.model = u"m2"_s; // no like runs: no expected duration, never stuck
            live.createdAt = live.updatedAt = t0;
            manager.adoptRun(live, false);
        }
        StuckRunWatcher watcher(&manager);
        QDateTime now = t0.addSecs(5);
        watcher.setClock([&now] { return now; });
        watcher.setPolicy({.factor = 2.0, .floorMs = 0});
        RunListModel model(&manager);
        model.setWatchers(&watcher, nullptr);
        RunFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.sort(TitleColumn, Qt::AscendingOrder);
        proxy.setCategory(StatusCategory::Stuck);
        model.flush();
        QCOMPARE(proxy.rowCount(), 0);
        QCOMPARE(model.counts().value(StatusCategory::Stuck), 0);

        QSignalSpy counts(&model, &RunListModel::countsChanged);
        now = t0.addSecs(21); // silent for more than 2 × 10 s
        watcher.check();
        model.flush();
        QCOMPARE(proxyIds(proxy), (QStringList{u"s1"_s, u"s2"_s}));
        QCOMPARE(model.counts().value(StatusCategory::Stuck), 2);
        QVERIFY(counts.size() >= 1);
        // Not a status category: the stuck runs are still active, and All counts each run once.
        QCOMPARE(model.counts().value(StatusCategory::Active), 3);
        QCOMPARE(model.counts().value(StatusCategory::All), 6);

        // Progress ends s1's silence: it leaves the view; the search narrows the view as ever.
        Run s1 = *manager.run(u"s1"_s);
        s1.updatedAt = now;
        s1.primaryText = u"more"_s;
        manager.adoptRun(s1, false);
        model.flush();
        QCOMPARE(proxyIds(proxy), QStringList{u"s2"_s});
        QCOMPARE(model.counts().value(StatusCategory::Stuck), 1);
        proxy.setText(u"nothing like it"_s);
        QCOMPARE(proxy.rowCount(), 0);
        proxy.setText({});
        // The end of a run ends its flag.
        Run s2 = *manager.run(u"s2"_s);
        s2.status = RunStatus::Cancelled;
        s2.finishedAt = now;
        manager.adoptRun(s2, false);
        model.flush();
        QCOMPARE(proxy.rowCount(), 0);
        QCOMPARE(model.counts().value(StatusCategory::Stuck), 0);
        QCOMPARE(categoryFromName(u"stuck"), StatusCategory::Stuck);
        QCOMPARE(categoryName(StatusCategory::Stuck), u"stuck"_s);
    }

    // Setting the same filter again does not re-filter.
    void unchangedFilterDoesNotInvalidate()
    {
        RunListModel model(nullptr);
        RunFilterProxy proxy;
        proxy.setSourceModel(&model);
        QSignalSpy spy(&proxy, &RunFilterProxy::filterChanged);
        proxy.setText(u"x"_s);
        proxy.setText(u" x "_s);
        proxy.setCategory(StatusCategory::All);
        proxy.setConnection({});
        QCOMPARE(spy.count(), 1);
    }

    // Sorting uses raw values: status rank, start time, duration; ties are stable by id.
    void proxySorts()
    {
        RunManager manager;
        manager.adoptRun(listedRun(u"old"_s, RunStatus::Completed, u"b"_s, u"x"_s, 3600), false);
        manager.adoptRun(listedRun(u"new"_s, RunStatus::InProgress, u"a"_s, u"x"_s, 5), false);
        manager.adoptRun(listedRun(u"mid"_s, RunStatus::InputRequired, u"c"_s, u"x"_s, 600), false);
        RunListModel model(&manager);
        RunFilterProxy proxy;
        proxy.setSourceModel(&model);
        proxy.sort(StartedColumn, Qt::DescendingOrder);
        QCOMPARE(proxyIds(proxy), (QStringList{u"new"_s, u"mid"_s, u"old"_s}));
        proxy.sort(StatusColumn, Qt::AscendingOrder);
        QCOMPARE(proxyIds(proxy), (QStringList{u"mid"_s, u"new"_s, u"old"_s}));
        proxy.sort(DurationColumn, Qt::AscendingOrder);
        // old finished after 10 s; new has run 5 s; mid 600 s.
        QCOMPARE(proxyIds(proxy), (QStringList{u"new"_s, u"old"_s, u"mid"_s}));
        proxy.sort(TitleColumn, Qt::AscendingOrder);
        QCOMPARE(proxyIds(proxy), (QStringList{u"new"_s, u"old"_s, u"mid"_s}));
    }

    void categories_data()
    {
        QTest::addColumn<RunStatus>("status");
        QTest::addColumn<StatusCategory>("category");
        QTest::addRow("queued") << RunStatus::Queued << StatusCategory::Active;
        QTest::addRow("in progress") << RunStatus::InProgress << StatusCategory::Active;
        QTest::addRow("cancelling") << RunStatus::Cancelling << StatusCategory::Active;
        QTest::addRow("unknown") << RunStatus::Unknown << StatusCategory::Active;
        QTest::addRow("input") << RunStatus::InputRequired << StatusCategory::NeedsInput;
        QTest::addRow("completed") << RunStatus::Completed << StatusCategory::Completed;
        QTest::addRow("failed") << RunStatus::Failed << StatusCategory::Failed;
        QTest::addRow("incomplete") << RunStatus::Incomplete << StatusCategory::Failed;
        QTest::addRow("expired") << RunStatus::Expired << StatusCategory::Failed;
        QTest::addRow("rejected") << RunStatus::Rejected << StatusCategory::Failed;
        QTest::addRow("timed out") << RunStatus::TimedOut << StatusCategory::Failed;
        QTest::addRow("cancelled") << RunStatus::Cancelled << StatusCategory::Cancelled;
        QTest::addRow("deleted") << RunStatus::Deleted << StatusCategory::Cancelled;
    }
    // Every status lands in exactly one chip.
    void categories()
    {
        QFETCH(RunStatus, status);
        QFETCH(StatusCategory, category);
        QCOMPARE(categoryOf(status), category);
        QCOMPARE(categoryFromName(categoryName(category)), category);
    }

    // "Needs me" is about people: a run suspended on a timer or a callback waits for a machine
    // and counts as Active; the counts move when a run's suspension changes kind.
    void needsMeIsAboutPeople_data()
    {
        QTest::addColumn<int>("reason");
        QTest::addColumn<bool>("person");
        QTest::addRow("question") << int(InputReason::Question) << true;
        QTest::addRow("approval") << int(InputReason::Approval) << true;
        QTest::addRow("options") << int(InputReason::Options) << true;
        QTest::addRow("tool output") << int(InputReason::ToolOutput) << true;
        QTest::addRow("auth") << int(InputReason::Auth) << true;
        QTest::addRow("timer") << int(InputReason::Timer) << false;
        QTest::addRow("webhook") << int(InputReason::Webhook) << false;
    }
    void needsMeIsAboutPeople()
    {
        QFETCH(int, reason);
        QFETCH(bool, person);
        Run r = listedRun(u"w"_s, RunStatus::InputRequired, u"W"_s);
        r.capabilities |= Capability::Respond;
        QVERIFY(waitsForPerson(r)); // no details yet: assume a person is wanted
        r.input = InputRequest{};
        r.input->reason = InputReason(reason);
        QCOMPARE(waitsForPerson(r), person);
        QCOMPARE(categoryOf(r), person ? StatusCategory::NeedsInput : StatusCategory::Active);
        QCOMPARE(actionStateFor(r, true).respond, person);
        // The badge agrees with the category: only a person's turn reads "Needs input".
        if (person) {
            QCOMPARE(badgeText(r), statusLabel(RunStatus::InputRequired));
        } else {
            QCOMPARE(badgeText(r), u"Waiting"_s); // a list cell
            QCOMPARE(badgeText(r, BadgeSpace::Wide), InputReason(reason) == InputReason::Timer
                                                         ? u"Waiting for timer"_s
                                                         : u"Waiting for callback"_s);
        }
        RunFilter filter;
        filter.setCategory(StatusCategory::NeedsInput);
        QCOMPARE(filter.matches(r), person);
        r.status = RunStatus::InProgress;
        QVERIFY(!waitsForPerson(r));
        QCOMPARE(categoryFromName(u"needs_me"), StatusCategory::NeedsInput);
    }

    void needsMeCountsFollowTheSuspension()
    {
        RunManager manager;
        Run r = listedRun(u"w"_s, RunStatus::InProgress, u"W"_s);
        manager.adoptRun(r, false);
        RunListModel model(&manager);
        model.setUpdateInterval(0);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.counts().value(StatusCategory::Active), 1);
        QSignalSpy counts(&model, &RunListModel::countsChanged);
        // A job suspends on a timer: still Active.
        r.status = RunStatus::InputRequired;
        r.input = InputRequest{};
        r.input->reason = InputReason::Timer;
        r.input->deadline = QDateTime::currentDateTimeUtc().addSecs(30);
        manager.adoptRun(r, false);
        model.flush();
        QCOMPARE(model.counts().value(StatusCategory::NeedsInput), 0);
        QCOMPARE(model.counts().value(StatusCategory::Active), 1);
        QCOMPARE(model.data(model.index(0, StatusColumn), RunListModel::CategoryRole).toInt(),
                 int(StatusCategory::Active));
        // The next suspension asks a person: it moves to "needs me".
        r.input->reason = InputReason::Question;
        r.input->prompt = u"Which branch?"_s;
        r.input->deadline = {};
        manager.adoptRun(r, false);
        model.flush();
        QCOMPARE(model.counts().value(StatusCategory::NeedsInput), 1);
        QCOMPARE(model.counts().value(StatusCategory::Active), 0);
        QVERIFY(counts.count() >= 1);
    }

    // Conversations are linked rows: a follow-up's title is marked, its tooltip names the parent,
    // and ParentIdRole carries the link; a first turn is unmarked.
    void followUpRowsAreLinked()
    {
        RunManager manager;
        Run parent = listedRun(u"p"_s, RunStatus::Completed, u"Draft the report"_s);
        Run child = listedRun(u"c"_s, RunStatus::InProgress, u"Now one page"_s);
        child.parentId = parent.localId;
        manager.adoptRun(parent, false);
        manager.adoptRun(child, false);
        RunListModel model(&manager);
        model.setUpdateInterval(0);
        const QModelIndex p = model.index(model.rowOf(u"p"_s), TitleColumn);
        const QModelIndex c = model.index(model.rowOf(u"c"_s), TitleColumn);
        QCOMPARE(p.data().toString(), u"Draft the report"_s);
        QCOMPARE(c.data().toString(), u"↳ Now one page"_s);
        QCOMPARE(c.data(RunListModel::ParentIdRole).toString(), u"p"_s);
        QVERIFY(p.data(RunListModel::ParentIdRole).toString().isEmpty());
        QVERIFY(c.data(Qt::ToolTipRole).toString().contains(u"Follow-up to “Draft the report”"_s));
        // Sorting by title uses the title itself, not the marker.
        QCOMPARE(c.data(RunListModel::SortValueRole).toString(), u"Now one page"_s);
    }
};

QTEST_GUILESS_MAIN(TestRunListModel)
#include "tst_runlistmodel.moc"
