// SPDX-License-Identifier: GPL-3.0-or-later
#include "historywindow.h"

#include "engine/runmanager.h"
#include "modelslog.h"

#include <QTimer>

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// Live runs adopted per turn of the event loop by completeStart(): a big history's 2,500 at once,
// with the list inserting them, held the GUI thread for 60-80 ms right after the first paint.
constexpr qsizetype kLiveRunsPerTurn = 500;

} // namespace

HistoryWindow::HistoryWindow(RunManager *manager, RunStore *store, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
    , m_store(store)
{
    // A run deleted here is gone for this process even if a page read before the store's writer
    // removed its row still brings it.
    connect(manager, &RunManager::runRemoved, this, [this](const QString &id) { m_removed.insert(id); });
}

void HistoryWindow::start(int firstPage)
{
    if (!m_manager || !m_store || !m_store->isOpen()) {
        m_all.atEnd = true;
        m_completed = true;
        m_countsKnown = true;
        return;
    }
    adopt(m_store->loadRunsPage(RunStore::Load::Listing, firstPage, &m_all));
}

void HistoryWindow::completeStart()
{
    if (std::exchange(m_completed, true) || !m_manager || !m_store || !m_store->isOpen())
        return;
    // Every live run, however old: the engine follows it, the watchers and notifications need it,
    // and the Active and Needs-me lists are then complete without reading further. Without their
    // output: thousands of live runs' text read at start was most of a big history's start; the
    // engine reads it for the runs it follows, the detail pane for the one it shows
    // (RunManager::ensureOutputLoaded).
    QList<RunStatus> live;
    for (int s = 0; s <= int(kLastRunStatus); ++s) {
        if (!isTerminal(RunStatus(s)))
            live << RunStatus(s);
    }
    m_liveToAdopt = m_store->loadRunsWithStatus(RunStore::Load::Listing, live);
    adoptLiveRuns();
}

void HistoryWindow::adoptLiveRuns()
{
    if (!m_manager || !m_store)
        return;
    QList<Run> slice;
    slice.reserve(std::min(kLiveRunsPerTurn, m_liveToAdopt.size()));
    while (!m_liveToAdopt.isEmpty() && slice.size() < kLiveRunsPerTurn)
        slice.append(m_liveToAdopt.takeLast()); // in no particular order anyway
    adopt(std::move(slice));
    if (!m_liveToAdopt.isEmpty()) {
        QTimer::singleShot(0, this, &HistoryWindow::adoptLiveRuns);
        return;
    }
    m_liveToAdopt = {}; // (its capacity)
    countNotHeld();
}

void HistoryWindow::countNotHeld()
{
    if (m_countsKnown || m_counting)
        return;
    // What is held (and what was deleted here, whose row the writer may not have removed yet) is
    // looked up in the count's snapshot: those runs are not "not held", whatever their status is
    // there by now.
    QStringList held = m_manager->runIds();
    held.append(QStringList(m_removed.cbegin(), m_removed.cend()));
    m_adoptedSinceCount = {};
    m_counting = new StoredCounts(m_store->path(), std::move(held), this);
    connect(m_counting, &StoredCounts::finished, this, [this](const StoredCounts::Result &result) {
        if (m_counting)
            m_counting->deleteLater();
        takeCounts(result);
    });
}

void HistoryWindow::takeCounts(const StoredCounts::Result &result)
{
    RunCounts counts;
    const auto subtract = [&counts](const RunCounts &other) {
        for (int c = 0; c < kStatusCategoryCount; ++c) {
            // All is their sum, and Stuck is no category of a stored status.
            if (StatusCategory(c) != StatusCategory::All && StatusCategory(c) != StatusCategory::Stuck)
                counts.add(StatusCategory(c), -other.value(StatusCategory(c)));
        }
    };
    if (result.ok) {
        for (auto it = result.all.cbegin(); it != result.all.cend(); ++it)
            counts.add(categoryOf(it.key()), it.value());
        for (auto it = result.held.cbegin(); it != result.held.cend(); ++it)
            counts.add(categoryOf(it.key()), -it.value());
        subtract(m_adoptedSinceCount);
    } else if (m_store) {
        // The thread could not count (a server that refused a second connection): here, then,
        // less every run adopted as it was read.
        qCWarning(lcModels) << "history window: counting on a thread failed:" << result.error
                            << "- counting here";
        const QMap<RunStatus, int> stored = m_store->countByStatus();
        for (auto it = stored.cbegin(); it != stored.cend(); ++it)
            counts.add(categoryOf(it.key()), it.value());
        subtract(m_adopted);
    }
    // A run another process added or deleted between a page and the count may leave a category
    // one off; never below none.
    RunCounts below;
    for (int c = 0; c < kStatusCategoryCount; ++c) {
        if (StatusCategory(c) != StatusCategory::All && StatusCategory(c) != StatusCategory::Stuck)
            below.add(StatusCategory(c), std::min(0, counts.value(StatusCategory(c))));
    }
    subtract(below);
    m_notHeld = counts;
    m_countsKnown = true;
    Q_EMIT notHeldCountsChanged();
}

bool HistoryWindow::canFetchMore(StatusCategory category, const QString &connection) const
{
    if (m_all.atEnd)
        return false;
    // Live runs are all held (completeStart(), a moment after start()): their categories are
    // complete. (Read as pages, a rare status walks most of the history.)
    if (category == StatusCategory::Active || category == StatusCategory::NeedsInput
        || category == StatusCategory::Stuck) {
        return false;
    }
    if (category == StatusCategory::All && connection.isEmpty())
        return true;
    const auto found = m_filtered.constFind(filterKey(category, connection));
    return found == m_filtered.cend() || !found->position.atEnd;
}

int HistoryWindow::fetchMore(int count, StatusCategory category, const QString &connection)
{
    if (!m_store || !canFetchMore(category, connection))
        return 0;
    int adopted = 0;
    if (category == StatusCategory::All && connection.isEmpty()) {
        adopted = adopt(m_store->loadRunsPage(RunStore::Load::Listing, count, &m_all));
    } else {
        Cursor &cursor = cursorFor(category, connection);
        adopted
            = adopt(m_store->loadRunsPage(RunStore::Load::Listing, count, &cursor.position, cursor.filter));
    }
    if (adopted > 0)
        Q_EMIT notHeldCountsChanged();
    return adopted;
}

int HistoryWindow::hold(const QStringList &ids)
{
    if (!m_manager || !m_store)
        return 0;
    const int adopted = adopt(readMissing(ids));
    if (adopted > 0)
        Q_EMIT notHeldCountsChanged();
    return adopted;
}

int HistoryWindow::adopt(QList<Run> runs)
{
    int adopted = 0;
    while (!runs.isEmpty()) {
        QStringList parents;
        for (Run &run : runs) {
            if (m_manager->run(run.localId) || m_removed.contains(run.localId))
                continue; // newer here than its stored copy, or deleted here
            if (!run.parentId.isEmpty())
                parents << run.parentId;
            const StatusCategory category = categoryOf(run.status);
            m_adopted.add(category, 1);
            if (m_countsKnown) {
                m_notHeld.add(category, -1);
            } else if (m_counting) {
                m_adoptedSinceCount.add(category, 1);
            }
            // A live run is followed when its connection is configured here; one whose connection
            // is not (another operator's, or removed) is shown from the store.
            const bool follow = m_manager->backend(run.connection) != nullptr;
            m_manager->adoptRun(std::move(run), follow);
            ++adopted;
        }
        // A follow-up shows its conversation's earlier turns: they are held with it, however old.
        runs = readMissing(parents);
    }
    return adopted;
}

QList<Run> HistoryWindow::readMissing(const QStringList &ids) const
{
    QList<Run> missing;
    for (const QString &id : ids) {
        if (m_manager->run(id) || m_removed.contains(id))
            continue;
        if (std::optional<Run> run = m_store->loadRun(id))
            missing << std::move(*run);
    }
    return missing;
}

QString HistoryWindow::filterKey(StatusCategory category, const QString &connection)
{
    return QString::number(int(category)) + u'\n' + connection;
}

HistoryWindow::Cursor &HistoryWindow::cursorFor(StatusCategory category, const QString &connection)
{
    Cursor &cursor = m_filtered[filterKey(category, connection)];
    if (!cursor.position.started) {
        cursor.filter.connection = connection;
        if (category != StatusCategory::All) {
            for (int s = 0; s <= int(kLastRunStatus); ++s) {
                if (categoryOf(RunStatus(s)) == category)
                    cursor.filter.statuses << RunStatus(s);
            }
        }
    }
    // Everything newer than the whole history's cursor is held: a filter reads from there on.
    const auto key = [](const RunStore::PagePosition &p) { return std::pair(p.createdAt, p.localId); };
    if (!cursor.position.atEnd && m_all.started
        && (!cursor.position.started || key(m_all) < key(cursor.position))) {
        cursor.position = m_all;
    }
    return cursor;
}

} // namespace Runwatch
