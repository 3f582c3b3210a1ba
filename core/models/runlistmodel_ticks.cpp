// SPDX-License-Identifier: GPL-3.0-or-later
// What RunListModel tells its views, and when: changed rows as cells or ranges, and the clocks
// (durations, answer countdowns) as they move on.
#include "runlistmodel.h"

#include "domain/boundedwait.h"
#include "domain/heavyframes.h"

#include <QTimer>

#include <algorithm>

namespace Runwatch {

namespace {

const QList<int> &durationRoles()
{
    static const QList<int> roles{Qt::DisplayRole, Qt::AccessibleTextRole, Qt::ToolTipRole,
                                  RunListModel::DurationMsRole, RunListModel::SortValueRole};
    return roles;
}

// Single-column changes of up to this many rows go cell by cell (emitRowList).
constexpr qsizetype kMaxCellSignals = 32;
// A tick that moves this many clocks on repaints enough cells to be a heavy chore (HeavyFrames).
constexpr qsizetype kHeavyTickRows = 8;

bool isUnfinished(StatusCategory c)
{
    return c == StatusCategory::Active || c == StatusCategory::NeedsInput;
}

} // namespace

void RunListModel::emitRows(const QSet<QString> &ids, int firstColumn, int lastColumn,
                            const QList<int> &roles)
{
    if (ids.isEmpty())
        return;
    QList<int> rows;
    rows.reserve(ids.size());
    for (const QString &id : ids) {
        const int row = rowOf(id);
        if (row >= 0)
            rows.append(row);
    }
    emitRowList(std::move(rows), firstColumn, lastColumn, roles);
}

void RunListModel::emitRowList(QList<int> rows, int firstColumn, int lastColumn, const QList<int> &roles)
{
    if (rows.isEmpty())
        return;
    // A few cells of one column (a run's new activity) one by one: the proxy maps each to its row,
    // where a range of rows adjacent here may span rows far apart in a sorted view.
    if (firstColumn == lastColumn && rows.size() <= kMaxCellSignals) {
        for (int row : std::as_const(rows)) {
            const QModelIndex cell = index(row, firstColumn);
            Q_EMIT dataChanged(cell, cell, roles);
        }
        return;
    }
    // Else a range per run of adjacent rows: the view repaints what of a range is on screen (Qt
    // 6.4 computes its rectangle), and the proxy takes a range at once (a cell at a time, the
    // durations of 200 live runs were 200 signals through it a tick, 0.15-0.25 ms; with the sort
    // column in them, as many sorts). Past half of the table one range is cheaper than many.
    if (rows.size() * 2 > m_ids.size()) {
        Q_EMIT dataChanged(index(0, firstColumn), index(int(m_ids.size()) - 1, lastColumn), roles);
        return;
    }
    std::sort(rows.begin(), rows.end());
    int start = rows.first();
    int prev = start;
    for (qsizetype i = 1; i <= rows.size(); ++i) {
        if (i < rows.size() && rows.at(i) == prev + 1) {
            prev = rows.at(i);
            continue;
        }
        Q_EMIT dataChanged(index(start, firstColumn), index(prev, lastColumn), roles);
        if (i < rows.size())
            start = prev = rows.at(i);
    }
}

void RunListModel::tick()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const qint64 nowMs = now.toMSecsSinceEpoch();
    const qint64 since = m_sinceTick.isValid() ? m_sinceTick.elapsed() : kTickMs;
    // The badge of a run that must be answered before a deadline counts down (badgeText). Such a
    // run is unfinished, so this ticker already runs while one is in the list, and stops with the
    // last unfinished run.
    QList<int> durations;
    QList<int> countdowns;
    for (int r = 0; r < m_categories.size(); ++r) {
        const StatusCategory category = m_categories.at(r);
        if (!isUnfinished(category))
            continue;
        const Run &run = *m_runs.at(r);
        if (run.createdAt.isValid()) {
            const qint64 startMs = run.createdAt.toMSecsSinceEpoch();
            if (stepPassed(startMs, nowMs, since, durationStepMs(nowMs - startMs)))
                durations.append(r);
        }
        if (category == StatusCategory::NeedsInput) {
            // Rounded up to the second (formatCountdown): it moves on where the deadline's
            // millisecond comes round.
            if (const auto left = answerTimeLeftMs(run, now);
                left && stepPassed(nowMs + *left, nowMs, since, 1000))
                countdowns.append(r);
        }
    }
    // Many rows at once repaint a column (all the runs started in one second): a heavy chore, in a
    // frame no other heavy chore took. Put off, it looks again a frame later, over the whole time
    // since it last looked.
    if (durations.size() + countdowns.size() >= kHeavyTickRows && !HeavyFrames::claim()) {
        QTimer::singleShot(HeavyFrames::kRetry, kChoreTimer, this, &RunListModel::tick);
        return;
    }
    if (m_sinceTick.isValid())
        m_sinceTick.restart();
    emitRowList(std::move(durations), DurationColumn, DurationColumn, durationRoles());
    emitRowList(std::move(countdowns), StatusColumn, StatusColumn, {Qt::DisplayRole, Qt::ToolTipRole});
    updateTicker();
}

void RunListModel::updateTicker()
{
    const bool anyUnfinished
        = m_counts.value(StatusCategory::Active) > 0 || m_counts.value(StatusCategory::NeedsInput) > 0;
    if (anyUnfinished && !m_ticker.isActive()) {
        m_ticker.start();
        m_sinceTick.start();
    } else if (!anyUnfinished && m_ticker.isActive()) {
        m_ticker.stop();
    }
}

} // namespace Runwatch
