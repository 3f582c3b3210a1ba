// SPDX-License-Identifier: GPL-3.0-or-later
// RunManager's side of sharing one store with other processes (the app, `watch`, `deadline`,
// `delete --local`, `prune` in other terminals): a write never undoes theirs (RunStore), a run
// they deleted is let go here too, and a deadline one of them set on a run this process follows
// is acted on here, as the README promises ("whichever process follows it acts on it").
#include "runmanager.h"

#include "runmanager_p.h"

#include "domain/boundedwait.h"
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
// Runs asked of the store's reader at a time (readQueuedChanges()); their answer is applied a
// frame's share at a time (applyChangedSlice(): 3-7 µs a run).
constexpr qsizetype kChangedRunsPerRequest = 500;
constexpr qint64 kChangeRoundMs = 250;
// What one frame spends applying an answer; the rest waits for the next frame.
constexpr qint64 kApplyBudgetNs = 1'000'000;
constexpr std::chrono::milliseconds kFrame{16};
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
    // An answer the last store owes will not come (its signals are no longer heard).
    m_readInFlight.clear();
    m_readMeanwhile.clear();
    m_applyIds.clear();
    m_applyRuns.clear();
    m_applyAt = 0;
    m_deadlinesAsked = false;
    m_deadlineBaselines.clear();
    // The store reads a run when it writes it, not on every batch of events (persist()).
    if (m_store) {
        m_store->setRunSource([this](const QString &id) -> Run * {
            Entry *e = entry(id);
            return e ? &e->run : nullptr;
        });
        connect(m_store, &RunStore::runsDeletedElsewhere, this, &RunManager::letGoDeletedRuns);
        connect(m_store, &RunStore::runsChangedElsewhere, this, &RunManager::takeChangesFromStore);
        connect(m_store, &RunStore::changedRunsRead, this, &RunManager::applyChangedRuns);
        connect(m_store, &RunStore::deadlinesRead, this, &RunManager::applyStoredDeadlines);
        connect(m_store, &RunStore::leasesRenewed, this, &RunManager::loseLeases);
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
            m_storeSync->setObjectName(u"storeSync"_s);
            m_storeSync->setInterval(kStoreSyncMs);
            m_storeSync->setTimerType(kChoreTimer);
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
    for (const QString &id : ids) {
        if (!m_changesQueued.contains(id)) {
            m_changesQueued.insert(id);
            m_changeQueue.append(id);
        }
    }
    if (m_changeQueue.isEmpty() || m_changeReadScheduled || !m_readInFlight.isEmpty())
        return;
    m_changeReadScheduled = true;
    // A new round of reads starts at most every kChangeRoundMs: runs that keep changing (a
    // colleague's hundred streams) are read a few times a second each, not as fast as the
    // database answers — ten processes reading so kept a 2-core server saturated.
    const qint64 wait
        = m_changeRound.isValid() ? std::max<qint64>(0, kChangeRoundMs - m_changeRound.elapsed()) : 0;
    QTimer::singleShot(std::chrono::milliseconds(wait), kChoreTimer, this, [this] {
        m_changeRound.start();
        readQueuedChanges();
    });
}

void RunManager::readQueuedChanges()
{
    m_changeReadScheduled = false;
    if (!m_store || m_shutDown || !m_readInFlight.isEmpty())
        return;
    const QStringList slice = m_changeQueue.first(std::min(m_changeQueue.size(), kChangedRunsPerRequest));
    m_changeQueue.remove(0, slice.size());
    for (const QString &id : slice)
        m_changesQueued.remove(id);
    // Read on the store's reader thread, from what this process holds of each run: the GUI
    // thread only applies the answer (applyChangedRuns()). What is held is handed over as
    // copies of the three things the read goes on from.
    QStringList toRead;
    QHash<QString, Run> known;
    for (const QString &id : slice) {
        const Entry *e = entry(id);
        if (e && e->follower.streamsHere())
            continue; // followed here: this process's stream is newer than the store
        toRead << id;
        if (e) {
            Run copy;
            copy.localId = id;
            copy.primaryText = e->run.primaryText;
            copy.outputLoaded = e->run.outputLoaded;
            copy.status = e->run.status;
            known.emplace(id, std::move(copy));
        }
    }
    if (toRead.isEmpty()) {
        takeChangesFromStore({}); // the next slice, if any
        return;
    }
    if (!m_store->requestChangedRuns(toRead, std::move(known)))
        return;
    m_readInFlight = QSet<QString>(toRead.cbegin(), toRead.cend());
    m_readMeanwhile.clear();
}

void RunManager::applyChangedRuns(const QStringList &ids, const QHash<QString, Run> &runs, bool ok)
{
    if (m_readInFlight.isEmpty() || !m_applyIds.isEmpty())
        return; // asked before the store changed (setStore())
    if (!ok || m_shutDown) {
        endChangedRead(); // a database error: the next change (or tick) reads them again
        return;
    }
    m_applyIds = ids;
    m_applyRuns = runs;
    m_applyAt = 0;
    applyChangedSlice();
}

