// SPDX-License-Identifier: GPL-3.0-or-later
// RunManager following runs on its own, against a scripted FakeBackend (no network, no
// simulator): a streamed run to its end, reconnecting with backoff from the cursor, polling at the
// engine's pace, timer and webhook suspensions. (The operator's commands and shutdown:
// tst_runmanager.)
//
// Pace is measured on the fake's clock (when a request came, when the previous stream ended or
// the previous answer was delivered) against lower bounds the engine promises: its timers are
// precise and never fire early. Upper bounds are used only where they tell a reset from a
// backoff that would be several times longer.
#include "enginerig.h"
#include "fakebackend.h"

#include "domain/boundedwait.h"

#include <QElapsedTimer>
#include <QRegularExpression>
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
using RunwatchTest::waitTerminal;
using Op = RunwatchTest::FakeBackend::Op;

namespace {

const Capabilities kStreaming = RunwatchTest::kFakeStreaming;
const Capabilities kPollOnly = Capability::Start | Capability::Get | Capability::Cancel | Capability::Respond;

// Everything the engine applied as answer text, in order (duplicates would show twice).
QString appliedText(const QSignalSpy &applied)
{
    QString text;
    for (const QList<QVariant> &args : applied) {
        for (const RunEvent &e : args.at(1).value<QList<RunEvent>>()) {
            if (e.type == RunEvent::Type::PrimaryDelta)
                text += e.text;
        }
    }
    return text;
}

QString gaps(const QList<qint64> &values)
{
    QStringList out;
    for (qint64 v : values)
        out << QString::number(v);
    return out.join(u", "_s) + u" ms"_s;
}

} // namespace

class TestRunManagerFollow final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cleanup()
    {
        // Every coroutine that awaited a fake (the engine's included) has run to its end.
        QVERIFY(waitFor([] { return FakeBackend::liveRequests() == 0; }, 5000));
    }

    void followsAStreamedRunToTheEnd();
    void droppedStreamReconnectsWithBackoff();
    void keepsTryingWithoutABound();
    void givesUpAfterTheBoundWithoutProgress();
    void nonRetryableStreamErrorStopsFollowing();
    void pollsAtTheEnginesPace();
    void serverNamedWaitsAreClamped_data();
    void serverNamedWaitsAreClamped();
    void suspensionsThatResumeByThemselvesAreFollowed_data();
    void suspensionsThatResumeByThemselvesAreFollowed();
};

void TestRunManagerFollow::followsAStreamedRunToTheEnd()
{
    FakeRig rig;
    rig.backend->queueStart(
        FakeStreamScript::ending({{identity(u"r-1"_s, 0), status(RunStatus::InProgress, 1)},
                                  {RunEvent::primaryDelta(u"Hello "_s, 2)},
                                  {RunEvent::primaryDelta(u"world"_s, 3), status(RunStatus::Completed, 4)}},
                                 StreamEnd::Reason::Terminal));
    QSignalSpy applied(&rig.manager, &RunManager::runEventsApplied);
    QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);

    const QString id = rig.start(u"say hello"_s);
    // Nothing arrives inside startRun(): the run is queued and followed.
    QCOMPARE(rig.run(id).status, RunStatus::Queued);
    QVERIFY(rig.manager.isFollowing(id));
    QVERIFY(waitTerminal(rig.manager, id));
    QVERIFY(waitFor([&] { return !rig.manager.isFollowing(id); }));

    const Run &run = rig.run(id);
    QCOMPARE(run.status, RunStatus::Completed);
    QCOMPARE(run.primaryText, u"Hello world"_s);
    QCOMPARE(run.remoteId, u"r-1"_s);
    QCOMPARE(run.model, u"fake-model"_s);
    QCOMPARE(run.token.sequence, 4);
    QVERIFY(run.token.streamable);
    QVERIFY(!run.connectionLost);
    QVERIFY(!run.error.isError());
    QCOMPARE(appliedText(applied), u"Hello world"_s);
    QCOMPARE(stopped.count(), 0);
    // One request: the start, with the prompt and the local id as the client's run id.
    QCOMPARE(rig.backend->calls().size(), 1);
    const FakeBackend::Call start = rig.backend->calls(Op::Start).first();
    QCOMPARE(start.request.prompt, u"say hello"_s);
    QCOMPARE(start.request.clientRunId, id);
    QVERIFY(start.request.stream);
    QCOMPARE(rig.backend->streams().first().reason, StreamEnd::Reason::Terminal);
}

