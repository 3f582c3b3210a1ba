// SPDX-License-Identifier: GPL-3.0-or-later
// RunManager on its own, against a scripted FakeBackend (no network, no simulator): the
// operator's commands gated by capabilities and status, cancel's "cancelling" until the server
// answers, shutdown. (Following runs: tst_runmanager_follow.)
#include "enginerig.h"
#include "fakebackend.h"

#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Runwatch;
using namespace std::chrono_literals;
using RunwatchTest::error;
using RunwatchTest::FakeAnswer;
using RunwatchTest::FakeBackend;
using RunwatchTest::FakeRig;
using RunwatchTest::FakeStreamScript;
using RunwatchTest::identity;
using RunwatchTest::status;
using RunwatchTest::waitFor;
using Op = RunwatchTest::FakeBackend::Op;

namespace {

const Capabilities kStreaming = RunwatchTest::kFakeStreaming;

// A run known from the store: on the server as "r-<localId>", read up to sequence 7.
Run storedRun(const QString &localId, RunStatus s, bool streamable = true)
{
    Run run;
    run.localId = localId;
    run.connection = u"fake"_s;
    run.backend = u"fake"_s;
    run.remoteId = u"r-"_s + localId;
    run.token.remoteId = run.remoteId;
    run.token.sequence = 7;
    run.token.streamable = streamable;
    run.status = s;
    run.rawStatus = statusName(s);
    return run;
}

} // namespace

class TestRunManager final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cleanup()
    {
        // Every coroutine that awaited a fake (the engine's included) has run to its end.
        QVERIFY(waitFor([] { return FakeBackend::liveRequests() == 0; }, 5000));
    }

    void commandsGatedByCapabilityAndStatus_data();
    void commandsGatedByCapabilityAndStatus();
    void cancelShowsCancellingUntilTheServerAnswers();
    void shutdownEndsEverythingAndEmitsNothing();
    void attachShowsEarlierTurnsAsTheConversation();
};

namespace {

// One earlier turn of a conversation as a connector's get() gives it: named by `turn` in its
// identity's token extra, finished with `answer`.
EarlierTurn earlierTurn(const QString &turn, const QString &prompt, const QString &answer)
{
    RunEvent named = identity(u"conv-1"_s, -1);
    named.tokenExtra.insert(u"turn"_s, turn);
    EarlierTurn earlier;
    earlier.prompt = prompt;
    earlier.events << named << RunEvent::primarySnapshot(answer) << status(RunStatus::Completed);
    return earlier;
}

} // namespace

// Attach by the id of a conversation whose service keeps earlier turns (a managed agent session):
// each earlier turn becomes a finished run of its own, chained by parentId before the attached
// run, with its prompt and answer; the attached run takes its turn's prompt. A second attach
// makes nothing again.
void TestRunManager::attachShowsEarlierTurnsAsTheConversation()
{
    FakeRig rig;
    ActionResult state;
    RunEvent current = identity(u"conv-1"_s, -1);
    current.tokenExtra.insert(u"turn"_s, u"t3"_s);
    state.events << current << RunEvent::primarySnapshot(u"third answer"_s) << status(RunStatus::Completed);
    state.prompt = u"third question"_s;
    state.earlierTurns << earlierTurn(u"t1"_s, u"first question"_s, u"first answer"_s)
                       << earlierTurn(u"t2"_s, u"second question"_s, u"second answer"_s);
    FakeAnswer answer;
    answer.result = state;
    rig.backend->setDefaultAnswer(Op::Get, answer);
    QSignalSpy finished(&rig.manager, &RunManager::actionFinished);

    const QString id = rig.manager.attachRemoteRun(rig.connectionName, u"conv-1"_s);
    QVERIFY(!id.isEmpty());
    QVERIFY(waitFor([&] { return finished.count() == 1; }));
    QCOMPARE(rig.manager.runIds().size(), 3);
    const Run &third = rig.run(id);
    QCOMPARE(third.prompt, u"third question"_s);
    QCOMPARE(third.title, u"third question"_s);
    QCOMPARE(third.primaryText, u"third answer"_s);
    QVERIFY(!third.parentId.isEmpty());
    const Run &second = rig.run(third.parentId);
    QCOMPARE(second.prompt, u"second question"_s);
    QCOMPARE(second.primaryText, u"second answer"_s);
    QCOMPARE(second.status, RunStatus::Completed);
    QCOMPARE(second.remoteId, u"conv-1"_s);
    QCOMPARE(second.token.extra.value(u"turn"_s).toString(), u"t2"_s);
    QVERIFY(!second.parentId.isEmpty());
    const Run &first = rig.run(second.parentId);
    QCOMPARE(first.prompt, u"first question"_s);
    QCOMPARE(first.primaryText, u"first answer"_s);
    QVERIFY(first.parentId.isEmpty());
    // Oldest first, the attached run last: it stays the one a later attach of the id finds.
    QVERIFY(first.createdAt < second.createdAt && second.createdAt < third.createdAt);
    QVERIFY(!rig.manager.isFollowing(first.localId) && !rig.manager.isFollowing(second.localId));

    QCOMPARE(rig.manager.attachRemoteRun(rig.connectionName, u"conv-1"_s), id);
    QVERIFY(waitFor([&] { return finished.count() == 2; }));
    QCOMPARE(rig.manager.runIds().size(), 3);
    QCOMPARE(rig.backend->count(Op::Get), 2);
}