void RunManager::applyChangedSlice()
{
    if (m_applyIds.isEmpty())
        return; // ended meanwhile (setStore())
    if (m_shutDown || !m_store) {
        endChangedRead();
        return;
    }
    QElapsedTimer spent;
    spent.start();
    while (m_applyAt < m_applyIds.size()) {
        const QString id = m_applyIds.at(m_applyAt++);
        // Applied, it is no longer in flight: a read of it here from now on is newer, not older.
        m_readInFlight.remove(id);
        // Read here meanwhile (a takeover's read, a run let go): newer than the answer, which
        // went on from the copy as it was. endChangedRead() reads it again.
        if (m_readMeanwhile.contains(id))
            continue;
        // The answer is ours alone once the signal that brought it has returned (its first slice
        // runs inside it): from then on its runs are moved out, not copied.
        const auto it = m_applyRuns.isDetached() ? m_applyRuns.find(id) : m_applyRuns.end();
        if (it != m_applyRuns.end()) {
            applyStoredRun(id, &*it);
        } else if (const auto shared = m_applyRuns.constFind(id); shared != m_applyRuns.cend()) {
            Run copy = *shared;
            applyStoredRun(id, &copy);
        } else {
            applyStoredRun(id, nullptr);
        }
        if (m_applyAt % 16 == 0 && spent.nsecsElapsed() >= kApplyBudgetNs)
            break;
    }
    if (m_applyAt < m_applyIds.size()) {
        QTimer::singleShot(kFrame, Qt::PreciseTimer, this, &RunManager::applyChangedSlice);
        return;
    }
    endChangedRead();
}

void RunManager::endChangedRead()
{
    m_applyIds.clear();
    m_applyRuns.clear();
    m_applyAt = 0;
    m_readInFlight.clear();
    const QSet<QString> meanwhile = std::exchange(m_readMeanwhile, {});
    takeChangesFromStore(QStringList(meanwhile.cbegin(), meanwhile.cend()));
}

void RunManager::noteReadHere(const QString &id)
{
    if (m_readInFlight.contains(id))
        m_readMeanwhile.insert(id);
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
        if (!e || !e->follower.streamsHere())
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
    applyStoredRuns(toRead, *stored);
}

void RunManager::applyStoredRuns(const QStringList &ids, QHash<QString, Run> &stored)
{
    for (const QString &id : ids) {
        const auto it = stored.find(id);
        applyStoredRun(id, it == stored.end() ? nullptr : &*it);
    }
}

void RunManager::applyStoredRun(const QString &id, Run *stored)
{
    const Entry *e = entry(id);
    // Followed here since it was asked for (this process took its lease): its stream is newer.
    if (e && e->follower.streamsHere())
        return;
    if (!stored) {
        // Gone from the store (and not a run of ours still on its way there).
        if (e && e->run.inStore)
            removeLocal(id, StoreRow::AlreadyGone);
        return;
    }
    // Shown, not followed: the process that holds the run's lease streams it.
    if (e && e->follower.tailing) {
        takeTailedRun(id, std::move(*stored));
        return;
    }
    adoptRun(std::move(*stored), false);
}

void RunManager::readShownRunsAgain()
{
    // What other processes wrote while the connection was down was not announced.
    QStringList ids;
    for (auto it = m_runs.cbegin(); it != m_runs.cend(); ++it) {
        const Entry &e = **it;
        if (!e.follower.streamsHere() && !e.run.isTerminal())
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
    if (m_deadlinesAsked)
        return; // the last answer is still on its way
    QStringList ids;
    QHash<QString, std::shared_ptr<const Run>> baselines;
    for (auto it = m_runs.cbegin(); it != m_runs.cend(); ++it) {
        const Entry &e = **it;
        if (e.follower.streamsHere() && !e.run.isTerminal() && e.run.inStore && e.run.stored) {
            ids << it.key();
            baselines.insert(it.key(), e.run.stored);
        }
    }
    if (ids.isEmpty() || !m_store) {
        m_storeSync->stop(); // follow() starts it again
        return;
    }
    if (!m_store->requestDeadlines(ids))
        return;
    m_deadlinesAsked = true;
    m_deadlineBaselines = std::move(baselines);
}

void RunManager::applyStoredDeadlines(const QHash<QString, StoredDeadline> &fields)
{
    m_deadlinesAsked = false;
    const QHash<QString, std::shared_ptr<const Run>> asked = std::exchange(m_deadlineBaselines, {});
    for (auto it = fields.cbegin(); it != fields.cend(); ++it) {
        Entry *e = entry(it.key());
        if (!e || !e->run.stored || e->run.stored != asked.value(it.key()))
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
