// SPDX-License-Identifier: GPL-3.0-or-later
#include "quietscrollbar.h"

#include <QImage>
#include <QPaintEvent>
#include <QPainter>
#include <QStyle>
#include <QStyleOptionSlider>

#include <algorithm>
#include <array>
#include <cstring>

namespace Runwatch {

namespace {
// The outline a style draws just outside the slider's rectangle (Fusion: one pixel), with room.
constexpr int kOutline = 4;
} // namespace

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
    // outline a style draws just outside the slider's rectangle.
    const QRect was = m_painted.slider;
    const QRect is = now.slider;
    const bool sameAcross = was.left() == is.left() && was.width() == is.width();
    const bool overlap = was.top() <= is.bottom() && is.top() <= was.bottom();
    if (!sameAcross || !overlap || !endsSuffice()) {
        update(was.united(is).adjusted(-kOutline, -kOutline, kOutline, kOutline));
        return;
    }
    // Rows drawn alike along the bar: what changed is the rows between the old and the new top,
    // and between the old and the new bottom (a slider that grew at the bottom: a few rows).
    QRegion dirty;
    const auto rows = [&dirty, this](int a, int b) {
        const int from = qMin(a, b) - kOutline;
        const int to = qMax(a, b) + kOutline;
        dirty += QRect(0, from, width(), to - from + 1);
    };
    rows(was.top(), is.top());
    rows(was.bottom(), is.bottom());
    update(dirty);
}

bool QuietScrollBar::endsSuffice()
{
    if (orientation() != Qt::Vertical || width() <= 0 || height() <= 0)
        return false;
    const qint64 paletteKey = palette().cacheKey();
    if (!m_probe || m_probe->style != style() || m_probe->palette != paletteKey || m_probe->size != size())
        m_probe = Probe{style(), paletteKey, size(), drawsAlikeAlongTheBar()};
    return m_probe->alike;
}

bool QuietScrollBar::drawsAlikeAlongTheBar() const
{
    // Two sliders of other lengths at other places, neither at an end of the range (the arrows
    // look the same): every row that is slider in both, or groove in both, away from all four
    // ends, must come out the same.
    QStyleOptionSlider first;
    initStyleOption(&first);
    first.state &= ~(QStyle::State_Sunken | QStyle::State_MouseOver);
    first.activeSubControls = QStyle::SC_None;
    first.minimum = 0;
    first.maximum = 100;
    first.pageStep = 100;
    first.sliderPosition = first.sliderValue = 30;
    QStyleOptionSlider second = first;
    second.maximum = 300;
    second.pageStep = 60;
    second.sliderPosition = second.sliderValue = 120;
    const auto draw = [this](const QStyleOptionSlider &option, QRect &slider) {
        QImage image(size(), QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        style()->drawComplexControl(QStyle::CC_ScrollBar, &option, &painter, this);
        slider = style()->subControlRect(QStyle::CC_ScrollBar, &option, QStyle::SC_ScrollBarSlider, this);
        return image;
    };
    QRect a;
    QRect b;
    const QImage drawnA = draw(first, a);
    const QImage drawnB = draw(second, b);
    if (a.isEmpty() || b.isEmpty() || a == b)
        return false;
    const std::array ends{a.top(), a.bottom(), b.top(), b.bottom()};
    const auto inside = [](const QRect &r, int y) { return y >= r.top() && y <= r.bottom(); };
    const auto rowBytes = std::size_t(drawnA.bytesPerLine());
    int compared = 0;
    for (int y = 0; y < height(); ++y) {
        const bool nearEnd
            = std::any_of(ends.cbegin(), ends.cend(), [y](int end) { return qAbs(y - end) <= kOutline; });
        if (nearEnd || inside(a, y) != inside(b, y))
            continue;
        if (std::memcmp(drawnA.constScanLine(y), drawnB.constScanLine(y), rowBytes) != 0)
            return false;
        ++compared;
    }
    return compared > 0;
}

void QuietScrollBar::paintEvent(QPaintEvent *event)
{
    m_lastRegion = event->region();
    m_painted = look();
    m_everPainted = true;
    ++m_paints;
    QScrollBar::paintEvent(event);
}

} // namespace Runwatch
