// SPDX-License-Identifier: GPL-3.0-or-later
// The main window on an OpenAI Agents API connection, against runwatch-sim's simulator on loopback
// through the real connector: New Run offers the account's agents through the one catalog (no
// connector named in ui/); an MCP approval shows the Respond panel's approve/reject row (no reason:
// the API takes none); a function call shows the tool-output row; a session's turns (the first run
// and its follow-up) are shown as one conversation, and so are the turns of a session attached by
// its id; each turn shows its own usage.
#include "agentsessionspaneltest.h"
#include "openaiagents/openaiagentssim.h"

#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {

struct OpenAiAgentsPanelTraits
{
    using Sim = RunwatchSim::OpenAiAgentsSimulator;
    using Config = RunwatchSim::OpenAiAgentsSimConfig;
    static constexpr auto kBackend = "openai-agents";
    static constexpr auto kConnection = "Agents";
    static constexpr auto kAgent = "agent_68e1runwatch00support";
    static constexpr auto kOtherAgent = "agent_68e1runwatch0research";
    static constexpr auto kShotPrefix = "openai-agents";
    static bool turnOver(const RunwatchSim::OpenAiAgentsSessionInfo &info)
    {
        return info.status == u"idle"_s;
    }
};

} // namespace

class TestOpenAiAgentsPanels final : public AgentSessionsPanelTest<OpenAiAgentsPanelTraits>
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void init() { openOnSimulator(); }
    void cleanup() { closeAll(); }

    void newRunOnAnAgentOfTheAccount() { AgentSessionsPanelTest::newRunOnAnAgentOfTheAccount(); }
    void attachedSessionShowsItsTurns() { AgentSessionsPanelTest::attachedSessionShowsItsTurns(); }

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
