// SPDX-License-Identifier: GPL-3.0-or-later
// "Follow Up…" in the main window against the simulators (issue 16, the seed's Update): enabled
// only where the backend's capability and the run's state allow it, the prompt dialog starts the
// next turn as a run of its own linked to its parent, and the new run is selected; on a working
// A2A task it sends a message to that task (the same run goes on); the Conversation tab shows
// every turn, the later ones too.
#include "actioncontroller.h"
#include "conversationview.h"
#include "detailpane.h"
#include "mainwindow.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QInputDialog>
#include <QTabWidget>
#include <QToolBar>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kWait = 20000;
} // namespace

class TestFollowUp final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<MainWindow> m_window;

    ActionController *actions() const { return m_window->actions(); }
    QAction *followUp() const { return actions()->followUpAction(); }
    const Run *run(const QString &id) const { return m_engine->manager.run(id); }

    void select(const QString &id)
    {
        QTRY_VERIFY(m_window->activateRun(id));
        QTRY_COMPARE(m_window->table()->selectedRunIds(), QStringList{id});
        actions()->updateActions();
    }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }

    void init()
    {
        QSettings().clear();
        m_engine = std::make_unique<Engine>();
        m_window = std::make_unique<MainWindow>(&m_engine->manager);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanup()
    {
        if (QInputDialog *dialog = actions()->pendingFollowUp())
            dialog->reject();
        m_window.reset();
        m_engine.reset();
    }

    // Enabled for a completed OpenAI response and a completed A2A task; not while a run works or
    // waits, not after a failure, never for generic jobs; in the toolbar, the Run menu and the
    // list's context menu, with a shortcut.
    void enabledOnlyWhereAllowed()
    {
        QVERIFY(m_window->toolBar()->widgetForAction(followUp()));
        QVERIFY(m_window->table()->actions().contains(followUp()));
        QVERIFY(!followUp()->shortcut().isEmpty());

        const QString done = m_engine->start(kSim, u"normal deltas=5"_s);
        const QString failed = m_engine->start(kSim, u"fail deltas=4"_s);
        const QString running = m_engine->start(kSim, u"long interval_ms=20"_s);
        const QString task = m_engine->start(kA2a, u"normal chunks=3"_s);
        const QString workingTask = m_engine->start(kA2a, u"long interval_ms=20"_s);
        const QString askingTask = m_engine->start(kA2a, u"input"_s);
        const QString job = m_engine->start(kJobs, u"normal deltas=3"_s);
        const QString waiting = m_engine->start(kJobs, u"ask_user deltas=4"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(done), RunStatus::Completed, kWait);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(failed), RunStatus::Failed, kWait);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(task), RunStatus::Completed, kWait);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(job), RunStatus::Completed, kWait);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(waiting), RunStatus::InputRequired, kWait);
        QTRY_VERIFY_WITH_TIMEOUT(!run(running)->primaryText.isEmpty(), kWait);
        QTRY_VERIFY_WITH_TIMEOUT(!run(workingTask)->primaryText.isEmpty(), kWait);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(askingTask), RunStatus::InputRequired, kWait);

        const std::pair<QString, bool> expected[] = {
            {done, true},
            {task, true},
            {failed, false},
            {running, false},
            {job, false},
            {waiting, false},
            // A2A: a working task takes a message (FollowUpWorking); one that asks is answered
            // with Respond instead.
            {workingTask, true},
            {askingTask, false},
        };
        for (const auto &[id, enabled] : expected) {
            select(id);
            QVERIFY2(followUp()->isEnabled() == enabled, qPrintable(run(id)->prompt));
        }
        m_engine->manager.cancelRun(running);
        m_engine->manager.cancelRun(workingTask);
    }

    // Follow Up on a working A2A task sends the message to that task: no new run, the same run
    // selected, its conversation shows the message, and the agent's text that folds it in
    // arrives in the same run.
    void workingTaskTakesTheMessage()
    {
        const QString id = m_engine->start(kA2a, u"listen chunks=40 interval_ms=40"_s);
        QTRY_VERIFY_WITH_TIMEOUT(!run(id)->primaryText.isEmpty(), kWait);
        select(id);
        QVERIFY(followUp()->isEnabled());
        const qsizetype before = m_engine->manager.runIds().size();
        followUp()->trigger();
        QInputDialog *dialog = actions()->pendingFollowUp();
        QVERIFY(dialog);
        dialog->setTextValue(u"mention the 2025 figures"_s);
        dialog->accept();
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(id), RunStatus::Completed, kWait);
        QCOMPARE(m_engine->manager.runIds().size(), before);
        QVERIFY2(run(id)->primaryText.contains(u"[noted: mention the 2025 figures] "_s),
                 qPrintable(run(id)->primaryText.toString()));
        QCOMPARE(m_window->table()->selectedRunIds(), QStringList{id});
        ConversationView *view = m_window->detailPane()->conversationView();
        QTRY_COMPARE(view->messages(),
                     (QStringList{u"listen chunks=40 interval_ms=40"_s, u"mention the 2025 figures"_s}));
        QVERIFY(view->toPlainText().contains(u"[noted: mention the 2025 figures]"_s));
    }

    // The dialog sends the next turn: a new run whose parent is the selected one, selected and
    // followed to completion; Cancel sends nothing.
    void dialogStartsTheNextTurn()
    {
        const QString parent = m_engine->start(kSim, u"normal deltas=5 draft the report"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(parent), RunStatus::Completed, kWait);
        select(parent);
        QVERIFY(followUp()->isEnabled());

        const qsizetype before = m_engine->manager.runIds().size();
        followUp()->trigger();
        QInputDialog *dialog = actions()->pendingFollowUp();
        QVERIFY(dialog);
        dialog->reject();
        QTRY_VERIFY(!actions()->pendingFollowUp());
        QCOMPARE(m_engine->manager.runIds().size(), before);

        followUp()->trigger();
        dialog = actions()->pendingFollowUp();
        QVERIFY(dialog);
        QVERIFY(dialog->labelText().contains(u"draft the report"_s));
        dialog->setTextValue(u"normal deltas=3 now one page"_s);
        dialog->accept();
        QTRY_COMPARE(m_engine->manager.runIds().size(), before + 1);
        const QString child = m_engine->manager.runIds().last();
        QCOMPARE(run(child)->parentId, parent);
        QCOMPARE(run(child)->prompt, u"normal deltas=3 now one page"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(child), RunStatus::Completed, kWait);
        QCOMPARE(run(child)->primaryText, RunwatchSim::OpenAiSimulator::tokenText(3));
        QTRY_COMPARE(m_window->table()->selectedRunIds(), QStringList{child});

        // The detail pane shows the whole conversation in order: each turn's prompt and answer.
        ConversationView *view = m_window->detailPane()->conversationView();
        QTRY_COMPARE(view->turnCount(), 2);
        auto *tabs = m_window->detailPane()->findChild<QTabWidget *>();
        QVERIFY(tabs && tabs->indexOf(view) >= 0);
        QTRY_VERIFY(view->toPlainText().contains(RunwatchSim::OpenAiSimulator::tokenText(3)));
        const QString text = view->toPlainText();
        const qsizetype a = text.indexOf(u"draft the report"_s),
                        b = text.indexOf(RunwatchSim::OpenAiSimulator::tokenText(5)),
                        c = text.indexOf(u"now one page"_s);
        QVERIFY2(a >= 0 && a < b && b < c, qPrintable(text));
        // The first turn shows the whole conversation too: the follow-up made after it.
        select(parent);
        QTRY_COMPARE(view->turnCount(), 2);
        QVERIFY(tabs->indexOf(view) >= 0);
        QCOMPARE(view->messages(),
                 (QStringList{u"normal deltas=5 draft the report"_s, u"normal deltas=3 now one page"_s}));
        QTRY_VERIFY(view->toPlainText().contains(RunwatchSim::OpenAiSimulator::tokenText(3)));
        // A turn added to the conversation on screen joins it there, and its answer fills in as it
        // arrives, without selecting anything again.
        const QString third = m_engine->manager.followUp(child, u"normal deltas=4 and a summary"_s);
        QVERIFY(!third.isEmpty());
        QTRY_COMPARE(view->turnCount(), 3);
        QCOMPARE(m_window->table()->selectedRunIds(), QStringList{parent});
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(third), RunStatus::Completed, kWait);
        QCOMPARE(view->messages().last(), u"normal deltas=4 and a summary"_s);
        // Its answer, after its prompt (the last turn: nothing else follows it).
        QTRY_VERIFY(view->toPlainText().indexOf(u"tok3"_s, view->toPlainText().indexOf(u"and a summary"_s))
                    > 0);
        // A run without follow-ups has no conversation tab.
        const QString alone = m_engine->start(kSim, u"normal deltas=2"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(alone), RunStatus::Completed, kWait);
        select(alone);
        QTRY_VERIFY(tabs->indexOf(view) < 0);
    }
};

QTEST_MAIN(TestFollowUp)
#include "tst_followup.moc"
