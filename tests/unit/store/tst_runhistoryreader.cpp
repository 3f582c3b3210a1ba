// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/runhistoryreader.h"
#include "store/runstore.h"
#include "teststore.h"

#include <QFile>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

const QDateTime kStart = QDateTime::fromMSecsSinceEpoch(1700000000000, Qt::UTC);

// A finished run with output (which a summary leaves on disk); every seventh shares its creation
// time with the one before, so the order's second key (local id) decides between them.
Run historyRun(int i)
{
    Run run;
    run.localId = u"run%1"_s.arg(i, 6, 10, QLatin1Char('0'));
    run.connection = u"gone"_s; // no such connection: nothing is followed
    run.backend = u"openai"_s;
    run.remoteId = u"resp_%1"_s.arg(i);
    run.title = u"Run %1"_s.arg(i);
    run.prompt = u"Prompt %1"_s.arg(i);
    run.createdAt = kStart.addSecs(i - (i % 7 == 0 ? 1 : 0));
    run.updatedAt = run.createdAt.addSecs(3);
    run.finishedAt = run.updatedAt;
    run.status = i % 5 == 0 ? RunStatus::InProgress : RunStatus::Completed;
    run.primaryText = u"Output %1"_s.arg(i);
    return run;
}

void fill(RunStore *store, int from, int to)
{
    for (int i = from; i < to; ++i)
        store->scheduleSave(historyRun(i));
    store->flush();
}

// Everything the reader hands over, waiting for its batches the way the app does: on runsAvailable.
QList<Run> readAll(RunHistoryReader *reader, const std::function<void()> &betweenBatches = {})
{
    QList<Run> runs;
    bool done = false;
    const auto drain = [&] {
        for (QList<Run> batch = reader->takeBatch(); !batch.isEmpty(); batch = reader->takeBatch()) {
            runs.append(batch);
            if (betweenBatches)
                betweenBatches();
        }
        done = reader->isDone();
    };
    QObject::connect(reader, &RunHistoryReader::runsAvailable, reader, drain);
    // The reader started before this connection: what it announced already (its whole read, on a
    // slow machine or under TSan) is taken here, not waited for.
    drain();
    [&] { QTRY_VERIFY_WITH_TIMEOUT(done, 30000); }();
    return runs;
}

QStringList idsOf(const QList<Run> &runs)
{
    QStringList ids;
    for (const Run &run : runs)
        ids << run.localId;
    return ids;
}

} // namespace

