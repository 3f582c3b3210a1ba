// SPDX-License-Identifier: GPL-3.0-or-later
#include "statusbadgedelegate.h"

#include "models/runfilter.h"
#include "models/runlistmodel.h"
#include "statusstyle.h"

#include <QApplication>
#include <QPainter>

namespace Runwatch {

namespace {
BadgeStyle styleFor(const QModelIndex &index, const QPalette &palette)
{
    const auto status = RunStatus(index.data(RunListModel::StatusRole).toInt());
    const bool lost = index.data(RunListModel::ConnectionLostRole).toBool();
    const bool needsPerson
        = StatusCategory(index.data(RunListModel::CategoryRole).toInt()) == StatusCategory::NeedsInput;
    BadgeStyle style = badgeStyle(status, lost, needsPerson, isDarkPalette(palette));
    // The model's text (badgeText) says more than the status: "Reconnecting", "Waiting" for a
    // run suspended on a timer or a callback; its tooltip has the rest.
    style.text = index.data(Qt::DisplayRole).toString();
    return style;
}
} // namespace

StatusBadgeDelegate::StatusBadgeDelegate(QObject *parent)
    : QStyledItemDelegate(parent)
{}

void StatusBadgeDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                                const QModelIndex &index) const
{
    if (index.column() != StatusColumn) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    // Background and selection from the style; the badge replaces the text.
    opt.text.clear();
    opt.icon = {};
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
    const QRect area = option.rect.adjusted(6, 2, -4, -2);
    BadgeStyle badge = styleFor(index, option.palette);
    if (option.state & QStyle::State_Selected) {
        // On the selection colour a tinted pill would vanish: give it the base colour first.
        badge.fill = blendOver(badge.fill, option.palette.color(QPalette::Base));
    }
    paintBadge(painter, area, badge, option.font);
}

QSize StatusBadgeDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QSize base = QStyledItemDelegate::sizeHint(option, index);
    if (index.column() != StatusColumn)
        return base;
    // The badge is wider than the plain label and needs a little vertical room for its pill.
    const QSize badge = badgeSize(styleFor(index, option.palette), option.font);
    return {badge.width() + 10, qMax(base.height(), badge.height() + 4)};
}

} // namespace Runwatch
