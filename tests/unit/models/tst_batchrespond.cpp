// SPDX-License-Identifier: GPL-3.0-or-later
// Answering several runs at once (core/models/batchrespond.h): which runs wait for "the same
// kind" of request, whether an answer fits a run, the selection's Respond, and BatchResponder
// sending one answer per run through the engine against a scripted backend — a refusal by the
// service is that run's outcome (it stays waiting, its timeline says why), the others go on.
#include "enginerig.h"
#include "fakebackend.h"
#include "models/batchrespond.h"
#include "models/runactions.h"

#include <QSignalSpy>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::FakeAnswer;
using RunwatchTest::FakeRig;
using RunwatchTest::listedRun;
using Op = RunwatchTest::FakeBackend::Op;

namespace {

Run waiting(const QString &id, InputReason reason, const QString &prompt, const QStringList &options = {})
{
    Run r = listedRun(id, RunStatus::InputRequired, u"Run "_s + id);
    r.capabilities |= Capability::Respond;
    InputRequest in;
    in.reason = reason;
    in.prompt = prompt;
    in.options = options;
    r.input = in;
    return r;
}

ToolCallRequest call(const QString &id, const QString &name, bool approval)
{
    ToolCallRequest c;
    c.id = id;
    c.name = name;
    c.approval = approval;
    return c;
}

InputAnswer answerOf(InputAnswer::Kind kind, const QString &text = {})
{
    InputAnswer a;
    a.kind = kind;
    a.text = text;
    a.choice = text;
    return a;
}

} // namespace

