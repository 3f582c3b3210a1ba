// SPDX-License-Identifier: GPL-3.0-or-later
// The store's write model (RunWriteStatements): two RunStore objects on one file stand for two
// processes (each has its own SQLite connections, as a second process would). A write sends only
// what changed since the run was read or last written, appends output, and never brings back a
// run that the other deleted.
#include "store/runstore.h"
#include "teststore.h"

#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {
Run liveRun()
{
    Run run;
    run.localId = u"live0001"_s;
    run.connection = u"local"_s;
    run.backend = u"openai"_s;
    run.baseUrl = u"http://127.0.0.1:9/v1"_s;
    run.remoteId = u"resp_1"_s;
    run.createdAt = QDateTime::fromMSecsSinceEpoch(1700000000123, Qt::UTC);
    run.updatedAt = run.createdAt;
    run.prompt = u"Write"_s;
    run.title = u"Write"_s;
    run.status = RunStatus::InProgress;
    run.token.remoteId = run.remoteId;
    run.token.sequence = 1;
    run.primaryText = u"Once"_s;
    return run;
}

SecondaryItem item(int i)
{
    SecondaryItem it;
    it.id = u"item%1"_s.arg(i);
    it.kind = SecondaryKind::ToolCall;
    it.title = u"tool"_s;
    it.text = u"call %1"_s.arg(i);
    return it;
}

// Counts the rows each output table receives, in the store itself (a trigger), so a write by any
// connection is counted: how much of the output a save really writes. PostgreSQL's upsert of a
// piece or an item that is there already is an UPDATE: counted too, as SQLite's REPLACE is.
class WriteCounter
{
public:
    explicit WriteCounter(const QString &location)
        : m_raw(location)
    {
        const QStringList statements
            = RunwatchTest::onPostgres()
                  ? QStringList{u"CREATE TABLE IF NOT EXISTS written (tbl TEXT, chars BIGINT)"_s,
                                u"CREATE OR REPLACE FUNCTION text_written() RETURNS trigger LANGUAGE plpgsql "
                                u"AS "
                                "$$ BEGIN INSERT INTO written VALUES ('text', NEW.len); RETURN NULL; END $$"_s,
                                u"CREATE OR REPLACE FUNCTION item_written() RETURNS trigger LANGUAGE plpgsql "
                                u"AS "
                                "$$ BEGIN INSERT INTO written VALUES ('item', 1); RETURN NULL; END $$"_s,
                                u"DROP TRIGGER IF EXISTS text_written ON run_text"_s,
                                u"DROP TRIGGER IF EXISTS item_written ON run_items"_s,
                                u"CREATE TRIGGER text_written AFTER INSERT OR UPDATE ON run_text FOR EACH "
                                u"ROW "
                                "EXECUTE FUNCTION text_written()"_s,
                                u"CREATE TRIGGER item_written AFTER INSERT OR UPDATE ON run_items FOR EACH "
                                u"ROW "
                                "EXECUTE FUNCTION item_written()"_s}
                  : QStringList{u"CREATE TABLE IF NOT EXISTS written (tbl TEXT, chars INTEGER)"_s,
                                u"CREATE TRIGGER IF NOT EXISTS text_written AFTER INSERT ON run_text "
                                "BEGIN INSERT INTO written VALUES ('text', NEW.len); END"_s,
                                u"CREATE TRIGGER IF NOT EXISTS item_written AFTER INSERT ON run_items "
                                "BEGIN INSERT INTO written VALUES ('item', 1); END"_s};
        for (const QString &sql : statements) {
            if (!m_raw.exec(sql))
                qWarning() << m_raw.error();
        }
    }
    // Rows and the characters (text) or items written to `table` since the last reset().
    qint64 sum(const QString &table) const
    {
        QSqlQuery q(m_raw.db());
        q.prepare(u"SELECT COALESCE(SUM(chars), 0) FROM written WHERE tbl = ?"_s);
        q.addBindValue(table);
        return q.exec() && q.next() ? q.value(0).toLongLong() : -1;
    }
    qint64 pieces(const QString &localId) const
    {
        QSqlQuery q(m_raw.db());
        q.prepare(u"SELECT COUNT(*) FROM run_text WHERE local_id = ?"_s);
        q.addBindValue(localId);
        return q.exec() && q.next() ? q.value(0).toLongLong() : -1;
    }
    void reset() const { QSqlQuery(m_raw.db()).exec(u"DELETE FROM written"_s); }

private:
    mutable RunwatchTest::RawStore m_raw;
};

// One process's engine, as far as the store sees it: runs held in memory and written through the
// store's source, as RunManager does (the store sets each run's baseline when it hands it over).
struct Process
{
    RunStore store;
    QHash<QString, Run> runs;

