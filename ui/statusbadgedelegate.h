// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStyledItemDelegate>

namespace Runwatch {

// Paints the status column of the run list as a badge (statusstyle.h) from the model's raw
// roles; every other column is painted as usual. The tooltip (the backend's raw label) comes
// from the model's ToolTipRole.
class StatusBadgeDelegate final : public QStyledItemDelegate
{
    Q_OBJECT
public:
    explicit StatusBadgeDelegate(QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace Runwatch
