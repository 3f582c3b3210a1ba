// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"
#include "store/runwrites.h"
#include "store/threadconnection.h"

#include <QList>
#include <QMutex>
#include <QObject>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>

namespace Runwatch::detail {

// Writes batches of runs on the store's writer thread, through a connection of its own, so that
// the database's round trips and SQLite's page writes, WAL growth and checkpoint syncs never run on the GUI thread. Batches are
// written in the order they were handed over; RunStore waits for them (a blocking no-op call)
// before anything that must see them.
class RunStoreWriter final : public QObject
{
public:
    // `changed` runs on the writer thread after a write whose outcome the store has to act on (it
    // failed, went through after failing, or found runs deleted elsewhere): the store learns of
    // it then, not only at its next batch, which may never come (the last run finished).
    // `holderId`: the store's id in the lease table (RunStore::holderId), whose leases
    // write() releases.
    RunStoreWriter(std::shared_ptr<const StoreEngine> engine, QString holderId,
                   std::function<void()> changed);
    ~RunStoreWriter() override; // on the writer thread: closes its connection there

    // The leases a batch lets go of once its runs are written (RunStore::releaseLease).
    struct LeaseReleases
    {
        QStringList localIds;
        bool all = false; // every lease of this store (RunStore::releaseAllLeases)
        bool isEmpty() const { return localIds.isEmpty() && !all; }
    };
    // Writer thread. One transaction for the whole batch, `releases` in it after the runs: another
    // process finds a run's lease free only once the run's last state is in the store, never a
    // free lease beside an older state it would go on following. Kept and tried again with the
    // batch when it fails. `generation` is done afterwards.
    void write(const QList<RunWrite> &runs, quint64 generation, const LeaseReleases &releases);
    // Writer thread: a release of `localId` kept from a failed batch is not tried again (the run's
    // lease has been taken again since).
    void cancelRelease(const QString &localId);
    // Any thread: the last generation written (or given up on).
    quint64 completed() const { return m_completed.load(std::memory_order_acquire); }
    // Any thread: why the last batch could not be written (a full disk, a read-only file, a lock
    // held too long), or empty when it was. A failed batch is kept and written again, before and
    // merged with the next one: the newest state of each run wins, nothing is dropped.
    QString error() const;
    // Any thread: the runs a write found deleted by another process since the last call. Not
    // written back: the process that deleted a run had the last word on it.
    QStringList takeGone();
    // Writer thread: drops `localId` from the failed batch (the run is being deleted).
    void forget(const QString &localId);
    // Any thread: the runs whose latest state is not on disk because the last write failed (the
    // batch kept for the next try); empty once a write went through.
    QStringList unwrittenIds() const;

private:
    bool ensureOpen(QString *error);
    void closeConnection();
    void setError(const QString &error, const QList<RunWrite> &unwritten = {});
    bool releaseLeases(const QSqlDatabase &db, const LeaseReleases &releases, QString *error) const;

    std::shared_ptr<const StoreEngine> m_engine;
    ThreadConnection m_connection;
    QString m_holderId;
    std::function<void()> m_changed;
    RunWriteStatements m_statements;
    bool m_open = false; // the connection open and the statements prepared
    bool m_failed = false;
    QList<RunWrite> m_unwritten;       // the batch that failed, written again with the next one
    LeaseReleases m_unwrittenReleases; // its lease releases, likewise
    std::atomic<quint64> m_completed{0};
    mutable QMutex m_errorMutex;
    QString m_error;
    QStringList m_gone;         // under m_errorMutex
    QStringList m_unwrittenIds; // under m_errorMutex: m_unwritten's runs
};

} // namespace Runwatch::detail
