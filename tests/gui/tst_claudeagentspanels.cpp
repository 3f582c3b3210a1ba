// SPDX-License-Identifier: GPL-3.0-or-later
// The main window on a Claude Managed Agents connection, against runwatch-sim's simulator on
// loopback through the real connector: New Run offers the account's agents through the one
// catalog (no connector named in ui/) and the run starts a session on the agent picked; a tool
// confirmation shows the Respond panel's approve/reject row with its reason (the deny message); a
// custom tool shows the tool-output row; each answer goes to the same session and the same run; a
// session attached by its id shows its earlier turns as the conversation. The steps every session
// connector shares are in agentsessionspaneltest.h.
#include "agentsessionspaneltest.h"
#include "claudeagents/claudeagentssim.h"

#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {

struct ClaudeAgentsPanelTraits
{
    using Sim = RunwatchSim::ClaudeAgentsSimulator;
    using Config = RunwatchSim::ClaudeAgentsSimConfig;
    static constexpr auto kBackend = "claude-agents";
    static constexpr auto kConnection = "Claude";
    static constexpr auto kAgent = "agent_011Runwatch00Support";
    static constexpr auto kOtherAgent = "agent_011Runwatch0Research";
    static constexpr auto kShotPrefix = "claude-agents";
    // Idle with a stop reason: idle alone is also the state before the first turn.
    static bool turnOver(const RunwatchSim::ClaudeAgentsSessionInfo &info)
    {
        return info.status == u"idle"_s && !info.turns.isEmpty()
               && !info.turns.constLast().stopReason.isEmpty();
    }
};

} // namespace

class TestClaudeAgentsPanels final : public AgentSessionsPanelTest<ClaudeAgentsPanelTraits>
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void init() { openOnSimulator(); }
    void cleanup() { closeAll(); }

    void newRunOnAnAgentOfTheAccount() { AgentSessionsPanelTest::newRunOnAnAgentOfTheAccount(); }
    void attachedSessionShowsItsTurns() { AgentSessionsPanelTest::attachedSessionShowsItsTurns(); }

    // A tool confirmation: one row, approve or reject with a reason; the reason is the deny message.
    void confirmationRejectedWithAReason()
    {
        const QString id = startOnAgent(u"confirm deltas=3"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"toolCallsPage"_s);
        QCOMPARE(child<QLabel>(u"toolName_0"_s)->text(), u"bash"_s);
        QVERIFY(child<QPlainTextEdit>(u"toolArguments_0"_s)->toPlainText().contains(u"ls -la"_s));
        auto *send = child<QPushButton>(u"inputSendAll"_s);
        QVERIFY(!send->isEnabled());
        QTest::keyClicks(child<QLineEdit>(u"toolReason_0"_s), u"wrong host"_s);
        QVERIFY(child<QRadioButton>(u"toolReject_0"_s)->isChecked());
        QTRY_VERIFY(send->isEnabled());
        grabForReview(u"claude-agents-confirmation"_s);
        QTest::mouseClick(send, Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(m_sim->session(run(id)->remoteId)->turns.constLast().denyMessage, u"wrong host"_s);
        QTRY_COMPARE(run(id)->primaryText, m_sim->turnText(run(id)->remoteId));
        QCOMPARE(m_b->manager.runIds().count(id), 1);
    }

    void customToolResultInThePanel()
    {
        const QString id = startOnAgent(u"custom deltas=2"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"toolCallsPage"_s);
        QCOMPARE(child<QLabel>(u"toolName_0"_s)->text(), u"lookup_order"_s);
        QTest::keyClicks(child<QPlainTextEdit>(u"toolOutput_0"_s), u"packed"_s);
        auto *send = child<QPushButton>(u"inputSendAll"_s);
        QTRY_VERIFY(send->isEnabled());
        grabForReview(u"claude-agents-custom-tool"_s);
        QTest::mouseClick(send, Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(m_sim->session(run(id)->remoteId)->turns.constLast().toolResult, u"packed"_s);
        QTRY_VERIFY(run(id)->primaryText.startsWith(u"The order says: packed. "_s));
    }
};

QTEST_MAIN(TestClaudeAgentsPanels)
#include "tst_claudeagentspanels.moc"
