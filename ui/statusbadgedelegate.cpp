// SPDX-License-Identifier: GPL-3.0-or-later
#include "statusbadgedelegate.h"

#include "models/runfilter.h"
#include "models/runlistmodel.h"
#include "statusstyle.h"

#include <QApplication>
#include <QPainter>

#include <algorithm>

namespace Runwatch {

namespace {
constexpr int kBarHeight = 3;

BadgeStyle styleFor(const QModelIndex &index, const QPalette &palette)
{
    const auto status = RunStatus(index.data(RunListModel::StatusRole).toInt());
    const bool lost = index.data(RunListModel::ConnectionLostRole).toBool();
    const bool needsPerson
        = StatusCategory(index.data(RunListModel::CategoryRole).toInt()) == StatusCategory::NeedsInput;
    const bool dark = isDarkPalette(palette);
    BadgeStyle style = badgeStyle(status, lost, needsPerson, dark);
    if (!lost && !needsPerson && !isTerminal(status)) {
        if (index.data(RunListModel::StuckRole).toBool()) {
            markStuck(style, dark);
        } else if (index.data(RunListModel::OverDeadlineRole).toBool()) {
            markOverDeadline(style, dark);
        }
    }
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
    const QVariant progress = index.data(RunListModel::ProgressRole);
    if (!progress.isValid()) {
        paintBadge(painter, area, badge, option.font);
        return;
    }
    // A live run that reports progress: the badge, and a thin bar along the cell's bottom edge
    // (the tooltip and accessible text give the percentage and the ETA).
    paintBadge(painter, area.adjusted(0, 0, 0, -kBarHeight), badge, option.font);
    const QRect track(area.left(), area.bottom() - kBarHeight + 1, area.width(), kBarHeight);
    painter->save();
    painter->setPen(Qt::NoPen);
    painter->setBrush(blendOver(QColor(badge.accent.red(), badge.accent.green(), badge.accent.blue(), 60),
                                option.palette.color(QPalette::Base)));
    painter->drawRect(track);
    QRect done = track;
    done.setWidth(qRound(track.width() * std::clamp(progress.toDouble(), 0.0, 1.0)));
    painter->setBrush(badge.accent);
    painter->drawRect(done);
    painter->restore();
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
