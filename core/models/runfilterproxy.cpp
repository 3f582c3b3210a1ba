// SPDX-License-Identifier: GPL-3.0-or-later
#include "runfilterproxy.h"

#include "runlistmodel.h"

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
    if (m_filter.setText(text))
        refilter();
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
