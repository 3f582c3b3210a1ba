// SPDX-License-Identifier: GPL-3.0-or-later
// RunManager's side of sharing one store with other processes (the app, `watch`, `deadline`,
// `delete --local`, `prune` in other terminals): a write never undoes theirs (RunStore), a run
// they deleted is let go here too, and a deadline one of them set on a run this process follows
// is acted on here, as the README promises ("whichever process follows it acts on it").
#include "runmanager.h"

#include "runmanager_p.h"

#include "store/runstore.h"

#include <QLoggingCategory>
#include <QTimer>

#include <algorithm>
#include <chrono>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// How often a followed run's deadline is read back: well inside the deadline watcher's warning.
constexpr int kStoreSyncMs = 2000;
// Runs read per turn of the event loop (readQueuedChanges()): a few milliseconds of reading.
constexpr qsizetype kChangedRunsPerTurn = 50;
constexpr qint64 kChangeRoundMs = 250;
} // namespace

void RunManager::setStore(RunStore *store)
{
    if (m_store) {
        m_store->setRunSource({});
        disconnect(m_store, nullptr, this, nullptr);
    }
    m_store = store;
    for (const std::shared_ptr<Entry> &e : std::as_const(m_runs))
        e->queuedIn = 0; // another store's generation
    // The store reads a run when it writes it, not on every batch of events (persist()).
    if (m_store) {
        m_store->setRunSource([this](const QString &id) -> Run * {
            Entry *e = entry(id);
            return e ? &e->run : nullptr;
        });
        connect(m_store, &RunStore::runsDeletedElsewhere, this, &RunManager::letGoDeletedRuns);
        connect(m_store, &RunStore::runsChangedElsewhere, this, &RunManager::takeChangesFromStore);
        connect(m_store, &RunStore::connectionChanged, this, [this](bool connected) {
            if (connected)
                readShownRunsAgain();
        });
        connect(m_store, &RunStore::unsavedRunsChanged, this, [this](const QStringList &ids) {
            for (const QString &id : ids) {
                if (entry(id))
                    Q_EMIT runChanged(id, RunChange::Stored);
            }
        });
        if (!m_storeSync) {
            m_storeSync = new QTimer(this);
            m_storeSync->setInterval(kStoreSyncMs);
            connect(m_storeSync, &QTimer::timeout, this, &RunManager::syncFromStore);
        }
    }
    m_prices.setStore(store);
}

QString RunManager::saveProblem(const QString &id) const
{
    return m_store && m_store->isUnsaved(id) ? m_store->writeError() : QString();
}

void RunManager::letGoDeletedRuns(const QStringList &ids)
{
    for (const QString &id : ids)
        removeLocal(id, StoreRow::AlreadyGone);
}

void RunManager::takeChangesFromStore(const QStringList &ids)
{
    // Read a slice per turn of the event loop, not all at once: a batch of a thousand runs read
    // in one go kept a process from its timers (lease renewals, the GUI's frames) for seconds.
    for (const QString &id : ids) {
        if (!m_changesQueued.contains(id)) {
            m_changesQueued.insert(id);
            m_changeQueue.append(id);
        }
    }
    if (m_changeQueue.isEmpty() || m_changeReadScheduled)
        return;
    m_changeReadScheduled = true;
    // A new round of reads starts at most every kChangeRoundMs: runs that keep changing (a
    // colleague's hundred streams) are read a few times a second each, not as fast as the
    // database answers — ten processes reading so kept a 2-core server saturated.
    const qint64 wait
        = m_changeRound.isValid() ? std::max<qint64>(0, kChangeRoundMs - m_changeRound.elapsed()) : 0;
    QTimer::singleShot(std::chrono::milliseconds(wait), this, [this] {
        m_changeRound.start();
        readQueuedChanges();
    });
}

