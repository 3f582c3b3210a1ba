// SPDX-License-Identifier: GPL-3.0-or-later
// The main window on an OpenAI Agents API connection, against runwatch-sim's simulator on loopback
// through the real connector: New Run offers the account's agents through the one catalog (no
// connector named in ui/); an MCP approval shows the Respond panel's approve/reject row (no reason:
// the API takes none); a function call shows the tool-output row; a session's turns (the first run
// and its follow-up) are shown as one conversation; each turn shows its own usage.
#include "conversationview.h"
#include "newrundialog.h"
#include "openaiagents/openaiagentssim.h"
#include "respondpaneltest.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QTabWidget>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;
using RunwatchSim::OpenAiAgentsSimulator;

namespace {
const QString kAgents = u"Agents"_s;
const QString kAgent = u"agent_68e1runwatch00support"_s;
} // namespace

class TestOpenAiAgentsPanels final : public RespondPanelTest
{
    Q_OBJECT

    // Made before the window's engine and destroyed after it.
    std::unique_ptr<OpenAiAgentsSimulator> m_sim;

    QString startOnAgent(const QString &prompt)
    {
        StartRequest r;
        r.agent = kAgent;
        r.prompt = prompt;
        return m_b->manager.startRun(kAgents, r);
    }
    bool waitInput(const QString &id)
    {
        return waitFor([&] {
            const Run *r = run(id);
            return r && r->status == RunStatus::InputRequired && r->input;
        });
    }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }

    void init()
    {
        RunwatchSim::OpenAiAgentsSimConfig config;
        config.intervalMs = 2;
        m_sim = std::make_unique<OpenAiAgentsSimulator>(config);
        QVERIFY(m_sim->listen());
        openWindow();
        m_b->add(kAgents, u"openai-agents"_s, m_sim->baseUrl());
    }
    void cleanup()
    {
        closeWindow();
        m_sim.reset();
    }

    void newRunOnAnAgentOfTheAccount()
    {
        NewRunDialog dialog(&m_b->manager);
        QComboBox *agents = dialog.agentBox();
        dialog.setConnection(kAgents);
        QVERIFY(agents->isVisibleTo(&dialog));
        QTRY_VERIFY(agents->findData(kAgent) >= 0);
        QVERIFY(agents->findData(u"agent_68e1runwatch0research"_s) >= 0);
        agents->setCurrentIndex(agents->findData(kAgent));
        dialog.promptEdit()->setPlainText(u"normal deltas=5"_s);
        const StartRequest request = dialog.request();
        QCOMPARE(request.agent, kAgent);
        const QString id = m_b->manager.startRun(dialog.connection(), request);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(run(id)->remoteId, m_sim->lastSessionId());
        QCOMPARE(m_sim->session(run(id)->remoteId)->agentId, kAgent);
        QCOMPARE(run(id)->primaryText, m_sim->turnText(run(id)->remoteId));
    }

    // An MCP approval: one row, approve or reject; the API takes no reason, so none is asked.
    void approvalInThePanel()
    {
        const QString id = startOnAgent(u"approve deltas=3"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"toolCallsPage"_s);
        QCOMPARE(child<QLabel>(u"toolName_0"_s)->text(), u"delete_branch"_s);
        QVERIFY(child<QPlainTextEdit>(u"toolArguments_0"_s)->toPlainText().contains(u"old-feature"_s));
        auto *reason = child<QLineEdit>(u"toolReason_0"_s);
        QVERIFY(!reason || !reason->isVisible());
        QTest::mouseClick(child<QRadioButton>(u"toolApprove_0"_s), Qt::LeftButton);
        auto *send = child<QPushButton>(u"inputSendAll"_s);
        QTRY_VERIFY(send->isEnabled());
        grabForReview(u"openai-agents-approval"_s);
        QTest::mouseClick(send, Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(m_sim->session(run(id)->remoteId)->turns.constLast().decision, u"approve"_s);
        QTRY_COMPARE(run(id)->primaryText, m_sim->turnText(run(id)->remoteId));
        QCOMPARE(m_b->manager.runIds().count(id), 1);
    }

    void toolResultInThePanel()
    {
        const QString id = startOnAgent(u"tool"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"toolCallsPage"_s);
        QCOMPARE(child<QLabel>(u"toolName_0"_s)->text(), u"lookup_order"_s);
        QTest::keyClicks(child<QPlainTextEdit>(u"toolOutput_0"_s), u"packed"_s);
        auto *send = child<QPushButton>(u"inputSendAll"_s);
        QTRY_VERIFY(send->isEnabled());
        grabForReview(u"openai-agents-tool-result"_s);
        QTest::mouseClick(send, Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(m_sim->session(run(id)->remoteId)->turns.constLast().toolOutput, u"packed"_s);
        QTRY_COMPARE(run(id)->primaryText, u"The order says: packed"_s);
    }

    // The first turn and its follow-up on the same session: one conversation in the detail pane,
    // each turn with its own usage.
    void turnsAreOneConversation()
    {
        const QString first = startOnAgent(u"normal deltas=5 draft it"_s);
        QVERIFY(waitStatus(first, RunStatus::Completed));
        const QString second = m_b->manager.followUp(first, u"normal deltas=3 shorter"_s);
        QVERIFY(!second.isEmpty());
        QVERIFY(waitStatus(second, RunStatus::Completed));
        QCOMPARE(run(second)->remoteId, run(first)->remoteId);
        QCOMPARE(run(first)->usage.outputTokens, 5);
        QCOMPARE(run(second)->usage.outputTokens, 3);
        QTRY_VERIFY(m_window->activateRun(second));
        ConversationView *view = m_window->detailPane()->conversationView();
        QTRY_COMPARE(view->turnCount(), 2);
        QCOMPARE(view->messages(),
                 (QStringList{u"normal deltas=5 draft it"_s, u"normal deltas=3 shorter"_s}));
        const QString text = view->toPlainText();
        const qsizetype a = text.indexOf(m_sim->turnText(run(first)->remoteId, 0));
        const qsizetype b = text.indexOf(u"normal deltas=3 shorter"_s);
        // (The second answer is a prefix of the first: looked for after the second prompt.)
        const qsizetype c = text.indexOf(m_sim->turnText(run(first)->remoteId, 1), b);
        QVERIFY2(a >= 0 && a < b && b < c, qPrintable(text));
        // The usage shown is the selected turn's.
        QLabel *usage = m_window->detailPane()->usageLabel();
        QTRY_VERIFY(usage->isVisible());
        QVERIFY2(usage->text().contains(u'3'), qPrintable(usage->text()));
        grabForReview(u"openai-agents-conversation"_s);
    }
};

QTEST_MAIN(TestOpenAiAgentsPanels)
#include "tst_openaiagentspanels.moc"
