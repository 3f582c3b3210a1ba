// SPDX-License-Identifier: GPL-3.0-or-later
#include "statusbadgedelegate.h"

#include "models/runfilter.h"
#include "models/runlistmodel.h"
#include "statusstyle.h"

#include <QApplication>
#include <QImage>
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
        paintText(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    // Background and selection from the style; the badge replaces the text.
    opt.text.clear();
    opt.icon = {};
    drawPanel(painter, opt);
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

void StatusBadgeDelegate::paintText(QPainter *painter, const QStyleOptionViewItem &option,
                                    const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    // A cell with a check box or an icon is laid out by the style (the run list has none).
    if (opt.features & (QStyleOptionViewItem::HasCheckIndicator | QStyleOptionViewItem::HasDecoration)) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    const QString text = opt.text;
    opt.text.clear();
    drawPanel(painter, opt);
    if (text.isEmpty())
        return;
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    // The cell less the style's text margin on each side, where QCommonStyle draws the text of a
    // cell without check box or icon (asking it for that rectangle measures the text again).
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
    const QRect area = opt.rect.adjusted(margin, 0, -margin, 0);
    if (area.width() <= 0)
        return;
    if (opt.font != m_textFont) {
        m_texts.clear();
        m_textFont = opt.font;
    }
    // One line: the view does not wrap (RunTableView), and a title's line breaks are not shown.
    const TextKey key{area.width(), int(opt.textElideMode), text};
    // A copy (shared data): the cache may drop its own at the next insert.
    QStaticText laidOut;
    if (const QStaticText *cached = m_texts.object(key)) {
        laidOut = *cached;
    } else {
        QString line = text;
        line.replace(u'\n', u' ');
        laidOut.setText(QFontMetrics(opt.font).elidedText(line, opt.textElideMode, area.width()));
        laidOut.setTextFormat(Qt::PlainText);
        laidOut.setPerformanceHint(QStaticText::AggressiveCaching);
        laidOut.prepare(QTransform(), opt.font);
        m_texts.insert(key, new QStaticText(laidOut));
    }
    const QSizeF size = laidOut.size();
    const Qt::Alignment align = QStyle::visualAlignment(opt.direction, opt.displayAlignment);
    qreal x = area.left();
    if (align & Qt::AlignRight) {
        x = area.right() + 1 - size.width();
    } else if (align & Qt::AlignHCenter) {
        x = area.left() + (area.width() - size.width()) / 2;
    }
    const qreal y = area.top() + (area.height() - size.height()) / 2;
    const QPalette::ColorGroup group = !(opt.state & QStyle::State_Enabled) ? QPalette::Disabled
                                       : (opt.state & QStyle::State_Active) ? QPalette::Normal
                                                                            : QPalette::Inactive;
    painter->save();
    painter->setFont(opt.font);
    painter->setPen(opt.palette.color(group, (opt.state & QStyle::State_Selected) ? QPalette::HighlightedText
                                                                                  : QPalette::Text));
    painter->drawStaticText(QPointF(x, y), laidOut);
    painter->restore();
}

void StatusBadgeDelegate::drawPanel(QPainter *painter, const QStyleOptionViewItem &opt) const
{
    const QWidget *widget = opt.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    if (panelIsPrimitive(style, opt)) {
        ++m_primitivePanels;
        style->drawPrimitive(QStyle::PE_PanelItemViewItem, &opt, painter, widget);
    } else {
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
    }
}

bool StatusBadgeDelegate::panelIsPrimitive(const QStyle *style, const QStyleOptionViewItem &opt) const
{
    // The focus frame is drawn by the control only (one cell of a table has it).
    if (opt.state & QStyle::State_HasFocus)
        return false;
    // A brush other than none or a plain colour (a gradient, a texture) is not told apart here.
    if (opt.backgroundBrush.style() > Qt::SolidPattern)
        return false;
    const PanelLook look{style,
                         opt.palette.cacheKey(),
                         int(opt.state),
                         int(opt.features),
                         opt.rect.size(),
                         int(opt.backgroundBrush.style()),
                         opt.backgroundBrush.color().rgba(),
                         int(opt.viewItemPosition),
                         int(opt.direction)};
    if (const auto known = m_panelLooks.constFind(look); known != m_panelLooks.cend())
        return *known;
    // Both ways on the same background, at the cell's size; the same pixels or not.
    QStyleOptionViewItem probe = opt;
    probe.rect = QRect(QPoint(0, 0), opt.rect.size());
    const auto draw = [&](bool primitive) {
        QImage image(probe.rect.size(), QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter p(&image);
        if (primitive) {
            style->drawPrimitive(QStyle::PE_PanelItemViewItem, &probe, &p, opt.widget);
        } else {
            style->drawControl(QStyle::CE_ItemViewItem, &probe, &p, opt.widget);
        }
        return image;
    };
    const bool same = !probe.rect.isEmpty() && draw(true) == draw(false);
    // A table's cells come in a handful of looks (selected or not, alternate rows, sizes); a
    // palette or style change adds more: start again rather than grow without end.
    if (m_panelLooks.size() >= 256)
        m_panelLooks.clear();
    m_panelLooks.insert(look, same);
    return same;
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
