// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QTableView>

namespace Runwatch {

// The run table: row selection, sortable columns, badge delegate on the status column, and an
// empty-state message when nothing is listed (no runs at all, or none matching the filter).
class RunTableView final : public QTableView
{
    Q_OBJECT
public:
    explicit RunTableView(QWidget *parent = nullptr);

    // What to say when the table is empty; the window switches between the two.
    void setEmptyText(const QString &title, const QString &hint);
    QString emptyTitle() const { return m_emptyTitle; }

    // Selected source rows' run ids (through the proxy), in visual order.
    QStringList selectedRunIds() const;
    // Selects (and scrolls to) one run; false when it is not listed (filtered out or unknown).
    bool selectRun(const QString &id);

    // Type-to-filter: printable keys typed in the list go to the search field instead of
    // jumping to a row (keyboardSearch), and Esc asks to clear the filter text.
    void keyboardSearch(const QString &search) override;

Q_SIGNALS:
    void typedToFilter(const QString &text);
    void clearFilterRequested();

protected:
    void paintEvent(QPaintEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    // The model's tooltips are plain text (titles and statuses a server may have chosen).
    bool viewportEvent(QEvent *event) override;

private:
    QString m_emptyTitle;
    QString m_emptyHint;
};

} // namespace Runwatch