void TestRunManagerFollow::droppedStreamReconnectsWithBackoff()
{
    FollowPolicy policy = RunwatchTest::quickFollowPolicy();
    policy.reconnectInitial = 40ms;
    policy.reconnectMax = 10s;
    FakeRig rig(kStreaming, policy);
    const RunError reset = error(ErrorKind::Network, u"connection reset"_s, true);
    rig.backend->queueStart(FakeStreamScript::ending(
        {{identity(u"r-1"_s, 0), status(RunStatus::InProgress, 1), RunEvent::primaryDelta(u"a"_s, 2)}},
        StreamEnd::Reason::Eof));
    // Three drops without progress, the last asking for 500 ms; then a replay from before the
    // cursor with one new delta (progress); then the end.
    rig.backend->queueFollow(FakeStreamScript::ending({}, StreamEnd::Reason::Eof));
    rig.backend->queueFollow(FakeStreamScript::ending({}, StreamEnd::Reason::Eof));
    rig.backend->queueFollow(FakeStreamScript::ending({}, StreamEnd::Reason::Error, reset, 500));
    rig.backend->queueFollow(FakeStreamScript::ending(
        {{RunEvent::primaryDelta(u"a"_s, 2), RunEvent::primaryDelta(u"b"_s, 3)}}, StreamEnd::Reason::Eof));
    rig.backend->queueFollow(
        FakeStreamScript::ending({{status(RunStatus::Completed, 4)}}, StreamEnd::Reason::Terminal));
    QSignalSpy applied(&rig.manager, &RunManager::runEventsApplied);
    QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
    bool sawLost = false;
    connect(&rig.manager, &RunManager::runChanged, this,
            [&](const QString &id) { sawLost = sawLost || rig.manager.run(id)->connectionLost; });

    const QString id = rig.start(u"x"_s);
    QVERIFY(waitTerminal(rig.manager, id, 10000));
    const Run &run = rig.run(id);
    QCOMPARE(run.status, RunStatus::Completed);
    QCOMPARE(run.primaryText, u"ab"_s);
    QCOMPARE(appliedText(applied), u"ab"_s); // the replayed "a" was dropped, not shown twice
    QVERIFY(sawLost);
    QVERIFY(!run.connectionLost);
    QCOMPARE(stopped.count(), 0);

    const QList<FakeBackend::Call> follows = rig.backend->calls(Op::Follow);
    const QList<FakeBackend::StreamRecord> streams = rig.backend->streams();
    QCOMPARE(follows.size(), 5);
    QCOMPARE(streams.size(), 6);
    // Each reconnect resumes from the cursor the engine had applied.
    const QList<qint64> cursors{2, 2, 2, 2, 3};
    QList<qint64> waited;
    for (qsizetype i = 0; i < follows.size(); ++i) {
        QCOMPARE(follows[i].token.remoteId, u"r-1"_s);
        QCOMPARE(follows[i].token.sequence, cursors[i]);
        waited << follows[i].atMs - streams[i].endedMs;
    }
    // Full jitter: anywhere up to 40 ms doubling per failure (40, 80, 160); the server's 500 ms
    // wins over the 320 ceiling; the progress before the fifth drop starts again at 40 (a backoff
    // would allow up to 640). Upper bounds with room for a loaded machine.
    const QList<qint64> atMost{40, 80, 160, 320, 40};
    for (qsizetype i = 0; i < waited.size(); ++i) {
        if (i == 3) {
            QVERIFY2(waited[i] >= 499, qPrintable(u"reconnect before Retry-After: "_s + gaps(waited)));
            continue;
        }
        QVERIFY2(waited[i] <= atMost[i] + 250,
                 qPrintable(u"reconnect %1 too late: "_s.arg(i + 1) + gaps(waited)));
    }
}

