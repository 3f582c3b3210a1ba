// SPDX-License-Identifier: GPL-3.0-or-later
// The cancel ladder (issue 31) in the engine, against a scripted backend: an accepted cancel the
// service does not confirm within the policy's time marks the run cancelUnconfirmed and offers
// the next step (stop watching; a stronger cancel where the backend has one); stop watching
// reads the run once more, ends it StoppedWatching with the server's last word in its timeline,
// and a later confirmation still lands; a confirmation in time changes nothing of that.
#include "enginerig.h"
#include "fakebackend.h"
#include "models/runactions.h"

#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Runwatch;
using namespace std::chrono_literals;
using RunwatchTest::FakeAnswer;
using RunwatchTest::FakeBackend;
using RunwatchTest::FakeRig;
using RunwatchTest::FakeStreamScript;
using RunwatchTest::waitFor;
using Op = RunwatchTest::FakeBackend::Op;

namespace {

constexpr auto kConfirmAfter = 150ms;

FollowPolicy ladderPolicy()
{
    FollowPolicy policy = RunwatchTest::quickFollowPolicy();
    policy.cancelConfirmAfter = kConfirmAfter;
    return policy;
}

RunEvent said(RunStatus status, const QString &raw)
{
    return RunEvent::statusChange(status, raw);
}

// A running run on the server, followed by a stream that stays open and never confirms.
QString runningRun(FakeRig &rig)
{
    Run run;
    run.localId = u"run1"_s;
    run.connection = rig.connectionName;
    run.backend = u"fake"_s;
    run.remoteId = u"r-run1"_s;
    run.token.remoteId = run.remoteId;
    run.token.streamable = true;
    run.status = RunStatus::InProgress;
    run.rawStatus = u"running"_s;
    rig.backend->queueFollow(FakeStreamScript::open());
    rig.manager.adoptRun(run, true);
    return run.localId;
}

const SecondaryItem *logItem(const Run &run, const QString &title)
{
    for (const SecondaryItem &item : run.secondary) {
        if (item.kind == SecondaryKind::Log && item.title == title)
            return &item;
    }
    return nullptr;
}

} // namespace

