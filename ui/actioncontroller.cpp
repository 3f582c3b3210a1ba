// SPDX-License-Identifier: GPL-3.0-or-later
#include "actioncontroller.h"

#include "batchresponddialog.h"
#include "cancelladderbanner.h"
#include "deadlinedialog.h"
#include "detailpane.h"
#include "domain/runreducer.h"
#include "icons.h"
#include "inputpanel.h"
#include "runtableview.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QPushButton>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
QAction *makeAction(QObject *parent, const QString &icon, const QString &text, const QString &name,
                    const QKeySequence &shortcut, const QString &tip, const QPalette &palette)
{
    auto *a = new QAction(Icons::themed(icon, palette), text, parent);
    a->setObjectName(name);
    a->setShortcut(shortcut);
    a->setShortcutContext(Qt::WindowShortcut);
    const QString keys = shortcut.toString(QKeySequence::NativeText);
    a->setToolTip(keys.isEmpty() ? tip : u"%1 (%2)"_s.arg(tip, keys));
    a->setStatusTip(tip);
    return a;
}
} // namespace

ActionController::ActionController(RunManager *manager, RunTableView *table, DetailPane *detail,
                                   QWidget *window)
    : QObject(window)
    , m_manager(manager)
    , m_table(table)
    , m_detail(detail)
    , m_window(window)
{
    const QPalette &pal = window->palette();
    m_newRun = makeAction(this, u"new-run"_s, tr("&New Run…"), u"actionNewRun"_s, QKeySequence::New,
                          tr("Start a new run"), pal);
    m_cancel = makeAction(this, u"cancel"_s, tr("&Cancel Run"), u"actionCancel"_s, QKeySequence(u"Ctrl+."_s),
                          tr("Ask the server to stop the selected runs"), pal);
    m_forceCancel = makeAction(this, u"cancel"_s, tr("Force Ca&ncel"), u"actionForceCancel"_s,
                               QKeySequence(u"Ctrl+Shift+X"_s),
                               tr("Use the service's stronger cancel on runs whose cancel it has not "
                                  "confirmed"),
                               pal);
    m_stopWatching = makeAction(this, u"cancel"_s, tr("Stop &Watching…"), u"actionStopWatching"_s,
                                QKeySequence(u"Ctrl+Shift+W"_s),
                                tr("End runs whose cancel the service has not confirmed, with a record of "
                                   "what the server last said"),
                                pal);
    m_delete = makeAction(this, u"delete"_s, tr("&Delete…"), u"actionDelete"_s, QKeySequence::Delete,
                          tr("Delete the selected runs"), pal);
    m_resume = makeAction(this, u"resume"_s, tr("&Resume"), u"actionResume"_s, QKeySequence(u"Ctrl+R"_s),
                          tr("Reconnect a lost stream or poll the run again"), pal);
    m_respond = makeAction(this, u"respond"_s, tr("Res&pond"), u"actionRespond"_s, QKeySequence(u"Ctrl+I"_s),
                           tr("Answer the run that waits for input"), pal);
    m_followUp
        = makeAction(this, u"respond"_s, tr("Follow &Up…"), u"actionFollowUp"_s, QKeySequence(u"Ctrl+U"_s),
                     tr("Send the next turn of the conversation after a completed run"), pal);
    m_copy = makeAction(this, u"copy"_s, tr("C&opy Output"), u"actionCopyOutput"_s,
                        QKeySequence(u"Ctrl+Shift+C"_s), tr("Copy the run's whole output"), pal);
    m_refresh = makeAction(this, u"resume"_s, tr("Re&fresh"), u"actionRefresh"_s, QKeySequence::Refresh,
                           tr("Read the selected runs' state from the server"), pal);
    m_deadline = makeAction(this, u"resume"_s, tr("Set &Deadline…"), u"actionSetDeadline"_s,
                            QKeySequence(u"Ctrl+Shift+D"_s),
                            tr("Give the selected runs a time budget: warned before, cancelled at the end "
                               "when asked"),
                            pal);
    // Toolbar labels stay short; the menu uses the full text.
    m_cancel->setIconText(tr("Cancel"));
    m_delete->setIconText(tr("Delete"));
    m_newRun->setIconText(tr("New Run"));
    m_copy->setIconText(tr("Copy Output"));
    m_followUp->setIconText(tr("Follow Up"));

    connect(m_newRun, &QAction::triggered, this, &ActionController::newRunRequested);
    connect(m_cancel, &QAction::triggered, this, &ActionController::cancelSelected);
    connect(m_forceCancel, &QAction::triggered, this, &ActionController::forceCancelSelected);
    connect(m_stopWatching, &QAction::triggered, this, &ActionController::stopWatchingSelected);
    connect(detail->cancelLadder(), &CancelLadderBanner::forceCancelRequested, this,
            [this](const QString &id) {
                if (m_manager && stateOf(id).forceCancel)
                    m_manager->forceCancelRun(id);
            });
    connect(detail->cancelLadder(), &CancelLadderBanner::stopWatchingRequested, this,
            [this](const QString &id) { stopWatchingRuns({id}); });
    connect(m_delete, &QAction::triggered, this, &ActionController::deleteSelected);
    connect(m_resume, &QAction::triggered, this, &ActionController::resumeSelected);
    connect(m_respond, &QAction::triggered, this, &ActionController::respondSelected);
    connect(m_followUp, &QAction::triggered, this, &ActionController::followUpSelected);
    connect(m_copy, &QAction::triggered, this, &ActionController::copySelected);
    connect(m_refresh, &QAction::triggered, this, &ActionController::refreshSelected);
    connect(m_deadline, &QAction::triggered, this, &ActionController::setDeadlineSelected);
    connect(detail, &DetailPane::answered, this, &ActionController::answer);
    connect(detail, &DetailPane::resumeRequested, this, [this](const QString &id) {
        if (m_manager && stateOf(id).resume)
            m_manager->follow(id);
    });

    m_update.setObjectName(u"actionUpdate"_s);
    m_update.setSingleShot(true);
    m_update.setInterval(50);
    connect(&m_update, &QTimer::timeout, this, &ActionController::updateActions);
    if (manager) {
        connect(manager, &RunManager::runChanged, this, [this](const QString &id, RunChanges changes) {
            // Runs change thousands of times a second: test against the cached selection.
            if ((changes & ~RunChanges(RunChange::Cursor | RunChange::Secondary | RunChange::Primary))
                && m_selected.contains(id)) {
                scheduleUpdate();
            } else if (changes.testFlag(RunChange::Primary) && m_selected.contains(id)
                       && !m_copy->isEnabled()) {
                scheduleUpdate(); // the first output enables "Copy output"
            }
        });
        connect(manager, &RunManager::runRemoved, this, &ActionController::scheduleUpdate);
        connect(manager, &RunManager::actionFinished, this, &ActionController::onActionFinished);
        connect(manager, &RunManager::followingStopped, this, &ActionController::scheduleUpdate);
        connect(manager, &RunManager::cancelUnconfirmed, this, [this](const QString &id) {
            scheduleUpdate();
            Q_EMIT message(
                tr("The service has not confirmed the cancel of %1; Run › Stop Watching… ends it here.")
                    .arg(describe(id)),
                10000);
        });
    }
    updateActions();
}