void TestRunManagerFollow::keepsTryingWithoutABound()
{
    // Far beyond the old bound of 8 tries: 60 drops without progress, each one shown on the run
    // ("reconnecting, next try in N s"), then the run ends normally.
    FollowPolicy policy = RunwatchTest::quickFollowPolicy();
    policy.reconnectInitial = 1ms;
    policy.reconnectMax = 3ms;
    FakeRig rig(kStreaming, policy);
    rig.backend->queueStart(FakeStreamScript::ending(
        {{identity(u"r-1"_s, 0), status(RunStatus::InProgress, 1)}}, StreamEnd::Reason::Eof));
    const RunError refused = error(ErrorKind::Network, u"connection refused"_s, true);
    constexpr int kDrops = 60;
    for (int i = 0; i < kDrops; ++i)
        rig.backend->queueFollow(FakeStreamScript::ending({}, StreamEnd::Reason::Error, refused));
    rig.backend->queueFollow(
        FakeStreamScript::ending({{RunEvent::primaryDelta(u"back"_s, 2), status(RunStatus::Completed, 3)}},
                                 StreamEnd::Reason::Terminal));
    QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
    int maxTries = 0;
    bool announced = true;
    QString lastReason;
    connect(&rig.manager, &RunManager::runChanged, this, [&](const QString &id) {
        const Run *run = rig.manager.run(id);
        if (!run->connectionLost)
            return;
        maxTries = std::max(maxTries, run->failedTries);
        announced = announced && run->nextTryAt.isValid() && !run->lostReason.isEmpty();
        lastReason = run->lostReason;
    });
    const QString id = rig.start(u"x"_s);
    QVERIFY(waitTerminal(rig.manager, id, 10000));
    QCOMPARE(rig.run(id).primaryText, u"back"_s);
    QCOMPARE(stopped.count(), 0);
    QCOMPARE(maxTries, kDrops + 1); // the first clean drop, then every refusal
    QVERIFY(announced);
    QCOMPARE(lastReason, u"connection refused"_s);
    QVERIFY(!rig.run(id).connectionLost);
    QCOMPARE(rig.run(id).failedTries, 0);
    QVERIFY(!rig.run(id).nextTryAt.isValid());
}