void TestRunManager::commandsGatedByCapabilityAndStatus_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<int>("capabilities");
    QTest::addColumn<int>("before");
    QTest::addColumn<bool>("hasRemote");
    QTest::addColumn<bool>("serverRefuses");
    QTest::addColumn<bool>("sent");
    QTest::addColumn<QString>("message"); // in the refusal's error or note; empty: ok, no note
    QTest::addColumn<int>("after");       // -1: the run is gone

    const int all = int(kStreaming);
    const int inProgress = int(RunStatus::InProgress);
    const int waiting = int(RunStatus::InputRequired);
    const int noCancel = int(kStreaming & ~Capabilities(Capability::Cancel));
    const int noDelete = int(kStreaming & ~Capabilities(Capability::Delete));
    const int noRespond = int(kStreaming & ~Capabilities(Capability::Respond));
    // clang-format off
    QTest::addRow("cancel: cannot cancel") << u"cancel"_s << noCancel << inProgress << true << false << false << u"cannot cancel"_s << inProgress;
    QTest::addRow("cancel: no server id") << u"cancel"_s << all << inProgress << false << false << false << u"no server id"_s << inProgress;
    QTest::addRow("cancel: already over") << u"cancel"_s << all << int(RunStatus::Completed) << true << false << false << u"already completed"_s << int(RunStatus::Completed);
    QTest::addRow("cancel: sent") << u"cancel"_s << all << inProgress << true << false << true << QString() << int(RunStatus::Cancelled);
    QTest::addRow("cancel: server refuses") << u"cancel"_s << all << inProgress << true << true << true << u"server says no"_s << inProgress;
    QTest::addRow("delete on server: cannot") << u"delete-server"_s << noDelete << int(RunStatus::Completed) << true << false << false << u"locally"_s << int(RunStatus::Completed);
    QTest::addRow("delete on server: sent") << u"delete-server"_s << all << int(RunStatus::Completed) << true << false << true << QString() << -1;
    QTest::addRow("delete on server: server refuses") << u"delete-server"_s << all << int(RunStatus::Completed) << true << true << true << u"server says no"_s << int(RunStatus::Completed);
    QTest::addRow("delete locally") << u"delete-local"_s << noDelete << inProgress << true << false << false << QString() << -1;
    QTest::addRow("respond: cannot") << u"respond"_s << noRespond << waiting << true << false << false << u"does not accept answers"_s << waiting;
    QTest::addRow("respond: sent") << u"respond"_s << all << waiting << true << false << true << QString() << inProgress;
    QTest::addRow("respond: server refuses") << u"respond"_s << all << waiting << true << true << true << u"server says no"_s << waiting;
    // clang-format on
}

