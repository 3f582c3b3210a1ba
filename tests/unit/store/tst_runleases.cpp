// SPDX-License-Identifier: GPL-3.0-or-later
// Schema 8 on both engines (tst_runleases_pg): a run's lease is one store's at a time, taken over
// when released or expired, renewed together; an input request's answer is claimed once, and
// freed again after a failed send; the operator journal keeps who did what, oldest first. A lease
// is let go only once the run's last state is in the store. Two stores on one database stand for
// two processes.
#include "store/runstore.h"
#include "teststore.h"

#include <QDeadlineTimer>
#include <QSignalSpy>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {
Run liveRun(const QString &localId)
{
    Run run;
    run.localId = localId;
    run.connection = u"local"_s;
    run.backend = u"openai"_s;
    run.baseUrl = u"http://127.0.0.1:9/v1"_s;
    run.remoteId = u"resp_"_s + localId;
    run.createdAt = QDateTime::fromMSecsSinceEpoch(1700000000123, Qt::UTC);
    run.updatedAt = run.createdAt;
    run.model = u"gpt-5"_s;
    run.prompt = u"Write a long novel about otters"_s;
    run.status = RunStatus::InProgress;
    run.rawStatus = u"in_progress"_s;
    run.primaryText = u"Once upon"_s;
    run.token.remoteId = run.remoteId;
    run.token.sequence = 3;
    return run;
}

// The run ended: its last text and status, as the holder's stream brought them.
Run ended(Run run)
{
    run.status = RunStatus::Completed;
    run.rawStatus = u"completed"_s;
    run.primaryText += u" a time. The end."_s;
    run.token.sequence = 9;
    run.finishedAt = run.createdAt.addSecs(60);
    return run;
}
} // namespace

