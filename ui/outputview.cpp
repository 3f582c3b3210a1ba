// SPDX-License-Identifier: GPL-3.0-or-later
#include "outputview.h"

#include "outputaccessible.h"
#include "quietscrollbar.h"

#include "domain/heavyframes.h"

#include <QPaintEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollBar>
#include <QTextLayout>
#include <QtMath>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Bounds of one frame's batch. Within them the batch is sized from the measured cost per
// character, so a frame ends close to its budget instead of overshooting it.
constexpr qsizetype kMinPiece = 1024;
constexpr qsizetype kMaxPiece = 256 * 1024;
constexpr int kPaintEveryNthCatchUpFrame = 4;
// A walk of the top line that lays out the pieces it crosses (the operator scrolling by lines or
// pages); a longer one (a drag of the scroll bar) counts the pieces not laid out as one line.
constexpr qint64 kLaidOutWalk = 256;
// The narrowest text (pixels) whose growing paragraph is cut where its last line starts.
constexpr int kMinCutWidth = 160;
} // namespace

OutputView::OutputView(QWidget *parent)
    : QAbstractScrollArea(parent)
{
    OutputAccessible::install();
    setVerticalScrollBar(new QuietScrollBar(Qt::Vertical, this));
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // lines wrap at the view's width
    setFocusPolicy(Qt::StrongFocus);                      // selected and scrolled by keyboard too
    setAttribute(Qt::WA_InputMethodEnabled, false);
    viewport()->setCursor(Qt::IBeamCursor);
    verticalScrollBar()->setSingleStep(1); // the scroll bar counts lines
    m_frameTimer.setObjectName(u"outputFrame"_s);
    m_frameTimer.setSingleShot(true);
    m_frameTimer.setInterval(16);
    m_frameTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_frameTimer, &QTimer::timeout, this, &OutputView::flushFrame);
    relayout(true);
}

OutputView::~OutputView() = default;

bool OutputView::isAtBottom() const
{
    const QScrollBar *bar = verticalScrollBar();
    return bar->value() >= bar->maximum();
}

void OutputView::setMaxPieces(int pieces)
{
    m_text.setMaxPieces(pieces);
    const qsizetype dropped = m_text.trim();
    if (dropped == 0)
        return;
    piecesDropped(dropped);
    viewport()->update();
    syncScrollBar();
}

void OutputView::piecesDropped(qsizetype dropped)
{
    m_top.index -= dropped;
    if (m_top.index < 0) {
        m_top = {}; // the top line went with them: the text's first line is the top
        viewport()->update();
    }
    const qint64 start = m_text.startPosition();
    m_selAnchor = qMax(m_selAnchor, start);
    m_selCursor = qMax(m_selCursor, start);
}

void OutputView::setPlaceholderText(const QString &text)
{
    if (text == m_placeholder)
        return;
    m_placeholder = text;
    if (m_text.isEmpty())
        viewport()->update();
}

void OutputView::appendText(QStringView text)
{
    if (text.isEmpty())
        return;
    m_pending.append(text);
    if (!m_frameTimer.isActive())
        m_frameTimer.start();
}

void OutputView::setText(const QString &text)
{
    clearOutput();
    appendText(text);
    // A freshly selected run shows its end: start at the bottom.
    flushFrame();
    m_followDue = false;
    scrollTo(bottomAnchor());
    syncScrollBar();
}

void OutputView::clearOutput()
{
    m_frameTimer.stop();
    m_pending.clear();
    m_pendingPos = 0;
    m_text.clear();
    m_top = {};
    m_followDue = false;
    m_selAnchor = m_selCursor = 0;
    m_written = 0;
    m_catchUpFrames = 0;
    viewport()->setUpdatesEnabled(true);
    viewport()->update();
    syncScrollBar();
}

