// SPDX-License-Identifier: GPL-3.0-or-later
// The main window on an MCP connection, against a server built on the official
// @modelcontextprotocol/sdk (tests/peers/mcp-server-peer, started once for the program) through the
// real connector: New Run's tool picker with the tool's input form (from its inputSchema), the
// elicitation's typed form in the Respond panel (boolean, string and enum fields, checked as
// typed) answered from the GUI, declined and dismissed from it, and a task's progress line. RUNWATCH_GRAB_DIR saves screenshots.
#include "mcppeer.h"
#include "newrundialog.h"
#include "respondpaneltest.h"
#include "typedanswerform.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {
const QString kMcp = u"MCP peer"_s;
} // namespace

class TestMcpPanels final : public RespondPanelTest
{
    Q_OBJECT

    std::unique_ptr<RunwatchTest::McpPeer> m_peer;

    QString startTool(const QString &tool, const QJsonObject &arguments)
    {
        StartRequest request;
        request.prompt = tool;
        request.agent = tool;
        request.input = arguments;
        return m_b->manager.startRun(kMcp, request);
    }

private Q_SLOTS:
    void initTestCase()
    {
        isolateSettings();
        const QString node = QStringLiteral(RUNWATCH_NODE);
        const QString dir = QStringLiteral(RUNWATCH_MCP_PEER_DIR);
        if (const QString why = RunwatchTest::McpPeer::missing(node, dir); !why.isEmpty())
            QFAIL(qPrintable(why));
        m_peer = std::make_unique<RunwatchTest::McpPeer>(node, dir);
        QVERIFY2(m_peer->url().isValid(), qPrintable(u"the MCP server did not start: "_s + m_peer->error()));
    }
    void cleanupTestCase() { m_peer.reset(); }

    void init()
    {
        openWindow();
        m_window->resize(1366, 768);
        m_b->add(kMcp, u"mcp"_s, m_peer->url(), {}, QJsonObject{});
    }
    void cleanup() { closeWindow(); }

    // The tools with their descriptions; a tool with an input schema gets its form instead of the
    // JSON box; the prompt may stay empty (it only titles the run); the run takes the form's value.
    void toolPickerWithItsInputForm()
    {
        NewRunDialog dialog(&m_b->manager);
        dialog.resize(1000, 700);
        QComboBox *tools = dialog.agentBox();
        dialog.setConnection(kMcp);
        QVERIFY(tools->isVisibleTo(&dialog));
        QTRY_VERIFY(tools->findData(u"write"_s) >= 0);
        tools->setCurrentIndex(tools->findData(u"write"_s));
        QVERIFY(tools->itemData(tools->currentIndex(), Qt::ToolTipRole)
                    .toString()
                    .contains(u"Writes the text after a few steps of work"_s));
        TypedAnswerForm *form = dialog.inputForm();
        QVERIFY(form->isVisibleTo(&dialog));
        QVERIFY(!form->isJsonEditor());
        QVERIFY(!dialog.inputEdit()->isVisibleTo(&dialog));
        // A tool's task has no model.
        QVERIFY(!dialog.modelBox()->isVisibleTo(&dialog));
        auto *text = form->findChild<QLineEdit *>(u"field_text"_s);
        auto *steps = form->findChild<QSpinBox *>(u"field_steps"_s);
        QVERIFY(text && steps);
        QCOMPARE(steps->value(), 3); // the schema's default
        // `text` is required: Start waits for it.
        auto *start = dialog.findChild<QPushButton *>(u"newRunStart"_s);
        QVERIFY(!start->isEnabled());
        text->setText(u"from the form"_s);
        steps->setValue(1);
        QTRY_VERIFY(start->isEnabled());
        if (const QString dir = qEnvironmentVariable("RUNWATCH_GRAB_DIR"); !dir.isEmpty()) {
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            dialog.grab().save(dir + u"/mcp-new-run.png"_s);
        }
        const StartRequest request = dialog.request();
        QCOMPARE(request.agent, u"write"_s);
        QCOMPARE(request.input.toObject().value(u"text"_s).toString(), u"from the form"_s);
        QVERIFY(!request.prompt.isEmpty());
        // A forbidden tool is listed too; a tool whose schema has no fields still gets an (empty) form.
        QVERIFY(tools->findData(u"echo"_s) >= 0);
        const QString id = m_b->manager.startRun(dialog.connection(), request);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(run(id)->primaryText, u"Wrote: from the form\n(1 steps)"_s);
    }

