// SPDX-License-Identifier: GPL-3.0-or-later
#include "quietscrollbar.h"

#include <QStyle>
#include <QStyleOptionSlider>

namespace Runwatch {

QuietScrollBar::QuietScrollBar(Qt::Orientation orientation, QWidget *parent)
    : QScrollBar(orientation, parent)
    , m_nextFrame(this)
{
    m_nextFrame.setSingleShot(true);
    m_nextFrame.setInterval(16);
    m_nextFrame.setObjectName(QStringLiteral("scrollBarLook"));
    connect(&m_nextFrame, &QTimer::timeout, this, &QuietScrollBar::repaintWhatMoved);
}

QuietScrollBar::Look QuietScrollBar::look() const
{
    QStyleOptionSlider option;
    initStyleOption(&option);
    return {style()->subControlRect(QStyle::CC_ScrollBar, &option, QStyle::SC_ScrollBarSlider, this),
            value() <= minimum(), value() >= maximum()};
}

void QuietScrollBar::sliderChange(SliderChange change)
{
    // A new orientation, and anything before the first paint, take the usual path; so does a
    // change while the slider is held (the style draws the pressed slider itself).
    if (change == SliderOrientationChange || !m_everPainted || isSliderDown()) {
        QScrollBar::sliderChange(change);
        return;
    }
    // A range, a value or a page step shows only through the slider's place. Looked at once the
    // caller is done: QPlainTextEdit sets all three again for every line it lays out, and the
    // range first, which shows the slider off the bottom until the value follows. A new range or
    // page step (the text grew, the view was resized) waits for the next frame, and so does a
    // value set meanwhile; a value alone (the operator scrolled) is shown with the text.
    if (change == SliderRangeChange || change == SliderStepsChange) {
        if (!m_nextFrame.isActive())
            m_nextFrame.start();
        return;
    }
    if (!m_lookQueued && !m_nextFrame.isActive()) {
        m_lookQueued = true;
        QMetaObject::invokeMethod(this, &QuietScrollBar::repaintWhatMoved, Qt::QueuedConnection);
    }
}

void QuietScrollBar::repaintWhatMoved()
{
    m_lookQueued = false;
    if (m_nextFrame.isActive())
        return; // a new range came meanwhile: looked at with it
    const Look now = look();
    if (now == m_painted)
        return;
    if (now.atMinimum != m_painted.atMinimum || now.atMaximum != m_painted.atMaximum) {
        update(); // the arrows' look too: all of it
        return;
    }
    // Only the slider moved or changed its length: what differs from the screen lies where it
    // was painted or where it is now (the groove around them is drawn the same), with the
    // outline a style draws just outside the slider's rectangle (Fusion: one pixel). A region
    // that small is also one Qt's raster engine fills on this thread.
    constexpr int kOutline = 4;
    update(m_painted.slider.united(now.slider).adjusted(-kOutline, -kOutline, kOutline, kOutline));
}

void QuietScrollBar::paintEvent(QPaintEvent *event)
{
    m_painted = look();
    m_everPainted = true;
    ++m_paints;
    QScrollBar::paintEvent(event);
}

} // namespace Runwatch
