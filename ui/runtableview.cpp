// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtableview.h"
#include "models/runformat.h"

#include "icons.h"
#include "models/runfilterproxy.h"
#include "models/runlistmodel.h"
#include "statusbadgedelegate.h"

#include <QHeaderView>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QToolTip>

using namespace Qt::StringLiterals;

namespace Runwatch {

RunTableView::RunTableView(QWidget *parent)
    : QTableView(parent)
{
    setObjectName(u"runTable"_s);
    setAccessibleName(tr("Runs"));
    setAccessibleDescription(
        tr("The list of runs. Type to search it; Esc clears the search. The status column shows a badge "
           "with an icon and a text for each run."));
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setSortingEnabled(true);
    setShowGrid(false);
    setAlternatingRowColors(true);
    setWordWrap(false);
    setTextElideMode(Qt::ElideRight);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Tab leaves the list for the next panel (the arrows move within it); with Qt's default it
    // walked cell by cell and the keyboard never got out of a long list.
    setTabKeyNavigation(false);
    setContextMenuPolicy(Qt::ActionsContextMenu);
    setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    setItemDelegate(new StatusBadgeDelegate(this));
    verticalHeader()->hide();
    // Fixed row heights: the view never measures 100k rows.
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 14);
    horizontalHeader()->setHighlightSections(false);
    horizontalHeader()->setSectionsMovable(true);
    horizontalHeader()->setStretchLastSection(false);
    horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    horizontalHeader()->setContextMenuPolicy(Qt::ActionsContextMenu);
}

void RunTableView::setEmptyText(const QString &title, const QString &hint)
{
    m_emptyTitle = title;
    m_emptyHint = hint;
    viewport()->update();
}

void RunTableView::keyboardSearch(const QString &search)
{
    // QAbstractItemView calls this for printable text typed without Ctrl/Alt; jumping to the first
    // title with that letter is of little use in a list of similar runs, filtering is.
    if (!search.isEmpty() && search.at(0).isPrint())
        Q_EMIT typedToFilter(search);
}

void RunTableView::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape && event->modifiers() == Qt::NoModifier) {
        Q_EMIT clearFilterRequested();
        event->accept();
        return;
    }
    QTableView::keyPressEvent(event);
}

QStringList RunTableView::selectedRunIds() const
{
    QStringList ids;
    if (!selectionModel())
        return ids;
    QModelIndexList rows = selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    for (const QModelIndex &index : std::as_const(rows))
        ids.append(index.data(RunListModel::IdRole).toString());
    return ids;
}

bool RunTableView::selectRun(const QString &id)
{
    auto *proxy = qobject_cast<RunFilterProxy *>(model());
    if (!proxy)
        return false;
    if (proxy->runModel())
        proxy->runModel()->flush();
    const QModelIndex index = proxy->indexOfRun(id);
    if (!index.isValid())
        return false;
    selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    scrollTo(index);
    return true;
}

void RunTableView::paintEvent(QPaintEvent *event)
{
    QTableView::paintEvent(event);
    if (!model() || model()->rowCount() > 0 || m_emptyTitle.isEmpty())
        return;
    QPainter p(viewport());
    const QRect area = viewport()->rect().adjusted(24, 24, -24, -24);
    const QColor muted = palette().color(QPalette::PlaceholderText);
    const QPixmap icon = Icons::pixmap(u"empty-runs"_s, 40, muted, devicePixelRatioF());
    const int top = area.top() + area.height() / 4;
    p.drawPixmap(area.center().x() - 20, top, icon);
    QFont title = font();
    title.setPointSizeF(title.pointSizeF() * 1.15);
    title.setBold(true);
    p.setFont(title);
    p.setPen(palette().color(QPalette::Text));
    const QRect titleRect(area.left(), top + 52, area.width(), QFontMetrics(title).height() + 4);
    p.drawText(titleRect, Qt::AlignHCenter | Qt::AlignTop, m_emptyTitle);
    p.setFont(font());
    p.setPen(muted);
    p.drawText(QRect(area.left(), titleRect.bottom() + 6, area.width(), area.height()),
               Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, m_emptyHint);
}

bool RunTableView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const QModelIndex index = indexAt(help->pos());
        const QString tip = index.isValid() ? index.data(Qt::ToolTipRole).toString() : QString();
        if (tip.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), plainToolTip(tip), viewport(), visualRect(index));
        }
        return true;
    }
    return QTableView::viewportEvent(event);
}

} // namespace Runwatch
