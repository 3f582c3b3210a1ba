// SPDX-License-Identifier: GPL-3.0-or-later
// The main window on a LangGraph connection, against the official Agent Server (the node peer of
// tests/peers/langgraph-peer, started once for the program) through the real connector: a
// human-in-the-loop review of two actions as one approval row per action (one approved, one
// rejected with a reason, one resume), a string interrupt as a question, the thread's runs as one local run in
// the list, and the New Run dialog's assistant picker (the deployment's graphs).
#include "langgraphpeer.h"
#include "models/runformat.h"
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

namespace {
const QString kLangGraph = u"LangGraph peer"_s;
} // namespace

class TestLangGraphPanels final : public RespondPanelTest
{
    Q_OBJECT

    std::unique_ptr<RunwatchTest::LangGraphPeer> m_peer;

    QString startOn(const QString &graph, const QString &prompt)
    {
        StartRequest request;
        request.prompt = prompt;
        request.agent = graph;
        return m_b->manager.startRun(kLangGraph, request);
    }
    bool waitInput(const QString &id)
    {
        return waitFor([&] {
            const Run *r = run(id);
            return r && r->status == RunStatus::InputRequired && r->input;
        });
    }

private Q_SLOTS:
    void initTestCase()
    {
        isolateSettings();
        const QString node = QStringLiteral(RUNWATCH_NODE);
        const QString dir = QStringLiteral(RUNWATCH_LANGGRAPH_PEER_DIR);
        if (const QString why = RunwatchTest::LangGraphPeer::missing(node, dir); !why.isEmpty())
            QFAIL(qPrintable(why));
        m_peer = std::make_unique<RunwatchTest::LangGraphPeer>(node, dir);
        QVERIFY2(m_peer->url().isValid(),
                 qPrintable(u"the Agent Server did not start: "_s + m_peer->error()));
    }
    void cleanupTestCase() { m_peer.reset(); }

    void init()
    {
        openWindow();
        m_b->add(kLangGraph, u"langgraph"_s, m_peer->url(), {}, QJsonObject{{u"agent"_s, u"echo"_s}});
    }
    void cleanup() { closeWindow(); }

