// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runfilter.h"
#include "runformat.h"

#include "domain/runevent.h"
#include "domain/runreducer.h"
#include "engine/runmanager.h"

#include <QAbstractTableModel>
#include <QElapsedTimer>
#include <QHash>
#include <QPointer>
#include <QSet>
#include <QTimer>

namespace Runwatch {

class DeadlineWatcher;
class HistoryWindow;
class StuckRunWatcher;

// The run list as a table: one row per run of a RunManager, in the order the manager knows
// them (the proxy sorts). DisplayRole carries formatted text; the roles below carry raw values
// for sorting, filtering and the badge delegate. Colours and icons are presentation and live in
// the GUI's delegate, so this model needs nothing beyond Qt Core.
//
// Updates are coalesced: engine signals only mark rows dirty, and a timer emits dataChanged
// with the affected roles (one whole-range signal when more than half of the rows changed,
// qBittorrent's heuristic). A run that only produced output touches just its "last activity"
// cell, signalled cell by cell so views repaint those cells and not the whole table. New runs are inserted in
// batches on the next event-loop turn. A one-second ticker keeps the duration of unfinished runs live and
// stops when no run is unfinished.
class RunListModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Role {
        IdRole = Qt::UserRole + 1,
        RemoteIdRole,
        StatusRole,         // int(RunStatus)
        RawStatusRole,      // the backend's own label
        ConnectionLostRole, // bool: the stream dropped and a reconnect is pending
        CategoryRole,       // int(StatusCategory)
        TitleRole,
        ConnectionRole,
        BackendRole,
        ModelRole,
        CreatedAtRole,
        UpdatedAtRole,
        FinishedAtRole,
        DurationMsRole,   // qint64
        CapabilitiesRole, // int(Capabilities)
        InputReasonRole,  // int(InputReason), or -1 when not waiting
        ErrorRole,        // RunError::toString(), empty without error
        ErrorRetryableRole,
        SortValueRole, // the raw value behind the cell's column
        ParentIdRole,  // the local id of the run this one follows up, empty for a first turn
        ProgressRole,  // double 0…1 of a live run that reports progress (runProgress()), else invalid
        EtaRole,       // QDateTime: when that run will likely finish, else invalid

        StuckRole,        // bool: StuckRunWatcher flags the run (no progress for too long)
        OverDeadlineRole, // bool: a live run past the operator's deadline (DeadlineWatcher)
        DeadlineRole,     // QDateTime: Run::deadlineAt, invalid without one
    };
    Q_ENUM(Role)

    explicit RunListModel(RunManager *manager, QObject *parent = nullptr);
    ~RunListModel() override;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    void multiData(const QModelIndex &index, QModelRoleDataSpan roleDataSpan) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;
    // Older stored runs, a page at a time, when a view reaches the end (setHistory()).
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;
    // Runs of one page of older history (a view asks for more when its last row is in sight).
    static constexpr int kHistoryPage = 500;

    RunManager *manager() const { return m_manager; }
    // The watchers whose flags the status badge shows ("Stuck", "Over deadline"); either may be
    // null (no such rule in this front end).
    void setWatchers(StuckRunWatcher *stuck, DeadlineWatcher *deadlines);
    bool isStuck(const QString &id) const;
    StuckRunWatcher *stuckWatcher() const;
    QString runId(int row) const;
    int rowOf(const QString &id) const; // -1 when not (yet) in the model
    const Run *runAt(int row) const;
    // Of every run: those held, and those of the store the history window has not read yet.
    RunCounts counts() const;
    // Where rows beyond the runs the manager holds come from: the model reads the next page of
    // the whole history into the manager when a view scrolls to its end, and counts the runs not
    // read yet. Without one, the model lists what the manager holds.
    void setHistory(HistoryWindow *history);
    HistoryWindow *history() const;

    // How long changes are collected before views hear of them (default 100 ms).
    void setUpdateInterval(int ms) { m_changeTimer.setInterval(ms); }
    int updateInterval() const { return m_changeTimer.interval(); }
    // Emits every pending insertion and change now (tests, benchmarks, "select the new run").
    void flush();
    // A bulk load (the stored history) has ended: what it left pending goes in without waiting for
    // the bulk interval, in inserts of bounded size one event-loop turn apart.
    void endBulkLoad();
    bool isTicking() const { return m_ticker.isActive(); }

Q_SIGNALS:
    void countsChanged();

private:
    // How often the durations and countdowns are looked at. Each row's clock moves on at its own
    // instant (its start's millisecond), so a look signals the rows whose clock moved since the
    // last one: each within a quarter second of its true second. Every row at once, once a
    // second, was a frame with every visible duration repainted.
    static constexpr int kTickMs = 250;

    void onRunAdded(const QString &id);
    void onRunChanged(const QString &id, Runwatch::RunChanges changes);
    void onRunRemoved(const QString &id);
    void insertPending();
    // Appends `run`'s row to the tables and counts (inside a row insertion, or before the first view).
    void appendRow(const QString &id, const Run *run);
    // The next insert on the event loop's next turn, not after the bulk interval.
    void insertSoon();
    void emitChanges();
    void tick();
    void updateTicker();
    void emitRows(const QSet<QString> &ids, int firstColumn, int lastColumn, const QList<int> &roles);
    void emitRowList(QList<int> rows, int firstColumn, int lastColumn, const QList<int> &roles);
    bool recount(int row, const Run &run);
    QVariant displayValue(const Run &run, int column, const QDateTime &now) const;
    QVariant sortValue(const Run &run, int column, const QDateTime &now) const;
    QString usageToolTip(const Run &run, int column) const;

    // The status cell's text: the reconnect/input badge first, then "Stuck", "Over deadline".
    QString statusText(const Run &run) const;
    QString statusTip(const Run &run) const;
    // The run of a valid cell of this model; null for any other index.
    const Run *runOfCell(const QModelIndex &index) const;
    // data() of a cell whose run is known.
    QVariant cellData(const Run &run, int column, int role) const;

    QPointer<RunManager> m_manager;
    QPointer<StuckRunWatcher> m_stuck;
    QPointer<DeadlineWatcher> m_deadlines;
    QPointer<HistoryWindow> m_history;
    QList<QString> m_ids;
    // The manager keeps each Run at a fixed address until it emits runRemoved() (it holds them
    // by shared_ptr); caching the pointer spares a hash lookup per cell and per sort comparison.
    QList<const Run *> m_runs;
    QHash<QString, int> m_rows;
    QList<StatusCategory> m_categories; // per row, to keep the counts incremental
    // Per row: the second of the last activity the view was told of. The cell shows seconds
    // (HH:mm:ss), so a live run's output, arriving many times a second, repaints it once a second.
    QList<qint64> m_activityShown;
    RunCounts m_counts;
    QStringList m_pendingAdds;
    QSet<QString> m_pendingAddSet; // O(1) membership while 100k runs are being adopted
    QSet<QString> m_dirtyRows;     // anything but output changed: whole row, every role
    QSet<QString> m_dirtyActivity; // only output arrived: the "last activity" cell
    QSet<QString> m_dirtyUsage;    // only the token usage changed: its cells and the cost
    QTimer m_insertTimer;
    QTimer m_changeTimer;
    QTimer m_ticker;
    QElapsedTimer m_sinceTick; // since the ticker last looked (tick())
};

} // namespace Runwatch
