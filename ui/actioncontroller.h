// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "batchresponddialog.h"
#include "deadlinedialog.h"
#include "engine/runmanager.h"
#include "models/runactions.h"

#include <QInputDialog>
#include <QMessageBox>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>

class QAction;
class QWidget;

namespace Runwatch {

class DetailPane;
class RunTableView;

// The operator's actions on the selected runs: toolbar buttons, menu entries, context menu and
// shortcuts share these QActions. They are enabled from the runs' capabilities and status
// (actionStateFor()); destructive ones ask first with a non-blocking dialog and re-check every
// run after the answer, because runs move on while the dialog is open (qBittorrent's
// deletion dialog does the same).
class ActionController final : public QObject
{
    Q_OBJECT
public:
    ActionController(RunManager *manager, RunTableView *table, DetailPane *detail, QWidget *window);

    QAction *newRunAction() const { return m_newRun; }
    QAction *cancelAction() const { return m_cancel; }
    QAction *forceCancelAction() const { return m_forceCancel; }
    QAction *stopWatchingAction() const { return m_stopWatching; }
    QAction *deleteAction() const { return m_delete; }
    QAction *resumeAction() const { return m_resume; }
    QAction *respondAction() const { return m_respond; }
    QAction *followUpAction() const { return m_followUp; }
    QAction *copyAction() const { return m_copy; }
    QAction *refreshAction() const { return m_refresh; }
    QAction *deadlineAction() const { return m_deadline; }
    QList<QAction *> runActions() const;

    QStringList selectedRunIds() const;
    RunActionState selectionState() const;
    // The confirmation dialog currently open (tests answer it).
    QMessageBox *pendingConfirmation() const { return m_confirm; }
    // The follow-up prompt dialog currently open (tests fill and accept it).
    QInputDialog *pendingFollowUp() const { return m_followUpDialog; }
    // The "Set Deadline" dialog currently open (tests fill and accept it).
    DeadlineDialog *pendingDeadline() const { return m_deadlineDialog; }
    // The "Stop Watching" reason dialog currently open (tests fill and accept it).
    QInputDialog *pendingStopWatching() const { return m_stopWatchingDialog; }
    // The batch Respond dialog currently open (several runs that wait for the same request).
    BatchRespondDialog *pendingBatch() const { return m_batchDialog; }

    void updateActions();
    void scheduleUpdate();
    // An answer given outside the Respond panel (a notification's button or inline reply): the
    // same check and the same command as the panel's; what goes wrong is said in the status bar.
    void answerRun(const QString &runId, const Runwatch::InputAnswer &answer);

Q_SIGNALS:
    void newRunRequested();
    void message(const QString &text, int timeoutMs);

private:
    void cancelSelected();
    // The cancel ladder (a cancel the service has not confirmed in time): the service's stronger
    // cancel, or stop watching with a reason the operator gives (non-blocking dialog).
    void forceCancelSelected();
    void stopWatchingSelected();
    void stopWatchingRuns(const QStringList &ids);
    void deleteSelected();
    void resumeSelected();
    // One run: the detail pane's panel. Several that wait for the same kind of request
    // (actionStateForSelection()): the batch dialog.
    void respondSelected();
    void respondToBatch(const QStringList &ids);
    // Asks for the next turn's prompt (non-blocking) and, once the run still allows it, starts
    // the follow-up and selects it.
    void followUpSelected();
    void sendFollowUp(const QString &parentId, const QString &prompt);
    void copySelected();
    void refreshSelected();
    // Asks for a time budget (non-blocking) and sets it on every selected run still live.
    void setDeadlineSelected();
    void answer(const QString &runId, const Runwatch::InputAnswer &answer);
    void onActionFinished(const QString &id, Runwatch::RunManager::Action action,
                          const Runwatch::ActionResult &result);
    RunActionState stateOf(const QString &id) const;
    QString describe(const QString &id) const;

    QPointer<RunManager> m_manager;
    RunTableView *m_table;
    DetailPane *m_detail;
    QWidget *m_window;
    QAction *m_newRun;
    QAction *m_cancel;
    QAction *m_forceCancel;
    QAction *m_stopWatching;
    QAction *m_delete;
    QAction *m_resume;
    QAction *m_respond;
    QAction *m_followUp;
    QAction *m_copy;
    QAction *m_refresh;
    QAction *m_deadline;
    QPointer<QMessageBox> m_confirm;
    QPointer<QInputDialog> m_followUpDialog;
    QPointer<DeadlineDialog> m_deadlineDialog;
    QPointer<BatchRespondDialog> m_batchDialog;
    QPointer<QInputDialog> m_stopWatchingDialog;
    QSet<QString> m_selected; // as of the last updateActions(); refreshed on every selection change
    QTimer m_update;
};

} // namespace Runwatch