    bool open(const QString &path)
    {
        store.setFlushInterval(0);
        if (!store.open(path))
            return false;
        store.setRunSource([this](const QString &id) -> Run * {
            const auto it = runs.find(id);
            return it == runs.end() ? nullptr : &*it;
        });
        return true;
    }
    Run &load(const QString &id)
    {
        runs.insert(id, store.loadRun(id).value_or(Run{}));
        return runs[id];
    }
    void save(const QString &id)
    {
        store.scheduleSave(id, runs.value(id).status);
        store.flush();
    }
    ~Process() { store.flush(); }
};

// Another process holding the store's write lock past the writer's wait (SQLite: BEGIN IMMEDIATE
// past the busy timeout; PostgreSQL: the run tables locked against writes past lock_timeout): the
// store's writes fail as on a full disk, until release().
class WriteLock
{
public:
    explicit WriteLock(const QString &location)
        : m_raw(std::make_unique<RunwatchTest::RawStore>(location))
    {
        m_held = RunwatchTest::onPostgres()
                     ? m_raw->exec(u"BEGIN"_s)
                           && m_raw->exec(u"LOCK TABLE runs, run_text, run_items IN EXCLUSIVE MODE"_s)
                     : m_raw->exec(u"BEGIN IMMEDIATE"_s);
    }
    ~WriteLock() { release(); }
    bool held() const { return m_held; }
    void release()
    {
        if (!m_raw)
            return;
        m_raw->exec(u"COMMIT"_s);
        m_raw.reset();
        m_held = false;
    }

private:
    std::unique_ptr<RunwatchTest::RawStore> m_raw;
    bool m_held = false;
};
} // namespace

class TestRunWrites final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_path;
    int m_round = 0;