class TestRunLeases final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_location;
    int m_count = 0;

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        QString error;
        m_location = RunwatchTest::freshStore(m_dir, u"leases%1"_s.arg(++m_count), &error);
        QVERIFY2(!m_location.isEmpty(), qPrintable(error));
    }

    void oneHolderAtATime()
    {
        RunStore a;
        RunStore b;
        QVERIFY2(a.open(m_location), qPrintable(a.errorString()));
        QVERIFY2(b.open(m_location), qPrintable(b.errorString()));
        QVERIFY(a.holderId() != b.holderId());
        QVERIFY(a.acquireLease(u"run1"_s));
        QVERIFY(a.acquireLease(u"run1"_s)); // renewing one's own
        std::optional<RunStore::LeaseHolder> other;
        QVERIFY(!b.acquireLease(u"run1"_s, &other));
        QVERIFY(other);
        QCOMPARE(other->holder, a.holderId());
        QCOMPARE(other->operatorName, RunStore::currentOperator().name);
        QCOMPARE(other->pid, QCoreApplication::applicationPid());
        // Another run is free.
        QVERIFY(b.acquireLease(u"run2"_s));
        const std::optional<QSet<QString>> held = a.renewLeases();
        QVERIFY(held);
        QCOMPARE(*held, QSet<QString>{u"run1"_s});
        a.releaseLease(u"run1"_s);
        QVERIFY(!b.leaseHolder(u"run2"_s).value_or(RunStore::LeaseHolder{}).holder.isEmpty());
        QVERIFY(!a.leaseHolder(u"run1"_s));
        QVERIFY(b.acquireLease(u"run1"_s));
        QVERIFY(!a.acquireLease(u"run1"_s));
        // Closing lets every lease go.
        b.close();
        QVERIFY(a.acquireLease(u"run1"_s));
        QVERIFY(a.acquireLease(u"run2"_s));
    }

    // A holder that stopped renewing (a process stalled or gone on another host) loses the run
    // once its lease has expired, and learns so at its next renewal.
    void expiredLeaseIsTakenOver()
    {
        RunStore a;
        RunStore b;
        openWithTwoLeases(a, b);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(!b.acquireLease(u"run1"_s));
        // Nothing lost: the renewal renewed both.
        const QSet<QString> ours{u"run1"_s, u"run2"_s};
        QCOMPARE(a.renewLeases(), ours);
        {
            RunwatchTest::RawStore raw(m_location);
            QVERIFY2(raw.exec(u"UPDATE run_leases SET expires_at = expires_at - 60000"_s),
                     qPrintable(raw.error()));
        }
        QVERIFY(!a.leaseHolder(u"run1"_s));
        QVERIFY(b.acquireLease(u"run1"_s));
        // The rows it renewed say which is left.
        const std::optional<QSet<QString>> held = a.renewLeases();
        QVERIFY(held);
        QCOMPARE(*held, QSet<QString>{u"run2"_s});
        QCOMPARE(a.leaseHolder(u"run1"_s)->holder, b.holderId());
        QCOMPARE(a.renewLeases(), QSet<QString>{u"run2"_s});
    }

    // The renewal on the store's lease thread (the front end's thread never waits for the
    // database): it tells which leases were lost, and leaves out one taken again after it was asked
    // for, whatever the keeper found by then.
    void renewalOnItsOwnThread()
    {
        RunStore a;
        RunStore b;
        openWithTwoLeases(a, b);
        if (QTest::currentTestFailed())
            return;
        QSignalSpy renewed(&a, &RunStore::leasesRenewed);
        const QSet<QString> ours{u"run1"_s, u"run2"_s};
        QVERIFY(a.requestLeaseRenewal(ours));
        QVERIFY(renewed.wait());
        QCOMPARE(renewed.takeFirst().at(0).toStringList(), QStringList());

        RunwatchTest::RawStore raw(m_location);
        QVERIFY2(raw.exec(u"UPDATE run_leases SET expires_at = expires_at - 60000"_s),
                 qPrintable(raw.error()));
        QVERIFY(b.acquireLease(u"run1"_s));
        QVERIFY(a.requestLeaseRenewal(ours)); // the last one is done: another may go
        QVERIFY(renewed.wait());
        QCOMPARE(renewed.takeFirst().at(0).toStringList(), QStringList{u"run1"_s});
        QCOMPARE(a.leaseHolder(u"run1"_s)->holder, b.holderId());

        // b lets run1 go; a asks for a renewal, and takes run1 again once the keeper has renewed
        // (run2's expiry moved) but before the answer is here: run1 is a's, not lost.
        b.releaseLease(u"run1"_s);
        QVERIFY(raw.exec(u"UPDATE run_leases SET expires_at = 1 WHERE local_id = 'run2'"_s));
        QVERIFY(a.requestLeaseRenewal(ours));
        QDeadlineTimer deadline(10'000);
        // Without the event loop (the answer must wait): the condition, polled.
        while (raw.value(u"SELECT expires_at FROM run_leases WHERE local_id = 'run2'"_s).toLongLong() == 1
               && !deadline.hasExpired()) {
            QThread::msleep(2);
        }
        QVERIFY(!deadline.hasExpired());
        QVERIFY(a.acquireLease(u"run1"_s));
        QVERIFY(renewed.wait());
        QCOMPARE(renewed.takeFirst().at(0).toStringList(), QStringList());
        QCOMPARE(a.leaseHolder(u"run1"_s)->holder, a.holderId());
    }

    // A holder on this host whose process is gone (killed) holds nothing, expired or not.
    void deadHolderOnThisHost()
    {
        RunStore a;
        QVERIFY(a.open(m_location));
        {
            RunwatchTest::RawStore raw(m_location);
            // A pid that is no process's (beyond Linux's pid_max).
            QVERIFY2(raw.exec(u"INSERT INTO run_leases (local_id, holder, operator, host, pid, expires_at) "
                              "VALUES ('run1', 'gone', 'mallory', '%1', 99999999, 99999999999999)"_s.arg(
                                  RunStore::currentOperator().host)),
                     qPrintable(raw.error()));
            QVERIFY(raw.exec(u"INSERT INTO run_leases (local_id, holder, operator, host, pid, expires_at) "
                             "VALUES ('run2', 'far', 'trent', 'another-host', 99999999, 99999999999999)"_s));
        }
        QVERIFY(a.acquireLease(u"run1"_s));
        // On another host: only its expiry tells.
        std::optional<RunStore::LeaseHolder> other;
        QVERIFY(!a.acquireLease(u"run2"_s, &other));
        QCOMPARE(other->operatorName, u"trent"_s);
        QCOMPARE(other->host, u"another-host"_s);
    }

    // A run ended by one process with its last state still queued for its store's writer: the
    // lease is let go only in the transaction that writes that state, so the other process never
    // finds the run free while the store still has it live (it would follow an ended run once
    // more). Once the lease is free, the run reads as ended.
    void releasedOnlyOnceTheLastStateIsStored()
    {
        RunStore a;
        RunStore b;
        QVERIFY2(a.open(m_location), qPrintable(a.errorString()));
        QVERIFY2(b.open(m_location), qPrintable(b.errorString()));
        a.setFlushInterval(600000); // nothing goes to the writer by itself
        const Run run = liveRun(u"run1"_s);
        QVERIFY(a.saveRun(run));
        QVERIFY(a.acquireLease(run.localId));
        a.scheduleSave(ended(run));
        a.releaseLease(run.localId);
        std::optional<RunStore::LeaseHolder> other;
        QVERIFY(!b.acquireLease(run.localId, &other));
        QVERIFY(other);
        QCOMPARE(other->holder, a.holderId());
        QCOMPARE(b.loadRun(run.localId)->status, RunStatus::InProgress);
        // Handed to the writer at once, not after the flush interval.
        QTRY_VERIFY_WITH_TIMEOUT(b.acquireLease(run.localId), 10000);
        const std::optional<Run> stored = b.loadRun(run.localId);
        QVERIFY(stored);
        QCOMPARE(stored->status, RunStatus::Completed);
        QCOMPARE(stored->primaryText, ended(run).primaryText);
        QCOMPARE(stored->token.sequence, 9);
        // A's writer has nothing of it left that could take B's lease away.
        a.flush();
        QCOMPARE(b.leaseHolder(run.localId)->holder, b.holderId());
    }

    // Quitting lets every lease go, likewise after the runs' last writes; a run with nothing
    // pending is let go at once.
    void releaseAllWaitsForTheLastWrites()
    {
        RunStore a;
        RunStore b;
        QVERIFY(a.open(m_location));
        QVERIFY(b.open(m_location));
        a.setFlushInterval(600000);
        const Run run = liveRun(u"run1"_s);
        QVERIFY(a.saveRun(run));
        QVERIFY(a.acquireLease(run.localId));
        QVERIFY(a.acquireLease(u"run2"_s));
        a.scheduleSave(ended(run));
        a.releaseAllLeases();
        QVERIFY(!b.acquireLease(run.localId));
        QVERIFY(!b.acquireLease(u"run2"_s));
        QTRY_VERIFY_WITH_TIMEOUT(b.acquireLease(run.localId), 10000);
        QCOMPARE(b.loadRun(run.localId)->status, RunStatus::Completed);
        QVERIFY(b.acquireLease(u"run2"_s));
        // Nothing pending: at once.
        QVERIFY(b.acquireLease(u"run3"_s));
        b.releaseAllLeases();
        QVERIFY(a.acquireLease(u"run3"_s));
    }

    // A lease taken again before its release reached the store (a follow-up right after the run
    // ended) stays taken: the release waiting for the run's write does not delete it later.
    void takenAgainBeforeTheReleaseWent()
    {
        RunStore a;
        RunStore b;
        QVERIFY(a.open(m_location));
        QVERIFY(b.open(m_location));
        a.setFlushInterval(600000);
        const Run run = liveRun(u"run1"_s);
        QVERIFY(a.saveRun(run));
        QVERIFY(a.acquireLease(run.localId));
        a.scheduleSave(ended(run));
        a.releaseLease(run.localId);
        QVERIFY(a.acquireLease(run.localId));
        a.flush();
        QCOMPARE(b.loadRun(run.localId)->status, RunStatus::Completed);
        QVERIFY(!b.acquireLease(run.localId));
        QCOMPARE(b.leaseHolder(run.localId)->holder, a.holderId());
        // Released after its write went: at once.
        a.releaseLease(run.localId);
        QVERIFY(b.acquireLease(run.localId));
    }

    // One read of the lease table tells a process which of the runs it tails are free: only live
    // leases are in it, with their holders.
    void leaseHoldersInOneRead()
    {
        RunStore a;
        RunStore b;
        RunStore c;
        QVERIFY(a.open(m_location));
        QVERIFY(b.open(m_location));
        QVERIFY(c.open(m_location));
        QVERIFY(a.acquireLease(u"run1"_s));
        QVERIFY(b.acquireLease(u"run2"_s));
        QVERIFY(b.acquireLease(u"run3"_s));
        {
            RunwatchTest::RawStore raw(m_location);
            QVERIFY2(
                raw.exec(u"UPDATE run_leases SET expires_at = expires_at - 60000 WHERE local_id = 'run3'"_s),
                qPrintable(raw.error()));
        }
        const std::optional<QHash<QString, RunStore::LeaseHolder>> holders = c.leaseHolders();
        QVERIFY(holders);
        QCOMPARE(holders->size(), 2);
        QCOMPARE(holders->value(u"run1"_s).holder, a.holderId());
        QCOMPARE(holders->value(u"run2"_s).holder, b.holderId());
        QCOMPARE(holders->value(u"run2"_s).pid, QCoreApplication::applicationPid());
        QVERIFY(!holders->contains(u"run3"_s));
        // Alive, on this host: not gone. A pid no process has: gone; on another host: unknown.
        QVERIFY(!RunStore::holderGone(holders->value(u"run1"_s)));
        RunStore::LeaseHolder dead = holders->value(u"run1"_s);
        dead.pid = 99999999;
        QVERIFY(RunStore::holderGone(dead));
        dead.host = u"another-host"_s;
        QVERIFY(!RunStore::holderGone(dead));
    }

    // What a process that shows another's runs reads on each batch of their changes: all of them
    // in one round, each from where its copy ends (only the new pieces of text), whole when the
    // stored text does not go on from the copy or the run just ended; a deleted one is missing.
    void changedRunsReadFromWhereTheCopyEnds()
    {
        RunStore a;
        RunStore b;
        QVERIFY(a.open(m_location));
        QVERIFY(b.open(m_location));
        Run one = liveRun(u"run1"_s);
        SecondaryItem item;
        item.id = u"rs1"_s;
        item.kind = SecondaryKind::Reasoning;
        item.text = u"Hm"_s;
        one.secondary.append(item);
        const Run two = liveRun(u"run2"_s);
        QVERIFY(a.saveRun(one));
        QVERIFY(a.saveRun(two));
        QHash<QString, Run> held;
        const RunStore::KnownRun known = [&held](const QString &id) -> const Run * {
            const auto it = held.constFind(id);
            return it == held.cend() ? nullptr : &*it;
        };
        std::optional<QHash<QString, Run>> read = b.loadChangedRuns({u"run1"_s, u"run2"_s, u"nope"_s}, known);
        QVERIFY2(read, qPrintable(b.errorString()));
        QCOMPARE(read->size(), 2);
        QCOMPARE(read->value(u"run1"_s).primaryText, u"Once upon"_s);
        QCOMPARE(read->value(u"run1"_s).secondary.size(), 1);
        QCOMPARE(read->value(u"run1"_s).secondary.at(0).text, u"Hm"_s);
        QCOMPARE(read->value(u"run2"_s).status, RunStatus::InProgress);
        held = *read;
        // The holder appends a piece. The copy here is told apart from the stored prefix of the
        // same length on purpose: what comes back is the copy and the new piece, so only the
        // piece was read.
        {
            RunwatchTest::RawStore raw(m_location);
            QVERIFY2(
                raw.exec(
                    u"INSERT INTO run_text (local_id, pos, len, text) VALUES ('run1', 9, 7, ' a time')"_s),
                qPrintable(raw.error()));
        }
        held[u"run1"_s].primaryText = u"ONCE UPON"_s;
        read = b.loadChangedRuns({u"run1"_s}, known);
        QVERIFY(read);
        QCOMPARE(read->value(u"run1"_s).primaryText, u"ONCE UPON a time"_s);
        QVERIFY(read->value(u"run1"_s).stored);
        QCOMPARE(read->value(u"run1"_s).stored->primaryText, u"ONCE UPON a time"_s);
        held = *read;
        // What a writer that replaces the text leaves: one piece from the start.
        const auto storeTextAsReplaced = [this](const QString &text) {
            RunwatchTest::RawStore raw(m_location);
            QSqlQuery q(raw.db());
            q.prepare(u"INSERT INTO run_text (local_id, pos, len, text) VALUES ('run1', 0, ?, ?)"_s);
            q.addBindValue(qint64(text.size()));
            q.addBindValue(text);
            return raw.exec(u"DELETE FROM run_text WHERE local_id = 'run1'"_s) && q.exec();
        };
        // Replaced by a text that does not begin with the copy: read whole.
        QVERIFY(storeTextAsReplaced(u"Twice upon a time..."_s));
        read = b.loadChangedRuns({u"run1"_s}, known);
        QVERIFY(read);
        QCOMPARE(read->value(u"run1"_s).primaryText, u"Twice upon a time..."_s);
        held = *read;
        // Shorter than the copy: whole.
        QVERIFY(storeTextAsReplaced(u"Twice"_s));
        read = b.loadChangedRuns({u"run1"_s}, known);
        QVERIFY(read);
        QCOMPARE(read->value(u"run1"_s).primaryText, u"Twice"_s);
        held = *read;
        // Ended: its text read whole once, whatever the copy here says.
        held[u"run1"_s].primaryText = u"TWICE"_s;
        {
            RunwatchTest::RawStore raw(m_location);
            QVERIFY(raw.exec(u"UPDATE runs SET status = 'completed' WHERE local_id = 'run1'"_s));
        }
        read = b.loadChangedRuns({u"run1"_s}, known);
        QVERIFY(read);
        QCOMPARE(read->value(u"run1"_s).status, RunStatus::Completed);
        QCOMPARE(read->value(u"run1"_s).primaryText, u"Twice"_s);
        // Deleted: missing from the answer.
        QVERIFY(a.removeRun(u"run2"_s));
        read = b.loadChangedRuns({u"run1"_s, u"run2"_s}, known);
        QVERIFY(read);
        QCOMPARE(read->keys(), QList<QString>{u"run1"_s});
        // Many at once (more than one round of statements).
        QStringList many;
        for (int i = 0; i < 1200; ++i) {
            Run run = liveRun(u"many%1"_s.arg(i));
            run.primaryText = u"text %1"_s.arg(i);
            QVERIFY(a.saveRun(run));
            many << run.localId;
        }
        read = b.loadChangedRuns(many, {});
        QVERIFY(read);
        QCOMPARE(read->size(), 1200);
        QCOMPARE(read->value(u"many1199"_s).primaryText, u"text 1199"_s);
    }

    // The same reads on the store's reader thread: what comes back is what the copies handed over
    // make of the stored runs (only the pieces past their end), a run's unwritten save wins, the
    // ids asked for come back with the answer, and a store closed meanwhile answers nothing.
    void changedRunsReadOnTheReaderThread()
    {
        RunStore a;
        RunStore b;
        QVERIFY(a.open(m_location));
        QVERIFY(b.open(m_location));
        QVERIFY(a.saveRun(liveRun(u"run1"_s)));
        QVERIFY(a.saveRun(liveRun(u"run2"_s)));
        {
            RunwatchTest::RawStore raw(m_location);
            QVERIFY2(
                raw.exec(
                    u"INSERT INTO run_text (local_id, pos, len, text) VALUES ('run1', 9, 7, ' a time')"_s),
                qPrintable(raw.error()));
        }
        QSignalSpy answered(&b, &RunStore::changedRunsRead);
        Run copy;
        copy.localId = u"run1"_s;
        copy.primaryText = u"ONCE UPON"_s; // not the stored prefix: only the new piece is read
        copy.outputLoaded = true;
        copy.status = RunStatus::InProgress;
        // Saved here and not written yet: as this process has it, not as the store does.
        Run unwritten = liveRun(u"run3"_s);
        unwritten.primaryText = u"not on disk yet"_s;
        b.scheduleSave(unwritten);
        const QStringList asked{u"run1"_s, u"run2"_s, u"run3"_s, u"nope"_s};
        QHash<QString, Run> held;
        held.insert(copy.localId, copy);
        QVERIFY(b.requestChangedRuns(asked, held));
        QVERIFY(answered.wait(10000));
        QCOMPARE(answered.size(), 1);
        QCOMPARE(answered.at(0).at(0).toStringList(), asked);
        QVERIFY(answered.at(0).at(2).toBool());
        using Runs = QHash<QString, Run>;
        const auto runs = answered.at(0).at(1).value<Runs>();
        QCOMPARE(runs.size(), 3);
        QCOMPARE(runs.value(u"run1"_s).primaryText, u"ONCE UPON a time"_s);
        QCOMPARE(runs.value(u"run2"_s).primaryText, u"Once upon"_s);
        QCOMPARE(runs.value(u"run3"_s).primaryText, u"not on disk yet"_s);
        // Closed before the answer came: nothing, and not ok.
        answered.clear();
        QVERIFY(b.requestChangedRuns({u"run1"_s}, {}));
        b.close();
        QVERIFY(answered.wait(10000));
        QVERIFY(!answered.at(0).at(2).toBool());
        QVERIFY(answered.at(0).at(1).value<Runs>().isEmpty());
        QVERIFY(!b.requestChangedRuns({u"run1"_s}, {}));
    }

    void answeredOnce()
    {
        qputenv("RUNWATCH_OPERATOR", "carol");
        RunStore a;
        RunStore b;
        QVERIFY(a.open(m_location));
        QVERIFY(b.open(m_location));
        const RunStore::AnswerClaim first = a.claimAnswer(u"run1"_s, u"req1"_s);
        QVERIFY(first.ours && !first.failed);
        qputenv("RUNWATCH_OPERATOR", "dave");
        const RunStore::AnswerClaim second = b.claimAnswer(u"run1"_s, u"req1"_s);
        QVERIFY(!second.ours && !second.failed);
        QCOMPARE(second.operatorName, u"carol"_s);
        QCOMPARE(second.host, RunStore::currentOperator().host);
        QVERIFY(second.at.isValid());
        QVERIFY(qAbs(second.at.secsTo(QDateTime::currentDateTimeUtc())) < 60);
        // Another request of the run is its own.
        QVERIFY(b.claimAnswer(u"run1"_s, u"req2"_s).ours);
        // Only the claimant frees it (after a failed send); then it can be answered again.
        b.releaseAnswer(u"run1"_s, u"req1"_s);
        QVERIFY(!b.claimAnswer(u"run1"_s, u"req1"_s).ours);
        a.releaseAnswer(u"run1"_s, u"req1"_s);
        QVERIFY(b.claimAnswer(u"run1"_s, u"req1"_s).ours);
        qunsetenv("RUNWATCH_OPERATOR");
    }

    void journal()
    {
        RunStore a;
        RunStore b;
        QVERIFY(a.open(m_location));
        QVERIFY(b.open(m_location));
        qputenv("RUNWATCH_OPERATOR", "dora");
        QVERIFY(a.addJournal(u"run1"_s, u"deadline"_s, u"2030-01-01T00:00:00Z, cancel"_s));
        qputenv("RUNWATCH_OPERATOR", "carl");
        QTest::qWait(5); // distinct milliseconds: the journal is ordered by time
        QVERIFY(b.addJournal(u"run1"_s, u"cancel"_s, {}));
        QVERIFY(b.addJournal(u"run2"_s, u"respond"_s, u"yes"_s));
        qunsetenv("RUNWATCH_OPERATOR");
        const QList<RunStore::JournalEntry> entries = a.journal(u"run1"_s);
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries.at(0).operatorName, u"dora"_s);
        QCOMPARE(entries.at(0).action, u"deadline"_s);
        QCOMPARE(entries.at(0).detail, u"2030-01-01T00:00:00Z, cancel"_s);
        QCOMPARE(entries.at(1).operatorName, u"carl"_s);
        QCOMPARE(entries.at(1).action, u"cancel"_s);
        QVERIFY(entries.at(0).at <= entries.at(1).at);
        QCOMPARE(entries.at(1).host, RunStore::currentOperator().host);
        // Deleting the run deletes its journal.
        QVERIFY(a.removeRun(u"run1"_s));
        QVERIFY(b.journal(u"run1"_s).isEmpty());
        QCOMPARE(b.journal(u"run2"_s).size(), 1);
    }

private:
    // `a` and `b` open on the store, `a` holding run1 and run2.
    void openWithTwoLeases(RunStore &a, RunStore &b)
    {
        QVERIFY(a.open(m_location));
        QVERIFY(b.open(m_location));
        QVERIFY(a.acquireLease(u"run1"_s));
        QVERIFY(a.acquireLease(u"run2"_s));
    }
};

QTEST_GUILESS_MAIN(TestRunLeases)
#include "tst_runleases.moc"