class TestRunHistoryReader : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // After the first page the app reads itself, the reader returns every other stored run exactly
    // once, in the store's page order (created_at, then local id, newest first), as summaries —
    // while the store goes on writing: changing runs it has not reached yet, adding and deleting
    // runs. Its one statement reads one snapshot, so what it returns is the history as it was at
    // the start, whatever was written meanwhile.
    void everyRunOnceInOrderWhileTheStoreWrites()
    {
        QTemporaryDir dir;
        const QString path = RunwatchTest::freshStore(dir, u"runs"_s);
        QVERIFY(!path.isEmpty());
        RunStore store;
        QVERIFY(store.open(path));
        constexpr int kRuns = 5000;
        fill(&store, 0, kRuns);

        RunStore::PagePosition position;
        QStringList expected;
        while (!position.atEnd) {
            for (const Run &run : store.loadRunsPage(RunStore::Load::Summary, 997, &position))
                expected << run.localId;
        }
        QCOMPARE(expected.size(), kRuns);
        RunStore::PagePosition first;
        const QList<Run> firstPage = store.loadRunsPage(RunStore::Load::Summary, 200, &first);
        QCOMPARE(idsOf(firstPage), expected.mid(0, 200));
        expected = expected.mid(200);

        RunHistoryReader reader;
        reader.start(path, first.createdAt, first.localId);
        int written = 0;
        const QList<Run> runs = readAll(&reader, [&] {
            // Between batches: an old run changes, a new one lands in the middle of the history,
            // an old one is deleted. The writer thread and this thread's connection both write.
            Run changed = historyRun(written * 3);
            changed.title = u"changed"_s;
            store.scheduleSave(changed);
            Run added = historyRun(kRuns + written);
            added.createdAt = kStart.addSecs(kRuns / 2).addMSecs(written + 1);
            QVERIFY(store.saveRun(added));
            QVERIFY(store.removeRun(historyRun(written * 3 + 1).localId));
            store.flush();
            ++written;
        });
        QVERIFY(reader.errorString().isEmpty());
        QVERIFY2(written >= 4, "the store wrote between the batches");
        QCOMPARE(reader.readCount(), qsizetype(expected.size()));
        QCOMPARE(idsOf(runs), expected);
        for (const Run &run : runs) {
            if (run.isTerminal()) {
                QVERIFY(!run.outputLoaded);
                QVERIFY(run.primaryText.isEmpty());
                QVERIFY(run.prompt.isEmpty());
            } else {
                QVERIFY(run.outputLoaded); // it will be followed: loaded in full
                QCOMPARE(run.primaryText, historyRun(run.localId.mid(3).toInt()).primaryText);
            }
            QCOMPARE(run.title, historyRun(run.localId.mid(3).toInt()).title);
        }
        // And the writes all landed.
        QCOMPARE(store.loadRun(historyRun(0).localId)->title, u"changed"_s);
        QVERIFY(!store.loadRun(historyRun(1).localId));
        QVERIFY(store.loadRun(historyRun(kRuns).localId));
    }

    // Stored values that do not parse — a token and an error that are not JSON, an unknown status,
    // a malformed time, capabilities that are text — and a row without a local id neither stop the
    // read nor lose the runs after them.
    void malformedRowsDoNotStopTheRead()
    {
        QTemporaryDir dir;
        const QString path = RunwatchTest::freshStore(dir, u"runs"_s);
        QVERIFY(!path.isEmpty());
        RunStore store;
        QVERIFY(store.open(path));
        fill(&store, 0, 30);
        {
            RunwatchTest::RawStore raw(path);
            // PostgreSQL's capabilities column is an integer: text cannot get there.
            const QString capabilities = RunwatchTest::onPostgres() ? QString() : u", capabilities = 'abc'"_s;
            QSqlQuery q(raw.db());
            QVERIFY2(q.exec(u"UPDATE runs SET token = '{{{', error = 'not json', status = 'zzz', "
                            "input = '[1,'%1, updated_at = 'yesterday' WHERE local_id = 'run000020'"_s.arg(
                                capabilities)),
                     qPrintable(q.lastError().text()));
            QCOMPARE(q.numRowsAffected(), 1);
            QVERIFY(q.exec(u"UPDATE runs SET local_id = '', finished_at = '2026-13-45T99:00:00.000Z' "
                           "WHERE local_id = 'run000010'"_s));
            QCOMPARE(q.numRowsAffected(), 1);
        }
        RunHistoryReader reader;
        reader.start(path);
        const QList<Run> runs = readAll(&reader);
        QVERIFY(reader.errorString().isEmpty());
        QCOMPARE(runs.size(), 30);
        const auto damaged = std::find_if(runs.cbegin(), runs.cend(),
                                          [](const Run &run) { return run.localId == u"run000020"_s; });
        QVERIFY(damaged != runs.cend());
        QCOMPARE(damaged->status, RunStatus::Unknown);
        QVERIFY(!damaged->updatedAt.isValid());
        QCOMPARE(damaged->title, historyRun(20).title);
        QVERIFY(
            std::any_of(runs.cbegin(), runs.cend(), [](const Run &run) { return run.localId.isEmpty(); }));
        QCOMPARE(runs.last().localId, historyRun(0).localId); // the oldest, after both
    }

    // A file that cannot be opened ends the read with an error, nothing read and nothing waiting;
    // one whose pages are damaged (SQLite reports it mid-read) keeps the runs read before the damage.
    void unreadableStoreEndsWithAnError()
    {
        QTemporaryDir dir;
        // PostgreSQL: a server that is not there (port 1 on loopback refuses).
        for (const QString &unreadable : {dir.filePath(u"no/such/dir/runs.sqlite"_s),
                                          u"postgresql://runwatch@127.0.0.1:1/runs?connect_timeout=2"_s}) {
            RunHistoryReader reader;
            reader.start(unreadable);
            QVERIFY(readAll(&reader).isEmpty());
            QVERIFY(!reader.errorString().isEmpty());
            QVERIFY(reader.isDone());
        }
        if (RunwatchTest::onPostgres())
            return; // the damage below is to a file's pages: the SQLite store's alone
        const QString path = dir.filePath(u"damaged.sqlite"_s);
        {
            RunStore store;
            QVERIFY(store.open(path));
            fill(&store, 0, 3000);
            store.close(); // checkpoints the WAL into the file
        }
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadWrite));
        const qint64 size = file.size();
        QVERIFY(size > 400 * 1024);
        // Garbage over the second half of the file, past its schema page: the table's and the
        // index's later pages.
        QVERIFY(file.seek(size / 2));
        QVERIFY(file.write(QByteArray(size / 2 - 4096, '\xA5')) > 0);
        file.close();
        RunHistoryReader reader;
        reader.start(path);
        const QList<Run> runs = readAll(&reader);
        QVERIFY(reader.isDone());
        QVERIFY2(!reader.errorString().isEmpty(), "the damage is reported");
        QVERIFY(runs.size() < 3000);
        QCOMPARE(reader.readCount(), runs.size());
    }

    // Destroying a reader mid-read stops its thread: nothing is left running or leaked (ASan/LSan).
    void destroyedMidRead()
    {
        QTemporaryDir dir;
        const QString path = RunwatchTest::freshStore(dir, u"runs"_s);
        QVERIFY(!path.isEmpty());
        {
            RunStore store;
            QVERIFY(store.open(path));
            fill(&store, 0, 5000);
        }
        auto reader = std::make_unique<RunHistoryReader>();
        QSignalSpy available(reader.get(), &RunHistoryReader::runsAvailable);
        reader->start(path);
        QVERIFY(available.wait(10000));
        reader.reset();
    }
};

QTEST_GUILESS_MAIN(TestRunHistoryReader)
#include "tst_runhistoryreader.moc"
