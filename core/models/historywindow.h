// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runfilter.h"

#include "store/runstore.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>

namespace Runwatch {

class RunManager;

// Which of the stored runs a front end holds in its RunManager. A team's ledger grows to a
// million runs, and a Run held in memory costs a few KB (100,000 runs took ~240 MB), so the app
// holds every live run (they are followed, counted, notified, answered) and the newest finished
// ones, and reads older ones a page at a time when the run list is scrolled to its end
// (RunListModel and RunFilterProxy's fetchMore). A filtered list reads the older runs of its
// filter (a status category, a connection), so that a rare filter reads the runs it shows and not
// the history before them. The runs not held are counted by status once, from the store's
// grouped count, and the count goes down as pages bring them in, so the filter bar's counts are
// those of the whole ledger.
class HistoryWindow final : public QObject
{
    Q_OBJECT
public:
    HistoryWindow(RunManager *manager, RunStore *store, QObject *parent = nullptr);

    // Adopts every live run of the store and the newest `firstPage` runs; a live run is followed
    // when its connection exists. Counts the rest.
    void start(int firstPage);
    // Whether older runs of `category` (All, or a status category) and `connection` (empty: any)
    // are in the store and not held yet.
    bool canFetchMore(StatusCategory category, const QString &connection) const;
    // Adopts up to `count` of them, newest first; returns how many runs it adopted (runs it reads
    // that the manager has already, or that were deleted here meanwhile, are not adopted again).
    int fetchMore(int count, StatusCategory category, const QString &connection);
    // Runs the list must show although they are older than what is held (search hits): each one
    // the manager does not have is read from the store and adopted. Returns how many were.
    int hold(const QStringList &ids);
    // The stored runs not held, per category (Stuck is never among them: only live runs are).
    const RunCounts &notHeldCounts() const { return m_notHeld; }
    // Every stored run is held.
    bool isComplete() const { return m_all.atEnd; }

Q_SIGNALS:
    void notHeldCountsChanged();

private:
    struct Cursor
    {
        RunStore::PagePosition position;
        RunStore::PageFilter filter;
    };
    // Adopts the runs a read brought that the manager does not hold; returns how many.
    int adopt(QList<Run> runs);
    // The runs of `ids` the manager does not hold and that were not deleted here, from the store.
    QList<Run> readMissing(const QStringList &ids) const;
    static QString filterKey(StatusCategory category, const QString &connection);
    // The cursor of a filter, started where the whole history's cursor stands (everything newer
    // is held) and moved there whenever that one has gone further.
    Cursor &cursorFor(StatusCategory category, const QString &connection);

    QPointer<RunManager> m_manager;
    QPointer<RunStore> m_store;
    RunStore::PagePosition m_all;      // newest first: every stored run before it is held
    QHash<QString, Cursor> m_filtered; // by filterKey()
    QSet<QString> m_removed;           // deleted here: a page read meanwhile does not bring them back
    RunCounts m_notHeld;
};

} // namespace Runwatch
