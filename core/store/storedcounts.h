// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QMap>
#include <QObject>
#include <QStringList>

#include <memory>

class QThread;

namespace Runwatch {

// Counts a store's runs by status on a thread and a connection of its own. A front end that holds
// part of a big history counts the rest with it: one grouped count of a million rows is ~300 ms of
// SQLite walking the status index, which on the GUI thread came before the first paint (README,
// "A year of a team's history"). With the count, in the same snapshot of the store, it reads the
// stored status of `held` (the runs the front end holds already), so that what is held and what is
// counted never disagree about a run another process changed in between.
class StoredCounts final : public QObject
{
    Q_OBJECT
public:
    struct Result
    {
        bool ok = false;
        QString error;
        QMap<RunStatus, int> all;  // every stored run, by status
        QMap<RunStatus, int> held; // those of `held` that are stored, by their stored status
    };

    // Starts counting at once. `location` is the store's (RunStore::path()): the thread opens it
    // again, so the store's own connection stays free for the GUI thread's reads.
    StoredCounts(const QString &location, QStringList held, QObject *parent = nullptr);
    // Waits for the count when it is still running (at most as long as the count takes).
    ~StoredCounts() override;

    // The count of a store location on the calling thread, on a connection opened for it (what
    // the thread runs; public for a caller that has a thread of its own).
    static Result count(const QString &location, const QStringList &held);

Q_SIGNALS:
    // Once, on the thread that made this object.
    void finished(const Runwatch::StoredCounts::Result &result);

private:
    std::unique_ptr<QThread> m_thread;
};

} // namespace Runwatch
