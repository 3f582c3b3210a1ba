// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCache>
#include <QFont>
#include <QStaticText>
#include <QStyledItemDelegate>

namespace Runwatch {

// Paints the status column of the run list as a badge (statusstyle.h) from the model's raw
// roles; every other column as the style does, with its text laid out once per value and width.
// The tooltip (the backend's raw label) comes from the model's ToolTipRole.
class StatusBadgeDelegate final : public QStyledItemDelegate
{
    Q_OBJECT
public:
    explicit StatusBadgeDelegate(QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    // A plain cell: background, selection and focus from the style, then the text. Shaping each
    // cell's text again on every paint (QStyledItemDelegate) was most of a repaint of the list —
    // 8–10 ms in the heaviest frames of a window on a team's thousand streaming runs
    // (bench_team_store, BENCH_BREAKDOWN=1) — while most cells show the same text as before.
    void paintText(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const;

    // Elided and laid out, by text and width, for the font they were made with.
    mutable QCache<QString, QStaticText> m_texts{4000};
    mutable QFont m_textFont;
};

} // namespace Runwatch