class TestCancelLadder final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void cleanup()
    {
        QVERIFY(waitFor([] { return FakeBackend::liveRequests() == 0; }, 5000));
    }

    // Never confirmed: after the bound the run is marked and stop watching is offered (no
    // stronger cancel without the capability); stopping records what the server said.
    void unconfirmedThenStopWatching()
    {
        FakeRig rig{RunwatchTest::kFakeStreaming, ladderPolicy()};
        const QString id = runningRun(rig);
        // The service accepts (202) and the job goes on; a read later still says "running".
        rig.backend->queueAnswer(Op::Cancel, FakeAnswer::ok({said(RunStatus::InProgress, u"running"_s)}));
        rig.backend->setDefaultAnswer(Op::Get,
                                      FakeAnswer::ok({said(RunStatus::InProgress, u"still_running"_s)}));
        QSignalSpy unconfirmed(&rig.manager, &RunManager::cancelUnconfirmed);
        QVERIFY(RunwatchTest::cancelAndWait(rig.manager, id).ok());
        const Run *run = rig.manager.run(id);
        QCOMPARE(run->status, RunStatus::Cancelling);
        QVERIFY(!run->cancelUnconfirmed);
        QVERIFY(!actionStateFor(*run, true).stopWatching);
        QElapsedTimer waited;
        waited.start();
        QVERIFY(unconfirmed.wait(5000));
        QVERIFY(waited.elapsed() >= kConfirmAfter.count() - 20); // not before the bound
        QCOMPARE(unconfirmed.first().first().toString(), id);
        run = rig.manager.run(id);
        QVERIFY(run->cancelUnconfirmed);
        QCOMPARE(run->status, RunStatus::Cancelling);
        RunActionState actions = actionStateFor(*run, true);
        QVERIFY(actions.stopWatching);
        QVERIFY(!actions.forceCancel);
        QVERIFY(!actions.cancel);

        QSignalSpy finished(&rig.manager, &RunManager::actionFinished);
        const int getsBefore = rig.backend->count(Op::Get);
        rig.manager.stopWatching(id, u"the job ignores cancels"_s);
        QVERIFY(waitFor([&] { return !finished.isEmpty(); }, 5000));
        QCOMPARE(finished.first().at(1).value<RunManager::Action>(), RunManager::Action::StopWatching);
        QVERIFY(finished.first().at(2).value<ActionResult>().ok());
        QCOMPARE(rig.backend->count(Op::Get), getsBefore + 1); // read once more first
        run = rig.manager.run(id);
        QCOMPARE(run->status, RunStatus::StoppedWatching);
        QVERIFY(run->isTerminal());
        QCOMPARE(run->rawStatus, u"still_running"_s); // the server's last word is kept
        QVERIFY(!rig.manager.isFollowing(id));
        const SecondaryItem *record = logItem(*run, u"stopped watching"_s);
        QVERIFY(record);
        QVERIFY2(record->text.contains(u"“still_running”"_s)
                     && record->text.contains(u"the job ignores cancels"_s),
                 qPrintable(record->text));
        QVERIFY(QRegularExpression(u"\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d"_s)
                    .match(record->text)
                    .hasMatch());
        QVERIFY(!actionStateFor(*run, false).stopWatching);

        // A later confirmation still lands: the service's own terminal status replaces ours.
        rig.backend->setDefaultAnswer(Op::Get, FakeAnswer::ok({said(RunStatus::Cancelled, u"canceled"_s)}));
        rig.manager.refreshRun(id);
        QVERIFY(waitFor([&] { return rig.manager.run(id)->status == RunStatus::Cancelled; }, 5000));
        QCOMPARE(rig.manager.run(id)->rawStatus, u"canceled"_s);
        rig.manager.shutdown();
    }

    // Confirmed in time: nothing is marked or offered.
    void confirmedInTime()
    {
        FakeRig rig{RunwatchTest::kFakeStreaming, ladderPolicy()};
        const QString id = runningRun(rig);
        rig.backend->queueAnswer(Op::Cancel, FakeAnswer::ok({said(RunStatus::InProgress, u"running"_s)}));
        rig.backend->setDefaultAnswer(Op::Get, FakeAnswer::ok({said(RunStatus::Cancelled, u"canceled"_s)}));
        QSignalSpy unconfirmed(&rig.manager, &RunManager::cancelUnconfirmed);
        QVERIFY(RunwatchTest::cancelAndWait(rig.manager, id).ok());
        rig.manager.refreshRun(id); // the service's confirmation, well within the bound
        QVERIFY(waitFor([&] { return rig.manager.run(id)->status == RunStatus::Cancelled; }, 5000));
        QTest::qWait(int(kConfirmAfter.count()) * 2);
        QVERIFY(unconfirmed.isEmpty());
        QVERIFY(!rig.manager.run(id)->cancelUnconfirmed);
        rig.manager.shutdown();
    }

    // Stop watching whose last read brings the confirmation: the run is cancelled, not stopped.
    void stopWatchingFindsConfirmation()
    {
        FakeRig rig{RunwatchTest::kFakeStreaming, ladderPolicy()};
        const QString id = runningRun(rig);
        rig.backend->queueAnswer(Op::Cancel, FakeAnswer::ok({said(RunStatus::InProgress, u"running"_s)}));
        QSignalSpy unconfirmed(&rig.manager, &RunManager::cancelUnconfirmed);
        QVERIFY(RunwatchTest::cancelAndWait(rig.manager, id).ok());
        QVERIFY(unconfirmed.wait(5000));
        rig.backend->setDefaultAnswer(Op::Get, FakeAnswer::ok({said(RunStatus::Cancelled, u"canceled"_s)}));
        QSignalSpy finished(&rig.manager, &RunManager::actionFinished);
        rig.manager.stopWatching(id, {});
        QVERIFY(waitFor([&] { return !finished.isEmpty(); }, 5000));
        const ActionResult result = finished.first().at(2).value<ActionResult>();
        QVERIFY(result.ok());
        QVERIFY2(result.note.contains(u"confirmed"_s), qPrintable(result.note));
        QCOMPARE(rig.manager.run(id)->status, RunStatus::Cancelled);
        QVERIFY(!logItem(*rig.manager.run(id), u"stopped watching"_s));
        rig.manager.shutdown();
    }

    // A backend with a stronger cancel: offered once unconfirmed; it restarts the wait.
    void forceCancelWhereOffered()
    {
        FakeRig rig{RunwatchTest::kFakeStreaming | Capability::ForceCancel, ladderPolicy()};
        const QString id = runningRun(rig);
        rig.backend->queueAnswer(Op::Cancel, FakeAnswer::ok({said(RunStatus::InProgress, u"running"_s)}));
        rig.backend->queueAnswer(Op::ForceCancel,
                                 FakeAnswer::ok({said(RunStatus::InProgress, u"terminating"_s)}));
        QSignalSpy unconfirmed(&rig.manager, &RunManager::cancelUnconfirmed);
        // Refused before the ordinary cancel: there is nothing to force yet.
        QSignalSpy finished(&rig.manager, &RunManager::actionFinished);
        rig.manager.forceCancelRun(id);
        QVERIFY(waitFor([&] { return !finished.isEmpty(); }, 5000));
        QVERIFY(!finished.takeFirst().at(2).value<ActionResult>().ok());
        QCOMPARE(rig.backend->count(Op::ForceCancel), 0);

        QVERIFY(RunwatchTest::cancelAndWait(rig.manager, id).ok());
        QVERIFY(unconfirmed.wait(5000));
        QVERIFY(actionStateFor(*rig.manager.run(id), true).forceCancel);
        finished.clear();
        rig.manager.forceCancelRun(id);
        QVERIFY(waitFor([&] { return !finished.isEmpty(); }, 5000));
        QCOMPARE(finished.first().at(1).value<RunManager::Action>(), RunManager::Action::ForceCancel);
        QVERIFY(finished.first().at(2).value<ActionResult>().ok());
        QCOMPARE(rig.backend->count(Op::ForceCancel), 1);
        const Run *run = rig.manager.run(id);
        QCOMPARE(run->status, RunStatus::Cancelling);
        QVERIFY(!run->cancelUnconfirmed); // waiting again
        QCOMPARE(run->rawStatus, u"terminating"_s);
        QVERIFY(unconfirmed.wait(5000)); // and, still not confirmed, offered again
        QCOMPARE(unconfirmed.size(), 2);
        rig.manager.shutdown();
    }
};

QTEST_GUILESS_MAIN(TestCancelLadder)
#include "tst_cancelladder.moc"