    // The elicitation's form: a check box, a line and a choice; the answer goes to the server and
    // the task completes with what it got. A task's status line shows as it works.
    void elicitationFormAnsweredFromThePanel()
    {
        const QString id = startTool(u"approve"_s, {{u"action"_s, u"release"_s}});
        QVERIFY(waitFor(
            [&] { return run(id) && run(id)->status == RunStatus::InputRequired && run(id)->input; }));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"valuePage"_s);
        QVERIFY(child<QLabel>(u"inputPrompt"_s)->text().contains(u"Approve release?"_s));
        auto *approve = child<QCheckBox>(u"field_approve"_s);
        auto *reason = child<QLineEdit>(u"field_reason"_s);
        auto *priority = child<QComboBox>(u"field_priority"_s);
        QVERIFY(approve && reason && priority);
        QCOMPARE(priority->count() >= 3, true);
        auto *send = panel()->findChild<QPushButton *>(u"inputSendValue"_s);
        QVERIFY(send);
        approve->setChecked(true);
        // Checked as typed: a reason shorter than the schema's minLength holds Send back.
        reason->setText(u"x"_s);
        QTRY_VERIFY(!send->isEnabled());
        QVERIFY(child<QLabel>(u"inputValueProblem"_s)->isVisibleTo(panel()));
        QVERIFY2(!child<QLabel>(u"inputValueProblem"_s)->text().isEmpty(),
                 qPrintable(child<QLabel>(u"inputValueProblem"_s)->text()));
        reason->setText(u"looks good"_s);
        priority->setCurrentIndex(priority->findText(u"high"_s));
        grabForReview(u"mcp-elicitation"_s);
        QTRY_VERIFY(send->isEnabled());
        send->click();
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(run(id)->primaryText, u"release: approved (reason: looks good, priority: high)"_s);
    }

    // The form may be turned down: Decline is the elicitation result `decline`, Dismiss (closing
    // the request, the run goes on) is `cancel`; the server's tool says which it got. Both need
    // nothing filled in, even while the form would not validate.
    void elicitationDeclinedFromThePanel_data()
    {
        QTest::addColumn<QString>("button");
        QTest::addColumn<QString>("serverText");
        QTest::newRow("decline") << u"inputDeclineValue"_s << u"deploy: decline"_s;
        QTest::newRow("dismiss") << u"inputDismissValue"_s << u"deploy: cancel"_s;
    }
    void elicitationDeclinedFromThePanel()
    {
        QFETCH(QString, button);
        QFETCH(QString, serverText);
        const QString id = startTool(u"approve"_s, {{u"action"_s, u"deploy"_s}});
        QVERIFY(waitFor(
            [&] { return run(id) && run(id)->status == RunStatus::InputRequired && run(id)->input; }));
        QVERIFY(run(id)->input->declinable);
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"valuePage"_s);
        auto *send = panel()->findChild<QPushButton *>(u"inputSendValue"_s);
        auto *decline = panel()->findChild<QPushButton *>(u"inputDeclineValue"_s);
        auto *dismiss = panel()->findChild<QPushButton *>(u"inputDismissValue"_s);
        QVERIFY(send && decline && dismiss);
        QVERIFY(decline->isVisibleTo(panel()) && dismiss->isVisibleTo(panel()));
        // An invalid form holds Send back, never the refusals.
        child<QLineEdit>(u"field_reason"_s)->setText(u"x"_s);
        QTRY_VERIFY(!send->isEnabled());
        QVERIFY(decline->isEnabled() && dismiss->isEnabled());
        panel()->findChild<QPushButton *>(button)->click();
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(run(id)->primaryText, serverText);
    }

    void taskProgressLine()
    {
        const QString id = startTool(u"write"_s, {{u"text"_s, u"slowly"_s}, {u"steps"_s, 5}});
        QVERIFY(waitFor([&] {
            const Run *r = run(id);
            return r && std::any_of(r->secondary.cbegin(), r->secondary.cend(), [](const SecondaryItem &i) {
                       return i.id == u"status"_s && i.text.startsWith(u"step "_s);
                   });
        }));
        QTRY_VERIFY(m_window->activateRun(id));
        grabForReview(u"mcp-progress"_s);
        QVERIFY(waitStatus(id, RunStatus::Completed));
    }
};

QTEST_MAIN(TestMcpPanels)
#include "tst_mcppanels.moc"
