// SPDX-License-Identifier: GPL-3.0-or-later
// RunManager's share of one follower per live run across the processes of a shared store (the
// app, `watch` and `resume` in several terminals, a colleague's on a team's PostgreSQL): the
// process that follows a run holds its lease (RunStore::acquireLease) and renews it; the others
// show the run from the store — NOTIFY on PostgreSQL, a read per tick on SQLite — and the first
// of them to find the lease free (released on quit, expired, or its holder's process gone) takes
// over from the stored continuation token, so the service sees one stream and no text is lost or
// doubled. With one process on the store the lease is always free: nothing changes for it.
#include "runmanager.h"

#include "runmanager_p.h"

#include "store/runstore.h"

#include "domain/boundedwait.h"
#include "domain/rundiff.h"

#include <QLoggingCategory>
#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// How often a tailed run is read from the store and its lease tried: the tail lags its holder by
// about this much (the holder writes a growing text within a second).
constexpr int kLeaseTickMs = 500;
} // namespace

bool RunManager::takeLease(const QString &id)
{
    Entry *e = entry(id);
    if (!e)
        return false;
    if (!m_store || !m_store->isOpen()) {
        e->follower.tailing = false;
        return true;
    }
    std::optional<RunStore::LeaseHolder> other;
    // A database error leaves no one to defer to: follow (losing the store must not stop runs).
    const bool held = m_store->acquireLease(id, &other) || !other;
    e->follower.tailing = !held;
    if (held) {
        if (m_leased.isEmpty())
            m_lastRenewal.start(); // the first lease: just taken, its life starts now
        m_leased.insert(id);
        e->follower.leased = true;
    }
    renewLeasesIfDue();
    if (!m_leaseTimer) {
        m_leaseTimer = new QTimer(this);
        m_leaseTimer->setObjectName(u"leaseTimer"_s);
        m_leaseTimer->setInterval(kLeaseTickMs);
        m_leaseTimer->setTimerType(kChoreTimer);
        connect(m_leaseTimer, &QTimer::timeout, this, &RunManager::leaseTick);
    }
    if (!m_leaseTimer->isActive())
        m_leaseTimer->start();
    return held;
}

void RunManager::releaseLease(const QString &id)
{
    if (Entry *e = entry(id))
        e->follower.leased = false;
    if (m_leased.remove(id) && m_store) {
        if (lcEngine().isDebugEnabled()) {
            const Entry *e = entry(id);
            qCDebug(lcEngine) << "releasing" << id << (e ? statusName(e->run.status) : u"gone"_s) << "at"
                              << (e ? e->run.token.sequence : -1) << "holder" << m_store->holderId();
        }
        m_store->releaseLease(id);
    }
}

void RunManager::releaseLeases()
{
    if (m_store && !m_leased.isEmpty()) {
        qCDebug(lcEngine) << "releasing all" << m_leased.size() << "leases of holder" << m_store->holderId();
        m_store->releaseAllLeases();
    }
    m_leased.clear();
    for (const std::shared_ptr<Entry> &e : std::as_const(m_runs)) {
        e->follower.tailing = false;
        e->follower.leased = false;
    }
}

QString RunManager::followedElsewhereBy(const QString &id) const
{
    if (!m_store || m_leased.contains(id))
        return {};
    const std::optional<RunStore::LeaseHolder> holder = m_store->leaseHolder(id);
    if (!holder || holder->holder == m_store->holderId())
        return {};
    return holder->operatorName + u'@' + holder->host;
}

void RunManager::leaseTick()
{
    if (!m_store || m_shutDown) {
        m_leaseTimer->stop();
        return;
    }
    renewLeasesIfDue();
    // One pass over the runs (a thousand lookups by id, twice a second, were a tenth of a
    // millisecond each time on the GUI thread): runs no longer followed here (ended, given up)
    // are free for others at once; the tailed ones are tried.
    QStringList release;
    QStringList tailed;
    qsizetype leasedSeen = 0;
    for (auto it = m_runs.cbegin(); it != m_runs.cend(); ++it) {
        const Entry &e = **it;
        if (e.follower.leased) {
            ++leasedSeen;
            if (!e.follower.active || !needsFollowing(e.run)) {
                if (needsFollowing(e.run)) {
                    qCInfo(lcEngine) << "letting go of" << it.key()
                                     << "while it is live: no longer followed here";
                }
                release << it.key();
            }
        }
        if (e.follower.active && e.follower.tailing)
            tailed << it.key();
    }
    // A lease of a run no longer here: removing a run stops following it, which lets go; this is
    // the net for any other way.
    if (leasedSeen != m_leased.size()) {
        for (const QString &id : std::as_const(m_leased)) {
            if (!entry(id))
                release << id;
        }
    }
    for (const QString &id : std::as_const(release))
        releaseLease(id);
    if (!tailed.isEmpty())
        tryTakeOver(tailed);
    if (m_leased.isEmpty() && tailed.isEmpty() && !m_store->releasesPending())
        m_leaseTimer->stop();
}