QList<QAction *> ActionController::runActions() const
{
    return {m_cancel,  m_forceCancel, m_stopWatching, m_delete,  m_resume,
            m_respond, m_followUp,    m_copy,         m_refresh, m_deadline};
}

QStringList ActionController::selectedRunIds() const
{
    return m_table->selectedRunIds();
}

RunActionState ActionController::stateOf(const QString &id) const
{
    const Run *run = m_manager ? m_manager->run(id) : nullptr;
    if (!run)
        return {};
    return actionStateFor(*run, m_manager->isFollowing(id));
}

RunActionState ActionController::selectionState() const
{
    QList<RunActionState> states;
    for (const QString &id : selectedRunIds()) {
        if (m_manager && m_manager->run(id))
            states.append(stateOf(id));
    }
    return actionStateForSelection(states);
}

void ActionController::scheduleUpdate()
{
    if (!m_update.isActive())
        m_update.start();
}

void ActionController::updateActions()
{
    const QStringList ids = selectedRunIds();
    m_selected = QSet<QString>(ids.cbegin(), ids.cend());
    const RunActionState s = selectionState();
    m_cancel->setEnabled(s.cancel);
    m_forceCancel->setEnabled(s.forceCancel);
    m_stopWatching->setEnabled(s.stopWatching);
    m_delete->setEnabled(s.remove);
    m_resume->setEnabled(s.resume);
    m_respond->setEnabled(s.respond);
    m_followUp->setEnabled(s.followUp);
    m_copy->setEnabled(s.copyOutput);
    m_refresh->setEnabled(!selectedRunIds().isEmpty());
    bool anyLive = false;
    for (const QString &id : ids) {
        const Run *run = m_manager ? m_manager->run(id) : nullptr;
        anyLive = anyLive || (run && !run->isTerminal());
    }
    m_deadline->setEnabled(anyLive);
    m_newRun->setEnabled(m_manager && !m_manager->connectionNames().isEmpty());
}

QString ActionController::describe(const QString &id) const
{
    const Run *run = m_manager ? m_manager->run(id) : nullptr;
    if (!run)
        return id;
    return run->title.isEmpty() ? tr("run %1").arg(id) : u"“%1”"_s.arg(run->title);
}

