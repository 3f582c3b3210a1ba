// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCache>
#include <QFont>
#include <QHash>
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
    // Panels drawn as the style's primitive alone so far (drawPanel; for tests).
    int primitivePanels() const { return m_primitivePanels; }

private:
    // A plain cell: background, selection and focus from the style, then the text. Shaping each
    // cell's text again on every paint (QStyledItemDelegate) was most of a repaint of the list —
    // 8–10 ms in the heaviest frames of a window on a team's thousand streaming runs
    // (bench_team_store, BENCH_BREAKDOWN=1) — while most cells show the same text as before.
    void paintText(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const;

    // The cell's panel (background, selection, focus) as the style's CE_ItemViewItem draws it for a
    // cell without text, icon or check box. QCommonStyle lays the item's text, icon and check box
    // out three times for that before drawing PE_PanelItemViewItem — a third of a plain cell's
    // paint, which a list repaints by the column (durations) and by the screenful (a team's runs).
    // Where the style's panel is that primitive alone (drawn both ways once per look: style,
    // palette, state, size), the primitive is drawn.
    void drawPanel(QPainter *painter, const QStyleOptionViewItem &opt) const;
    bool panelIsPrimitive(const QStyle *style, const QStyleOptionViewItem &opt) const;

    // Elided and laid out, by text and width, for the font they were made with. Looked up by
    // value: a key string made per cell (the width's digits, the text) was an allocation or three
    // per cell of every repaint.
    struct TextKey
    {
        int width = 0;
        int elide = 0;
        QString text;
        bool operator==(const TextKey &) const = default;
        friend size_t qHash(const TextKey &k, size_t seed = 0)
        {
            return qHashMulti(seed, k.width, k.elide, k.text);
        }
    };
    mutable QCache<TextKey, QStaticText> m_texts{4000};
    // What a panel's pixels depend on.
    struct PanelLook
    {
        const QStyle *style = nullptr;
        qint64 palette = 0; // QPalette::cacheKey()
        int state = 0;
        int features = 0;
        QSize size;
        int brushStyle = 0;
        QRgb brushColor = 0;
        int position = 0;
        int direction = 0;
        bool operator==(const PanelLook &) const = default;
        friend size_t qHash(const PanelLook &l, size_t seed = 0)
        {
            return qHashMulti(seed, quintptr(l.style), l.palette, l.state, l.features, l.size.width(),
                              l.size.height(), l.brushStyle, l.brushColor, l.position, l.direction);
        }
    };
    // panelIsPrimitive() by look.
    mutable QHash<PanelLook, bool> m_panelLooks;
    mutable int m_primitivePanels = 0;
    mutable QFont m_textFont;
};

} // namespace Runwatch
