// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runfilter.h"

#include "store/runstore.h"
#include "store/storedcounts.h"

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
// The start comes in two steps so that the first screenful is not kept waiting for what it does
// not show: start() reads the newest page (the screenful), completeStart() — once the list has
// painted — the live runs older than that page (a big history's thousands: ~35 ms to read, as
// long again to adopt, in slices) and the count, which walks a million rows' status index
// (~300 ms) on a thread of its own (StoredCounts).
class HistoryWindow final : public QObject
{
    Q_OBJECT
public:
    HistoryWindow(RunManager *manager, RunStore *store, QObject *parent = nullptr);

    // Adopts the newest `firstPage` stored runs, without the output of the live ones among them
    // (RunStore::Load::Listing: the engine reads a live run's stored text before it follows it,
    // the detail pane that of the run it shows); a live run is followed when its connection
    // exists.
    void start(int firstPage);
    // After start(), once: adopts every other live run (likewise; 500 at once, the rest on the
    // next turns of the event loop), then counts the stored runs not held on a thread of its own:
    // notHeldCountsChanged() when the counts are in (countsKnown(); until then notHeldCounts() is
    // empty).
    void completeStart();
    bool startCompleted() const { return m_completed; }
    bool countsKnown() const { return m_countsKnown; }
    // Whether older runs of `category` (All, or a status category) and `connection` (empty: any)
    // are in the store and not held yet.
    bool canFetchMore(StatusCategory category, const QString &connection) const;
    // Adopts up to `count` of them, newest first; returns how many runs it adopted (runs it reads
    // that the manager has already, or that were deleted here meanwhile, are not adopted again).
    int fetchMore(int count, StatusCategory category, const QString &connection);
    // Runs the list must show although they are older than what is held (search hits): each one
    // the manager does not have is read from the store and adopted. Returns how many were.
    int hold(const QStringList &ids);
    // The stored runs not held, per category (Stuck is never among them: only live runs are);
    // empty until countsKnown().
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
    // The next of the live runs completeStart() read; the count once they are all in.
    void adoptLiveRuns();
    void countNotHeld();
    // Adopts the runs a read brought that the manager does not hold; returns how many.
    int adopt(QList<Run> runs);
    // The count arrived: what is stored less what is held, as of one snapshot, less what was
    // adopted since the count was asked for.
    void takeCounts(const StoredCounts::Result &result);
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
    RunCounts m_adopted;               // every run adopted, by its category as read
    RunCounts m_adoptedSinceCount;     // adopted while the count ran
    QPointer<StoredCounts> m_counting; // while the count runs
    QList<Run> m_liveToAdopt;          // read by completeStart(), adopted a slice per turn
    bool m_completed = false;          // completeStart() ran
    bool m_countsKnown = false;
};

} // namespace Runwatch
