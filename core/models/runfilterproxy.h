// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runfilter.h"

#include <QPointer>
#include <QSortFilterProxyModel>

namespace Runwatch {

class RunListModel;
class RunStore;

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
    // Where the text is also searched in full (RunStore::search); without a store, the text finds
    // runs by title, id and connection only.
    void setStore(RunStore *store);
    // Asks the store again for the current text (runs written since the last search).
    void refreshSearch();
    // At most this many runs of a full-text search are shown (the newest), beside every run the
    // text finds by title, id or connection.
    static constexpr int kMaxSearchHits = 500;

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    void multiData(const QModelIndex &index, QModelRoleDataSpan roleDataSpan) const override;
    // The next page of older runs the filter shows (RunListModel::setHistory): a filtered list of
    // a big history reads the runs of its category and connection, not every run before them. A
    // full-text search shows the hits it asked the store for and reads no pages.
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

    // Local run id of a proxy row; empty when out of range.
    QString runId(int proxyRow) const;
    QModelIndex indexOfRun(const QString &id, int column = 0) const;

Q_SIGNALS:
    void filterChanged();
    // What the full-text search made of the current text: the reason it could not search (a
    // query that does not parse, a store error), or how many runs it found (`more`: more than it
    // shows). Empty error and 0 with no text.
    void searchChanged(const QString &error, int found, bool more);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    void refilter();
    // A tooltip of the source's cell at `source`, with what the search found in its run.
    QVariant withSnippet(const QModelIndex &source, QVariant tip) const;
    // Runs the text through the store's search; whether the hits changed.
    bool search();

    RunListModel *m_model = nullptr;
    RunFilter m_filter;
    QPointer<RunStore> m_store;
};

} // namespace Runwatch
