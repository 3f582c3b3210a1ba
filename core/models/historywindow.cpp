// SPDX-License-Identifier: GPL-3.0-or-later
#include "historywindow.h"

#include "engine/runmanager.h"

#include <utility>

using namespace Qt::StringLiterals;

namespace Runwatch {

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
        return;
    }
    const QMap<RunStatus, int> stored = m_store->countByStatus();
    for (auto it = stored.cbegin(); it != stored.cend(); ++it)
        m_notHeld.add(categoryOf(it.key()), it.value());
    // Every live run, however old: the engine follows it, the watchers and notifications need it,
    // and the Active and Needs-me lists are then complete without reading further.
    QList<RunStatus> live;
    for (int s = 0; s <= int(kLastRunStatus); ++s) {
        if (!isTerminal(RunStatus(s)))
            live << RunStatus(s);
    }
    adopt(m_store->loadRunsWithStatus(RunStore::Load::Summary, live));
    adopt(m_store->loadRunsPage(RunStore::Load::Summary, firstPage, &m_all));
    Q_EMIT notHeldCountsChanged();
}

bool HistoryWindow::canFetchMore(StatusCategory category, const QString &connection) const
{
    if (m_all.atEnd)
        return false;
    // Live runs are all held (start()): their categories are complete.
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
        adopted = adopt(m_store->loadRunsPage(RunStore::Load::Summary, count, &m_all));
    } else {
        Cursor &cursor = cursorFor(category, connection);
        adopted
            = adopt(m_store->loadRunsPage(RunStore::Load::Summary, count, &cursor.position, cursor.filter));
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
            m_notHeld.add(categoryOf(run.status), -1);
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
