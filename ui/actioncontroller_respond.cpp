// SPDX-License-Identifier: GPL-3.0-or-later
// ActionController's answers and the cancel ladder (issue 31): Respond on one run (the detail
// pane's panel) or on several that wait for the same request (BatchRespondDialog), and the next
// steps after a cancel the service has not confirmed (Force Cancel, Stop Watching).
#include "actioncontroller.h"

#include "batchresponddialog.h"
#include "detailpane.h"
#include "inputpanel.h"

#include <QInputDialog>

using namespace Qt::StringLiterals;

namespace Runwatch {

void ActionController::respondSelected()
{
    if (!selectionState().respond)
        return;
    const QStringList ids = selectedRunIds();
    if (ids.size() > 1) {
        respondToBatch(ids);
        return;
    }
    m_detail->showOutputTab();
    m_detail->focusInput();
}

void ActionController::respondToBatch(const QStringList &ids)
{
    if (!m_manager || m_batchDialog)
        return;
    QList<Run> runs;
    for (const QString &id : ids) {
        if (const Run *run = m_manager->run(id))
            runs.append(*run);
    }
    QString why;
    const std::optional<BatchRequest> batch = batchRequestFor(runs, &why);
    if (!batch) {
        Q_EMIT message(why, 6000);
        return;
    }
    auto *dialog = new BatchRespondDialog(m_manager, *batch, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &BatchRespondDialog::batchFinished, this, [this](int answered, int failed) {
        Q_EMIT message(failed == 0 ? tr("Answered %n run(s).", nullptr, answered)
                                   : tr("Answered %1 of %2 runs; %3 still wait (see the dialog).")
                                         .arg(answered)
                                         .arg(answered + failed)
                                         .arg(failed),
                       8000);
        scheduleUpdate();
    });
    m_batchDialog = dialog;
    dialog->open();
}

void ActionController::answer(const QString &runId, const InputAnswer &answer)
{
    if (!stateOf(runId).respond) {
        m_detail->inputPanel()->setError(tr("The run is no longer waiting for input."));
        return;
    }
    m_manager->respondToRun(runId, answer);
}

void ActionController::answerRun(const QString &runId, const InputAnswer &answer)
{
    if (!m_manager || !stateOf(runId).respond) {
        Q_EMIT message(tr("%1 no longer waits for an answer.").arg(describe(runId)), 6000);
        return;
    }
    m_manager->respondToRun(runId, answer);
}

void ActionController::forceCancelSelected()
{
    for (const QString &id : selectedRunIds()) {
        if (stateOf(id).forceCancel)
            m_manager->forceCancelRun(id);
    }
    scheduleUpdate();
}

void ActionController::stopWatchingSelected()
{
    QStringList ids;
    for (const QString &id : selectedRunIds()) {
        if (stateOf(id).stopWatching)
            ids.append(id);
    }
    stopWatchingRuns(ids);
}

void ActionController::stopWatchingRuns(const QStringList &ids)
{
    if (ids.isEmpty() || !m_manager || m_stopWatchingDialog)
        return;
    auto *dialog = new QInputDialog(m_window);
    dialog->setObjectName(u"stopWatchingDialog"_s);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Stop Watching"));
    dialog->setLabelText(
        ids.size() == 1
            ? tr("Why stop watching %1? (kept in its timeline)").arg(describe(ids.first()))
            : tr("Why stop watching %n runs? (kept in their timelines)", nullptr, int(ids.size())));
    dialog->setTextValue(tr("The service did not confirm the cancel."));
    dialog->setOkButtonText(tr("Stop Watching"));
    m_stopWatchingDialog = dialog;
    connect(dialog, &QInputDialog::textValueSelected, this, [this, ids](const QString &reason) {
        // The runs may have been confirmed while the dialog was open: each is checked again.
        for (const QString &id : ids) {
            if (stateOf(id).stopWatching)
                m_manager->stopWatching(id, reason);
        }
        scheduleUpdate();
    });
    dialog->open();
}

} // namespace Runwatch
