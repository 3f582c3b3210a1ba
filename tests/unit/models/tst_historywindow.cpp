// SPDX-License-Identifier: GPL-3.0-or-later
// Which stored runs a front end holds (HistoryWindow), on both engines (tst_historywindow_pg):
// every live run and the newest page at start (live runs without their output, which the engine
// reads before it follows one), older runs a page at a time for the whole list or for a filter
// (its runs only), search hits read in, the counts of the runs not held (from a thread, after the
// start), a run deleted here not brought back; and the model and proxy asking for pages as a view
// would.
#include "engine/runmanager.h"
#include "enginerig.h"
#include "fakebackend.h"
#include "fakeruns.h"
#include "models/historywindow.h"
#include "models/runfilterproxy.h"
#include "models/runlistmodel.h"
#include "store/runstore.h"
#include "teststore.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::FakeBackend;
using RunwatchTest::FakeStreamScript;

namespace {

constexpr int kRuns = 120;

// Run i of the stored history: every 40th live (in progress, or waiting for an answer), every 7th
// failed, every 11th cancelled, the others completed; every 3rd on connection "b". Newer with i.
// The newest but four is a follow-up of run 2, run 2 one of run 1: a conversation's earlier turns.
Run storedRun(int i)
{
    Run run;
    run.localId = u"r%1"_s.arg(i, 4, 10, QLatin1Char('0'));
    run.connection = i % 3 == 0 ? u"b"_s : u"a"_s;
    run.backend = u"openai"_s;
    run.createdAt = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC).addSecs(qint64(i) * 60);
    run.updatedAt = run.createdAt;
    run.title = u"Run %1"_s.arg(i);
    run.primaryText = u"answer %1"_s.arg(i);
    if (i == kRuns - 5 || i == 2) {
        run.parentId = u"r%1"_s.arg(i == 2 ? 1 : 2, 4, 10, QLatin1Char('0'));
    }
    if (i % 40 == 0) {
        run.status = i % 80 == 0 ? RunStatus::InProgress : RunStatus::InputRequired;
    } else if (i % 7 == 0) {
        run.status = RunStatus::Failed;
    } else if (i % 11 == 0) {
        run.status = RunStatus::Cancelled;
    } else {
        run.status = RunStatus::Completed;
    }
    if (run.isTerminal()) {
        run.finishedAt = run.createdAt.addSecs(30);
    }
    return run;
}

RunCounts storedCounts(const std::function<bool(int)> &which = {})
{
    RunCounts counts;
    for (int i = 0; i < kRuns; ++i) {
        if (!which || which(i)) {
            counts.add(categoryOf(storedRun(i).status), 1);
        }
    }
    return counts;
}

} // namespace

