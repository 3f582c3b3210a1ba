// SPDX-License-Identifier: GPL-3.0-or-later
#include "runlistmodel.h"

#include "historywindow.h"
#include "modelslog.h"

#include "domain/boundedwait.h"
#include "domain/runprogress.h"
#include "engine/rundeadlines.h"
#include "engine/runmanager.h"
#include "engine/stuckruns.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

Q_LOGGING_CATEGORY(lcModels, "runwatch.models", QtInfoMsg)

namespace {

// A bulk insert (the stored history arriving in slices) is followed by the next one no sooner than
// this: every insert relayouts and repaints the table (≈ 10 ms of text shaping for a screenful)
// and re-sorts into the proxy, which cost more than the inserts themselves when each slice of a
// 100,000-run history was inserted on its own. Whoever ends a bulk load calls endBulkLoad().
constexpr int kBulkInsertRows = 1000;
constexpr int kBulkInsertIntervalMs = 250;
constexpr qsizetype kMaxInsertRows = 16384;

const QList<int> &rowRoles()
{
    static const QList<int> roles{
        Qt::DisplayRole,
        Qt::ToolTipRole,
        Qt::AccessibleTextRole,
        RunListModel::IdRole,
        RunListModel::RemoteIdRole,
        RunListModel::StatusRole,
        RunListModel::RawStatusRole,
        RunListModel::ConnectionLostRole,
        RunListModel::CategoryRole,
        RunListModel::TitleRole,
        RunListModel::ModelRole,
        RunListModel::UpdatedAtRole,
        RunListModel::FinishedAtRole,
        RunListModel::DurationMsRole,
        RunListModel::CapabilitiesRole,
        RunListModel::InputReasonRole,
        RunListModel::ErrorRole,
        RunListModel::ErrorRetryableRole,
        RunListModel::SortValueRole,
        RunListModel::ProgressRole,
        RunListModel::EtaRole,
        RunListModel::StuckRole,
        RunListModel::OverDeadlineRole,
        RunListModel::DeadlineRole,
    };
    return roles;
}

// The last activity to the second, as its cell shows it (formatTimestamp).
qint64 activitySecond(const Run &run)
{
    return run.updatedAt.isValid() ? run.updatedAt.toSecsSinceEpoch() : -1;
}

const QList<int> &activityRoles()
{
    static const QList<int> roles{Qt::DisplayRole, Qt::AccessibleTextRole, Qt::ToolTipRole,
                                  RunListModel::UpdatedAtRole, RunListModel::SortValueRole};
    return roles;
}

// The token and cost cells: what a usage report or a new price table changes.
const QList<int> &usageRoles()
{
    static const QList<int> roles{Qt::DisplayRole, Qt::AccessibleTextRole, Qt::ToolTipRole,
                                  RunListModel::SortValueRole};
    return roles;
}

} // namespace

RunListModel::RunListModel(RunManager *manager, QObject *parent)
    : QAbstractTableModel(parent)
    , m_manager(manager)
{
    m_insertTimer.setObjectName(u"runListInsert"_s);
    m_changeTimer.setObjectName(u"runListChanges"_s);
    m_ticker.setObjectName(u"runListTicker"_s);
    m_insertTimer.setSingleShot(true);
    m_insertTimer.setInterval(0);
    m_changeTimer.setSingleShot(true);
    m_changeTimer.setInterval(100);
    m_changeTimer.setTimerType(kChoreTimer);
    m_ticker.setInterval(kTickMs);
    m_ticker.setTimerType(kChoreTimer);
    connect(&m_insertTimer, &QTimer::timeout, this, &RunListModel::insertPending);
    connect(&m_changeTimer, &QTimer::timeout, this, &RunListModel::emitChanges);
    connect(&m_ticker, &QTimer::timeout, this, &RunListModel::tick);
    if (!manager)
        return;
    connect(manager, &RunManager::runAdded, this, &RunListModel::onRunAdded);
    connect(manager, &RunManager::runChanged, this, &RunListModel::onRunChanged);
    connect(manager, &RunManager::runRemoved, this, &RunListModel::onRunRemoved);
    // New prices re-price every row: one range signal over the cost column.
    connect(manager->prices(), &PriceBook::changed, this, [this] {
        if (!m_ids.isEmpty())
            Q_EMIT dataChanged(index(0, CostColumn), index(int(m_ids.size()) - 1, CostColumn), usageRoles());
    });
    const QStringList ids = manager->runIds();
    m_ids.reserve(ids.size());
    m_categories.reserve(ids.size());
    m_runs.reserve(ids.size());
    m_activityShown.reserve(ids.size());
    for (const QString &id : ids) {
        const Run *run = manager->run(id);
        if (!run)
            continue;
        appendRow(id, run);
    }
    updateTicker();
}