void OutputView::write(QStringView piece)
{
    const qint64 endBefore = m_text.endPosition();
    const qsizetype first = m_text.append(piece);
    // Cuts are for a view on screen at a width that holds a few words: a hidden view (its width a
    // default) or a sliver would cut every line or word into a piece, and the oldest pieces go
    // by count.
    if (isVisible() && m_text.width() >= kMinCutWidth)
        m_text.cutLast();
    const qsizetype dropped = m_text.trim();
    m_written += piece.size();
    if (dropped > 0)
        piecesDropped(dropped);
    if (QAccessible::isActive()) {
        const qint64 from = qMax(endBefore, m_text.startPosition());
        OutputAccessible::announceAppend(this, m_text.offsetOf(from),
                                         m_text.text(from, m_text.endPosition()));
    }
    // What changed: the piece the text went on from and those after it.
    const qsizetype changed = first - dropped;
    if (changed < m_top.index) {
        viewport()->update();
    } else if (const std::optional<int> y = pieceTop(changed)) {
        const int top = qMax(0, *y);
        viewport()->update(0, top, viewport()->width(), viewport()->height() - top);
    }
}

void OutputView::flushFrame()
{
    if (pendingSize() <= 0) {
        if (m_followDue)
            follow();
        return;
    }
    const bool stick = isAtBottom() || m_followDue;
    // How much fits in this frame's budget at the cost per character measured so far.
    const double nsPerChar = qMax(m_nsPerChar, 1.0);
    qsizetype quota = qsizetype(double(std::chrono::nanoseconds(m_budget).count()) / nsPerChar);
    if (pendingSize() > quota)
        quota = qsizetype(double(std::chrono::nanoseconds(m_catchUpBudget).count()) / nsPerChar);
    const qsizetype n = qMin(qBound(kMinPiece, quota, kMaxPiece), pendingSize());
    m_clock.start();
    write(QStringView(m_pending).mid(m_pendingPos, n));
    const qint64 spent = m_clock.nsecsElapsed();
    if (n >= kMinPiece)
        m_nsPerChar = 0.5 * m_nsPerChar + 0.5 * double(spent) / double(n);
    m_pendingPos += n;
    if (pendingSize() == 0) {
        m_pending.clear();
        m_pendingPos = 0;
    } else if (m_pendingPos > kMaxPiece) {
        m_pending.remove(0, m_pendingPos);
        m_pendingPos = 0;
    }
    if (stick) {
        follow();
    } else {
        syncScrollBar();
    }
    // While a backlog drains (catch-up), repaint only every few frames: a repaint costs about
    // as much as the frame's writing, and the text would scroll past faster than anyone reads.
    const bool backlog = pendingSize() > 0;
    m_catchUpFrames = backlog ? m_catchUpFrames + 1 : 0;
    viewport()->setUpdatesEnabled(!backlog || m_catchUpFrames % kPaintEveryNthCatchUpFrame == 0);
    if (backlog)
        m_frameTimer.start();
    Q_EMIT flushed();
}

void OutputView::flushAll()
{
    m_frameTimer.stop();
    const bool stick = isAtBottom() || m_followDue;
    write(QStringView(m_pending).mid(m_pendingPos));
    m_pending.clear();
    m_pendingPos = 0;
    m_catchUpFrames = 0;
    viewport()->setUpdatesEnabled(true);
    if (stick) {
        m_followDue = false;
        scrollTo(bottomAnchor());
    }
    syncScrollBar();
    Q_EMIT flushed();
}

void OutputView::follow()
{
    const Anchor bottom = bottomAnchor();
    if (bottom == m_top) {
        m_followDue = false;
        syncScrollBar(bottom);
        return;
    }
    // The scroll (a blit of the view, the new line painted) is the view's heavy chore: not in a
    // frame where another took place. Meanwhile the new line waits below the last.
    if (!HeavyFrames::claim()) {
        m_followDue = true;
        if (!m_frameTimer.isActive())
            m_frameTimer.start();
        syncScrollBar(bottom);
        return;
    }
    m_followDue = false;
    scrollTo(bottom); // (the text's end, and so the bottom, are where they were)
    syncScrollBar(bottom);
}

OutputView::Anchor OutputView::bottomAnchor()
{
    const int height = viewport()->height();
    int used = m_margin; // below the last line
    for (qsizetype i = m_text.size() - 1; i >= 0; --i) {
        m_text.height(i); // laid out: it is on screen
        for (int line = m_text.lineCount(i) - 1; line >= 0; --line) {
            // The first line has the top margin above it.
            const int lineHeight = m_text.lineHeight(i, line) + marginAbove(i, line);
            if (used + lineHeight > height) {
                const int hidden = used + lineHeight - height;
                if (hidden < lineHeight)
                    return {i, line, hidden};
                // The line below fills the view to its top.
                return line + 1 < m_text.lineCount(i) ? Anchor{i, line + 1, 0} : Anchor{i + 1, 0, 0};
            }
            used += lineHeight;
        }
    }
    return {};
}