void TestRunManager::commandsGatedByCapabilityAndStatus()
{
    QFETCH(QString, command);
    QFETCH(int, capabilities);
    QFETCH(int, before);
    QFETCH(bool, hasRemote);
    QFETCH(bool, serverRefuses);
    QFETCH(bool, sent);
    QFETCH(QString, message);
    QFETCH(int, after);
    FakeRig rig{Capabilities(capabilities)};
    const Op op = command == u"cancel"_s ? Op::Cancel : command == u"respond"_s ? Op::Respond : Op::Remove;
    // What the server says of the run: cancelled, or working on the answer (delete: nothing).
    QList<RunEvent> outcome;
    if (op != Op::Remove)
        outcome << status(op == Op::Cancel ? RunStatus::Cancelled : RunStatus::InProgress);
    rig.backend->queueAnswer(
        op, serverRefuses ? FakeAnswer::failed(error(ErrorKind::Conflict, u"server says no"_s, false))
                          : FakeAnswer::ok(outcome));
    Run stored = storedRun(u"run1"_s, RunStatus(before));
    if (!hasRemote) {
        stored.remoteId.clear();
        stored.token.remoteId.clear();
    }
    if (stored.status == RunStatus::InputRequired) {
        InputRequest question;
        question.prompt = u"Which city?"_s;
        stored.input = question;
    }
    rig.manager.adoptRun(stored, false);
    QSignalSpy removed(&rig.manager, &RunManager::runRemoved);

    InputAnswer answer;
    answer.text = u"Paris"_s;
    ActionResult result;
    if (op == Op::Cancel) {
        result = RunwatchTest::cancelAndWait(rig.manager, u"run1"_s, 5000);
    } else if (op == Op::Respond) {
        result = RunwatchTest::respondAndWait(rig.manager, u"run1"_s, answer, 5000);
    } else {
        result = RunwatchTest::deleteAndWait(rig.manager, u"run1"_s, command == u"delete-server"_s, 5000);
    }

    QVERIFY2(result.error.kind != ErrorKind::Timeout, "the engine did not report the command");
    QCOMPARE(rig.backend->count(op), sent ? 1 : 0);
    if (sent) {
        QCOMPARE(rig.backend->calls(op).first().token, stored.token);
        if (op == Op::Respond)
            QCOMPARE(rig.backend->calls(op).first().answer->text, u"Paris"_s);
    }
    const bool refused = sent ? serverRefuses : !message.isEmpty() && !message.startsWith(u"already"_s);
    QCOMPARE(result.ok(), !refused);
    if (refused) {
        QVERIFY2(result.error.message.contains(message), qPrintable(result.error.message));
    } else if (!message.isEmpty()) {
        QVERIFY2(result.note.contains(message), qPrintable(result.note));
    }
    if (refused && !sent)
        QCOMPARE(result.error.kind, ErrorKind::Client);
    if (after < 0) {
        QCOMPARE(removed.count(), 1);
        QVERIFY(!rig.manager.run(u"run1"_s));
    } else {
        QCOMPARE(removed.count(), 0);
        QVERIFY(rig.manager.run(u"run1"_s));
        QCOMPARE(rig.run(u"run1"_s).status, RunStatus(after));
    }
}

void TestRunManager::cancelShowsCancellingUntilTheServerAnswers()
{
    FakeRig rig;
    rig.backend->queueAnswer(Op::Cancel,
                             FakeAnswer::holding(FakeAnswer::ok({status(RunStatus::Cancelled)}).result));
    rig.backend->queueAnswer(
        Op::Cancel,
        FakeAnswer::holding(FakeAnswer::failed(error(ErrorKind::Server, u"later"_s, true)).result));
    rig.manager.adoptRun(storedRun(u"a"_s, RunStatus::InProgress), false);
    rig.manager.adoptRun(storedRun(u"b"_s, RunStatus::InProgress), false);
    QSignalSpy done(&rig.manager, &RunManager::actionFinished);

    rig.manager.cancelRun(u"a"_s);
    rig.manager.cancelRun(u"b"_s);
    // At once, before any answer: the operator sees that the cancel is under way.
    QCOMPARE(rig.run(u"a"_s).status, RunStatus::Cancelling);
    QCOMPARE(rig.run(u"b"_s).status, RunStatus::Cancelling);
    QVERIFY(waitFor([&] { return rig.backend->count(Op::Cancel) == 2; }));
    QCOMPARE(done.count(), 0);

    rig.backend->releaseHeld();
    QVERIFY(waitFor([&] { return done.count() == 2; }));
    QCOMPARE(rig.run(u"a"_s).status, RunStatus::Cancelled);
    // The refused cancel puts the run back as it was.
    QCOMPARE(rig.run(u"b"_s).status, RunStatus::InProgress);
    QCOMPARE(rig.run(u"b"_s).rawStatus, u"in_progress"_s);
}

