// SPDX-License-Identifier: GPL-3.0-or-later
// RunManager's cancel ladder (issue 31): an accepted cancel the service does not confirm in time
// is marked, and the operator's next steps — the service's stronger cancel, or stop watching with
// a record of what the server last said — are executed here.
#include "runmanager.h"

#include "runmanager_p.h"

#include <QCoreApplication>
#include <QTimer>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace Runwatch {

void RunManager::forceCancelRun(const QString &id)
{
    doForceCancel(id);
}

void RunManager::stopWatching(const QString &id, const QString &reason)
{
    doStopWatching(id, reason);
}

void RunManager::armCancelCheck(const QString &id)
{
    Entry *e = entry(id);
    if (!e)
        return;
    const quint64 check = ++e->cancelChecks;
    if (e->run.cancelUnconfirmed) {
        // A stronger cancel was accepted: the wait starts again.
        e->run.cancelUnconfirmed = false;
        Q_EMIT runChanged(id, RunChange::Status);
    }
    // Precise: a coarse timer may fire up to 5 % early, and "not confirmed after 30 s" must not
    // be said after 28.5.
    QTimer::singleShot(m_policy.cancelConfirmAfter, Qt::PreciseTimer, this, [this, id, check] {
        Entry *waiting = entry(id);
        if (m_shutDown || !waiting || waiting->cancelChecks != check
            || waiting->run.status != RunStatus::Cancelling || waiting->run.cancelUnconfirmed)
            return;
        waiting->run.cancelUnconfirmed = true;
        Q_EMIT runChanged(id, RunChange::Status);
        Q_EMIT cancelUnconfirmed(id);
    });
}

QCoro::Task<> RunManager::doForceCancel(QString id)
{
    QPointer<RunManager> self = this;
    Entry *e = entry(id);
    if (!e)
        co_return;
    if (e->run.isTerminal()) {
        ActionResult r;
        r.note = u"already "_s + statusName(e->run.status);
        Q_EMIT actionFinished(id, Action::ForceCancel, r);
        co_return;
    }
    RunBackend *b = backend(e->run.connection);
    if (!b || !b->capabilities().testFlag(Capability::ForceCancel)) {
        refuse(id, Action::ForceCancel,
               QCoreApplication::translate("RunManager", "This connection has no stronger cancel."));
        co_return;
    }
    if (e->run.status != RunStatus::Cancelling) {
        refuse(id, Action::ForceCancel,
               QCoreApplication::translate("RunManager", "A forced cancel follows a cancel the service has "
                                                         "not confirmed; cancel the run first."));
        co_return;
    }
    journal(id, u"force-cancel"_s, {});
    const ActionResult result = co_await b->forceCancel(e->run.token);
    if (!self || m_shutDown)
        co_return;
    e = entry(id);
    if (!e)
        co_return;
    if (result.ok()) {
        applyEvents(id, result.events);
        e = entry(id);
        if (e && e->run.status == RunStatus::Cancelling) {
            armCancelCheck(id);
            if (!e->follower.active)
                follow(id);
        }
    }
    Q_EMIT actionFinished(id, Action::ForceCancel, result);
}

QCoro::Task<> RunManager::doStopWatching(QString id, QString reason)
{
    QPointer<RunManager> self = this;
    Entry *e = entry(id);
    if (!e)
        co_return;
    if (e->run.isTerminal()) {
        ActionResult r;
        r.note = u"already "_s + statusName(e->run.status);
        Q_EMIT actionFinished(id, Action::StopWatching, r);
        co_return;
    }
    if (e->run.status != RunStatus::Cancelling) {
        refuse(id, Action::StopWatching,
               QCoreApplication::translate("RunManager", "Stop watching follows a cancel the service has not "
                                                         "confirmed; cancel the run first."));
        co_return;
    }
    journal(id, u"stop-watching"_s, reason);
    // One more read, so that the record says what the server says now, not what it said last
    // time we happened to ask; and a confirmation that arrives with it still lands.
    QString said = e->run.rawStatus;
    QDateTime saidAt = e->run.updatedAt;
    QString readProblem;
    if (!e->follower.pollInFlight) {
        const std::optional<ActionResult> fetched = co_await fetchState(id);
        if (!self || m_shutDown)
            co_return;
        e = entry(id);
        if (!e)
            co_return;
        if (fetched && fetched->ok()) {
            applyEvents(id, fetched->events);
            e = entry(id);
            if (!e)
                co_return;
            said = e->run.rawStatus;
            saidAt = QDateTime::currentDateTimeUtc();
        } else if (fetched) {
            readProblem = fetched->error.message;
        }
    }
    if (e->run.isTerminal()) {
        ActionResult r;
        r.note = QCoreApplication::translate("RunManager", "the service confirmed: %1")
                     .arg(statusLabel(e->run.status));
        Q_EMIT actionFinished(id, Action::StopWatching, r);
        co_return;
    }
    stopFollowing(id);
    QString text = QCoreApplication::translate(
                       "RunManager", "The service did not confirm the cancel. It last said “%1” at %2.")
                       .arg(said.isEmpty() ? statusName(RunStatus::Cancelling) : said,
                            saidAt.toLocalTime().toString(u"yyyy-MM-dd HH:mm:ss"_s));
    if (!readProblem.isEmpty()) {
        text += u' '
                + QCoreApplication::translate("RunManager", "Reading it once more failed: %1")
                      .arg(readProblem);
    }
    if (!reason.trimmed().isEmpty())
        text += u'\n' + QCoreApplication::translate("RunManager", "Reason: %1").arg(reason.trimmed());
    // The status keeps the server's raw label (rawStatus), which the list's tooltip shows.
    applyEvents(
        *e, id,
        {RunEvent::secondarySnapshot(
             SecondaryKind::Log, u"stopped-watching:"_s + QUuid::createUuid().toString(QUuid::WithoutBraces),
             QCoreApplication::translate("RunManager", "stopped watching"), text),
         RunEvent::statusChange(RunStatus::StoppedWatching, {})});
    Q_EMIT actionFinished(id, Action::StopWatching, ActionResult{});
}

} // namespace Runwatch
