// SPDX-License-Identifier: GPL-3.0-or-later
// The main window on a Foundry connection, against runwatch-sim's Foundry simulator on loopback
// through the real connector: the Respond panel for tool calls (two outputs answered, one submit,
// the run completes with the simulator's text), MCP approvals (approve and reject), the countdown
// to expires_at in the panel and in the list (it ticks; an unanswered run ends `expired` with its
// reason), the New Run dialog's agent picker (the simulator's agents), and cancel showing
// `cancelling` until the service confirms `cancelled`.
#include "actioncontroller.h"
#include "detailpane.h"
#include "inputpanel.h"
#include "mainwindow.h"
#include "models/runformat.h"
#include "newrundialog.h"
#include "respondpaneltest.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QComboBox>
#include <QFontDatabase>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QStackedWidget>
#include <QToolBar>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;
using RunwatchSim::FoundryEndpoint;
using RunwatchSim::FoundrySimulator;

class TestFoundryPanels final : public RespondPanelTest
{
    Q_OBJECT

private:
    bool waitInput(const QString &id)
    {
        return waitFor([&] {
            const Run *r = run(id);
            return r && r->status == RunStatus::InputRequired && r->input && !r->input->toolCalls.isEmpty();
        });
    }

    QString listBadge(const QString &id) const
    {
        RunListModel *model = m_window->runModel();
        const int row = model->rowOf(id);
        return row < 0 ? QString() : model->data(model->index(row, StatusColumn), Qt::DisplayRole).toString();
    }