    // Two actions to review: a row each with the tool's name and arguments; Send waits for both
    // decisions; one resume run carries them; the same local run completes with the graph's text.
    void reviewOfTwoActions()
    {
        const QString id = startOn(u"approval"_s, u"send the report"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"toolCallsPage"_s);
        QCOMPARE(child<QLabel>(u"toolName_0"_s)->text(), u"send_email"_s);
        QCOMPARE(child<QLabel>(u"toolName_1"_s)->text(), u"delete_file"_s);
        QCOMPARE(child<QPlainTextEdit>(u"toolArguments_1"_s)->toPlainText(), u"{\"path\":\"/tmp/x\"}"_s);
        QVERIFY(child<QLabel>(u"inputPrompt"_s)->text().contains(u"Send the report"_s));
        auto *send = child<QPushButton>(u"inputSendAll"_s);
        QVERIFY(!send->isEnabled());
        QTest::mouseClick(child<QRadioButton>(u"toolApprove_0"_s), Qt::LeftButton);
        QVERIFY(!send->isEnabled()); // one action still undecided
        // Approving greys out that action's reason; typing a reason rejects the other.
        auto *reason0 = child<QLineEdit>(u"toolReason_0"_s);
        QVERIFY(!reason0->isEnabled());
        auto *reason1 = child<QLineEdit>(u"toolReason_1"_s);
        QVERIFY(reason1->isEnabled());
        QVERIFY(!child<QRadioButton>(u"toolReject_1"_s)->isChecked());
        QTest::keyClicks(reason1, u"not now"_s);
        QVERIFY(child<QRadioButton>(u"toolReject_1"_s)->isChecked());
        QTRY_VERIFY(send->isEnabled());
        grabForReview(u"langgraph-review"_s);
        QTest::mouseClick(send, Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        // The reason reached the graph as the reject decision's message.
        QTRY_VERIFY(run(id)->primaryText.contains(
            u"send_email: approved; delete_file: rejected (reason: not now)"_s));
        // One thread, two server runs, one local run and one row.
        QCOMPARE(m_b->manager.runIds().count(id), 1);
        QCOMPARE(m_window->runModel()->rowCount(), 1);
        QTRY_VERIFY(!panel()->isVisible());
        // The detail's badge follows (its accessible name carries its text).
        const auto badgeSays = [&](const QString &text) {
            const QList<QWidget *> widgets = m_window->detailPane()->findChildren<QWidget *>();
            return std::any_of(widgets.cbegin(), widgets.cend(), [&](const QWidget *w) {
                return w->isVisible() && w->accessibleName() == u"Status: "_s + text;
            });
        };
        QTRY_VERIFY(badgeSays(statusLabel(RunStatus::Completed)));
        grabForReview(u"langgraph-review-done"_s);
    }

    // A review whose actions each allow one decision (review_configs): only that choice is
    // offered, a reason box only beside a Reject, and the decisions reach the graph.
    void reviewOffersOnlyAllowedDecisions()
    {
        const QString id = startOn(u"restricted"_s, u"tidy the blog"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"toolCallsPage"_s);
        QCOMPARE(child<QLabel>(u"toolName_0"_s)->text(), u"publish"_s);
        QWidget *form = m_window->findChild<QWidget *>(u"toolCallsForm"_s);
        QVERIFY(form);
        const auto has = [form](const QString &name) { return form->findChild<QWidget *>(name) != nullptr; };
        QVERIFY(has(u"toolApprove_0"_s));
        QVERIFY(!has(u"toolReject_0"_s));
        QVERIFY(!has(u"toolReason_0"_s));
        QVERIFY(!has(u"toolApprove_1"_s));
        QVERIFY(has(u"toolReject_1"_s));
        QVERIFY(has(u"toolReason_1"_s));
        auto *send = child<QPushButton>(u"inputSendAll"_s);
        QTest::mouseClick(child<QRadioButton>(u"toolApprove_0"_s), Qt::LeftButton);
        QVERIFY(!send->isEnabled()); // a single choice is still a choice to make
        QTest::keyClicks(child<QLineEdit>(u"toolReason_1"_s), u"keep it"_s);
        QTRY_VERIFY(send->isEnabled());
        grabForReview(u"langgraph-review-restricted"_s);
        // Enter in a reason box sends the whole review.
        QTest::keyClick(child<QLineEdit>(u"toolReason_1"_s), Qt::Key_Return);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QTRY_VERIFY(
            run(id)->primaryText.contains(u"publish: approved; archive: rejected (reason: keep it)"_s));
    }

    // interrupt("What city?"): the question page; the answer resumes the graph.
    void stringInterruptIsAQuestion()
    {
        const QString id = startOn(u"question"_s, u"weather"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"textPage"_s);
        QCOMPARE(child<QLabel>(u"inputPrompt"_s)->text(), u"What city?"_s);
        QTest::keyClicks(child<QPlainTextEdit>(u"inputAnswer"_s), u"Lisbon"_s);
        grabForReview(u"langgraph-question"_s);
        QTest::mouseClick(child<QPushButton>(u"inputSend"_s), Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QTRY_VERIFY(run(id)->primaryText.endsWith(u"Weather for Lisbon: sunny"_s));
    }

    // The New Run dialog lists the deployment's assistants and starts the run on the one chosen.
    void assistantPicker()
    {
        NewRunDialog dialog(&m_b->manager);
        QComboBox *agents = dialog.agentBox();
        dialog.setConnection(kLangGraph);
        QVERIFY(agents->isVisibleTo(&dialog));
        QTRY_COMPARE(agents->count(), 6);
        QStringList names;
        for (int i = 0; i < agents->count(); ++i)
            names << agents->itemText(i).section(u" · "_s, 0, 0);
        names.sort();
        QCOMPARE(names, (QStringList{u"approval"_s, u"echo"_s, u"fail"_s, u"question"_s, u"restricted"_s,
                                     u"slow"_s}));
        // The connection's default names a graph: its assistant is picked, not listed twice.
        QCOMPARE(agents->currentText(), u"echo"_s);
        agents->setCurrentIndex(agents->findText(u"question"_s, Qt::MatchStartsWith));
        agents->setCurrentIndex(agents->findText(u"echo"_s, Qt::MatchStartsWith));
        dialog.promptEdit()->setPlainText(u"picked"_s);
        if (const QString dir = qEnvironmentVariable("RUNWATCH_GRAB_DIR"); !dir.isEmpty()) {
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            dialog.grab().save(dir + u"/langgraph-assistant-picker.png"_s);
        }
        const StartRequest request = dialog.request();
        QCOMPARE(request.agent.size(), 36); // the assistant's id
        const QString id = m_b->manager.startRun(dialog.connection(), request);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QVERIFY(run(id)->primaryText.startsWith(u"Echo: picked"_s));
    }
};

QTEST_MAIN(TestLangGraphPanels)
#include "tst_langgraphpanels.moc"
