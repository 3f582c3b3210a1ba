// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runfilter.h"

#include <QSortFilterProxyModel>

namespace Runwatch {

class RunListModel;

// Sorts and filters a RunListModel with RunFilter and runLessThan(), reading the runs directly
// instead of going through QVariant roles: sorting 100k rows stays well under a second.
class RunFilterProxy final : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit RunFilterProxy(QObject *parent = nullptr);

    void setSourceModel(QAbstractItemModel *model) override;
    RunListModel *runModel() const { return m_model; }

    const RunFilter &filter() const { return m_filter; }
    void setCategory(StatusCategory category);
    void setText(const QString &text);
    void setConnection(const QString &connection);

    // Local run id of a proxy row; empty when out of range.
    QString runId(int proxyRow) const;
    QModelIndex indexOfRun(const QString &id, int column = 0) const;

Q_SIGNALS:
    void filterChanged();

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    void refilter();

    RunListModel *m_model = nullptr;
    RunFilter m_filter;
};

} // namespace Runwatch