RunListModel::~RunListModel() = default;

int RunListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_ids.size());
}

int RunListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : RunColumnCount;
}

QString RunListModel::runId(int row) const
{
    return row >= 0 && row < m_ids.size() ? m_ids.at(row) : QString();
}

int RunListModel::rowOf(const QString &id) const
{
    return m_rows.value(id, -1);
}

const Run *RunListModel::runAt(int row) const
{
    if (!m_manager || row < 0 || row >= m_runs.size())
        return nullptr;
    return m_runs.at(row);
}

void RunListModel::setWatchers(StuckRunWatcher *stuck, DeadlineWatcher *deadlines)
{
    m_stuck = stuck;
    m_deadlines = deadlines;
    // A flag that comes or goes repaints the run's row like any change of the run (which also
    // makes the proxy filter that row again: the Stuck chip's view follows the flag).
    const auto repaint = [this](const QString &id) { onRunChanged(id, RunChange::Status); };
    m_counts.setStuck(stuck ? stuck->stuckCount() : 0);
    if (stuck) {
        connect(stuck, &StuckRunWatcher::stuckChanged, this, [this, repaint](const QString &id) {
            repaint(id);
            m_counts.setStuck(m_stuck ? m_stuck->stuckCount() : 0);
            Q_EMIT countsChanged();
        });
    }
    if (deadlines)
        connect(deadlines, &DeadlineWatcher::overDeadlineChanged, this, repaint);
}

StuckRunWatcher *RunListModel::stuckWatcher() const
{
    return m_stuck;
}

bool RunListModel::isStuck(const QString &id) const
{
    return m_stuck && m_stuck->isStuck(id);
}

void RunListModel::onRunAdded(const QString &id)
{
    if (m_rows.contains(id) || m_pendingAddSet.contains(id))
        return;
    m_pendingAdds.append(id);
    m_pendingAddSet.insert(id);
    if (!m_insertTimer.isActive())
        m_insertTimer.start();
}

void RunListModel::onRunChanged(const QString &id, RunChanges changes)
{
    const auto found = m_rows.constFind(id);
    if (found == m_rows.cend())
        return; // still pending: it is inserted with its latest state
    if ((changes & RunChange::Usage) && !(changes & ~RunChanges(RunChange::Usage | RunChange::Cursor))) {
        m_dirtyUsage.insert(id); // only the token and cost cells
    } else if (changes & ~RunChanges(RunChange::Primary | RunChange::Secondary | RunChange::Cursor)) {
        m_dirtyRows.insert(id);
    } else if (const Run *run = (changes & RunChange::Secondary) && m_manager ? m_manager->run(id) : nullptr;
               run && reportedProgress(*run)) {
        m_dirtyRows.insert(id); // the status cell paints the progress bar
    } else if (changes & (RunChange::Primary | RunChange::Secondary)) {
        const int row = *found;
        const qint64 second = activitySecond(*m_runs.at(row));
        if (m_activityShown.at(row) == second)
            return; // the cell would show the same text
        m_activityShown[row] = second;
        m_dirtyActivity.insert(id);
    } else {
        return;
    }
    if (!m_changeTimer.isActive())
        m_changeTimer.start();
}

void RunListModel::onRunRemoved(const QString &id)
{
    if (m_pendingAddSet.remove(id))
        m_pendingAdds.removeAll(id);
    m_dirtyRows.remove(id);
    m_dirtyActivity.remove(id);
    m_dirtyUsage.remove(id);
    const int row = rowOf(id);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_ids.removeAt(row);
    m_runs.removeAt(row);
    m_activityShown.removeAt(row);
    m_counts.add(m_categories.takeAt(row), -1);
    m_rows.remove(id);
    for (int r = row; r < m_ids.size(); ++r)
        m_rows[m_ids.at(r)] = r;
    endRemoveRows();
    updateTicker();
    Q_EMIT countsChanged();
}

void RunListModel::appendRow(const QString &id, const Run *run)
{
    m_rows.insert(id, int(m_ids.size()));
    m_ids.append(id);
    m_runs.append(run);
    m_activityShown.append(activitySecond(*run));
    const StatusCategory c = categoryOf(*run);
    m_categories.append(c);
    m_counts.add(c, 1);
}