void ActionController::cancelSelected()
{
    QStringList ids;
    for (const QString &id : selectedRunIds()) {
        if (stateOf(id).cancel)
            ids.append(id);
    }
    if (ids.isEmpty() || m_confirm)
        return;
    auto *box = new QMessageBox(QMessageBox::Question, tr("Cancel Run"),
                                ids.size() == 1 ? tr("Cancel %1?").arg(describe(ids.first()))
                                                : tr("Cancel %n runs?", nullptr, int(ids.size())),
                                QMessageBox::NoButton, m_window);
    box->setObjectName(u"confirmCancel"_s);
    box->setInformativeText(tr("The server is asked to stop; the output so far is kept. "
                               "Cancellation is best effort: a run may still finish."));
    QPushButton *yes = box->addButton(tr("Cancel Run"), QMessageBox::AcceptRole);
    yes->setObjectName(u"confirmButton"_s);
    box->addButton(tr("Keep Running"), QMessageBox::RejectRole);
    box->setDefaultButton(yes);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::accepted, this, [this, ids] {
        // Runs may have finished or gone while the dialog was open: check each one again.
        int skipped = 0;
        for (const QString &id : ids) {
            if (stateOf(id).cancel) {
                m_manager->cancelRun(id);
            } else {
                ++skipped;
            }
        }
        if (skipped > 0)
            Q_EMIT message(tr("%n run(s) finished before the cancel was sent.", nullptr, skipped), 6000);
        updateActions();
    });
    m_confirm = box;
    box->open();
}

void ActionController::deleteSelected()
{
    const QStringList ids = selectedRunIds();
    if (ids.isEmpty() || m_confirm)
        return;
    int onServer = 0;
    for (const QString &id : ids)
        onServer += stateOf(id).removeOnServer ? 1 : 0;
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Delete Run"),
                                ids.size() == 1 ? tr("Delete %1?").arg(describe(ids.first()))
                                                : tr("Delete %n runs?", nullptr, int(ids.size())),
                                QMessageBox::NoButton, m_window);
    box->setObjectName(u"confirmDelete"_s);
    QCheckBox *serverToo = nullptr;
    if (onServer > 0) {
        serverToo = new QCheckBox(tr("Also delete on the &server"));
        serverToo->setObjectName(u"deleteOnServer"_s);
        serverToo->setChecked(true);
        box->setCheckBox(serverToo);
    }
    const int total = int(ids.size());
    const auto explain = [box, serverToo, onServer, total] {
        const bool server = serverToo && serverToo->isChecked();
        QString text;
        if (!server) {
            text = tr("It is removed from this computer only; the server keeps it.");
            if (onServer == 0) {
                text = tr("This connection cannot delete runs on the server: the run is removed from "
                          "this computer only, and the server keeps it.");
            }
        } else if (onServer == total) {
            text = tr("It is deleted on the server and removed from this computer. "
                      "This cannot be undone.");
        } else {
            text = tr("%1 of %2 runs are deleted on the server; the others are removed from this "
                      "computer only.")
                       .arg(onServer)
                       .arg(total);
        }
        box->setInformativeText(text);
    };
    explain();
    if (serverToo)
        connect(serverToo, &QCheckBox::toggled, box, explain);
    QPushButton *yes = box->addButton(tr("Delete"), QMessageBox::DestructiveRole);
    yes->setObjectName(u"confirmButton"_s);
    box->addButton(QMessageBox::Cancel);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::buttonClicked, this,
            [this, ids, box, serverToo, yes](QAbstractButton *button) {
                if (button != yes)
                    return;
                const bool server = serverToo && serverToo->isChecked();
                for (const QString &id : ids) {
                    const RunActionState s = stateOf(id);
                    if (s.remove)
                        m_manager->deleteRun(id, server && s.removeOnServer);
                }
                Q_UNUSED(box)
                updateActions();
            });
    m_confirm = box;
    box->open();
}

void ActionController::resumeSelected()
{
    int resumed = 0;
    for (const QString &id : selectedRunIds()) {
        if (stateOf(id).resume) {
            m_manager->follow(id);
            ++resumed;
        }
    }
    if (resumed > 0)
        Q_EMIT message(tr("Resuming %n run(s)…", nullptr, resumed), 4000);
    scheduleUpdate();
}

void ActionController::followUpSelected()
{
    const QStringList ids = selectedRunIds();
    if (ids.size() != 1 || !stateOf(ids.first()).followUp || m_followUpDialog)
        return;
    const QString &parentId = ids.first();
    auto *dialog = new QInputDialog(m_window);
    dialog->setObjectName(u"followUpDialog"_s);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Follow Up"));
    dialog->setLabelText(tr("Next message to %1:").arg(describe(parentId)));
    dialog->setOption(QInputDialog::UsePlainTextEditForTextInput);
    dialog->setOkButtonText(tr("Send"));
    m_followUpDialog = dialog;
    connect(dialog, &QInputDialog::textValueSelected, this,
            [this, parentId](const QString &text) { sendFollowUp(parentId, text); });
    dialog->open();
}

