// SPDX-License-Identifier: GPL-3.0-or-later
// Two processes' store writers on one PostgreSQL database writing the same runs in a batch each
// (an old and a new holder around a take-over, each in its own hash order) take the runs' row
// locks in one order: the second waits for the first instead of PostgreSQL finding a deadlock and
// failing one batch. A transaction of the test's own holds both rows until both writers wait on
// them, so each would hold its first row when they go on.
#include "store/runstore.h"
#include "store/runstorewriter.h"
#include "teststore.h"

#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

Run storedRun(const QString &id, RunStatus status, const QString &text)
{
    Run run;
    run.localId = id;
    run.connection = u"gone"_s;
    run.backend = u"openai"_s;
    run.remoteId = u"resp_"_s + id;
    run.createdAt = QDateTime::fromMSecsSinceEpoch(1700000000123, Qt::UTC);
    run.updatedAt = run.createdAt;
    run.prompt = u"Team run "_s + id;
    run.status = status;
    run.rawStatus = statusName(status);
    run.primaryText = text;
    return run;
}

// A store writer on a thread of its own, as RunStore runs it (each stands for a process).
class WriterThread
{
public:
    explicit WriterThread(std::shared_ptr<const detail::StoreEngine> engine)
        : m_writer(new detail::RunStoreWriter(std::move(engine), u"holder"_s, {}))
    {
        m_writer->moveToThread(&m_thread);
        m_thread.start();
    }
    ~WriterThread()
    {
        QMetaObject::invokeMethod(
            m_writer, [writer = m_writer] { delete writer; }, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }
    WriterThread(const WriterThread &) = delete;
    WriterThread &operator=(const WriterThread &) = delete;

    void write(const QList<Run> &runs)
    {
        QMetaObject::invokeMethod(
            m_writer,
            [writer = m_writer, runs] {
                const detail::RunStoreWriter::LeaseReleases none;
                QList<detail::RunWrite> writes;
                for (const Run &run : runs)
                    writes << detail::RunWrite{std::make_shared<const Run>(run), run.stored, run.inStore};
                writer->write(writes, 1, none);
            },
            Qt::QueuedConnection);
    }
    bool done() const { return m_writer->completed() == 1; }
    QString error() const { return m_writer->error(); }

private:
    QThread m_thread;
    detail::RunStoreWriter *m_writer;
};

} // namespace

class TestPgLockOrder final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        // This program is about PostgreSQL whatever the ctest entry says: its stores are databases.
        qputenv("RUNWATCH_TEST_STORE", "postgresql");
        QVERIFY(m_dir.isValid());
    }

    void writersTakeRowLocksInOneOrder()
    {
        QString why;
        const QString url = RunwatchTest::freshStore(m_dir, u"lockorder"_s, &why);
        QVERIFY2(!url.isEmpty(), qPrintable(why));
        {
            RunStore store;
            QVERIFY2(store.open(url), qPrintable(store.errorString()));
            QVERIFY(store.saveRun(storedRun(u"run1"_s, RunStatus::InProgress, u"a"_s)));
            QVERIFY(store.saveRun(storedRun(u"run2"_s, RunStatus::InProgress, u"b"_s)));
        }
        const std::shared_ptr<const detail::StoreEngine> engine = detail::StoreEngine::forLocation(url, &why);
        QVERIFY2(engine, qPrintable(why));
        // What each writes: both runs, as runs of the store without a baseline (every column).
        QList<Run> runs;
        for (const QString &id : {u"run1"_s, u"run2"_s}) {
            Run run = storedRun(id, RunStatus::Completed, u"the end of "_s + id);
            run.inStore = true;
            runs << run;
        }
        const QList<Run> reversed{runs.at(1), runs.at(0)};

        RunwatchTest::RawStore blocker(url);
        RunwatchTest::RawStore observer(url);
        QVERIFY2(blocker.isOpen() && observer.isOpen(), qPrintable(blocker.error() + observer.error()));
        QSqlDatabase held = blocker.db();
        QVERIFY(held.transaction());
        QVERIFY2(blocker.exec(u"SELECT local_id FROM runs WHERE local_id IN ('run1', 'run2') FOR UPDATE"_s),
                 qPrintable(blocker.error()));

        WriterThread first(engine);
        WriterThread second(engine);
        first.write(runs);
        second.write(reversed);
        // Both wait for the blocker's rows (in the wrong order: each for another row).
        QTRY_COMPARE_WITH_TIMEOUT(
            observer
                .value(u"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                       "AND datname = current_database()"_s)
                .toInt(),
            2, 20000);
        QVERIFY(held.commit());
        QTRY_VERIFY_WITH_TIMEOUT(first.done() && second.done(), 20000);
        QVERIFY2(first.error().isEmpty(), qPrintable(first.error()));
        QVERIFY2(second.error().isEmpty(), qPrintable(second.error()));
        RunStore store;
        QVERIFY(store.open(url));
        QCOMPARE(store.loadRun(u"run1"_s)->status, RunStatus::Completed);
        QCOMPARE(store.loadRun(u"run2"_s)->primaryText, u"the end of run2"_s);
    }
};

QTEST_GUILESS_MAIN(TestPgLockOrder)
#include "tst_pglockorder.moc"