class TestBatchRespond final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void cleanup()
    {
        QVERIFY(RunwatchTest::waitFor([] { return RunwatchTest::FakeBackend::liveRequests() == 0; }, 5000));
    }

    // "The same kind": every approval; a question word for word; options with the same list.
    void sameKind()
    {
        const Run a1 = waiting(u"a1"_s, InputReason::Approval, u"Manager approval needed"_s);
        const Run a2 = waiting(u"a2"_s, InputReason::Approval, u"Director approval needed"_s);
        QCOMPARE(batchKeyFor(a1), batchKeyFor(a2));
        QCOMPARE(batchKindOf(batchKeyFor(a1)), BatchKind::Approval);

        const Run q1 = waiting(u"q1"_s, InputReason::Question, u"Which region?"_s);
        const Run q2 = waiting(u"q2"_s, InputReason::Question, u" Which region? "_s);
        const Run q3 = waiting(u"q3"_s, InputReason::Question, u"Which country?"_s);
        QCOMPARE(batchKeyFor(q1), batchKeyFor(q2));
        QVERIFY(batchKeyFor(q1) != batchKeyFor(q3));
        QVERIFY(batchKeyFor(q1) != batchKeyFor(a1));

        const Run o1 = waiting(u"o1"_s, InputReason::Options, u"How deep?"_s, {u"quick"_s, u"deep"_s});
        const Run o2 = waiting(u"o2"_s, InputReason::Options, u"How deep?"_s, {u"quick"_s, u"deep"_s});
        const Run o3 = waiting(u"o3"_s, InputReason::Options, u"How deep?"_s, {u"deep"_s, u"quick"_s});
        QCOMPARE(batchKeyFor(o1), batchKeyFor(o2));
        QVERIFY(batchKeyFor(o1) != batchKeyFor(o3));
        QCOMPARE(batchKindOf(batchKeyFor(o1)), BatchKind::Choice);

        // Particular to each run: typed forms, tool outputs, sign-ins; and nothing for a timer.
        Run form = waiting(u"f"_s, InputReason::Question, u"Fill in"_s);
        form.input->schema = QJsonObject{{u"type"_s, u"object"_s}};
        QVERIFY(batchKeyFor(form).isEmpty());
        Run tools = waiting(u"t"_s, InputReason::ToolOutput, {});
        tools.input->toolCalls = {call(u"c1"_s, u"f"_s, false)};
        QVERIFY(batchKeyFor(tools).isEmpty());
        QVERIFY(batchKeyFor(waiting(u"s"_s, InputReason::Auth, u"Sign in"_s)).isEmpty());
        QVERIFY(batchKeyFor(waiting(u"tm"_s, InputReason::Timer, u"Wait"_s)).isEmpty());
        QVERIFY(batchKeyFor(listedRun(u"r"_s, RunStatus::InProgress, u"R"_s)).isEmpty());

        // Approval-only tool calls are approvals; a review that allows one decision says so.
        Run mcp = waiting(u"m"_s, InputReason::ToolOutput, {});
        ToolCallRequest deploy = call(u"c1"_s, u"deploy"_s, true);
        deploy.rejectAllowed = false;
        mcp.input->toolCalls = {deploy};
        QCOMPARE(batchKeyFor(mcp), batchKeyFor(a1));
        const std::optional<BatchRequest> batch = batchRequestFor({a1, mcp});
        QVERIFY(batch);
        QVERIFY(batch->approveAllowed);
        QVERIFY(!batch->rejectAllowed);
        QCOMPARE(batch->runIds, (QStringList{u"a1"_s, u"m"_s}));
        QVERIFY(!batchAnswerMismatch(mcp, answerOf(InputAnswer::Kind::Reject)).isEmpty());
    }

    void batchOfSelection()
    {
        const Run a1 = waiting(u"a1"_s, InputReason::Approval, u"OK?"_s);
        const Run a2 = waiting(u"a2"_s, InputReason::Approval, u"OK?"_s);
        const Run q1 = waiting(u"q1"_s, InputReason::Question, u"Which region?"_s);
        QString why;
        QVERIFY(!batchRequestFor({a1}, &why));
        QVERIFY(!why.isEmpty());
        QVERIFY(!batchRequestFor({a1, q1}, &why));
        QVERIFY2(why.contains(u"different"_s), qPrintable(why));
        const std::optional<BatchRequest> batch = batchRequestFor({a1, a2}, &why);
        QVERIFY(batch);
        QCOMPARE(batch->kind, BatchKind::Approval);
        QCOMPARE(batch->prompt, u"OK?"_s);

        // The selection's Respond: one run, or several with the same key.
        const auto state = [](const Run &r) { return actionStateFor(r, false); };
        QVERIFY(actionStateForSelection({state(a1), state(a2)}).respond);
        QVERIFY(!actionStateForSelection({state(a1), state(q1)}).respond);
        const Run done = listedRun(u"d"_s, RunStatus::Completed, u"D"_s);
        QVERIFY(!actionStateForSelection({state(a1), state(done)}).respond);
        Run noRespond = a2;
        noRespond.capabilities &= ~Capabilities(Capability::Respond);
        QVERIFY(!actionStateForSelection({state(a1), state(noRespond)}).respond);
        QVERIFY(actionStateForSelection({state(q1)}).respond);
    }

    // An answer that does not fit a run is that run's refusal (the CLI's ok:false line).
    void answerFits()
    {
        const Run a = waiting(u"a"_s, InputReason::Approval, u"OK?"_s);
        const Run q = waiting(u"q"_s, InputReason::Question, u"Which region?"_s);
        const Run o = waiting(u"o"_s, InputReason::Options, u"How deep?"_s, {u"quick"_s, u"deep"_s});
        QVERIFY(batchAnswerMismatch(a, answerOf(InputAnswer::Kind::Approve)).isEmpty());
        QVERIFY(batchAnswerMismatch(a, answerOf(InputAnswer::Kind::Reject)).isEmpty());
        QVERIFY(batchAnswerMismatch(q, answerOf(InputAnswer::Kind::Approve)).contains(u"not an approval"_s));
        QVERIFY(batchAnswerMismatch(q, answerOf(InputAnswer::Kind::Text, u"EMEA"_s)).isEmpty());
        QVERIFY(!batchAnswerMismatch(q, answerOf(InputAnswer::Kind::Text, u"  "_s)).isEmpty());
        QVERIFY(!batchAnswerMismatch(a, answerOf(InputAnswer::Kind::Text, u"yes"_s)).isEmpty());
        QVERIFY(batchAnswerMismatch(o, answerOf(InputAnswer::Kind::Choice, u"deep"_s)).isEmpty());
        QVERIFY(!batchAnswerMismatch(o, answerOf(InputAnswer::Kind::Choice, u"huge"_s)).isEmpty());
        QVERIFY(!batchAnswerMismatch(o, answerOf(InputAnswer::Kind::Value)).isEmpty());
        QVERIFY(!batchAnswerMismatch(listedRun(u"r"_s, RunStatus::InProgress, u"R"_s),
                                     answerOf(InputAnswer::Kind::Approve))
                     .isEmpty());
    }

    // Each run gets its own request through the engine; the service's refusal of one is that
    // run's outcome, the run stays waiting with the reason in its timeline; a run that does not
    // fit is refused without a request.
    void responderSendsOnePerRun()
    {
        FakeRig rig;
        rig.backend->setCapabilities(rig.backend->capabilities() | Capability::Respond);
        QStringList ids;
        for (int i = 0; i < 5; ++i) {
            Run r = waiting(u"r%1"_s.arg(i), InputReason::Approval, u"OK?"_s);
            r.connection = rig.connectionName;
            r.token.remoteId = r.remoteId;
            rig.manager.adoptRun(r, false);
            ids << r.localId;
        }
        Run question = waiting(u"q"_s, InputReason::Question, u"Which?"_s);
        question.connection = rig.connectionName;
        question.token.remoteId = question.remoteId;
        rig.manager.adoptRun(question, false);
        ids << question.localId << u"nosuch"_s;
        // The third request is refused by the service; the others are taken.
        const QList<RunEvent> resumed{RunwatchTest::status(RunStatus::InProgress)};
        rig.backend->queueAnswer(Op::Respond, FakeAnswer::ok(resumed));
        rig.backend->queueAnswer(Op::Respond, FakeAnswer::ok(resumed));
        rig.backend->queueAnswer(Op::Respond, FakeAnswer::failed(RunwatchTest::error(
                                                  ErrorKind::Server, u"approver offline"_s, true)));
        rig.backend->setDefaultAnswer(Op::Respond, FakeAnswer::ok(resumed));

        BatchResponder responder(&rig.manager);
        QSignalSpy finished(&responder, &BatchResponder::finished);
        QSignalSpy answered(&responder, &BatchResponder::runAnswered);
        InputAnswer approve;
        approve.kind = InputAnswer::Kind::Approve;
        approve.comment = u"fine"_s;
        responder.start(ids, approve);
        QVERIFY(finished.wait(5000));
        QCOMPARE(finished.size(), 1);
        QCOMPARE(answered.size(), 7);
        QVERIFY(responder.isFinished());
        QCOMPARE(rig.backend->count(Op::Respond), 5); // the question and the unknown run: nothing sent
        for (const auto &sent : rig.backend->calls(Op::Respond)) {
            QCOMPARE(sent.answer->kind, InputAnswer::Kind::Approve);
            QCOMPARE(sent.answer->comment, u"fine"_s);
        }
        const QList<BatchOutcome> outcomes = responder.outcomes();
        QCOMPARE(outcomes.size(), 7);
        QCOMPARE(responder.failedCount(), 3);
        QString failedRun;
        for (const BatchOutcome &o : outcomes) {
            QVERIFY(o.done);
            if (!o.ok && o.runId.startsWith(u'r'))
                failedRun = o.runId;
        }
        QVERIFY(!failedRun.isEmpty());
        const BatchOutcome failed = outcomes.at(ids.indexOf(failedRun));
        QVERIFY(failed.error.message.contains(u"approver offline"_s));
        // The failed run still waits and says why; the others went on.
        const Run *stillWaiting = rig.manager.run(failedRun);
        QCOMPARE(stillWaiting->status, RunStatus::InputRequired);
        bool logged = false;
        for (const SecondaryItem &item : stillWaiting->secondary)
            logged = logged || (item.kind == SecondaryKind::Log && item.text.contains(u"approver offline"_s));
        QVERIFY(logged);
        for (const QString &id : ids.first(5)) {
            if (id != failedRun)
                QCOMPARE(rig.manager.run(id)->status, RunStatus::InProgress);
        }
        QVERIFY(outcomes.at(5).error.message.contains(u"not an approval"_s));
        QVERIFY(!outcomes.at(6).ok);
        rig.manager.shutdown();
    }
};

QTEST_GUILESS_MAIN(TestBatchRespond)
#include "tst_batchrespond.moc"
