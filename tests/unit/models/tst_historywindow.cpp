// SPDX-License-Identifier: GPL-3.0-or-later
// Which stored runs a front end holds (HistoryWindow), on both engines (tst_historywindow_pg):
// every live run and the newest page at start, older runs a page at a time for the whole list or
// for a filter (its runs only), search hits read in, the counts of the runs not held, a run
// deleted here not brought back; and the model and proxy asking for pages as a view would.
#include "engine/runmanager.h"
#include "models/historywindow.h"
#include "models/runfilterproxy.h"
#include "models/runlistmodel.h"
#include "store/runstore.h"
#include "teststore.h"

#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

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
        history.start(10);
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

    // The whole list, a page at a time, newest first: every run once, then nothing more.
    void pagesReadTheWholeHistory()
    {
        RunManager manager;
        manager.setStore(m_store.get());
        HistoryWindow history(&manager, m_store.get());
        history.start(10);
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
        history.start(10);
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
        history.start(10);
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
        history.start(10);
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
        history.start(10);
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
        history2.start(10);
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