void RunManager::readQueuedChanges()
{
    m_changeReadScheduled = false;
    const QStringList slice = m_changeQueue.first(std::min(m_changeQueue.size(), kChangedRunsPerTurn));
    m_changeQueue.remove(0, slice.size());
    for (const QString &id : slice)
        m_changesQueued.remove(id);
    readChanges(slice);
    if (!m_changeQueue.isEmpty()) {
        m_changeReadScheduled = true;
        QTimer::singleShot(0, this, &RunManager::readQueuedChanges);
    }
}

void RunManager::readChanges(const QStringList &ids)
{
    if (!m_store || ids.isEmpty())
        return;
    QStringList toRead;
    for (const QString &id : ids) {
        const Entry *e = entry(id);
        // Followed here: this process's stream writes the run; what others change on it (the
        // deadline) syncFromStore() reads.
        if (!e || !e->follower.active || e->follower.tailing)
            toRead << id;
    }
    if (toRead.isEmpty())
        return;
    // Read together, each from where the copy here ends: a batch of a colleague's hundred
    // streaming runs is a handful of statements and their new text, not a hundred whole runs.
    std::optional<QHash<QString, Run>> stored
        = m_store->loadChangedRuns(toRead, [this](const QString &id) -> const Run * {
              const Entry *e = entry(id);
              return e ? &e->run : nullptr;
          });
    if (!stored)
        return; // a database error: the next change (or tick) reads them again
    for (const QString &id : std::as_const(toRead)) {
        const Entry *e = entry(id);
        const auto it = stored->find(id);
        if (it == stored->end()) {
            // Gone from the store (and not a run of ours still on its way there).
            if (e && e->run.inStore)
                removeLocal(id, StoreRow::AlreadyGone);
            continue;
        }
        // Shown, not followed: the process that holds the run's lease streams it.
        if (e && e->follower.tailing) {
            takeTailedRun(id, std::move(*it));
            continue;
        }
        adoptRun(std::move(*it), false);
    }
}

void RunManager::readShownRunsAgain()
{
    // What other processes wrote while the connection was down was not announced.
    QStringList ids;
    for (auto it = m_runs.cbegin(); it != m_runs.cend(); ++it) {
        const Entry &e = **it;
        if (!(e.follower.active && !e.follower.tailing) && !e.run.isTerminal())
            ids << it.key();
    }
    takeChangesFromStore(ids);
}

void RunManager::wakeStoreSync()
{
    if (m_storeSync && !m_storeSync->isActive())
        m_storeSync->start();
}

void RunManager::syncFromStore()
{
    QStringList ids;
    for (auto it = m_runs.cbegin(); it != m_runs.cend(); ++it) {
        const Entry &e = **it;
        if (e.follower.active && !e.follower.tailing && !e.run.isTerminal() && e.run.inStore && e.run.stored)
            ids << it.key();
    }
    if (ids.isEmpty() || !m_store) {
        m_storeSync->stop(); // follow() starts it again
        return;
    }
    const QHash<QString, RunStore::DeadlineFields> stored = m_store->readDeadlines(ids);
    for (auto it = stored.cbegin(); it != stored.cend(); ++it) {
        Entry *e = entry(it.key());
        if (!e || !e->run.stored)
            continue;
        const Run &baseline = *e->run.stored;
        const bool changedThere
            = it->deadlineAt != baseline.deadlineAt || it->cancelAtDeadline != baseline.cancelAtDeadline;
        const bool changedHere = e->run.deadlineAt != baseline.deadlineAt
                                 || e->run.cancelAtDeadline != baseline.cancelAtDeadline;
        // A change of our own not written yet is newer than what we read: it goes to disk next.
        if (!changedThere || changedHere)
            continue;
        e->run.deadlineAt = it->deadlineAt;
        e->run.cancelAtDeadline = it->cancelAtDeadline;
        // What the file holds now: the run's next write leaves it be.
        auto updated = std::make_shared<Run>(baseline);
        updated->deadlineAt = it->deadlineAt;
        updated->cancelAtDeadline = it->cancelAtDeadline;
        e->run.stored = std::move(updated);
        Q_EMIT runChanged(it.key(), RunChange::Deadline);
    }
}

} // namespace Runwatch