void RunManager::renewLeasesIfDue()
{
    // By the clock, not by ticks: a tick comes late when the event loop was busy, and a long
    // synchronous stretch (`resume` taking the leases of a thousand runs one by one) renews from
    // takeLease() as it goes, or the leases it took first would lapse before it is done.
    // Also while a release waits for its run's last write (which the writer may be slow to get
    // to): the lease must not lapse beside an older state of the run.
    if ((m_leased.isEmpty() && !m_store->releasesPending())
        || (m_lastRenewal.isValid() && m_lastRenewal.elapsed() < RunStore::kLeaseRenewMs)) {
        return;
    }
    static_assert(RunStore::kLeaseRenewMs * 3 <= RunStore::kLeaseTtlMs);
    // On the store's lease thread: this one never waits for the database. While an earlier
    // renewal is still being done nothing is asked (it renews them all); the next tick asks again.
    if (!m_store->requestLeaseRenewal(m_leased))
        return;
    if (m_lastRenewal.isValid() && m_lastRenewal.elapsed() > RunStore::kLeaseTtlMs / 2) {
        qCWarning(lcEngine) << "leases renewed" << m_lastRenewal.elapsed()
                            << "ms after the last renewal: this process (or its database) was too busy to "
                               "renew sooner";
    }
    m_lastRenewal.start();
}

void RunManager::loseLeases(const QStringList &lost)
{
    // Lost meanwhile (this process stalled past the lease's life and another took over): the run
    // is shown from the store from now on, not streamed twice.
    for (const QString &id : lost) {
        if (!m_leased.remove(id))
            continue; // let go meanwhile
        if (Entry *e = entry(id)) {
            e->follower.leased = false;
            qCInfo(lcEngine) << "lease on" << id << "lost to another process; showing it from the store";
            e->follower.tailing = true;
            if (e->follower.timer)
                e->follower.timer->stop();
            if (e->follower.stream)
                e->follower.stream->abort();
        }
    }
}

void RunManager::tryTakeOver(const QStringList &tailed)
{
    // One read of the lease table for all of them: a process that tails a thousand runs others
    // follow tries only the leases found free, not a statement per run every tick (ten processes
    // on a thousand runs would be tens of thousands a second, and stall past the leases' life).
    const std::optional<QHash<QString, RunStore::LeaseHolder>> holders = m_store->leaseHolders();
    QStringList free;
    for (const QString &id : tailed) {
        if (!holders) {
            free << id; // a database error: takeLease() decides (and follows if the store is gone)
            continue;
        }
        const auto holder = holders->constFind(id);
        if (holder == holders->cend() || holder->holder == m_store->holderId()
            || RunStore::holderGone(*holder))
            free << id;
    }
    // A lease comes free mostly because its run ended: read those runs first (together), and take
    // only the leases of runs still live — not a lease, a whole read and a release in every
    // tailing process for every run that ends.
    if (!free.isEmpty())
        readChanges(free);
    for (const QString &id : std::as_const(free)) {
        Entry *e = entry(id);
        if (!e || !e->follower.active || !e->follower.tailing)
            continue;
        // Why it came free (expired: its holder stopped renewing), for whoever debugs a takeover.
        const QString before = lcEngine().isDebugEnabled() ? m_store->leaseDiagnosis(id) : QString();
        if (!takeLease(id))
            continue;
        if (!before.isEmpty())
            qCDebug(lcEngine) << "lease row of" << id << "before it was taken:" << before;
        // Ours now: go on from where the last holder's writes left the run (its text and its
        // continuation token are written together), so nothing is fetched twice or skipped. Read
        // after the lease was taken: the last holder lets go only once the run's last state is
        // written (RunStore::releaseLease), so a run it ended reads as ended here and is not
        // followed again.
        tailFromStore(id);
        e = entry(id);
        if (!e || !e->follower.active || !needsFollowing(e->run)) {
            releaseLease(id);
            continue;
        }
        qCInfo(lcEngine) << "took over following" << id << "at" << e->run.token.sequence
                         << (holders && holders->contains(id) ? "from a holder that is gone"
                                                              : "(lease free)");
        resumeNow(id);
    }
    // What the holders wrote: a store that pushes changes has said so (takeChangesFromStore);
    // from one that cannot (SQLite), the tailed runs are read here, together.
    if (!m_store->pushesChanges()) {
        QStringList still;
        for (const QString &id : tailed) {
            const Entry *e = entry(id);
            if (e && e->follower.active && e->follower.tailing && !free.contains(id))
                still << id;
        }
        takeChangesFromStore(still);
    }
}

