// SPDX-License-Identifier: GPL-3.0-or-later
// RunManager's side of one follower per live run (issue 30), against a FakeBackend whose request
// count is the proof: a run another process follows and ends is shown ended here, never streamed
// once more — neither by taking over the lease that process let go, nor by a follow() of a copy
// read before it ended. A RunStore of its own on the same database stands for the other process.
// On SQLite and on PostgreSQL (tst_runleases_engine_pg).
#include "enginerig.h"
#include "fakebackend.h"
#include "fakeruns.h"
#include "store/runstore.h"
#include "teststore.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Runwatch;
using RunwatchTest::FakeBackend;
using RunwatchTest::FakeRig;
using RunwatchTest::waitFor;
using Op = RunwatchTest::FakeBackend::Op;

namespace {
// The run as its holder's stream ended it.
Run ended(Run run)
{
    run.status = RunStatus::Completed;
    run.rawStatus = statusName(run.status);
    run.primaryText += u" a time. The end."_s;
    run.token.sequence = 12;
    run.finishedAt = run.createdAt.addSecs(60);
    return run;
}
} // namespace

class TestRunLeasesEngine final : public QObject
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
        m_location = RunwatchTest::freshStore(m_dir, u"engine%1"_s.arg(++m_count), &error);
        QVERIFY2(!m_location.isEmpty(), qPrintable(error));
    }
    void cleanup()
    {
        QVERIFY(waitFor([] { return FakeBackend::liveRequests() == 0; }, 5000));
    }

    // The holder ends the run and lets it go while its last state still waits for its writer:
    // this process, tailing the run, must not find the lease free before that state is stored
    // (it would take over and stream an ended run once more); it shows the run ended instead.
    void tailedRunEndedByItsHolderIsNotStreamed()
    {
        RunStore holder;
        RunStore mine;
        QVERIFY2(holder.open(m_location), qPrintable(holder.errorString()));
        QVERIFY2(mine.open(m_location), qPrintable(mine.errorString()));
        holder.setFlushInterval(600000); // its writer gets the run's last state only when pushed
        const Run run = RunwatchTest::liveFakeRun(u"run1"_s);
        QVERIFY(holder.saveRun(run));
        QVERIFY(holder.acquireLease(run.localId));

        FakeRig rig;
        rig.manager.setStore(&mine);
        rig.manager.adoptRun(*mine.loadRun(run.localId), true);
        QVERIFY(rig.manager.isFollowing(run.localId));
        QVERIFY(!rig.manager.followedElsewhereBy(run.localId).isEmpty()); // tailed

        holder.scheduleSave(ended(run));
        holder.releaseLease(run.localId);
        QVERIFY(waitFor([&] {
            return isTerminal(rig.manager.run(run.localId)->status) || rig.backend->count(Op::Follow) > 0;
        }));
        QCOMPARE(rig.backend->count(Op::Follow), 0);
        QCOMPARE(rig.manager.run(run.localId)->status, RunStatus::Completed);
        QCOMPARE(rig.manager.run(run.localId)->primaryText, ended(run).primaryText);
        QVERIFY(!rig.manager.isFollowing(run.localId));
    }

    // A run known here as live (read before it ended) that its holder has ended and let go since:
    // follow() takes the free lease, reads the stored status again and does not stream it.
    void runEndedSinceItWasReadIsNotFollowed()
    {
        RunStore holder;
        RunStore mine;
        QVERIFY(holder.open(m_location));
        QVERIFY(mine.open(m_location));
        const Run run = RunwatchTest::liveFakeRun(u"run1"_s);
        QVERIFY(holder.saveRun(run));
        QVERIFY(holder.acquireLease(run.localId));

        FakeRig rig;
        rig.manager.setStore(&mine);
        rig.manager.adoptRun(*mine.loadRun(run.localId), false);
        QCOMPARE(rig.manager.run(run.localId)->status, RunStatus::InProgress);

        QVERIFY(holder.saveRun(ended(run)));
        holder.releaseLease(run.localId);
        QVERIFY(!mine.leaseHolder(run.localId));

        rig.manager.follow(run.localId);
        QCOMPARE(rig.manager.run(run.localId)->status, RunStatus::Completed);
        QCOMPARE(rig.manager.run(run.localId)->primaryText, ended(run).primaryText);
        QVERIFY(!rig.manager.isFollowing(run.localId));
        QCOMPARE(rig.backend->count(Op::Follow), 0);
        // Let go again: no one follows an ended run.
        QVERIFY(!mine.leaseHolder(run.localId));
    }

    // A lease this process lost while it stalled (it expired and another process took the run) is
    // learnt of at the next renewal: the run is shown from the store from then on and its stream
    // here ends; nothing is streamed twice.
    void lostLeaseEndsTheStreamHere()
    {
        RunStore mine;
        RunStore other;
        QVERIFY(mine.open(m_location));
        QVERIFY(other.open(m_location));
        const Run run = RunwatchTest::liveFakeRun(u"run1"_s);
        QVERIFY(mine.saveRun(run));

        FakeRig rig;
        rig.manager.setStore(&mine);
        rig.manager.adoptRun(*mine.loadRun(run.localId), true);
        QVERIFY(rig.manager.isFollowing(run.localId));
        QVERIFY(rig.manager.followedElsewhereBy(run.localId).isEmpty()); // followed here
        QVERIFY(waitFor([&] { return rig.backend->count(Op::Follow) == 1; }, 5000));

        {
            RunwatchTest::RawStore raw(m_location);
            QVERIFY2(raw.exec(u"UPDATE run_leases SET expires_at = expires_at - 60000"_s),
                     qPrintable(raw.error()));
        }
        QVERIFY(other.acquireLease(run.localId));
        QVERIFY(waitFor([&] { return !rig.manager.followedElsewhereBy(run.localId).isEmpty(); },
                        3 * RunStore::kLeaseRenewMs));
        QVERIFY(waitFor([] { return FakeBackend::liveRequests() == 0; }, 5000)); // its stream ended
        QCOMPARE(rig.backend->count(Op::Follow), 1);
        QCOMPARE(other.leaseHolder(run.localId)->holder, other.holderId());
    }
};

QTEST_GUILESS_MAIN(TestRunLeasesEngine)
#include "tst_runleases_engine.moc"
