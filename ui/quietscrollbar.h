// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QRect>
#include <QRegion>
#include <QScrollBar>
#include <QTimer>

#include <optional>

class QStyle;
class QStyleOptionSlider;

namespace Runwatch {

// A scroll bar that repaints on a range, value or step change only what changed: nothing when it
// looks the same (the slider's rectangle, and whether it stands at either end, where styles draw
// the arrow disabled), the slider's old and new place when only the slider moved, all of it
// otherwise. QScrollBar repaints all of itself on every change, and a view that streams text
// grows its range with every line: its whole scroll bar was drawn again several times a second
// (0.3-0.5 ms each, in the heaviest frames of `bench_gui_live`: Fusion fills the groove with a
// gradient, which Qt's raster engine splits over its thread pool for anything taller than ~100
// pixels), and once the slider had shrunk to its minimum length at the bottom, for no change.
// A new range (the text grew) is looked at one frame later: the view that grew paints its text in
// this frame, and the two repaints together made its heaviest frames. Where the style draws the
// bar alike along its length (Fusion, and most: gradients run across a bar, not along it), a
// slider that moved or changed its length repaints only the rows around its old and new ends:
// a taller region made Qt's raster engine hand the fill to its thread pool, whose start and wait
// were half of the bar's cost on the GUI thread. Whether the style does is found out by drawing
// it twice, once per look (style, palette, size).
class QuietScrollBar final : public QScrollBar
{
    Q_OBJECT
public:
    explicit QuietScrollBar(Qt::Orientation orientation, QWidget *parent = nullptr);

    // Repaints done since construction (tests).
    int paintCount() const { return m_paints; }
    // A change not looked at yet (tests).
    bool lookPending() const { return m_lookQueued || m_nextFrame.isActive(); }
    // What the last repaint covered (tests).
    QRegion lastPaintRegion() const { return m_lastRegion; }
    // Whether a moved slider repaints only the rows around its ends (tests).
    bool repaintsEndsOnly() { return endsSuffice(); }

protected:
    void sliderChange(SliderChange change) override;
    void paintEvent(QPaintEvent *event) override;

private:
    struct Look
    {
        QRect slider;
        bool atMinimum = false;
        bool atMaximum = false;
        bool operator==(const Look &) const = default;
    };
    Look look() const;
    // Once the changes of one call are done: repaints what differs from the last paint.
    void repaintWhatMoved();
    // Whether the style draws every row away from the slider's ends the same wherever the
    // slider is (asked once per look, then remembered).
    bool endsSuffice();
    bool drawsAlikeAlongTheBar() const;

    struct Probe
    {
        const QStyle *style = nullptr;
        qint64 palette = 0;
        QSize size;
        bool alike = false;
    };

    QTimer m_nextFrame; // a new range is looked at when it fires
    Look m_painted;
    bool m_everPainted = false;
    bool m_lookQueued = false;
    int m_paints = 0;
    QRegion m_lastRegion;
    std::optional<Probe> m_probe;
};

} // namespace Runwatch