bool RunManager::endedInStore(const QString &id)
{
    Entry *e = entry(id);
    // A run the store never had was started here: no other process can have ended it.
    if (!e || !m_store || !m_store->isOpen() || !e->run.inStore)
        return false;
    // The copy in memory was read before the lease was ours: the process that let the lease go
    // may have ended the run since (it releases once the run's last state is written), and a
    // stream opened now would be one more for a run that is over. The stored status decides.
    std::optional<Run> stored = m_store->loadRun(id);
    if (!stored || needsFollowing(*stored))
        return false;
    qCInfo(lcEngine) << "not taking over" << id << "- ended in the store";
    takeTailedRun(id, std::move(*stored));
    if ((e = entry(id))) {
        e->follower.active = false;
        e->follower.tailing = false;
    }
    releaseLease(id);
    return true;
}

void RunManager::tailFromStore(const QString &id)
{
    if (!m_store)
        return;
    std::optional<Run> stored = m_store->loadRun(id);
    if (!stored) {
        const Entry *e = entry(id);
        // Gone from the store: another process deleted it.
        if (e && e->run.inStore)
            removeLocal(id, StoreRow::AlreadyGone);
        return;
    }
    takeTailedRun(id, std::move(*stored));
}

void RunManager::takeTailedRun(const QString &id, Run stored)
{
    noteReadHere(id);
    Entry *e = entry(id);
    if (!e)
        return;
    Run &run = e->run;
    // What changed, told as the events that would have brought it, so front ends that print
    // events (the CLI) say the same as the process that streams the run.
    QList<RunEvent> events;
    for (const SecondaryItem &item : std::as_const(stored.secondary)) {
        const auto known = std::find_if(run.secondary.cbegin(), run.secondary.cend(),
                                        [&item](const SecondaryItem &s) { return s.id == item.id; });
        if (item.done && (known == run.secondary.cend() || !known->done || known->text != item.text))
            events << RunEvent::secondarySnapshot(item.kind, item.id, item.title, item.text);
    }
    if (stored.status != run.status || stored.rawStatus != run.rawStatus)
        events << RunEvent::statusChange(stored.status, stored.rawStatus);
    if (stored.input && stored.input != run.input && stored.status == RunStatus::InputRequired)
        events << RunEvent::inputRequired(*stored.input);
    if (stored.error.isError() && stored.error != run.error)
        events << RunEvent::failure(stored.error);
    const bool textChanged = stored.primaryText != run.primaryText;
    const bool deadlineChanged
        = stored.deadlineAt != run.deadlineAt || stored.cancelAtDeadline != run.cancelAtDeadline;
    if (events.isEmpty() && !textChanged && !deadlineChanged && stored.token == run.token)
        return;
    stored.capabilities = run.capabilities;
    const RunChanges changes = runDifferences(run, stored);
    run = std::move(stored);
    ++e->updates;
    if (!events.isEmpty() || textChanged)
        Q_EMIT runEventsApplied(id, events); // the CLI's printer catches up with the text itself
    if (changes)
        Q_EMIT runChanged(id, changes);
    if (e->follower.active && !needsFollowing(e->run)) {
        // Ended (or waits for the operator) in the holder's hands: nothing left to follow here.
        e->follower.active = false;
        e->follower.tailing = false;
    }
}

} // namespace Runwatch
