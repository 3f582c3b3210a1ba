// SPDX-License-Identifier: GPL-3.0-or-later
// Schema 8 on both engines (tst_runleases_pg): a run's lease is one store's at a time, taken over
// when released or expired, renewed together; an input request's answer is claimed once, and
// freed again after a failed send; the operator journal keeps who did what, oldest first. Two
// stores on one database stand for two processes.
#include "store/runstore.h"
#include "teststore.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

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
        QVERIFY(a.open(m_location));
        QVERIFY(b.open(m_location));
        QVERIFY(a.acquireLease(u"run1"_s));
        QVERIFY(!b.acquireLease(u"run1"_s));
        {
            RunwatchTest::RawStore raw(m_location);
            QVERIFY2(raw.exec(u"UPDATE run_leases SET expires_at = expires_at - 60000"_s),
                     qPrintable(raw.error()));
        }
        QVERIFY(!a.leaseHolder(u"run1"_s));
        QVERIFY(b.acquireLease(u"run1"_s));
        const std::optional<QSet<QString>> held = a.renewLeases();
        QVERIFY(held);
        QVERIFY(held->isEmpty());
        QCOMPARE(a.leaseHolder(u"run1"_s)->holder, b.holderId());
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
};

QTEST_GUILESS_MAIN(TestRunLeases)
#include "tst_runleases.moc"