void RunListModel::insertPending()
{
    if (m_pendingAdds.isEmpty() || !m_manager)
        return;
    // At most kMaxInsertRows at once: the proxy sorts what one insert brings (≈ 1.3 µs a row), and
    // a whole bulk interval's worth of history (30,000–40,000 runs) held the event loop for 55 ms.
    const qsizetype take = std::min(m_pendingAdds.size(), kMaxInsertRows);
    QList<std::pair<QString, const Run *>> rows;
    rows.reserve(take);
    for (qsizetype i = 0; i < take; ++i) {
        QString &id = m_pendingAdds[i];
        m_pendingAddSet.remove(id);
        if (m_rows.contains(id))
            continue;
        if (const Run *run = m_manager->run(id))
            rows.append({std::move(id), run});
    }
    m_pendingAdds.remove(0, take);
    qCDebug(lcModels) << "inserting" << rows.size() << "runs," << m_pendingAdds.size() << "still waiting";
    const bool more = !m_pendingAdds.isEmpty();
    if (!rows.isEmpty()) {
        const int first = int(m_ids.size());
        beginInsertRows({}, first, first + int(rows.size()) - 1);
        for (auto &[id, run] : rows)
            appendRow(id, run);
        endInsertRows();
    }
    if (more) {
        insertSoon(); // the rest of a capped insert, once the event loop has painted and taken input
    } else {
        m_insertTimer.setInterval(take >= kBulkInsertRows ? kBulkInsertIntervalMs : 0);
    }
    if (rows.isEmpty())
        return;
    updateTicker();
    Q_EMIT countsChanged();
}

bool RunListModel::recount(int row, const Run &run)
{
    const StatusCategory now = categoryOf(run);
    const StatusCategory before = m_categories.at(row);
    if (now == before)
        return false;
    m_counts.add(before, -1);
    m_counts.add(now, 1);
    m_categories[row] = now;
    return true;
}

void RunListModel::emitChanges()
{
    if (!m_manager)
        return;
    bool countsMoved = false;
    for (const QString &id : std::as_const(m_dirtyRows)) {
        const int row = rowOf(id);
        if (const Run *run = runAt(row)) {
            countsMoved = recount(row, *run) || countsMoved;
            m_activityShown[row] = activitySecond(*run);
        }
        m_dirtyActivity.remove(id); // the whole row covers it
        m_dirtyUsage.remove(id);
    }
    const QSet<QString> rows = std::exchange(m_dirtyRows, {});
    const QSet<QString> activity = std::exchange(m_dirtyActivity, {});
    const QSet<QString> usage = std::exchange(m_dirtyUsage, {});
    emitRows(rows, 0, RunColumnCount - 1, rowRoles());
    emitRows(activity, LastActivityColumn, LastActivityColumn, activityRoles());
    emitRows(usage, InputTokensColumn, CostColumn, usageRoles());
    if (countsMoved) {
        updateTicker();
        Q_EMIT countsChanged();
    }
}

void RunListModel::flush()
{
    while (m_manager && !m_pendingAdds.isEmpty()) // (insertPending() takes nothing without one)
        insertPending();
    m_insertTimer.stop();
    m_changeTimer.stop();
    emitChanges();
}

RunCounts RunListModel::counts() const
{
    RunCounts all = m_counts;
    if (m_history) {
        const RunCounts &rest = m_history->notHeldCounts();
        for (std::size_t i = 0; i < all.values.size(); ++i)
            all.values.at(i) += rest.values.at(i);
    }
    return all;
}

void RunListModel::setHistory(HistoryWindow *history)
{
    if (m_history)
        disconnect(m_history, nullptr, this, nullptr);
    m_history = history;
    if (history) {
        // A run that left "not held" counts here once its row is in: in it goes now, or the sum
        // would be short of it until the next bulk insert (the counts arriving after the last
        // live runs, a page, search hits).
        connect(history, &HistoryWindow::notHeldCountsChanged, this, [this] {
            flush();
            Q_EMIT countsChanged();
        });
    }
    Q_EMIT countsChanged();
}

HistoryWindow *RunListModel::history() const
{
    return m_history;
}

bool RunListModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && m_history && m_history->canFetchMore(StatusCategory::All, {});
}

void RunListModel::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    m_history->fetchMore(kHistoryPage, StatusCategory::All, {});
    // The view asked because its last row is in sight: the rows go in now, not after the bulk
    // interval, or it would ask again for the same end.
    flush();
}

void RunListModel::endBulkLoad()
{
    if (!m_pendingAdds.isEmpty())
        insertSoon();
}

void RunListModel::insertSoon()
{
    m_insertTimer.setInterval(0);
    m_insertTimer.start();
}

} // namespace Runwatch
