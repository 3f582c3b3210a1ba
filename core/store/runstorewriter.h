// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"
#include "store/runwrites.h"

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
    RunStoreWriter(std::shared_ptr<const StoreEngine> engine, std::function<void()> changed);
    ~RunStoreWriter() override; // on the writer thread: closes its connection there

    // Writer thread. One transaction for the whole batch; `generation` is done afterwards.
    void write(const QList<Run> &runs, quint64 generation);
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
    void setError(const QString &error, const QList<Run> &unwritten = {});

    std::shared_ptr<const StoreEngine> m_engine;
    QString m_connectionName;
    std::function<void()> m_changed;
    RunWriteStatements m_statements;
    bool m_open = false;
    bool m_failed = false;
    QList<Run> m_unwritten; // the batch that failed, written again with the next one
    std::atomic<quint64> m_completed{0};
    mutable QMutex m_errorMutex;
    QString m_error;
    QStringList m_gone;         // under m_errorMutex
    QStringList m_unwrittenIds; // under m_errorMutex: m_unwritten's runs
};

} // namespace Runwatch::detail
