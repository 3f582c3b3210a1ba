// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"
#include "domain/runreducer.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <functional>
#include <optional>

namespace Runwatch {

class RunManager;

// When the operator is warned before a run's deadline (Run::deadlineAt): 5 minutes before it, or
// at 90 % of the budget when the budget (from the run's creation) is shorter than 50 minutes, so
// that a 2-minute budget warns 12 s ahead rather than before it even began. Invalid without a
// deadline.
QDateTime deadlineWarningAt(const Run &run);
// The detail pane's and tooltip's line: "Deadline 14:30 — cancels then", "Deadline 14:30",
// "Over deadline since 14:30"; empty without a deadline or for a finished run. Local time.
QString deadlineText(const Run &run, const QDateTime &now);
// A live run past its deadline (shown "over deadline"; cancelled when cancelAtDeadline).
bool isOverDeadline(const Run &run, const QDateTime &now);

// Acts on the runs' deadlines for any front end: one single-shot timer for the next warning or
// deadline of any live run. At a deadline, a run with cancelAtDeadline is cancelled through
// RunManager::cancelRun() (the outcome is the server's, reported like any cancel); any other one
// is only flagged over deadline. A deadline that passed while no process watched acts as soon as
// the watcher sees the run (app start, `watch`). Each warning and each deadline is acted on once
// per run and deadline; setting a new deadline arms both again. A cancel at the deadline that
// fails for a reason waiting can cure (network, 5xx, 429) is sent again with backoff (30 s
// doubling to 5 min, or the service's Retry-After) until the run ends; a refusal stands.
struct ActionResult;

class DeadlineWatcher : public QObject
{
    Q_OBJECT
public:
    using Clock = std::function<QDateTime()>;

    explicit DeadlineWatcher(RunManager *manager, QObject *parent = nullptr);

    void setClock(Clock clock);
    bool isOverDeadline(const QString &id) const { return m_over.contains(id); }
    QDateTime nextCheckAt() const { return m_nextCheck; }
    bool isTimerActive() const { return m_timer.isActive(); }
    // Warns and acts on whatever is due now (the timer calls it; tests after moving the clock).
    void check();
    // When a failed cancel at the deadline is sent again; invalid: none pending.
    QDateTime cancelRetryAt(const QString &id) const { return m_runs.value(id).retryCancelAt; }

Q_SIGNALS:
    void deadlineApproaching(const QString &id);
    // The deadline passed; `cancelling`: a cancel was sent.
    void deadlineReached(const QString &id, bool cancelling);
    void overDeadlineChanged(const QString &id, bool over);

private:
    struct State
    {
        QDateTime deadline; // the deadline the flags below belong to
        QDateTime warnAt;
        bool warned = false;
        bool reached = false;
        QDateTime retryCancelAt; // a failed cancel at the deadline is sent again then
        int cancelRetries = 0;
    };
    static State stateFor(const Run &run); // armed for the run's deadline
    void onRunChanged(const QString &id);
    void onCancelFinished(const QString &id, const ActionResult &result);
    void onRunRemoved(const QString &id);
    void schedule();

    QPointer<RunManager> m_manager;
    Clock m_clock;
    QHash<QString, State> m_runs; // live runs with a deadline
    QSet<QString> m_over;
    QDateTime m_nextCheck;
    QTimer m_timer;
};

} // namespace Runwatch