void TestRunManagerFollow::givesUpAfterTheBoundWithoutProgress()
{
    FollowPolicy policy = RunwatchTest::quickFollowPolicy();
    policy.reconnectInitial = 5ms;
    policy.reconnectMax = 20ms;
    policy.giveUpAfter = 300ms;
    FakeRig rig(kStreaming, policy);
    rig.backend->queueStart(FakeStreamScript::ending(
        {{identity(u"r-1"_s, 0), status(RunStatus::InProgress, 1)}}, StreamEnd::Reason::Eof));
    for (int i = 0; i < 1000; ++i)
        rig.backend->queueFollow(FakeStreamScript::ending({}, StreamEnd::Reason::Eof));
    QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
    QElapsedTimer clock;
    clock.start();
    const QString id = rig.start(u"x"_s);
    QVERIFY(stopped.wait(5000));
    QVERIFY2(clock.elapsed() >= 300, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(stopped.first().at(0).toString(), id);
    const RunError given = stopped.first().at(1).value<RunError>();
    QCOMPARE(given.kind, ErrorKind::Network);
    QCOMPARE(given.code, u"gave_up"_s);
    QVERIFY(given.retryable);
    QVERIFY2(given.message.startsWith(u"Stopped following after 0."_s), qPrintable(given.message));
    QVERIFY2(given.message.endsWith(u"The event stream ended before the run did."_s),
             qPrintable(given.message));
    QVERIFY(rig.backend->count(Op::Follow) > 3);
    QCOMPARE(rig.run(id).error, given);
    QCOMPARE(rig.run(id).status, RunStatus::InProgress);
    QVERIFY(!rig.run(id).connectionLost);
    QVERIFY(!rig.manager.isFollowing(id));
}

void TestRunManagerFollow::nonRetryableStreamErrorStopsFollowing()
{
    FakeRig rig;
    const RunError denied = error(ErrorKind::Auth, u"key revoked"_s, false);
    rig.backend->queueStart(FakeStreamScript::ending(
        {{identity(u"r-1"_s, 0), status(RunStatus::InProgress, 1)}}, StreamEnd::Reason::Error, denied));
    QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
    const QString id = rig.start(u"x"_s);
    QVERIFY(stopped.wait(5000));
    QCOMPARE(stopped.first().at(1).value<RunError>(), denied);
    QCOMPARE(rig.run(id).error, denied);
    QVERIFY(!rig.manager.isFollowing(id));
    QCOMPARE(rig.backend->count(Op::Follow), 0);
    QCOMPARE(rig.backend->count(Op::Get), 0);
}

void TestRunManagerFollow::pollsAtTheEnginesPace()
{
    FollowPolicy policy = RunwatchTest::quickFollowPolicy();
    policy.pollInitial = 40ms;
    policy.pollMax = 640ms;
    FakeRig rig(kPollOnly, policy);
    rig.backend->queueStart(FakeStreamScript::ending(
        {{identity(u"r-1"_s, -1, false), status(RunStatus::Queued)}}, StreamEnd::Reason::Eof));
    RunError busy = error(ErrorKind::Server, u"busy"_s, true);
    busy.httpStatus = 503;
    FakeAnswer unavailable = FakeAnswer::failed(busy);
    unavailable.result.retryAfterMs = 300;
    const QList<FakeAnswer> answers{
        FakeAnswer::ok({status(RunStatus::InProgress)}, 250), // progress, but the server asks for 250 ms
        unavailable,                                          // a failure that asks for 300 ms
        FakeAnswer::ok({status(RunStatus::InProgress)}),      // nothing new: 40 ms doubles…
        FakeAnswer::ok({status(RunStatus::InProgress)}),
        FakeAnswer::ok({status(RunStatus::InProgress)}),
        FakeAnswer::ok({RunEvent::primarySnapshot(u"part"_s)}), // …until progress resets it
        FakeAnswer::ok({RunEvent::primarySnapshot(u"part of it"_s), status(RunStatus::Completed)}),
    };
    for (const FakeAnswer &a : answers)
        rig.backend->queueAnswer(Op::Get, a);
    bool sawLost = false;
    connect(&rig.manager, &RunManager::runChanged, this,
            [&](const QString &id) { sawLost = sawLost || rig.manager.run(id)->connectionLost; });

    const QString id = rig.start(u"x"_s, false);
    QVERIFY(waitTerminal(rig.manager, id, 10000));
    QCOMPARE(rig.run(id).primaryText, u"part of it"_s);
    QVERIFY(sawLost);
    QVERIFY(!rig.run(id).connectionLost);
    QCOMPARE(rig.backend->count(Op::Follow), 0); // never streamed: the backend cannot
    QCOMPARE(rig.backend->maxInFlight(Op::Get), 1);

    const QList<FakeBackend::Call> polls = rig.backend->calls(Op::Get);
    QCOMPARE(polls.size(), answers.size());
    QList<qint64> waited;
    for (qsizetype i = 1; i < polls.size(); ++i) {
        QVERIFY(polls[i].atMs >= polls[i - 1].answeredMs); // one at a time
        waited << polls[i].atMs - polls[i - 1].answeredMs;
    }
    // Never before Retry-After, never before pollInitial less the jitter (30 ms); 60, 120, 240
    // while nothing changes; back to 30–40 after progress (a backoff would wait at least 480).
    const QList<qint64> atLeast{250, 300, 60, 120, 240, 30};
    for (qsizetype i = 0; i < waited.size(); ++i)
        QVERIFY2(waited[i] >= atLeast[i] - 1, qPrintable(u"poll %1 too early: "_s.arg(i + 2) + gaps(waited)));
    QVERIFY2(waited[5] < 400, qPrintable(u"poll backoff not reset by progress: "_s + gaps(waited)));
}

void TestRunManagerFollow::serverNamedWaitsAreClamped_data()
{
    QTest::addColumn<qint64>("retryAfterMs");
    QTest::addColumn<bool>("failing");
    const qint64 thirtyDays = 30LL * 24 * 3600 * 1000;
    // QTimer narrows to int: 2^32 ms became 0 (166 polls in 7 s), 30 days a negative interval
    // ("Timers cannot have negative intervals", never retried).
    QTest::newRow("2^32 ms, poll") << (qint64(1) << 32) << false;
    QTest::newRow("30 days, poll") << thirtyDays << false;
    QTest::newRow("2^32 ms, failure") << (qint64(1) << 32) << true;
    QTest::newRow("30 days, failure") << thirtyDays << true;
}

void TestRunManagerFollow::serverNamedWaitsAreClamped()
{
    QFETCH(qint64, retryAfterMs);
    QFETCH(bool, failing);
    QTest::failOnWarning(QRegularExpression(u"Timers cannot|negative interval"_s));
    FakeRig rig(kPollOnly, RunwatchTest::quickFollowPolicy()); // no give-up bound
    rig.backend->queueStart(FakeStreamScript::ending(
        {{identity(u"r-1"_s, -1, false), status(RunStatus::Queued)}}, StreamEnd::Reason::Eof));
    RunError busy = error(ErrorKind::Server, u"busy"_s, true);
    busy.httpStatus = 503;
    FakeAnswer answer = failing ? FakeAnswer::failed(busy) : FakeAnswer::ok({status(RunStatus::InProgress)});
    answer.result.retryAfterMs = retryAfterMs;
    rig.backend->queueAnswer(Op::Get, answer);
    rig.backend->queueAnswer(Op::Get, FakeAnswer::ok({status(RunStatus::Completed)}));

    const QString id = rig.start(u"x"_s, false);
    QVERIFY(waitFor([&] { return rig.backend->count(Op::Get) == 1; }, 5000));
    const QDateTime answeredAt = QDateTime::currentDateTimeUtc();
    // One wait, and a long one: no second poll while the event loop turns for a while.
    QVERIFY(!waitFor([&] { return rig.backend->count(Op::Get) > 1; }, 600));
    QCOMPARE(rig.run(id).status, failing ? RunStatus::Queued : RunStatus::InProgress);
    if (failing) {
        // The wait the run shows is the clamped one: a day, not 30 days or 49.7 days.
        const Run &run = rig.run(id);
        QVERIFY(run.connectionLost);
        const qint64 shown = answeredAt.msecsTo(run.nextTryAt);
        QVERIFY2(std::abs(shown - kMaxTimerWait.count()) < 60'000, qPrintable(QString::number(shown)));
    }
    rig.manager.stopFollowing(id);
}

void TestRunManagerFollow::suspensionsThatResumeByThemselvesAreFollowed_data()
{
    QTest::addColumn<int>("reason");
    QTest::addColumn<bool>("streamed");
    QTest::addColumn<bool>("followed");
    QTest::addRow("timer, streamed") << int(InputReason::Timer) << true << true;
    QTest::addRow("webhook, streamed") << int(InputReason::Webhook) << true << true;
    QTest::addRow("timer, polled") << int(InputReason::Timer) << false << true;
    QTest::addRow("webhook, polled") << int(InputReason::Webhook) << false << true;
    QTest::addRow("question, streamed") << int(InputReason::Question) << true << false;
    QTest::addRow("approval, polled") << int(InputReason::Approval) << false << false;
}

void TestRunManagerFollow::suspensionsThatResumeByThemselvesAreFollowed()
{
    QFETCH(int, reason);
    QFETCH(bool, streamed);
    QFETCH(bool, followed);
    FollowPolicy policy = RunwatchTest::quickFollowPolicy();
    policy.reconnectInitial = 10ms;
    policy.pollInitial = 10ms;
    FakeRig rig(streamed ? kStreaming : kPollOnly, policy);
    InputRequest request;
    request.reason = InputReason(reason);
    request.prompt = u"wait"_s;
    request.deadline = QDateTime::currentDateTimeUtc().addSecs(1);
    request.callbackUrl = u"https://ci.example/hook"_s;
    if (streamed) {
        rig.backend->queueStart(
            FakeStreamScript::ending({{identity(u"r-1"_s, 0), status(RunStatus::InProgress, 1)},
                                      {RunEvent::inputRequired(request, 2)}},
                                     StreamEnd::Reason::Terminal));
        rig.backend->queueFollow(FakeStreamScript::ending(
            {{status(RunStatus::InProgress, 3), RunEvent::primaryDelta(u"resumed"_s, 4)},
             {status(RunStatus::Completed, 5)}},
            StreamEnd::Reason::Terminal));
    } else {
        rig.backend->queueStart(FakeStreamScript::ending(
            {{identity(u"r-1"_s, -1, false), status(RunStatus::Queued)}}, StreamEnd::Reason::Eof));
        rig.backend->queueAnswer(Op::Get, FakeAnswer::ok({RunEvent::inputRequired(request)}));
        rig.backend->queueAnswer(Op::Get, FakeAnswer::ok({status(RunStatus::InProgress),
                                                          RunEvent::primarySnapshot(u"resumed"_s)}));
        rig.backend->queueAnswer(Op::Get, FakeAnswer::ok({status(RunStatus::Completed)}));
    }
    const Op next = streamed ? Op::Follow : Op::Get;
    const int asked = streamed ? 0 : 1; // requests that brought the suspension
    Run suspended;
    suspended.status = RunStatus::InputRequired;
    suspended.input = request;
    QCOMPARE(RunManager::needsFollowing(suspended), followed);
    // The suspension may last only until the next reconnect or poll: seen as it is applied.
    std::optional<InputReason> seen;
    connect(&rig.manager, &RunManager::runChanged, this, [&](const QString &rid) {
        const Run *r = rig.manager.run(rid);
        if (r && r->status == RunStatus::InputRequired && r->input)
            seen = r->input->reason;
    });

    const QString id = rig.start(u"x"_s, streamed);
    if (!followed) {
        QVERIFY(waitFor([&] { return seen && !rig.manager.isFollowing(id); }));
        QCOMPARE(*seen, InputReason(reason));
        // Bounded: a follow-up would come within the 10 ms interval; none may come at all.
        QVERIFY(!waitFor([&] { return rig.backend->count(next) > asked; }, 300));
        QCOMPARE(rig.run(id).status, RunStatus::InputRequired);
        return;
    }
    QVERIFY(waitTerminal(rig.manager, id));
    QCOMPARE(seen, std::optional(InputReason(reason)));
    QCOMPARE(rig.run(id).status, RunStatus::Completed);
    QCOMPARE(rig.run(id).primaryText, u"resumed"_s);
    QVERIFY(!rig.run(id).input);
    // Followed on from where the suspension was.
    QCOMPARE(rig.backend->count(next), asked + (streamed ? 1 : 2));
    if (streamed)
        QCOMPARE(rig.backend->calls(Op::Follow).first().token.sequence, qint64(2));
}

QTEST_GUILESS_MAIN(TestRunManagerFollow)
#include "tst_runmanager_follow.moc"
