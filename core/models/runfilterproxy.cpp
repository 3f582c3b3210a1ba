// SPDX-License-Identifier: GPL-3.0-or-later
#include "runfilterproxy.h"

#include "historywindow.h"
#include "runlistmodel.h"

#include "domain/searchquery.h"
#include "models/runformat.h"
#include "store/runstore.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;

namespace Runwatch {

RunFilterProxy::RunFilterProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setDynamicSortFilter(true);
    setSortRole(RunListModel::SortValueRole);
}

void RunFilterProxy::setSourceModel(QAbstractItemModel *model)
{
    m_model = qobject_cast<RunListModel *>(model);
    m_filter.setStuckTest([this](const QString &id) { return m_model && m_model->isStuck(id); });
    QSortFilterProxyModel::setSourceModel(model);
}

void RunFilterProxy::setCategory(StatusCategory category)
{
    if (m_filter.setCategory(category))
        refilter();
}

void RunFilterProxy::setText(const QString &text)
{
    if (!m_filter.setText(text))
        return;
    // The hits belong to the text: searched again whenever it changes.
    search();
    refilter();
}

void RunFilterProxy::setStore(RunStore *store)
{
    m_store = store;
    refreshSearch();
}

void RunFilterProxy::refreshSearch()
{
    if (search())
        refilter();
}

bool RunFilterProxy::search()
{
    std::optional<QHash<QString, QString>> hits;
    QString error;
    int found = 0;
    bool more = false;
    if (!m_filter.text().isEmpty() && m_store && m_store->isOpen()) {
        const std::optional<SearchQuery> query
            = SearchQuery::parse(m_filter.text(), QDateTime::currentDateTimeUtc(), &error);
        if (query) {
            // One more than shown: whether there are more.
            const std::optional<QList<SearchHit>> result
                = m_store->search(*query, kMaxSearchHits + 1, kMaxSearchHits);
            if (result) {
                hits.emplace();
                more = result->size() > kMaxSearchHits;
                found = int(std::min<qsizetype>(result->size(), kMaxSearchHits));
                for (qsizetype i = 0; i < found; ++i)
                    hits->insert(result->at(i).localId, result->at(i).snippet);
            } else {
                error = m_store->errorString();
            }
        }
    }
    // Hits older than the runs held are read in, so that the list can show them.
    if (hits && m_model && m_model->history()) {
        m_model->history()->hold(hits->keys());
        m_model->flush();
    }
    Q_EMIT searchChanged(error, found, more);
    return m_filter.setSearchHits(std::move(hits));
}

bool RunFilterProxy::canFetchMore(const QModelIndex &parent) const
{
    const HistoryWindow *history = m_model ? m_model->history() : nullptr;
    if (parent.isValid() || !history || m_filter.hasSearchHits())
        return false;
    return history->canFetchMore(m_filter.category(), m_filter.connection());
}

void RunFilterProxy::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    m_model->history()->fetchMore(RunListModel::kHistoryPage, m_filter.category(), m_filter.connection());
    m_model->flush(); // in now: the view asked because its last row is in sight
}

QVariant RunFilterProxy::data(const QModelIndex &index, int role) const
{
    QVariant value = QSortFilterProxyModel::data(index, role);
    return role == Qt::ToolTipRole ? withSnippet(mapToSource(index), std::move(value)) : value;
}

void RunFilterProxy::multiData(const QModelIndex &index, QModelRoleDataSpan roleDataSpan) const
{
    // Mapped once for all the roles a delegate asks at a time (QSortFilterProxyModel does not
    // override QAbstractItemModel's, which calls data(), and so maps, once per role).
    const QModelIndex source = mapToSource(index);
    if (!source.isValid() || !sourceModel()) {
        for (QModelRoleData &roleData : roleDataSpan)
            roleData.clearData();
        return;
    }
    sourceModel()->multiData(source, roleDataSpan);
    for (QModelRoleData &roleData : roleDataSpan) {
        if (roleData.role() == Qt::ToolTipRole)
            roleData.setData(withSnippet(source, roleData.data()));
    }
}

QVariant RunFilterProxy::withSnippet(const QModelIndex &source, QVariant tip) const
{
    if (!m_model)
        return tip;
    // What the search found in the run, under the cell's own tooltip.
    const QString snippet = m_filter.snippet(m_model->runId(source.row()));
    if (snippet.isEmpty())
        return tip;
    // The snippet is the run's text, from a server: escaped like every tooltip of the list.
    return QVariant(tip.toString()
                    + plainToolTip(QCoreApplication::translate("RunFilterProxy", "Found: %1").arg(snippet)));
}

void RunFilterProxy::setConnection(const QString &connection)
{
    if (m_filter.setConnection(connection))
        refilter();
}

void RunFilterProxy::refilter()
{
    // beginFilterChange() is Qt 6.10+; invalidateRowsFilter() exists since 6.0.
    invalidateRowsFilter();
    Q_EMIT filterChanged();
}

QString RunFilterProxy::runId(int proxyRow) const
{
    if (!m_model || proxyRow < 0 || proxyRow >= rowCount())
        return {};
    return m_model->runId(mapToSource(index(proxyRow, 0)).row());
}

QModelIndex RunFilterProxy::indexOfRun(const QString &id, int column) const
{
    if (!m_model)
        return {};
    const int row = m_model->rowOf(id);
    if (row < 0)
        return {};
    return mapFromSource(m_model->index(row, column));
}

bool RunFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (sourceParent.isValid() || !m_model)
        return false;
    if (m_filter.isEmpty())
        return true;
    const Run *run = m_model->runAt(sourceRow);
    return run && m_filter.matches(*run);
}

bool RunFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const Run *a = m_model ? m_model->runAt(left.row()) : nullptr;
    const Run *b = m_model ? m_model->runAt(right.row()) : nullptr;
    if (!a || !b)
        return QSortFilterProxyModel::lessThan(left, right);
    const int column = left.column();
    if (column == CostColumn && m_model->manager()) {
        // By the cost under the current prices (no cost sorts below zero); ties as for any column.
        const PriceBook *prices = m_model->manager()->prices();
        const double ca = prices->costOf(*a).value_or(-1.0);
        const double cb = prices->costOf(*b).value_or(-1.0);
        if (ca != cb)
            return ca < cb;
    }
    // Only the duration column needs a clock; skip the reading for every other column.
    const QDateTime now = column == DurationColumn ? QDateTime::currentDateTimeUtc() : QDateTime();
    return runLessThan(*a, *b, column, now);
}

} // namespace Runwatch
