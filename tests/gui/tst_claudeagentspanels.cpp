// SPDX-License-Identifier: GPL-3.0-or-later
// The main window on a Claude Managed Agents connection, against runwatch-sim's simulator on
// loopback through the real connector: New Run offers the account's agents through the one
// catalog (no connector named in ui/) and the run starts a session on the agent picked; a tool
// confirmation shows the Respond panel's approve/reject row with its reason (the deny message); a
// custom tool shows the tool-output row; each answer goes to the same session and the same run.
#include "claudeagents/claudeagentssim.h"
#include "newrundialog.h"
#include "respondpaneltest.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;
using RunwatchSim::ClaudeAgentsSimulator;

namespace {
const QString kClaude = u"Claude"_s;
const QString kAgent = u"agent_011Runwatch00Support"_s;
} // namespace

class TestClaudeAgentsPanels final : public RespondPanelTest
{
    Q_OBJECT

    // Made before the window's engine and destroyed after it.
    std::unique_ptr<ClaudeAgentsSimulator> m_claude;

    QString startOnAgent(const QString &prompt)
    {
        StartRequest r;
        r.agent = kAgent;
        r.prompt = prompt;
        return m_b->manager.startRun(kClaude, r);
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
        RunwatchSim::ClaudeAgentsSimConfig config;
        config.intervalMs = 2;
        m_claude = std::make_unique<ClaudeAgentsSimulator>(config);
        QVERIFY(m_claude->listen());
        openWindow();
        m_b->add(kClaude, u"claude-agents"_s, m_claude->baseUrl());
    }
    void cleanup()
    {
        closeWindow();
        m_claude.reset();
    }

    void newRunOnAnAgentOfTheAccount()
    {
        NewRunDialog dialog(&m_b->manager);
        QComboBox *agents = dialog.agentBox();
        dialog.setConnection(kClaude);
        QVERIFY(agents->isVisibleTo(&dialog));
        QTRY_VERIFY(agents->findData(kAgent) >= 0);
        QVERIFY(agents->findData(u"agent_011Runwatch0Research"_s) >= 0);
        agents->setCurrentIndex(agents->findData(kAgent));
        dialog.promptEdit()->setPlainText(u"normal deltas=5"_s);
        const StartRequest request = dialog.request();
        QCOMPARE(request.agent, kAgent);
        const QString id = m_b->manager.startRun(dialog.connection(), request);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(run(id)->remoteId, m_claude->lastSessionId());
        QCOMPARE(m_claude->session(run(id)->remoteId)->agentId, kAgent);
        QCOMPARE(run(id)->primaryText, m_claude->turnText(run(id)->remoteId));
    }

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
        QCOMPARE(m_claude->session(run(id)->remoteId)->turns.constLast().denyMessage, u"wrong host"_s);
        QTRY_COMPARE(run(id)->primaryText, m_claude->turnText(run(id)->remoteId));
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
        QCOMPARE(m_claude->session(run(id)->remoteId)->turns.constLast().toolResult, u"packed"_s);
        QTRY_VERIFY(run(id)->primaryText.startsWith(u"The order says: packed. "_s));
    }
};

QTEST_MAIN(TestClaudeAgentsPanels)
#include "tst_claudeagentspanels.moc"