void TestRunManager::shutdownEndsEverythingAndEmitsNothing()
{
    FakeRig rig(kStreaming);
    // "live": a stream that stays open. "backoff": its stream dropped, a reconnect is pending.
    // The server asks for a second's wait, so the reconnect is due in exactly a second: the
    // engine's own backoff is fully jittered and could come before the checks below look.
    rig.backend->queueStart(FakeStreamScript::open(
        {{identity(u"r-live"_s, 0), status(RunStatus::InProgress, 1), RunEvent::primaryDelta(u"x"_s, 2)}}));
    rig.backend->queueStart(FakeStreamScript::ending(
        {{identity(u"r-backoff"_s, 0), status(RunStatus::InProgress, 1)}}, StreamEnd::Reason::Error,
        error(ErrorKind::Network, u"connection reset"_s, true), 1000));
    // "polled": a status request the server never answers. "cancelled": a cancel likewise.
    rig.backend->setDefaultAnswer(Op::Get, FakeAnswer::holding());
    rig.backend->setDefaultAnswer(Op::Cancel, FakeAnswer::holding());

    const QString live = rig.start(u"live"_s);
    const QString backoff = rig.start(u"backoff"_s);
    rig.manager.adoptRun(storedRun(u"polled"_s, RunStatus::InProgress, false), true);
    rig.manager.adoptRun(storedRun(u"cancelled"_s, RunStatus::InProgress), false);
    rig.manager.cancelRun(u"cancelled"_s);
    QVERIFY(waitFor([&] {
        return rig.run(live).primaryText == u"x"_s && rig.backend->streams().at(1).reason
               && rig.backend->inFlight() == 2;
    }));
    QCOMPARE(rig.backend->openStreams(), 1);
    QVERIFY(rig.manager.isFollowing(backoff));

    QSignalSpy added(&rig.manager, &RunManager::runAdded);
    QSignalSpy changed(&rig.manager, &RunManager::runChanged);
    QSignalSpy applied(&rig.manager, &RunManager::runEventsApplied);
    QSignalSpy removed(&rig.manager, &RunManager::runRemoved);
    QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
    QSignalSpy finished(&rig.manager, &RunManager::actionFinished);
    const qsizetype callsBefore = rig.backend->calls().size();

    rig.manager.shutdown(1s);
    QVERIFY(rig.manager.isShutDown());
    QVERIFY(rig.backend->isShutDown());
    QCOMPARE(rig.backend->openStreams(), 0);
    QCOMPARE(rig.backend->streams().at(0).reason, StreamEnd::Reason::Aborted);
    for (const QString &id : rig.manager.runIds())
        QVERIFY(!rig.manager.isFollowing(id));
    // The requests in flight end (Cancelled) and the engine's coroutines unwind...
    QVERIFY(waitFor([&] { return rig.backend->inFlight() == 0; }, 5000));
    // ...and nothing happens afterwards: no reconnect (it was due within a second), no poll.
    QVERIFY(!waitFor([&] { return rig.backend->calls().size() > callsBefore; }, 1500));
    QCOMPARE(added.count(), 0);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(applied.count(), 0);
    QCOMPARE(removed.count(), 0);
    QCOMPARE(stopped.count(), 0);
    QCOMPARE(finished.count(), 0);
    QCOMPARE(rig.run(live).primaryText, u"x"_s);
}

QTEST_GUILESS_MAIN(TestRunManager)
#include "tst_runmanager.moc"
