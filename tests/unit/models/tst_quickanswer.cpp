// SPDX-License-Identifier: GPL-3.0-or-later
// The rule behind a notification's Approve / Reject / Reply: offered only where one click answers
// the whole request exactly as the Respond panel would.
#include "models/quickanswer.h"

#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

Run waiting(InputRequest request)
{
    Run run;
    run.localId = u"r1"_s;
    run.status = RunStatus::InputRequired;
    run.input = std::move(request);
    return run;
}

ToolCallRequest approvalCall(const QString &id, bool approve = true, bool reject = true)
{
    ToolCallRequest call;
    call.id = id;
    call.name = u"deploy"_s;
    call.approval = true;
    call.approveAllowed = approve;
    call.rejectAllowed = reject;
    return call;
}

} // namespace

class TestQuickAnswer final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void notWaiting()
    {
        Run run;
        run.status = RunStatus::InProgress;
        QCOMPARE(quickAnswersFor(run), QuickAnswers{});
        InputRequest timer;
        timer.reason = InputReason::Timer;
        QCOMPARE(quickAnswersFor(waiting(timer)), QuickAnswers{});
    }

    void plainApproval()
    {
        InputRequest request;
        request.reason = InputReason::Approval;
        const QuickAnswers q = quickAnswersFor(waiting(request));
        QVERIFY(q.waits && q.approve && q.reject && !q.text);
    }

    void approvalCalls()
    {
        InputRequest request;
        request.reason = InputReason::Approval;
        request.toolCalls = {approvalCall(u"a"_s), approvalCall(u"b"_s)};
        QCOMPARE(quickAnswersFor(waiting(request)),
                 (QuickAnswers{.waits = true, .approve = true, .reject = true}));
        // A decision the service refuses for one call is offered for none.
        request.toolCalls = {approvalCall(u"a"_s), approvalCall(u"b"_s, true, false)};
        QCOMPARE(quickAnswersFor(waiting(request)), (QuickAnswers{.waits = true, .approve = true}));
        // A mixed request (an output besides approvals) is answered call by call in the panel.
        ToolCallRequest output;
        output.id = u"c"_s;
        request.toolCalls = {approvalCall(u"a"_s), output};
        QCOMPARE(quickAnswersFor(waiting(request)), QuickAnswers{.waits = true});
    }

    void question()
    {
        InputRequest request;
        request.reason = InputReason::Question;
        request.prompt = u"Which region?"_s;
        QCOMPARE(quickAnswersFor(waiting(request)), (QuickAnswers{.waits = true, .text = true}));
        request.options = {u"eu"_s, u"us"_s};
        QCOMPARE(quickAnswersFor(waiting(request)), QuickAnswers{.waits = true});
        request.options.clear();
        request.schema = QJsonObject{{u"type"_s, u"object"_s}};
        QCOMPARE(quickAnswersFor(waiting(request)), QuickAnswers{.waits = true});
    }

    void needsThePanel()
    {
        InputRequest tool;
        tool.reason = InputReason::ToolOutput;
        ToolCallRequest call;
        call.id = u"c"_s;
        tool.toolCalls = {call};
        QCOMPARE(quickAnswersFor(waiting(tool)), QuickAnswers{.waits = true});
        InputRequest auth;
        auth.reason = InputReason::Auth;
        QCOMPARE(quickAnswersFor(waiting(auth)), QuickAnswers{.waits = true});
        // Without details the run still waits on someone, but nothing is guessed for it.
        Run bare;
        bare.status = RunStatus::InputRequired;
        QCOMPARE(quickAnswersFor(bare), QuickAnswers{.waits = true});
    }

    void answers()
    {
        QCOMPARE(approvalAnswer(true).kind, InputAnswer::Kind::Approve);
        QCOMPARE(approvalAnswer(false).kind, InputAnswer::Kind::Reject);
        const InputAnswer text = textAnswer(u"eu-west"_s);
        QCOMPARE(text.kind, InputAnswer::Kind::Text);
        QCOMPARE(text.text, u"eu-west"_s);
    }
};

QTEST_GUILESS_MAIN(TestQuickAnswer)
#include "tst_quickanswer.moc"