class TestHistoryWindow final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_location;
    int m_count = 0;
    std::unique_ptr<RunStore> m_store;

    QStringList held(const RunManager &manager) const
    {
        QStringList ids = manager.runIds();
        ids.sort();
        return ids;
    }

    // start(), then the rest of it (the live runs, the counts from a thread).
    static bool startCounted(HistoryWindow &history, int firstPage)
    {
        history.start(firstPage);
        QSignalSpy counted(&history, &HistoryWindow::notHeldCountsChanged);
        history.completeStart();
        return history.countsKnown() || counted.wait(10000);
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        QString error;
        m_location = RunwatchTest::freshStore(m_dir, u"history%1"_s.arg(++m_count), &error);
        QVERIFY2(!m_location.isEmpty(), qPrintable(error));
        RunStore writer;
        QVERIFY2(writer.open(m_location), qPrintable(writer.errorString()));
        for (int i = 0; i < kRuns; ++i)
            writer.scheduleSave(storedRun(i));
        writer.flush();
        QCOMPARE(writer.runCount(), kRuns);
        writer.close();
        m_store = std::make_unique<RunStore>();
        QVERIFY2(m_store->open(m_location), qPrintable(m_store->errorString()));
    }

    void cleanup() { m_store.reset(); }

    // Start: the live runs, however old, and the newest page, with the earlier turns of the
    // follow-ups among them; the rest counted, not held.
    void startHoldsLiveRunsAndTheNewestPage()
    {
        RunManager manager;
        manager.setStore(m_store.get());
        HistoryWindow history(&manager, m_store.get());
        QVERIFY(startCounted(history, 10));
        QStringList expected;
        for (int i = 0; i < kRuns; ++i) {
            if (i >= kRuns - 10 || !storedRun(i).isTerminal() || i == 1 || i == 2)
                expected << storedRun(i).localId;
        }
        expected.sort();
        QCOMPARE(held(manager), expected);
        QVERIFY(!history.isComplete());
        const RunCounts notHeld
            = storedCounts([&](int i) { return !expected.contains(storedRun(i).localId); });
        QCOMPARE(history.notHeldCounts(), notHeld);
        QCOMPARE(history.notHeldCounts().value(StatusCategory::Active), 0);
        QCOMPARE(history.notHeldCounts().value(StatusCategory::NeedsInput), 0);
        // The model counts the whole ledger: held and not.
        RunListModel model(&manager);
        model.setHistory(&history);
        QCOMPARE(model.counts(), storedCounts());
    }

    // start() holds the newest page; completeStart() the older live runs, then the counts of the
    // runs not held, from a thread. Until then the model counts what it holds; then the whole
    // ledger's, as of one snapshot of the store: a held run that another process ended meanwhile
    // is counted once (where it is held), and the runs a page brought while the count ran are
    // not counted twice.
    void countsArriveAfterStart()
    {
        RunManager manager;
        manager.setStore(m_store.get());
        HistoryWindow history(&manager, m_store.get());
        history.start(45); // runs 75..119, and 1 and 2 (the earlier turns of 115)
        QVERIFY(!history.startCompleted());
        QVERIFY(!history.countsKnown());
        QCOMPARE(history.notHeldCounts(), RunCounts{});
        QCOMPARE(manager.runIds().size(), 47);
        RunListModel model(&manager);
        model.setHistory(&history);
        QCOMPARE(model.counts().value(StatusCategory::All), 47);
        const Run live = storedRun(80);
        QVERIFY(manager.run(live.localId));
        QCOMPARE(manager.run(live.localId)->status, RunStatus::InProgress);
        QVERIFY(!manager.run(storedRun(40).localId)); // live, older than the page

        {
            RunStore other;
            QVERIFY2(other.open(m_location), qPrintable(other.errorString()));
            Run ended = live;
            ended.status = RunStatus::Completed;
            ended.finishedAt = ended.createdAt.addSecs(90);
            QVERIFY(other.saveRun(ended));
        }
        QSignalSpy counted(&history, &HistoryWindow::notHeldCountsChanged);
        history.completeStart();
        QVERIFY(manager.run(storedRun(40).localId));
        QCOMPARE(history.fetchMore(25, StatusCategory::All, {}), 25); // while the count runs
        QTRY_VERIFY_WITH_TIMEOUT(history.countsKnown(), 10000);
        QVERIFY(!counted.isEmpty());
        // However the run is held by now (PostgreSQL tells this process of the change).
        RunCounts expected = storedCounts([](int i) { return i != 80; });
        expected.add(categoryOf(manager.run(live.localId)->status), 1);
        QCOMPARE(model.counts(), expected); // with the rows of the runs adopted meanwhile
        QCOMPARE(model.counts().value(StatusCategory::All), kRuns);
        // And down as pages bring the rest in, to none; the model's sum stays the ledger's at
        // every step (the rows of a page go in with its counts).
        while (history.canFetchMore(StatusCategory::All, {})) {
            history.fetchMore(25, StatusCategory::All, {});
            QCOMPARE(model.counts(), expected);
        }
        QCOMPARE(history.notHeldCounts(), RunCounts{});
    }

    // Many live runs (a big history's thousands) are adopted a slice per turn of the event loop,
    // so the GUI thread is not held by all of them at once; the count waits for the last slice.
    void manyLiveRunsComeInSlices()
    {
        constexpr int kLive = 1200;
        {
            RunStore writer;
            QVERIFY2(writer.open(m_location), qPrintable(writer.errorString()));
            for (int i = 0; i < kLive; ++i) {
                Run run = storedRun(80); // in progress, older than the first page
                run.localId = u"live%1"_s.arg(i, 4, 10, QLatin1Char('0'));
                run.createdAt = run.createdAt.addMSecs(i);
                writer.scheduleSave(run);
            }
            writer.flush();
        }
        RunManager manager;
        manager.setStore(m_store.get());
        HistoryWindow history(&manager, m_store.get());
        RunListModel model(&manager);
        model.setHistory(&history);
        history.start(10);
        const qsizetype atStart = manager.runIds().size();
        history.completeStart();
        QVERIFY(manager.runIds().size() > atStart);
        QVERIFY(manager.runIds().size() < atStart + kLive); // the rest on the next turns
        QVERIFY(!history.countsKnown());
        QTRY_VERIFY_WITH_TIMEOUT(history.countsKnown(), 10000);
        for (int i = 0; i < kLive; ++i)
            QVERIFY(manager.run(u"live%1"_s.arg(i, 4, 10, QLatin1Char('0'))));
        RunCounts expected = storedCounts();
        expected.add(StatusCategory::Active, kLive);
        QCOMPARE(model.counts(), expected); // the last slice's rows are in with the counts
    }

    // Live runs come without their output; the detail pane's read (ensureOutputLoaded) brings
    // it, and a change written meanwhile leaves the stored text as it was.
    void liveRunsAreListedWithoutOutput()
    {
        RunManager manager;
        manager.setStore(m_store.get());
        HistoryWindow history(&manager, m_store.get());
        history.start(10);
        history.completeStart();
        const Run stored = storedRun(40); // waits for input: its question is read
        const Run *run = manager.run(stored.localId);
        QVERIFY(run);
        QCOMPARE(run->status, RunStatus::InputRequired);
        QVERIFY(!run->outputLoaded);
        QVERIFY(run->primaryText.isEmpty());
        QVERIFY(manager.setDeadline(stored.localId, QDateTime::currentDateTimeUtc().addDays(1), false));
        m_store->flush();
        QCOMPARE(m_store->loadRun(stored.localId)->primaryText, stored.primaryText);
        QVERIFY(m_store->loadRun(stored.localId)->deadlineAt.isValid());
        QVERIFY(manager.ensureOutputLoaded(stored.localId));
        run = manager.run(stored.localId);
        QVERIFY(run->outputLoaded);
        QCOMPARE(run->primaryText, stored.primaryText);
        QVERIFY(run->deadlineAt.isValid()); // what changed here stays
    }

    // A live run on a connection of this process is followed from its stored continuation: the
    // engine reads its stored text first, so what the stream appends follows it, once.
    void followedLiveRunContinuesItsStoredText()
    {
        Run live = RunwatchTest::liveFakeRun(u"followed"_s);
        live.createdAt = storedRun(0).createdAt.addSecs(-60); // older than any page
        live.updatedAt = live.createdAt;
        live.title = live.prompt;
        QVERIFY(m_store->saveRun(live));

        RunwatchTest::FakeRig rig;
        rig.backend->queueFollow(FakeStreamScript::ending(
            {{RunEvent::primaryDelta(u" a time."_s, 8), RunwatchTest::status(RunStatus::Completed, 9)}},
            StreamEnd::Reason::Terminal));
        rig.manager.setStore(m_store.get());
        HistoryWindow history(&rig.manager, m_store.get());
        history.start(10);
        QVERIFY(!rig.manager.run(live.localId));
        history.completeStart();
        QVERIFY(RunwatchTest::waitTerminal(rig.manager, live.localId));
        QCOMPARE(rig.backend->count(FakeBackend::Op::Follow), 1);
        QCOMPARE(rig.backend->calls(FakeBackend::Op::Follow).constFirst().token.sequence, 7);
        QCOMPARE(rig.manager.run(live.localId)->primaryText, u"Once upon a time."_s);
        m_store->flush();
        QCOMPARE(m_store->loadRun(live.localId)->primaryText, u"Once upon a time."_s);
        rig.manager.shutdown();
        QVERIFY(RunwatchTest::waitFor([] { return FakeBackend::liveRequests() == 0; }, 5000));
    }

    // The whole list, a page at a time, newest first: every run once, then nothing more.
    void pagesReadTheWholeHistory()
    {
        RunManager manager;
        manager.setStore(m_store.get());
        HistoryWindow history(&manager, m_store.get());
        QVERIFY(startCounted(history, 10));
        const qsizetype atStart = manager.runIds().size();
        QVERIFY(history.canFetchMore(StatusCategory::All, {}));
        QCOMPARE(history.fetchMore(25, StatusCategory::All, {}), 25);
        QCOMPARE(manager.runIds().size(), atStart + 25);
        // The 25 are the next newest after the first 10 (live ones among them already held).
        for (int i = kRuns - 35; i < kRuns - 10; ++i)
            QVERIFY2(manager.run(storedRun(i).localId), qPrintable(storedRun(i).localId));
        QVERIFY(!manager.run(storedRun(kRuns - 37).localId));
        int pages = 0;
        while (history.canFetchMore(StatusCategory::All, {}) && pages < 100) {
            history.fetchMore(25, StatusCategory::All, {});
            ++pages;
        }
        QVERIFY(history.isComplete());
        QCOMPARE(manager.runIds().size(), kRuns);
        QCOMPARE(history.notHeldCounts(), RunCounts{});
        QCOMPARE(history.fetchMore(25, StatusCategory::All, {}), 0);
    }

    // A filtered list reads its own runs: failed ones only, then those of connection "b".
    void aFilterReadsOnlyItsRuns()
    {
        RunManager manager;
        manager.setStore(m_store.get());
        HistoryWindow history(&manager, m_store.get());
        QVERIFY(startCounted(history, 10));
        // Live categories are complete from the start.
        QVERIFY(!history.canFetchMore(StatusCategory::Active, {}));
        QVERIFY(!history.canFetchMore(StatusCategory::NeedsInput, {}));
        const RunCounts before = history.notHeldCounts();
        const int failedNotHeld = before.value(StatusCategory::Failed);
        QVERIFY(failedNotHeld > 5);
        QCOMPARE(history.fetchMore(5, StatusCategory::Failed, {}), 5);
        QCOMPARE(history.notHeldCounts().value(StatusCategory::Failed), failedNotHeld - 5);
        QCOMPARE(history.notHeldCounts().value(StatusCategory::Completed),
                 before.value(StatusCategory::Completed));
        while (history.canFetchMore(StatusCategory::Failed, {}))
            history.fetchMore(5, StatusCategory::Failed, {});
        QCOMPARE(history.notHeldCounts().value(StatusCategory::Failed), 0);
        for (int i = 0; i < kRuns; ++i) {
            const Run run = storedRun(i);
            if (run.status == RunStatus::Failed) {
                QVERIFY2(manager.run(run.localId), qPrintable(run.localId));
            } else if (run.status == RunStatus::Completed && i < kRuns - 10 && i > 2) { // 1, 2: earlier turns
                QVERIFY2(!manager.run(run.localId), qPrintable(run.localId));
            }
        }
        // A connection's runs, of every category.
        while (history.canFetchMore(StatusCategory::All, u"b"_s))
            history.fetchMore(7, StatusCategory::All, u"b"_s);
        for (int i = 0; i < kRuns; i += 3)
            QVERIFY2(manager.run(storedRun(i).localId), qPrintable(storedRun(i).localId));
        QVERIFY(!manager.run(storedRun(4).localId)); // on "a", completed, old
        QVERIFY(!history.isComplete());
    }

    // A filter's cursor starts where the whole list's stands, and moves on when that one went
    // further: nothing is read twice into the manager, nothing skipped.
    void aFilterStartsBehindTheWholeList()
    {
        RunManager manager;
        manager.setStore(m_store.get());
        HistoryWindow history(&manager, m_store.get());
        QVERIFY(startCounted(history, 10));
        history.fetchMore(60, StatusCategory::All, {}); // runs 50..119 held
        int adopted = 0;
        while (history.canFetchMore(StatusCategory::Cancelled, {}))
            adopted += history.fetchMore(2, StatusCategory::Cancelled, {});
        int olderCancelled = 0;
        for (int i = 0; i < 50; ++i)
            olderCancelled += storedRun(i).status == RunStatus::Cancelled ? 1 : 0;
        QCOMPARE(adopted, olderCancelled);
        QCOMPARE(history.notHeldCounts().value(StatusCategory::Cancelled), 0);
    }

    // Search hits older than what is held are read in; a run deleted here is not brought back.
    void holdAndDeleted()
    {
        RunManager manager;
        manager.setStore(m_store.get());
        HistoryWindow history(&manager, m_store.get());
        QVERIFY(startCounted(history, 10));
        const QString old = storedRun(5).localId;
        QVERIFY(!manager.run(old));
        QCOMPARE(history.hold({old, storedRun(kRuns - 1).localId, u"no-such-run"_s}), 1);
        QVERIFY(manager.run(old));
        QCOMPARE(history.hold({old}), 0);
        const QString newest = storedRun(kRuns - 1).localId;
        manager.deleteRun(newest, false);
        QVERIFY(!manager.run(newest));
        QCOMPARE(history.hold({newest}), 0);
        while (history.canFetchMore(StatusCategory::All, {}))
            history.fetchMore(50, StatusCategory::All, {});
        QVERIFY(!manager.run(newest));
        QCOMPARE(manager.runIds().size(), kRuns - 1);
    }

    // The model and the proxy ask for pages as a view does at the end of the list, the proxy for
    // its filter; a search's hits become rows.
    void modelAndProxyFetch()
    {
        RunManager manager;
        manager.setStore(m_store.get());
        HistoryWindow history(&manager, m_store.get());
        QVERIFY(startCounted(history, 10));
        RunListModel model(&manager);
        model.setHistory(&history);
        RunFilterProxy proxy;
        proxy.setSourceModel(&model);
        const int start = model.rowCount();
        QVERIFY(model.canFetchMore({}));
        model.fetchMore({});
        QCOMPARE(model.rowCount(), std::min(kRuns, start + RunListModel::kHistoryPage)); // in at once
        QVERIFY(!model.canFetchMore({}));
        QCOMPARE(model.counts(), storedCounts());
        // (After the pages: the model tester's own fetchMore finds nothing more to read.)
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);

        // A fresh window: the proxy's filter decides what a page reads.
        RunManager manager2;
        manager2.setStore(m_store.get());
        HistoryWindow history2(&manager2, m_store.get());
        QVERIFY(startCounted(history2, 10));
        RunListModel model2(&manager2);
        model2.setHistory(&history2);
        RunFilterProxy proxy2;
        proxy2.setSourceModel(&model2);
        proxy2.setCategory(StatusCategory::Failed);
        const int failedShown = proxy2.rowCount();
        QVERIFY(proxy2.canFetchMore({}));
        proxy2.fetchMore({});
        QCOMPARE(proxy2.rowCount(), storedCounts().value(StatusCategory::Failed));
        QVERIFY(failedShown < proxy2.rowCount());
        // Rows of other categories were not read:
        for (int r = 0; r < model2.rowCount(); ++r) {
            const Run *run = model2.runAt(r);
            QVERIFY(run);
            QVERIFY2(run->status == RunStatus::Failed || !run->isTerminal()
                         || run->createdAt >= storedRun(kRuns - 10).createdAt || run->localId == u"r0001"_s
                         || run->localId == u"r0002"_s,
                     qPrintable(run->localId));
        }
        // Every count is the ledger's, whatever is held.
        QCOMPARE(model2.counts(), storedCounts());
        // The search asks the store: an old run it finds becomes a row.
        proxy2.setCategory(StatusCategory::All);
        proxy2.setStore(m_store.get());
        proxy2.setText(u"\"answer 13\""_s);
        QVERIFY(!proxy2.canFetchMore({})); // a search reads its hits, not pages
        QVERIFY(manager2.run(storedRun(13).localId));
        QVERIFY(proxy2.indexOfRun(storedRun(13).localId).isValid());
    }
};

QTEST_GUILESS_MAIN(TestHistoryWindow)
#include "tst_historywindow.moc"