OutputView::Anchor OutputView::walk(qint64 lines)
{
    if (m_text.size() == 0)
        return {};
    const bool layOut = qAbs(lines) <= kLaidOutWalk;
    qsizetype i = m_top.index;
    qint64 remaining = m_top.line + lines;
    while (remaining < 0 && i > 0) {
        --i;
        if (layOut)
            m_text.height(i);
        remaining += m_text.lineCount(i);
    }
    for (;;) {
        if (layOut)
            m_text.height(i);
        if (remaining < m_text.lineCount(i) || i == m_text.size() - 1)
            break;
        remaining -= m_text.lineCount(i);
        ++i;
    }
    m_text.height(i);
    return {i, int(qBound(qint64(0), remaining, qint64(m_text.lineCount(i) - 1))), 0};
}

std::optional<int> OutputView::distance(Anchor from, Anchor to, int limit)
{
    const bool forward = to.index > from.index || (to.index == from.index && to.line >= from.line);
    const Anchor &a = forward ? from : to;
    const Anchor &b = forward ? to : from;
    // Pixels from a's line to b's, through the pieces between.
    qint64 lines = 0;
    if (a.index == b.index) {
        lines = m_text.lineTop(b.index, b.line) - m_text.lineTop(a.index, a.line);
    } else {
        lines = m_text.height(a.index) - m_text.lineTop(a.index, a.line);
        for (qsizetype i = a.index + 1; i < b.index; ++i) {
            lines += m_text.height(i);
            if (lines > 2 * qint64(limit))
                return std::nullopt;
        }
        lines += m_text.lineTop(b.index, b.line);
    }
    // The view's top in the text's pixels: the anchor's line, its offset, and the top margin
    // above the first line.
    const auto viewTop
        = [this](const Anchor &x, qint64 y) { return y + x.offset - marginAbove(x.index, x.line); };
    const qint64 delta = forward ? viewTop(b, lines) - viewTop(a, 0) : viewTop(a, 0) - viewTop(b, lines);
    if (qAbs(delta) >= limit)
        return std::nullopt;
    return int(delta);
}

void OutputView::scrollTo(Anchor target)
{
    if (target == m_top)
        return;
    const std::optional<int> delta = distance(m_top, target, viewport()->height());
    m_top = target;
    if (delta) {
        viewport()->scroll(0, -*delta); // what stays on screen moves; what comes in is painted
    } else {
        viewport()->update();
    }
}

qint64 OutputView::valueOf(Anchor anchor) const
{
    return m_text.size() == 0 ? 0 : m_text.linesBefore(anchor.index) + anchor.line;
}

void OutputView::syncScrollBar()
{
    syncScrollBar(bottomAnchor());
}

void OutputView::syncScrollBar(Anchor bottom)
{
    qint64 maximum = valueOf(bottom);
    if (valueOf(m_top) > maximum) {
        // Taller, or text gone from the end: the last line comes up to the bottom.
        scrollTo(bottom);
        bottom = bottomAnchor();
        maximum = valueOf(bottom);
    }
    QScrollBar *bar = verticalScrollBar();
    const int lineStep = qMax(1, fontMetrics().lineSpacing());
    m_syncing = true;
    bar->setRange(0, int(qMin<qint64>(maximum, INT_MAX)));
    bar->setPageStep(qMax(1, (viewport()->height() - 2 * m_margin) / lineStep));
    bar->setValue(int(qMin<qint64>(valueOf(m_top), INT_MAX)));
    m_syncing = false;
}

std::optional<int> OutputView::pieceTop(qsizetype index)
{
    if (index < m_top.index || index >= m_text.size())
        return std::nullopt;
    int y = marginAbove(m_top.index, m_top.line) - m_top.offset - m_text.lineTop(m_top.index, m_top.line);
    for (qsizetype i = m_top.index; i < index; ++i) {
        y += m_text.height(i);
        if (y > viewport()->height())
            return std::nullopt;
    }
    return y;
}