private Q_SLOTS:
    void init()
    {
        m_path = RunwatchTest::freshStore(
            m_dir,
            u"runs-%1-%2"_s.arg(QLatin1StringView(QTest::currentTestFunction()), QString::number(++m_round)));
        QVERIFY(!m_path.isEmpty());
        RunStore first;
        QVERIFY(first.open(m_path));
        QVERIFY(first.saveRun(liveRun()));
    }

    // A deadline set by a command in one process survives the stream's writes of another that
    // follows the run; the stream's own changes land too.
    void deadlineSurvivesAFollowersWrites()
    {
        Process watcher;
        QVERIFY(watcher.open(m_path));
        Run &followed = watcher.load(u"live0001"_s);
        QVERIFY(followed.inStore && followed.stored);

        Process command;
        QVERIFY(command.open(m_path));
        const QDateTime deadline = QDateTime::fromMSecsSinceEpoch(1800000000000, Qt::UTC);
        Run &set = command.load(u"live0001"_s);
        set.deadlineAt = deadline;
        set.cancelAtDeadline = true;
        command.save(u"live0001"_s);

        followed.primaryText += u" upon a time"_s;
        followed.token.sequence = 9;
        followed.status = RunStatus::Completed;
        watcher.save(u"live0001"_s);

        RunStore reader;
        QVERIFY(reader.open(m_path));
        const Run onDisk = reader.loadRun(u"live0001"_s).value();
        QCOMPARE(onDisk.deadlineAt, deadline);
        QVERIFY(onDisk.cancelAtDeadline);
        QCOMPARE(onDisk.primaryText, u"Once upon a time"_s);
        QCOMPARE(onDisk.token.sequence, 9);
        QCOMPARE(onDisk.status, RunStatus::Completed);
    }

    // A run deleted (delete --local) or pruned by another process is not brought back by the
    // next write of one that still holds it; that process is told, once.
    void deletedRunsStayDeleted_data()
    {
        QTest::addColumn<bool>("prune");
        QTest::newRow("delete --local") << false;
        QTest::newRow("prune") << true;
    }
    void deletedRunsStayDeleted()
    {
        QFETCH(bool, prune);
        Process holder;
        QVERIFY(holder.open(m_path));
        Run &held = holder.load(u"live0001"_s);
        if (prune) {
            held.status = RunStatus::Completed;
            held.finishedAt = QDateTime::fromMSecsSinceEpoch(1700000100000, Qt::UTC);
            holder.save(u"live0001"_s);
        }
        QSignalSpy gone(&holder.store, &RunStore::runsDeletedElsewhere);

        Process other;
        QVERIFY(other.open(m_path));
        if (prune) {
            QCOMPARE(other.store.removeFinishedBefore(QDateTime::currentDateTimeUtc()), 1);
        } else {
            QVERIFY(other.store.removeRun(u"live0001"_s));
        }

        held.primaryText += u" more"_s;
        held.title = u"renamed"_s;
        held.secondary << item(1);
        holder.save(u"live0001"_s);
        QCOMPARE(gone.size(), 1);
        QCOMPARE(gone.at(0).at(0).toStringList(), QStringList{u"live0001"_s});

        RunStore reader;
        QVERIFY(reader.open(m_path));
        QVERIFY(!reader.loadRun(u"live0001"_s));
        QCOMPARE(reader.runCount(), 0);
        WriteCounter counter(m_path);
        QCOMPARE(counter.pieces(u"live0001"_s), 0); // no orphaned output either
    }

    // Output is appended: each save writes the new piece, not the text again, and the text reads
    // back whole. A text the service replaced is rewritten once.
    void outputIsAppended()
    {
        Process p;
        QVERIFY(p.open(m_path));
        WriteCounter counter(m_path);
        Run &run = p.load(u"live0001"_s);
        const QString piece = QString(1000, u'x');
        for (int i = 0; i < 20; ++i) {
            run.primaryText += piece;
            p.save(u"live0001"_s);
        }
        // 20 pieces of 1000 characters: 20,000 written, not the 210,000 of whole rewrites.
        QCOMPARE(counter.sum(u"text"_s), 20 * 1000);
        QCOMPARE(counter.pieces(u"live0001"_s), 21);
        RunStore reader;
        QVERIFY(reader.open(m_path));
        QCOMPARE(reader.loadRun(u"live0001"_s)->primaryText, run.primaryText);

        counter.reset();
        run.primaryText = u"A different answer ✓ \U0001F600"_s; // a server snapshot that disagreed
        p.save(u"live0001"_s);
        QCOMPARE(counter.sum(u"text"_s), run.primaryText.size());
        QCOMPARE(counter.pieces(u"live0001"_s), 1);
        QCOMPARE(reader.loadRun(u"live0001"_s)->primaryText, run.primaryText);
    }

    // Secondary items: only new and changed ones are written; fewer items trim the rest.
    void onlyChangedItemsAreWritten()
    {
        Process p;
        QVERIFY(p.open(m_path));
        Run &run = p.load(u"live0001"_s);
        for (int i = 0; i < 500; ++i)
            run.secondary << item(i);
        p.save(u"live0001"_s);
        WriteCounter counter(m_path);
        run.secondary[7].text += u" done"_s;
        run.secondary[7].done = true;
        run.secondary << item(500) << item(501);
        p.save(u"live0001"_s);
        QCOMPARE(counter.sum(u"item"_s), 3);
        counter.reset();
        p.save(u"live0001"_s); // nothing changed: nothing written
        QCOMPARE(counter.sum(u"item"_s), 0);
        QCOMPARE(counter.sum(u"text"_s), 0);
        run.secondary.resize(10);
        p.save(u"live0001"_s);
        RunStore reader;
        QVERIFY(reader.open(m_path));
        const Run onDisk = reader.loadRun(u"live0001"_s).value();
        QCOMPARE(onDisk.secondary.size(), 10);
        QCOMPARE(onDisk.secondary.at(7).text, u"call 7 done"_s);
        QVERIFY(onDisk.secondary.at(7).done);
    }

    // Two processes following the same run: the one further along the same text wins, neither
    // duplicates the other's part; where they disagree the last writer's text stands.
    void twoFollowersOfOneText()
    {
        Process a;
        Process b;
        QVERIFY(a.open(m_path));
        QVERIFY(b.open(m_path));
        Run &ra = a.load(u"live0001"_s);
        Run &rb = b.load(u"live0001"_s);
        ra.primaryText += u" upon"_s;
        a.save(u"live0001"_s);
        rb.primaryText += u" upon a time"_s;
        b.save(u"live0001"_s);
        RunStore reader;
        QVERIFY(reader.open(m_path));
        QCOMPARE(reader.loadRun(u"live0001"_s)->primaryText, u"Once upon a time"_s);
        ra.primaryText += u" a"_s; // behind b, on the same text: nothing to add
        a.save(u"live0001"_s);
        QCOMPARE(reader.loadRun(u"live0001"_s)->primaryText, u"Once upon a time"_s);
        ra.primaryText = u"Something else"_s;
        a.save(u"live0001"_s);
        QCOMPARE(reader.loadRun(u"live0001"_s)->primaryText, u"Something else"_s);
    }

    // A write that fails (the file locked by another process past the busy timeout is the same
    // path) is kept and goes again, compared with what is really on disk: nothing is lost, and
    // a new run's first write still inserts it.
    void failedWriteGoesAgainWhole()
    {
        Process p;
        QVERIFY(p.open(m_path));
        Run fresh = liveRun();
        fresh.localId = u"new00001"_s;
        p.runs.insert(fresh.localId, fresh);
        // Another connection holds the write lock: the first try fails (busy timeout 5 s).
        WriteLock lock(m_path);
        QVERIFY(lock.held());
        QSignalSpy unsaved(&p.store, &RunStore::unsavedRunsChanged);
        p.store.scheduleSave(fresh.localId, fresh.status);
        p.store.flush();
        QVERIFY(!p.store.writeError().isEmpty());
        // Said on the run, for the front ends to show on it.
        QVERIFY(p.store.isUnsaved(fresh.localId));
        QCOMPARE(unsaved.size(), 1);
        QCOMPARE(unsaved.first().first().toStringList(), QStringList{fresh.localId});
        Run &run = p.runs[fresh.localId];
        QVERIFY(run.inStore); // handed over: the source's run now says so
        run.primaryText += u" and more"_s;
        lock.release();
        p.store.scheduleSave(fresh.localId, fresh.status);
        p.store.flush();
        QVERIFY2(p.store.writeError().isEmpty(), qPrintable(p.store.writeError()));
        QVERIFY(!p.store.isUnsaved(fresh.localId));
        QCOMPARE(unsaved.size(), 2);
        QCOMPARE(unsaved.last().first().toStringList(), QStringList{fresh.localId});
        RunStore reader;
        QVERIFY(reader.open(m_path));
        const auto onDisk = reader.loadRun(u"new00001"_s);
        QVERIFY(onDisk);
        QCOMPARE(onDisk->primaryText, u"Once and more"_s);
    }

    // A run deleted while its first write is still failing stays deleted: the failed batch does
    // not bring it back when the store takes writes again.
    void deletedWhileUnsavedStaysDeleted()
    {
        Process p;
        QVERIFY(p.open(m_path));
        Run fresh = liveRun();
        fresh.localId = u"gone0001"_s;
        p.runs.insert(fresh.localId, fresh);
        WriteLock lock(m_path);
        QVERIFY(lock.held());
        p.store.scheduleSave(fresh.localId, fresh.status);
        p.store.flush();
        QVERIFY(p.store.isUnsaved(fresh.localId));
        lock.release();
        p.runs.remove(fresh.localId);
        QVERIFY(p.store.removeRun(fresh.localId));
        QVERIFY(!p.store.isUnsaved(fresh.localId));
        p.store.flush(); // the failed batch goes again, without the run
        QVERIFY2(p.store.writeError().isEmpty(), qPrintable(p.store.writeError()));
        RunStore reader;
        QVERIFY(reader.open(m_path));
        QVERIFY(!reader.loadRun(fresh.localId));
    }

    // A store of schema 5 (output as one row per run) moves to pieces and item rows.
    void migratesOutputRows()
    {
        {
            RunwatchTest::RawStore raw(m_path);
            const bool pg = RunwatchTest::onPostgres();
            for (
                const QString &sql :
                {u"DROP TABLE run_text"_s, u"DROP TABLE run_items"_s,
                 u"CREATE TABLE run_output (local_id TEXT PRIMARY KEY, primary_text TEXT, secondary TEXT)%1"_s
                     .arg(pg ? QString() : u" WITHOUT ROWID"_s),
                 u"INSERT INTO run_output VALUES ('live0001', 'Old text \U0001F600', "
                 "'[{\"id\":\"a\",\"kind\":\"tool_call\",\"text\":\"one\"},"
                 "{\"id\":\"b\",\"kind\":\"log\",\"text\":\"two\"}]')"_s,
                 pg ? u"UPDATE runwatch_schema SET version = 5"_s : u"PRAGMA user_version = 5"_s})
                QVERIFY2(raw.exec(sql), qPrintable(raw.error()));
        }
        Process p;
        QVERIFY(p.open(m_path));
        Run &run = p.load(u"live0001"_s);
        QCOMPARE(run.primaryText, u"Old text \U0001F600"_s);
        QCOMPARE(run.secondary.size(), 2);
        QCOMPARE(run.secondary.at(1).text, u"two"_s);
        run.primaryText += u"!"_s; // appends after the migrated piece (UTF-16 lengths)
        p.save(u"live0001"_s);
        RunStore reader;
        QVERIFY(reader.open(m_path));
        QCOMPARE(reader.loadRun(u"live0001"_s)->primaryText, u"Old text \U0001F600!"_s);
    }
};

QTEST_GUILESS_MAIN(TestRunWrites)
#include "tst_runwrites.moc"