void ActionController::sendFollowUp(const QString &parentId, const QString &prompt)
{
    // The run may have been deleted or changed while the dialog was open: check again.
    if (!m_manager || !stateOf(parentId).followUp) {
        Q_EMIT message(tr("%1 can no longer be followed up.").arg(describe(parentId)), 5000);
        return;
    }
    if (prompt.trimmed().isEmpty()) {
        Q_EMIT message(tr("A follow-up needs a message."), 4000);
        return;
    }
    QString why;
    const QString id = m_manager->followUp(parentId, prompt, &why);
    if (id.isEmpty()) {
        Q_EMIT message(tr("Could not follow up: %1").arg(why), 6000);
        return;
    }
    m_table->selectRun(id);
    // A working run takes the message itself (no new run): the outcome is reported when the
    // service answers (Action::FollowUp).
    Q_EMIT message(id == parentId ? tr("Follow-up sent to %1.").arg(describe(parentId))
                                  : tr("Follow-up to %1 started.").arg(describe(parentId)),
                   4000);
}

void ActionController::copySelected()
{
    const QStringList ids = selectedRunIds();
    if (ids.size() == 1 && m_manager)
        m_manager->ensureOutputLoaded(ids.first());
    const Run *run = ids.size() == 1 && m_manager ? m_manager->run(ids.first()) : nullptr;
    if (!run || run->primaryText.isEmpty())
        return;
    // The run's true text, not the view's soft-split and possibly trimmed copy.
    QApplication::clipboard()->setText(run->primaryText.toString());
    Q_EMIT message(tr("Copied %n character(s) of output.", nullptr, int(run->primaryText.size())), 3000);
}

void ActionController::refreshSelected()
{
    for (const QString &id : selectedRunIds())
        m_manager->refreshRun(id);
}

void ActionController::onActionFinished(const QString &id, RunManager::Action action,
                                        const ActionResult &result)
{
    scheduleUpdate();
    if (action == RunManager::Action::Respond && id == m_detail->inputPanel()->runId()) {
        if (!result.ok())
            m_detail->inputPanel()->setError(tr("The answer was not accepted: %1").arg(result.error.message));
    }
    if (result.ok()) {
        if (!result.note.isEmpty())
            Q_EMIT message(tr("%1: %2").arg(describe(id), result.note), 5000);
        return;
    }
    QString what;
    switch (action) {
    case RunManager::Action::Start:
        what = tr("Starting %1 failed: %2");
        break;
    case RunManager::Action::Cancel:
        what = tr("Cancelling %1 failed: %2");
        break;
    case RunManager::Action::Delete:
        what = tr("Deleting %1 failed: %2");
        break;
    case RunManager::Action::Respond:
        what = tr("Answering %1 failed: %2");
        break;
    case RunManager::Action::Refresh:
        what = tr("Refreshing %1 failed: %2");
        break;
    case RunManager::Action::FollowUp:
        what = tr("The follow-up to %1 was not taken: %2");
        break;
    case RunManager::Action::ForceCancel:
        what = tr("Force-cancelling %1 failed: %2");
        break;
    case RunManager::Action::StopWatching:
        what = tr("Could not stop watching %1: %2");
        break;
    }
    Q_EMIT message(what.arg(describe(id), result.error.message), 10000);
}

void ActionController::setDeadlineSelected()
{
    const QStringList ids = selectedRunIds();
    const Run *first = nullptr;
    for (const QString &id : ids) {
        const Run *run = m_manager ? m_manager->run(id) : nullptr;
        if (run && !run->isTerminal()) {
            first = run;
            break;
        }
    }
    if (!first || m_deadlineDialog)
        return;
    auto *dialog = new DeadlineDialog(first->deadlineAt, first->cancelAtDeadline, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_deadlineDialog = dialog;
    connect(dialog, &QDialog::accepted, this, [this, dialog, ids] {
        int set = 0;
        for (const QString &id : ids) {
            // Runs that ended while the dialog was open are left alone (setDeadline refuses them).
            if (m_manager && m_manager->setDeadline(id, dialog->deadlineAt(), dialog->cancelAtDeadline()))
                ++set;
        }
        Q_EMIT message(dialog->deadlineAt().isValid() ? tr("Deadline set on %n run(s).", nullptr, set)
                                                      : tr("Deadline removed from %n run(s).", nullptr, set),
                       5000);
    });
    dialog->open();
}

} // namespace Runwatch
