// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/rundeadlines.h"

#include "engine/runmanager.h"
#include "engine/watchtimer.h"
#include "net/httperrors.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
constexpr qint64 kWarnLeadMs = 5LL * 60 * 1000;
constexpr qint64 kFirstCancelRetryMs = 30 * 1000;
constexpr qint64 kMaxCancelRetryMs = 5LL * 60 * 1000;
} // namespace

QDateTime deadlineWarningAt(const Run &run)
{
    if (!run.deadlineAt.isValid())
        return {};
    qint64 lead = kWarnLeadMs;
    if (run.createdAt.isValid() && run.createdAt < run.deadlineAt)
        lead = std::min(lead, run.createdAt.msecsTo(run.deadlineAt) / 10);
    return run.deadlineAt.addMSecs(-lead);
}

QString deadlineText(const Run &run, const QDateTime &now)
{
    if (!run.deadlineAt.isValid() || run.isTerminal())
        return {};
    const QDateTime local = run.deadlineAt.toLocalTime();
    // The date only when it is not today: "Deadline 14:30" reads at a glance.
    const QString when = local.date() == now.toLocalTime().date() ? local.toString(u"HH:mm"_s)
                                                                  : local.toString(u"yyyy-MM-dd HH:mm"_s);
    if (now >= run.deadlineAt) {
        return run.cancelAtDeadline
                   ? QCoreApplication::translate("RunDeadlines", "Over deadline since %1 — cancel requested")
                         .arg(when)
                   : QCoreApplication::translate("RunDeadlines", "Over deadline since %1").arg(when);
    }
    return run.cancelAtDeadline
               ? QCoreApplication::translate("RunDeadlines", "Deadline %1 — cancels then").arg(when)
               : QCoreApplication::translate("RunDeadlines", "Deadline %1").arg(when);
}

bool isOverDeadline(const Run &run, const QDateTime &now)
{
    return !run.isTerminal() && run.deadlineAt.isValid() && now >= run.deadlineAt;
}

DeadlineWatcher::DeadlineWatcher(RunManager *manager, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
    , m_clock([] { return QDateTime::currentDateTimeUtc(); })
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &DeadlineWatcher::check);
    if (!manager)
        return;
    connect(manager, &RunManager::runAdded, this, &DeadlineWatcher::onRunChanged);
    connect(manager, &RunManager::runChanged, this, [this](const QString &id) { onRunChanged(id); });
    connect(manager, &RunManager::runRemoved, this, &DeadlineWatcher::onRunRemoved);
    connect(manager, &RunManager::actionFinished, this,
            [this](const QString &id, RunManager::Action action, const ActionResult &result) {
                if (action == RunManager::Action::Cancel)
                    onCancelFinished(id, result);
            });
    for (const QString &id : manager->runIds()) {
        const Run *run = manager->run(id);
        if (run && !run->isTerminal() && run->deadlineAt.isValid())
            m_runs.insert(id, stateFor(*run));
    }
    // A deadline that passed while the app was closed acts now; a cancel is sent on the next
    // event-loop turn, once the front end has connected to the manager's signals.
    QTimer::singleShot(0, this, &DeadlineWatcher::check);
}

DeadlineWatcher::State DeadlineWatcher::stateFor(const Run &run)
{
    State s;
    s.deadline = run.deadlineAt;
    s.warnAt = deadlineWarningAt(run);
    return s;
}

void DeadlineWatcher::setClock(Clock clock)
{
    m_clock = std::move(clock);
    schedule();
}

void DeadlineWatcher::onRunChanged(const QString &id)
{
    const Run *run = m_manager ? m_manager->run(id) : nullptr;
    if (!run || run->isTerminal() || !run->deadlineAt.isValid()) {
        onRunRemoved(id);
        return;
    }
    auto it = m_runs.find(id);
    if (it == m_runs.end() || it->deadline != run->deadlineAt) {
        m_runs.insert(id, stateFor(*run));
        if (m_over.remove(id))
            Q_EMIT overDeadlineChanged(id, false);
        // Due at once (a deadline set in the past, a run adopted late): acted on from the loop,
        // not inside the manager's signal.
        m_timer.start(0);
        m_nextCheck = m_clock();
        return;
    }
}

void DeadlineWatcher::onCancelFinished(const QString &id, const ActionResult &result)
{
    const auto it = m_runs.find(id);
    const Run *run = m_manager ? m_manager->run(id) : nullptr;
    if (it == m_runs.end() || !it->reached || !run || run->isTerminal() || !run->cancelAtDeadline)
        return;
    if (result.ok() || !isRetryable(result.error)) {
        it->retryCancelAt = {};
        return;
    }
    // The run may still be live and the operator asked for it to end: try again later.
    const qint64 backoff = std::min(kMaxCancelRetryMs, kFirstCancelRetryMs << std::min(it->cancelRetries, 8));
    it->retryCancelAt = m_clock().addMSecs(std::max(backoff, result.retryAfterMs.value_or(0)));
    ++it->cancelRetries;
    schedule();
}

void DeadlineWatcher::onRunRemoved(const QString &id)
{
    const bool had = m_runs.remove(id);
    if (m_over.remove(id))
        Q_EMIT overDeadlineChanged(id, false);
    if (had)
        schedule();
}

void DeadlineWatcher::check()
{
    const QDateTime now = m_clock();
    QStringList warn;
    QStringList reached;
    QStringList retry;
    for (auto it = m_runs.begin(); it != m_runs.end(); ++it) {
        State &s = it.value();
        if (s.retryCancelAt.isValid() && now >= s.retryCancelAt) {
            s.retryCancelAt = {};
            retry.append(it.key());
        }
        if (!s.reached && now >= s.deadline) {
            s.reached = true;
            s.warned = true; // too late to warn
            reached.append(it.key());
        } else if (!s.warned && now >= s.warnAt) {
            s.warned = true;
            warn.append(it.key());
        }
    }
    schedule();
    for (const QString &id : std::as_const(warn))
        Q_EMIT deadlineApproaching(id);
    for (const QString &id : std::as_const(reached)) {
        const Run *run = m_manager ? m_manager->run(id) : nullptr;
        if (!run || run->isTerminal())
            continue;
        m_over.insert(id);
        Q_EMIT overDeadlineChanged(id, true);
        const bool cancelling = run->cancelAtDeadline;
        Q_EMIT deadlineReached(id, cancelling);
        // The server decides: the run ends as cancelled when it confirms, and stays over
        // deadline (with the refusal reported by actionFinished) when it does not. Sent once
        // for the team: by the process that follows the run (holds its lease).
        if (cancelling && m_manager && m_manager->followedElsewhereBy(id).isEmpty())
            m_manager->cancelRun(id);
    }
    for (const QString &id : std::as_const(retry)) {
        if (m_manager && m_manager->followedElsewhereBy(id).isEmpty())
            m_manager->cancelRun(id);
    }
}

void DeadlineWatcher::schedule()
{
    QDateTime next;
    for (auto it = m_runs.cbegin(); it != m_runs.cend(); ++it) {
        const State &s = it.value();
        for (const QDateTime &due : {!s.warned    ? s.warnAt
                                     : !s.reached ? s.deadline
                                                  : QDateTime(),
                                     s.retryCancelAt}) {
            if (due.isValid() && (!next.isValid() || due < next))
                next = due;
        }
    }
    m_nextCheck = next;
    armWatchTimer(&m_timer, next, m_clock());
}

} // namespace Runwatch