void OutputView::relayout(bool stick)
{
    qint64 topPosition = 0;
    if (m_top.index < m_text.size()) {
        const QTextLayout &layout = m_text.layout(m_top.index);
        topPosition = m_text.at(m_top.index).start
                      + (m_top.line < layout.lineCount() ? layout.lineAt(m_top.line).textStart() : 0);
    }
    const bool fontChanged = m_text.setFont(font(), viewport());
    const bool widthChanged = m_text.setWidth(qMax(1, viewport()->width() - 2 * m_margin));
    if (fontChanged || widthChanged) {
        viewport()->update();
        if (stick) {
            m_top = bottomAnchor();
        } else if (m_text.size() > 0) {
            // The character at the top stays at the top.
            const auto [i, column] = m_text.placeOf(topPosition);
            const QTextLine line = m_text.layout(i).lineForTextPosition(column);
            m_top = {i, line.isValid() ? qMin(line.lineNumber(), m_text.lineCount(i) - 1) : 0, 0};
        }
    } else if (stick) {
        scrollTo(bottomAnchor());
    }
    syncScrollBar();
}

void OutputView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    relayout(isAtBottom() || m_followDue);
}

void OutputView::scrollContentsBy(int dx, int dy)
{
    Q_UNUSED(dx)
    Q_UNUSED(dy)
    if (m_syncing)
        return;
    // The operator moved the scroll bar (or the wheel, or a key did).
    m_followDue = false;
    const QScrollBar *bar = verticalScrollBar();
    const qint64 value = bar->value();
    scrollTo(value >= bar->maximum() ? bottomAnchor() : walk(value - valueOf(m_top)));
    syncScrollBar(); // laying pieces out may have moved the range
}

void OutputView::changeEvent(QEvent *event)
{
    QAbstractScrollArea::changeEvent(event);
    switch (event->type()) {
    case QEvent::FontChange:
        relayout(isAtBottom() || m_followDue);
        break;
    case QEvent::PaletteChange:
    case QEvent::StyleChange:
        viewport()->update();
        break;
    default:
        break;
    }
}

void OutputView::paintEvent(QPaintEvent *event)
{
    QPainter painter(viewport());
    const QRect rect = event->rect();
    if (m_text.isEmpty()) {
        if (!m_placeholder.isEmpty()) {
            painter.setPen(palette().placeholderText().color());
            painter.drawText(viewport()->rect().adjusted(m_margin, m_margin, -m_margin, -m_margin),
                             Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, m_placeholder);
        }
        return;
    }
    painter.setPen(palette().text().color());
    const qint64 selStart = qMin(m_selAnchor, m_selCursor);
    const qint64 selEnd = qMax(m_selAnchor, m_selCursor);
    const QPalette::ColorGroup group = hasFocus() ? QPalette::Active : QPalette::Inactive;
    int y = *pieceTop(m_top.index);
    for (qsizetype i = m_top.index; i < m_text.size() && y <= rect.bottom(); ++i) {
        const int height = m_text.height(i);
        if (y + height > rect.top()) {
            const OutputText::Piece &piece = m_text.at(i);
            QList<QTextLayout::FormatRange> selection;
            if (selEnd > piece.start && selStart < piece.start + piece.text.size()) {
                QTextLayout::FormatRange range;
                range.start = int(qMax(selStart, piece.start) - piece.start);
                range.length = int(qMin(selEnd, piece.start + piece.text.size()) - piece.start) - range.start;
                range.format.setBackground(palette().brush(group, QPalette::Highlight));
                range.format.setForeground(palette().brush(group, QPalette::HighlightedText));
                selection.append(range);
            }
            // Only the piece's own lines: a piece that was cut keeps the layout it had, whose last
            // line is the next piece's.
            const QRect own = rect.intersected(QRect(0, y, viewport()->width(), height - 1));
            m_text.layout(i).draw(&painter, QPointF(m_margin, y), selection, own);
        }
        y += height;
    }
    if (m_caretOn && hasFocus()) {
        if (const std::optional<QRect> caret = caretRect(); caret && caret->intersects(rect))
            painter.fillRect(caret->adjusted(1, 0, -1, 0), palette().text());
    }
}

QStringList OutputView::layoutLines()
{
    QStringList lines;
    for (qsizetype i = 0; i < m_text.size(); ++i) {
        const QTextLayout &layout = m_text.layout(i);
        const QString &text = m_text.at(i).text;
        for (int l = 0; l < m_text.lineCount(i); ++l)
            lines << text.mid(layout.lineAt(l).textStart(), layout.lineAt(l).textLength());
    }
    return lines;
}

} // namespace Runwatch