    QString remoteText(const QString &id) const { return m_b->foundry.run(run(id)->remoteId)->text; }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }

    void init() { openWindow(); }
    void cleanup() { closeWindow(); }

    // Two function calls: one row each with the function's name and arguments; Send stays off
    // until both have an output; one submit carries both; the run completes with the text the
    // simulator composed from the outputs.
    void toolOutputsTwoCalls()
    {
        const QString id = m_b->start(kFoundry, u"tools deltas=3"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"toolCallsPage"_s);
        const QList<ToolCallRequest> calls = run(id)->input->toolCalls;
        QCOMPARE(calls.size(), 2);
        QCOMPARE(child<QLabel>(u"toolName_0"_s)->text(), u"get_weather"_s);
        QCOMPARE(child<QLabel>(u"toolName_1"_s)->text(), u"get_time"_s);
        auto *args = child<QPlainTextEdit>(u"toolArguments_0"_s);
        QCOMPARE(args->toPlainText(), calls.at(0).arguments);
        QVERIFY(args->isReadOnly());
        QCOMPARE(args->font().family(), QFontDatabase::systemFont(QFontDatabase::FixedFont).family());
        auto *first = child<QPlainTextEdit>(u"toolOutput_0"_s);
        auto *second = child<QPlainTextEdit>(u"toolOutput_1"_s);
        auto *send = child<QPushButton>(u"inputSendAll"_s);
        QVERIFY(first && second && send);
        QVERIFY(!send->isEnabled());
        QTest::keyClicks(first, u"12C, light rain"_s);
        QVERIFY(!send->isEnabled()); // one call still unanswered
        QTest::keyClicks(second, u"14:05"_s);
        QTRY_VERIFY(send->isEnabled());
        grabForReview(u"foundry-tool-outputs"_s);
        QCOMPARE(m_b->foundry.requestCount(FoundryEndpoint::SubmitToolOutputs), 0);
        QTest::mouseClick(send, Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(m_b->foundry.requestCount(FoundryEndpoint::SubmitToolOutputs), 1);
        const QString expected = u"[%1: 12C, light rain] [%2: 14:05] "_s.arg(calls.at(0).id, calls.at(1).id)
                                 + FoundrySimulator::tokenText(0, 3);
        QCOMPARE(remoteText(id), expected);
        QTRY_COMPARE(run(id)->primaryText, expected);
        QTRY_VERIFY(!panel()->isVisible());
    }

    // An MCP call: Approve / Reject per call; the simulator's answer says which one it got.
    void approval_data()
    {
        QTest::addColumn<bool>("approve");
        QTest::newRow("approve") << true;
        QTest::newRow("reject") << false;
    }
    void approval()
    {
        QFETCH(bool, approve);
        const QString id = m_b->start(kFoundry, u"approval deltas=2"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"toolCallsPage"_s);
        const ToolCallRequest call = run(id)->input->toolCalls.first();
        QVERIFY(call.approval);
        QVERIFY(!child<QPlainTextEdit>(u"toolOutput_0"_s)); // nothing to type for an approval
        auto *send = child<QPushButton>(u"inputSendAll"_s);
        QVERIFY(!send->isEnabled()); // no decision yet
        QTest::mouseClick(child<QRadioButton>(approve ? u"toolApprove_0"_s : u"toolReject_0"_s),
                          Qt::LeftButton);
        QTRY_VERIFY(send->isEnabled());
        if (approve)
            grabForReview(u"foundry-approval"_s);
        QTest::mouseClick(send, Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(m_b->foundry.requestCount(FoundryEndpoint::SubmitToolOutputs), 1);
        const QString expected = u"[%1: %2] "_s.arg(approve ? u"approved"_s : u"rejected"_s, call.name)
                                 + FoundrySimulator::tokenText(0, 2);
        QTRY_COMPARE(run(id)->primaryText, expected);
        QCOMPARE(remoteText(id), expected);
    }

    // The time left to answer counts down in the panel and in the list's badge, live; unanswered,
    // the run ends `expired` with the reason, and the countdown is gone.
    void expiryCountdown()
    {
        const QString id = m_b->start(kFoundry, u"expire expires_ms=4500"_s);
        QVERIFY(waitInput(id));
        QVERIFY(run(id)->input->deadline.isValid());
        showPanelFor(id);
        auto *countdown = child<QLabel>(u"inputCountdown"_s);
        QTRY_VERIFY(countdown->text().endsWith(u" left"_s));
        const QString panelFirst = countdown->text();
        QTRY_VERIFY(QRegularExpression(u"^00:0[0-9] left$"_s).match(listBadge(id)).hasMatch());
        const QString badgeFirst = listBadge(id);
        QVERIFY(m_window->runModel()->isTicking());
        grabForReview(u"foundry-countdown"_s);
        // Both change as time passes, without any event from the service.
        QTRY_VERIFY_WITH_TIMEOUT(countdown->text() != panelFirst, 3000);
        QTRY_VERIFY_WITH_TIMEOUT(listBadge(id) != badgeFirst, 3000);
        QVERIFY(listBadge(id).endsWith(u" left"_s) || listBadge(id) == u"Time is up"_s);
        QVERIFY(waitStatus(id, RunStatus::Expired));
        QVERIFY(run(id)->isTerminal());
        QVERIFY(run(id)->error.message.contains(u"expired"_s));
        QTRY_COMPARE(listBadge(id), statusLabel(RunStatus::Expired));
        QTRY_VERIFY(!panel()->isVisible());
    }

    // The New Run dialog lists the project's agents (name · model) for a Foundry connection, keeps
    // the connection's default picked, and starts the run on the agent chosen.
    void agentPicker()
    {
        NewRunDialog dialog(&m_b->manager);
        QComboBox *agents = dialog.agentBox();
        dialog.setConnection(kSim);
        QVERIFY(!agents->isVisibleTo(&dialog)); // OpenAI runs belong to no agent
        dialog.setConnection(kFoundry);
        QVERIFY(agents->isVisibleTo(&dialog));
        QTRY_COMPARE(agents->count(), 2);
        QVERIFY(agents->isEnabled());
        QCOMPARE(agents->itemText(0), u"weather-agent · gpt-4o"_s);
        QCOMPARE(agents->itemText(1), u"research-agent · gpt-4.1"_s);
        QCOMPARE(agents->currentData().toString(), u"asst_sim_weather"_s); // the connection's default
        QCOMPARE(m_b->foundry.requestCount(FoundryEndpoint::ListAgents), 1);
        agents->setCurrentIndex(1);
        dialog.promptEdit()->setPlainText(u"normal deltas=2"_s);
        if (const QString dir = qEnvironmentVariable("RUNWATCH_GRAB_DIR"); !dir.isEmpty()) {
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            dialog.grab().save(dir + u"/foundry-agent-picker.png"_s);
        }
        const StartRequest request = dialog.request();
        QCOMPARE(request.agent, u"asst_sim_research"_s);
        QVERIFY(request.model.isEmpty()); // the OpenAI connection's model is not carried over
        const QString id = m_b->manager.startRun(dialog.connection(), request);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(m_b->foundry.run(run(id)->remoteId)->assistantId, u"asst_sim_research"_s);
    }

    // Cancel: confirmation, then "Cancelling" while the service has not confirmed, then
    // "Cancelled".
    void cancelShowsCancellingThenCancelled()
    {
        const QString id = m_b->start(kFoundry, u"slow interval_ms=400"_s);
        QVERIFY(waitStatus(id, RunStatus::InProgress));
        QList<RunStatus> seen;
        connect(&m_b->manager, &RunManager::runChanged, this, [&](const QString &changed) {
            if (changed == id && (seen.isEmpty() || seen.constLast() != run(id)->status))
                seen.append(run(id)->status);
        });
        QTRY_VERIFY(m_window->activateRun(id));
        actions()->updateActions();
        QTRY_VERIFY(actions()->cancelAction()->isEnabled());
        actions()->cancelAction()->trigger();
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = actions()->pendingConfirmation()));
        QTest::mouseClick(box->findChild<QPushButton *>(u"confirmButton"_s), Qt::LeftButton);
        QTRY_COMPARE(listBadge(id), statusLabel(RunStatus::Cancelling));
        QVERIFY(waitStatus(id, RunStatus::Cancelled));
        QTRY_COMPARE(listBadge(id), statusLabel(RunStatus::Cancelled));
        QCOMPARE(m_b->foundry.requestCount(FoundryEndpoint::Cancel), 1);
        QVERIFY2(seen.contains(RunStatus::Cancelling), qPrintable(QString::number(seen.size())));
        QVERIFY(seen.indexOf(RunStatus::Cancelling) < seen.indexOf(RunStatus::Cancelled));
    }
};

QTEST_MAIN(TestFoundryPanels)
#include "tst_foundrypanels.moc"
