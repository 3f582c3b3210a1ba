// SPDX-License-Identifier: GPL-3.0-or-later
// The main window against the OpenAI and jobs simulators: the model under
// QAbstractItemModelTester, a run started from the dialog streaming into the output view,
// cancel / delete with confirmation, actions enabled by capability and status, answering a run
// that needs input, selection and filters.
#include "actioncontroller.h"
#include "detailpane.h"
#include "filterbar.h"
#include "inputpanel.h"
#include "mainwindow.h"
#include "models/runfilterproxy.h"
#include "models/runformat.h"
#include "newrundialog.h"
#include "outputview.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QToolBar>
#include <QToolButton>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kWait = 20000;
} // namespace

class TestMainWindow final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<MainWindow> m_window;

    RunListModel *model() const { return m_window->runModel(); }
    ActionController *actions() const { return m_window->actions(); }
    QWidget *button(QAction *action) const { return m_window->toolBar()->widgetForAction(action); }
    const Run *run(const QString &id) const { return m_engine->manager.run(id); }

    bool waitStatus(const QString &id, RunStatus status, int ms = kWait)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < ms) {
            if (m_engine->status(id) == status)
                return true;
            QTest::qWait(5);
        }
        return false;
    }

    QVariant cell(const QString &id, int column, int role) const
    {
        const int row = model()->rowOf(id);
        return row < 0 ? QVariant() : model()->data(model()->index(row, column), role);
    }

    void select(const QString &id)
    {
        QTRY_VERIFY(m_window->activateRun(id));
        QTRY_COMPARE(m_window->table()->selectedRunIds(), QStringList{id});
        actions()->updateActions();
    }

    QPushButton *confirmButton()
    {
        QMessageBox *box = actions()->pendingConfirmation();
        return box ? box->findChild<QPushButton *>(u"confirmButton"_s) : nullptr;
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
        // Shortcuts (Alt+2) reach the active window only: without a window manager (Xvfb) the
        // window that replaces an earlier test's is not made active by itself.
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    }

    void cleanup()
    {
        if (QMessageBox *box = m_window ? actions()->pendingConfirmation() : nullptr)
            box->reject();
        m_window.reset();
        m_engine.reset();
    }

    // A title, a question or an error a server sent can look like markup: every label that may
    // show one takes it as plain text, and tooltips show it escaped.
    void serverTextIsNeverMarkup()
    {
        const QString markup = u"<b>bold</b> <img src=\"x\"> <a href=\"https://evil.example\">link</a>"_s;
        const QString id = m_engine->start(kSim, markup + u" normal deltas=3"_s);
        QTRY_VERIFY_WITH_TIMEOUT(run(id) && run(id)->isTerminal(), kWait);
        select(id);
        auto *title = m_window->findChild<QLabel *>(u"runTitle"_s);
        QVERIFY(title);
        QTRY_VERIFY(title->text().contains(u"<b>bold</b>"_s));
        QCOMPARE(title->textFormat(), Qt::PlainText);
        QVERIFY(title->toolTip().contains(u"&lt;img src=&quot;x&quot;&gt;"_s));
        for (const QString &name : {u"inputPrompt"_s, u"runTitle"_s}) {
            const auto *label = m_window->findChild<QLabel *>(name);
            QVERIFY2(label && label->textFormat() == Qt::PlainText, qPrintable(name));
        }
        // The error line is our markup around the server's escaped words: shown formatted, the
        // server's part as text.
        const QString failed = m_engine->start(kSim, u"fail deltas=2"_s);
        QTRY_VERIFY_WITH_TIMEOUT(run(failed) && run(failed)->isTerminal(), kWait);
        select(failed);
        auto *error = m_window->findChild<QLabel *>(u"errorText"_s);
        QVERIFY(error);
        QTRY_VERIFY(error->isVisible());
        QCOMPARE(error->textFormat(), Qt::RichText);
        QVERIFY2(error->text().startsWith(u"<b>"_s), qPrintable(error->text()));
        QCOMPARE(plainToolTip(u"a <b>b</b>\nc & d"_s),
                 u"<p style='white-space:pre-wrap'>a &lt;b&gt;b&lt;/b&gt;\nc &amp; d</p>"_s);
    }

    // The model and the proxy stay consistent through inserts, streaming changes, status
    // changes, filtering and removals.
    void modelPassesTester()
    {
        QAbstractItemModelTester modelTester(model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(m_window->proxy(),
                                             QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QStringList ids{
            m_engine->start(kSim, u"normal deltas=40"_s),    m_engine->start(kSim, u"reasoning deltas=20"_s),
            m_engine->start(kSim, u"fail deltas=10"_s),      m_engine->start(kJobs, u"options deltas=4"_s),
            m_engine->start(kSim, u"incomplete deltas=5"_s),
        };
        m_window->filterBar()->setCategory(StatusCategory::Active);
        QTRY_VERIFY_WITH_TIMEOUT(run(ids[0])->isTerminal() && run(ids[1])->isTerminal()
                                     && run(ids[2])->isTerminal() && run(ids[4])->isTerminal(),
                                 kWait);
        QVERIFY(waitStatus(ids[3], RunStatus::InputRequired));
        model()->flush();
        QCOMPARE(m_window->proxy()->rowCount(), 0);
        m_window->filterBar()->setCategory(StatusCategory::All);
        QCOMPARE(m_window->proxy()->rowCount(), 5);
        m_engine->manager.deleteRun(ids[2], false);
        QTRY_COMPARE(model()->rowCount(), 4);
        QCOMPARE(model()->counts().value(StatusCategory::Completed), 2);
        QCOMPARE(model()->counts().value(StatusCategory::Failed), 1);
        QCOMPARE(model()->counts().value(StatusCategory::NeedsInput), 1);
    }

    // New Run: the dialog starts a run, the run is selected, and its text streams into the
    // output view in several frames.
    void startRunFromDialog()
    {
        QList<qsizetype> seen;
        connect(m_window->detailPane()->outputView(), &OutputView::flushed, this,
                [&] { seen << m_window->detailPane()->outputView()->shownText().size(); });
        QVERIFY(actions()->newRunAction()->isEnabled());
        QTest::keyClick(m_window.get(), Qt::Key_N, Qt::ControlModifier);
        NewRunDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = findTopLevel<NewRunDialog>()));
        auto *start = dialog->findChild<QPushButton *>(u"newRunStart"_s);
        QVERIFY(start);
        QVERIFY(!start->isEnabled()); // no prompt yet
        dialog->setConnection(kSim);
        QCOMPARE(dialog->modelBox()->currentText(), u"runwatch-sim-1"_s);
        QVERIFY(dialog->streamBox()->isChecked());
        QTest::keyClicks(dialog->promptEdit(), u"normal deltas=80 interval_ms=4"_s);
        QVERIFY(start->isEnabled());
        QSignalSpy started(m_window.get(), &MainWindow::runStarted);
        QTest::mouseClick(start, Qt::LeftButton);
        QTRY_COMPARE(started.count(), 1);
        const QString id = started.first().first().toString();
        QCOMPARE(m_window->table()->selectedRunIds(), QStringList{id});
        QCOMPARE(run(id)->connection, kSim);
        const QString expected = RunwatchSim::OpenAiSimulator::tokenText(80);
        QTRY_COMPARE_WITH_TIMEOUT(m_window->detailPane()->outputView()->shownText(), expected, kWait);
        // It arrived in pieces, not in one go at the end.
        QVERIFY2(seen.size() >= 3, qPrintable(u"flushes: %1"_s.arg(seen.size())));
        QVERIFY(seen.first() > 0 && seen.first() < expected.size());
        QTRY_COMPARE(cell(id, StatusColumn, Qt::DisplayRole).toString(), u"Completed"_s);
    }

    // Cancel from the toolbar: confirmation, then the badge turns "Cancelled".
    void cancelFromButton()
    {
        const QString id = m_engine->start(kSim, u"long interval_ms=5"_s);
        select(id);
        QTRY_VERIFY_WITH_TIMEOUT(!run(id)->primaryText.isEmpty(), kWait);
        QWidget *cancel = button(actions()->cancelAction());
        QTRY_VERIFY(cancel->isEnabled());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_VERIFY(confirmButton());
        QCOMPARE(actions()->pendingConfirmation()->objectName(), u"confirmCancel"_s);
        QCOMPARE(m_engine->sim.requestCount(RunwatchSim::OpenAiEndpoint::Cancel), 0); // asked first
        QTest::mouseClick(confirmButton(), Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Cancelled));
        QTRY_COMPARE(cell(id, StatusColumn, RunListModel::StatusRole).toInt(), int(RunStatus::Cancelled));
        QCOMPARE(cell(id, StatusColumn, Qt::DisplayRole).toString(), u"Cancelled"_s);
        QCOMPARE(m_engine->sim.requestCount(RunwatchSim::OpenAiEndpoint::Cancel), 1);
        QTRY_VERIFY(!cancel->isEnabled());
    }

    // A run that finishes while the confirmation is open is not cancelled afterwards.
    void cancelRecheckedAfterConfirmation()
    {
        m_engine->sim.setManualAdvance(true);
        const QString id = m_engine->start(kSim, u"normal deltas=4"_s);
        QTRY_VERIFY(!m_engine->sim.lastResponseId().isEmpty());
        const QString remote = m_engine->sim.lastResponseId();
        m_engine->sim.advance(remote, 4);
        QTRY_VERIFY_WITH_TIMEOUT(run(id)->status == RunStatus::InProgress, kWait);
        select(id);
        QTRY_VERIFY(actions()->cancelAction()->isEnabled());
        actions()->cancelAction()->trigger();
        QTRY_VERIFY(confirmButton());
        m_engine->sim.advanceToEnd(remote);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QTest::mouseClick(confirmButton(), Qt::LeftButton);
        QTest::qWait(100);
        QCOMPARE(m_engine->sim.requestCount(RunwatchSim::OpenAiEndpoint::Cancel), 0);
        QCOMPARE(run(id)->status, RunStatus::Completed);
    }

    // Delete asks first, says it deletes on the server, and then removes the row.
    void deleteAsksAndRemovesRow()
    {
        const QString id = m_engine->start(kSim, u"normal deltas=5"_s);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        const QString remote = run(id)->remoteId;
        select(id);
        m_window->table()->setFocus();
        QTest::keyClick(m_window->table(), Qt::Key_Delete);
        QTRY_VERIFY(confirmButton());
        QMessageBox *box = actions()->pendingConfirmation();
        QCOMPARE(box->objectName(), u"confirmDelete"_s);
        QVERIFY2(box->informativeText().contains(u"deleted on the server"_s),
                 qPrintable(box->informativeText()));
        QVERIFY(box->checkBox() && box->checkBox()->isChecked());
        QVERIFY(model()->rowOf(id) >= 0); // nothing happened yet
        QTest::mouseClick(confirmButton(), Qt::LeftButton);
        QTRY_COMPARE(model()->rowOf(id), -1);
        QVERIFY(!run(id));
        QVERIFY(m_engine->sim.wasDeleted(remote));
        QVERIFY(m_window->table()->selectedRunIds().isEmpty());
    }

    // Declining keeps the run; unticking "on the server" deletes locally only and says so.
    void deleteDeclinedOrLocalOnly()
    {
        const QString id = m_engine->start(kSim, u"normal deltas=5"_s);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        const QString remote = run(id)->remoteId;
        select(id);
        actions()->deleteAction()->trigger();
        QTRY_VERIFY(actions()->pendingConfirmation());
        actions()->pendingConfirmation()->button(QMessageBox::Cancel)->click();
        QTRY_VERIFY(!actions()->pendingConfirmation());
        QVERIFY(model()->rowOf(id) >= 0);

        actions()->deleteAction()->trigger();
        QTRY_VERIFY(confirmButton());
        QMessageBox *box = actions()->pendingConfirmation();
        box->checkBox()->setChecked(false);
        QVERIFY2(box->informativeText().contains(u"this computer only"_s),
                 qPrintable(box->informativeText()));
        QTest::mouseClick(confirmButton(), Qt::LeftButton);
        QTRY_COMPARE(model()->rowOf(id), -1);
        QVERIFY(!m_engine->sim.wasDeleted(remote));
        QCOMPARE(m_engine->sim.requestCount(RunwatchSim::OpenAiEndpoint::Delete), 0);
    }

    // Buttons follow the backend's capabilities and the run's status.
    void buttonsFollowCapabilityAndStatus()
    {
        const QString done = m_engine->start(kSim, u"normal deltas=5"_s);
        const QString running = m_engine->start(kSim, u"long interval_ms=20"_s);
        const QString waiting = m_engine->start(kJobs, u"ask_user deltas=4"_s);
        QVERIFY(waitStatus(done, RunStatus::Completed));
        QVERIFY(waitStatus(waiting, RunStatus::InputRequired));
        QTRY_VERIFY_WITH_TIMEOUT(!run(running)->primaryText.isEmpty(), kWait);

        select(done);
        QVERIFY(!button(actions()->cancelAction())->isEnabled());
        QVERIFY(!button(actions()->respondAction())->isEnabled());
        QVERIFY(!button(actions()->resumeAction())->isEnabled());
        QVERIFY(button(actions()->deleteAction())->isEnabled());
        QVERIFY(button(actions()->copyAction())->isEnabled());

        select(running);
        QVERIFY(button(actions()->cancelAction())->isEnabled());
        // The OpenAI connector cannot answer input: Respond stays off whatever the status.
        QVERIFY(!button(actions()->respondAction())->isEnabled());
        QVERIFY(!button(actions()->resumeAction())->isEnabled()); // healthy stream

        select(waiting);
        QVERIFY(button(actions()->respondAction())->isEnabled());
        QVERIFY(button(actions()->cancelAction())->isEnabled());
        QVERIFY(!button(actions()->resumeAction())->isEnabled());

        // Bulk: cancel applies to the running one; respond and copy need a single run.
        m_window->table()->selectionModel()->select(m_window->proxy()->indexOfRun(done),
                                                    QItemSelectionModel::Select | QItemSelectionModel::Rows);
        m_window->table()->selectionModel()->select(m_window->proxy()->indexOfRun(running),
                                                    QItemSelectionModel::Select | QItemSelectionModel::Rows);
        actions()->updateActions();
        QCOMPARE(m_window->table()->selectedRunIds().size(), 3);
        QVERIFY(button(actions()->cancelAction())->isEnabled());
        QVERIFY(!button(actions()->respondAction())->isEnabled());
        QVERIFY(!button(actions()->copyAction())->isEnabled());
        QVERIFY(button(actions()->deleteAction())->isEnabled());
        m_engine->manager.cancelRun(running);
    }

    // Respond: the input panel takes a free-text answer and the run goes on to completion.
    void respondWithText()
    {
        const QString id = m_engine->start(kJobs, u"ask_user deltas=4"_s);
        QVERIFY(waitStatus(id, RunStatus::InputRequired));
        select(id);
        InputPanel *panel = m_window->detailPane()->inputPanel();
        QTRY_VERIFY(panel->isVisible());
        QTest::keyClick(m_window.get(), Qt::Key_I, Qt::ControlModifier); // Respond
        auto *answer = panel->findChild<QPlainTextEdit *>(u"inputAnswer"_s);
        QTRY_VERIFY(answer->hasFocus());
        auto *send = panel->findChild<QPushButton *>(u"inputSend"_s);
        QVERIFY(!send->isEnabled());
        QTest::keyClicks(answer, u"release/4.2"_s);
        QVERIFY(send->isEnabled());
        QTest::mouseClick(send, Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(m_engine->jobAnswers(id), (QList<QJsonObject>{{{u"text"_s, u"release/4.2"_s}}}));
        QVERIFY(run(id)->primaryText.contains(u"[answer: release/4.2]"_s));
        QTRY_VERIFY(!panel->isVisible());
        QTRY_VERIFY(m_window->detailPane()->outputView()->shownText().contains(u"release/4.2"_s));
    }

    // Approval: reject with a comment sends the rejection with the comment, and the job stops
    // there (the service skips the rest of its work and ends the job).
    void respondRejectApproval()
    {
        const QString id = m_engine->start(kJobs, u"approval deltas=4"_s);
        QVERIFY(waitStatus(id, RunStatus::InputRequired));
        QCOMPARE(run(id)->input->reason, InputReason::Approval);
        select(id);
        InputPanel *panel = m_window->detailPane()->inputPanel();
        QTRY_VERIFY(panel->isVisible());
        QTest::keyClicks(panel->findChild<QLineEdit *>(u"inputComment"_s), u"not during business hours"_s);
        QTest::mouseClick(panel->findChild<QPushButton *>(u"inputReject"_s), Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(
            m_engine->jobAnswers(id),
            (QList<QJsonObject>{{{u"approved"_s, false}, {u"comment"_s, u"not during business hours"_s}}}));
        QVERIFY(run(id)->primaryText.contains(u"[manager rejected: not during business hours]"_s));
        QVERIFY(!run(id)->primaryText.contains(u"tok2"_s)); // the work after the approval never ran
        QTRY_VERIFY(!panel->isVisible());
    }

    // Options: choosing one sends it.
    void respondChooseOption()
    {
        const QString id = m_engine->start(kJobs, u"options deltas=4"_s);
        QVERIFY(waitStatus(id, RunStatus::InputRequired));
        select(id);
        InputPanel *panel = m_window->detailPane()->inputPanel();
        QTRY_VERIFY(panel->isVisible());
        auto *options = panel->findChild<QListWidget *>(u"inputOptions"_s);
        QCOMPARE(options->count(), 3);
        options->setCurrentRow(1);
        QTest::mouseClick(panel->findChild<QPushButton *>(u"inputChoose"_s), Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(m_engine->jobAnswers(id), (QList<QJsonObject>{{{u"choice"_s, u"standard"_s}}}));
        QVERIFY(run(id)->primaryText.contains(u"[choice: standard]"_s));
    }

    // A failed run shows the error banner with its code and whether retrying can help.
    void errorBanner()
    {
        const QString id = m_engine->start(kSim, u"fail deltas=10"_s);
        QVERIFY(waitStatus(id, RunStatus::Failed));
        select(id);
        QLabel *banner = m_window->detailPane()->errorBanner();
        QTRY_VERIFY(banner->isVisible());
        QVERIFY2(banner->text().contains(u"server_error"_s), qPrintable(banner->text()));
        QVERIFY(banner->text().contains(u"Retryable"_s));
    }

    // The selection stays on the same run while other rows update and the list re-sorts.
    void selectionKeptAcrossUpdates()
    {
        QStringList ids;
        for (int i = 0; i < 4; ++i)
            ids << m_engine->start(kSim, u"long interval_ms=3"_s);
        QTRY_VERIFY_WITH_TIMEOUT(!run(ids[3])->primaryText.isEmpty(), kWait);
        m_window->table()->sortByColumn(LastActivityColumn, Qt::DescendingOrder);
        select(ids[1]);
        QSignalSpy changed(model(), &QAbstractItemModel::dataChanged);
        QTRY_VERIFY_WITH_TIMEOUT(changed.count() >= 5, kWait);
        QCOMPARE(m_window->table()->selectedRunIds(), QStringList{ids[1]});
        QCOMPARE(m_window->detailPane()->runId(), ids[1]);
        for (const QString &id : ids)
            m_engine->manager.cancelRun(id);
    }

    // Status chips show live counts and filter; the search filters by title and id.
    void chipsAndSearch()
    {
        const QString waiting = m_engine->start(kJobs, u"ask_user deltas=4"_s);
        const QString done = m_engine->start(kSim, u"normal deltas=3 release notes"_s);
        QVERIFY(waitStatus(waiting, RunStatus::InputRequired));
        QVERIFY(waitStatus(done, RunStatus::Completed));
        FilterBar *bar = m_window->filterBar();
        QTRY_VERIFY(bar->chip(StatusCategory::NeedsInput)->text().endsWith(u" 1"_s));
        QTRY_VERIFY(bar->chip(StatusCategory::All)->text().endsWith(u" 2"_s));
        QTest::keyClick(m_window.get(), Qt::Key_2, Qt::AltModifier); // "Needs me"
        QTRY_COMPARE(m_window->proxy()->rowCount(), 1);
        QCOMPARE(m_window->proxy()->runId(0), waiting);
        bar->chip(StatusCategory::All)->click();
        QCOMPARE(m_window->proxy()->rowCount(), 2);
        QTest::keyClick(m_window.get(), Qt::Key_F, Qt::ControlModifier);
        QTRY_VERIFY(bar->searchField()->hasFocus());
        QTest::keyClicks(bar->searchField(), done.left(6));
        QTRY_COMPARE(m_window->proxy()->rowCount(), 1);
        QCOMPARE(m_window->proxy()->runId(0), done);
        bar->searchField()->clear();
        const int jobsAt = bar->connectionBox()->findData(kJobs);
        QVERIFY(jobsAt > 0);
        bar->connectionBox()->setCurrentIndex(jobsAt);
        QTRY_COMPARE(m_window->proxy()->rowCount(), 1);
        QCOMPARE(m_window->proxy()->runId(0), waiting);
    }

    // Every control a user (or a screen reader) reaches has an accessible name.
    void accessibleNames()
    {
        for (QAction *a : m_window->toolBar()->actions()) {
            if (a->isSeparator())
                continue;
            QWidget *w = m_window->toolBar()->widgetForAction(a);
            if (qobject_cast<QToolButton *>(w))
                QVERIFY2(!w->accessibleName().isEmpty(), qPrintable(a->text()));
        }
        const auto widgets = m_window->findChildren<QWidget *>();
        for (QWidget *w : widgets) {
            const bool control = qobject_cast<QAbstractButton *>(w) || qobject_cast<QLineEdit *>(w)
                                 || qobject_cast<QComboBox *>(w) || qobject_cast<QAbstractItemView *>(w)
                                 || qobject_cast<QPlainTextEdit *>(w);
            if (!control || w->objectName().startsWith(u"qt_"_s) || qobject_cast<QHeaderView *>(w)
                || w->window() != m_window.get()) // popups of combo boxes and menus
                continue;
            // Qt's own helpers (a combo's editor, a line edit's clear button, tab scrollers, the
            // table's corner button) take their names from their owner.
            const QWidget *owner = w->parentWidget();
            if (!owner || owner->inherits("QComboBox") || owner->inherits("QLineEdit")
                || owner->inherits("QTabBar") || owner->inherits("QAbstractItemView")
                || w->inherits("QTabBar"))
                continue;
            if (auto *b = qobject_cast<QAbstractButton *>(w); b && !b->text().isEmpty())
                continue; // the visible label is the accessible name
            QVERIFY2(!w->accessibleName().isEmpty(),
                     qPrintable(
                         u"%1 %2"_s.arg(QString::fromLatin1(w->metaObject()->className()), w->objectName())));
        }
    }

    // What a screen reader says besides the name: the chips (with their shortcuts), the search and
    // connection filters, the list, the detail pane and its panels carry descriptions; a status
    // badge in the list, painted, says it is one and reads its status and tooltip.
    void accessibleDescriptions()
    {
        const QString id = m_engine->start(kJobs, u"Approval: ship it"_s);
        QVERIFY(waitStatus(id, RunStatus::InputRequired));
        QVERIFY(m_window->activateRun(id));
        QList<QWidget *> described{m_window->filterBar(), m_window->table(), m_window->detailPane()};
        for (int c = 0; c < kStatusCategoryCount; ++c)
            described << m_window->filterBar()->chip(StatusCategory(c));
        for (const char *type : {"Runwatch::OutputView", "Runwatch::TimelineView", "Runwatch::RawLogView",
                                 "Runwatch::InputPanel", "Runwatch::UsageTotalsLabel"}) {
            const auto found = m_window->findChildren<QWidget *>();
            const auto it
                = std::find_if(found.begin(), found.end(), [type](QWidget *w) { return w->inherits(type); });
            QVERIFY2(it != found.end(), type);
            described << *it;
        }
        for (const char *name : {"searchField", "connectionFilter"}) {
            auto *w = m_window->findChild<QWidget *>(QString::fromLatin1(name));
            QVERIFY2(w, name);
            described << w;
        }
        for (QWidget *w : std::as_const(described)) {
            QVERIFY2(!w->accessibleDescription().isEmpty(),
                     qPrintable(
                         u"%1 %2"_s.arg(QString::fromLatin1(w->metaObject()->className()), w->objectName())));
        }
        model()->flush();
        const QModelIndex badge = model()->index(model()->rowOf(id), StatusColumn);
        QCOMPARE(badge.data(Qt::AccessibleDescriptionRole).toString(), u"Status badge"_s);
        const QString spoken = badge.data(Qt::AccessibleTextRole).toString();
        QVERIFY2(!badge.data().toString().isEmpty() && spoken.startsWith(badge.data().toString()),
                 qPrintable(spoken));
    }

    // A dropped stream waits before it reconnects; the detail pane's badge counts the wait down
    // by itself ("next try in 3 s", "2 s", …) although nothing about the run changes meanwhile,
    // and the run completes after the reconnect.
    void reconnectCountdownTicks()
    {
        FollowPolicy policy;
        policy.reconnectInitial = std::chrono::milliseconds(3500);
        policy.reconnectMax = std::chrono::milliseconds(3500);
        m_engine->manager.setFollowPolicy(policy);
        const QString id = m_engine->start(kSim, u"normal deltas=20 interval_ms=10 drop_after=6"_s);
        QVERIFY(m_window->activateRun(id));
        QWidget *badge = nullptr;
        for (QWidget *w : m_window->detailPane()->findChildren<QWidget *>()) {
            if (w->accessibleName().startsWith(u"Status: "_s))
                badge = w;
        }
        QVERIFY(badge);
        const auto shown = [badge] { return badge->accessibleName(); };
        // The seconds the badge shows (4, 3, 2, 1 for a 3.5 s wait); -1 while it shows none.
        const auto seconds = [&shown] {
            static const QRegularExpression re(u"next try in (\\d+) s"_s);
            const QRegularExpressionMatch m = re.match(shown());
            return m.hasMatch() ? m.captured(1).toInt() : -1;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(seconds() >= 2, qPrintable(shown()), 10000);
        const int first = seconds();
        QSignalSpy changes(&m_engine->manager, &RunManager::runChanged);
        QTRY_COMPARE_WITH_TIMEOUT(seconds(), first - 1, 2500);
        QCOMPARE(changes.count(), 0); // the countdown moved on its own
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(id), RunStatus::Completed, 20000);
        QVERIFY(!shown().contains(u"next try"_s));
        QCOMPARE(run(id)->primaryText, RunwatchSim::OpenAiSimulator::tokenText(20));
    }

    // Filters, the sort column and column widths survive a restart.
    void stateRemembered()
    {
        m_window->filterBar()->setCategory(StatusCategory::Failed);
        m_window->table()->horizontalHeader()->resizeSection(ModelColumn, 177);
        m_window->table()->setColumnHidden(BackendColumn, true);
        m_window->close();
        auto again = std::make_unique<MainWindow>(&m_engine->manager);
        QCOMPARE(again->filterBar()->category(), StatusCategory::Failed);
        QCOMPARE(again->proxy()->filter().category(), StatusCategory::Failed);
        QCOMPARE(again->table()->horizontalHeader()->sectionSize(ModelColumn), 177);
        QVERIFY(again->table()->isColumnHidden(BackendColumn));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
