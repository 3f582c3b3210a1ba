// SPDX-License-Identifier: GPL-3.0-or-later
// OutputView's operator side: selecting with the mouse, copying, and what a screen reader asks
// (offsets into the text shown). The caret and the keys: outputview_caret.cpp.
#include "outputview.h"

#include <QApplication>
#include <QClipboard>
#include <QMenu>
#include <QMouseEvent>
#include <QScrollBar>
#include <QTextBoundaryFinder>
#include <QTimerEvent>

namespace Runwatch {

namespace {
// While a drag selects beyond the view's top or bottom, the view scrolls a line per tick.
constexpr int kDragScrollMs = 50;
} // namespace

qint64 OutputView::positionAt(QPoint point)
{
    if (m_text.size() == 0)
        return 0;
    int y = *pieceTop(m_top.index);
    for (qsizetype i = m_top.index; i < m_text.size(); ++i) {
        const int height = m_text.height(i);
        if (point.y() >= y + height && i < m_text.size() - 1) {
            y += height;
            continue;
        }
        const QTextLayout &layout = m_text.layout(i);
        // Above the view's top: its top line; below the last line: the last line.
        int line = i == m_top.index ? m_top.line : 0;
        while (line + 1 < m_text.lineCount(i) && point.y() - y >= m_text.lineTop(i, line + 1))
            ++line;
        const OutputText::Piece &piece = m_text.at(i);
        const int column = layout.lineAt(line).xToCursor(point.x() - m_margin);
        return piece.start + qBound(0, column, int(piece.text.size()));
    }
    return m_text.endPosition();
}

void OutputView::setSelection(qint64 anchor, qint64 cursor)
{
    const qint64 start = m_text.startPosition();
    const qint64 end = m_text.endPosition();
    anchor = qBound(start, anchor, end);
    cursor = qBound(start, cursor, end);
    if (anchor == m_selAnchor && cursor == m_selCursor)
        return;
    m_selAnchor = anchor;
    m_selCursor = cursor;
    viewport()->update();
}

QString OutputView::selectedText() const
{
    return m_text.text(qMin(m_selAnchor, m_selCursor), qMax(m_selAnchor, m_selCursor));
}

void OutputView::selectAll()
{
    setSelection(m_text.startPosition(), m_text.endPosition());
}

void OutputView::copy() const
{
    if (hasSelection())
        QGuiApplication::clipboard()->setText(selectedText());
}

std::pair<qint64, qint64> OutputView::selectionOffsets() const
{
    const qint64 a = m_text.offsetOf(m_selAnchor);
    const qint64 b = m_text.offsetOf(m_selCursor);
    return {qMin(a, b), qMax(a, b)};
}

void OutputView::selectOffsets(qint64 start, qint64 end)
{
    setSelection(m_text.positionOf(start), m_text.positionOf(end));
}

std::optional<QRectF> OutputView::cursorRect(qint64 position, bool wholeCharacter)
{
    const auto [i, column] = m_text.placeOf(position);
    const std::optional<int> top = i < 0 ? std::nullopt : pieceTop(i);
    if (!top)
        return std::nullopt;
    const QTextLine line = m_text.layout(i).lineForTextPosition(column);
    if (!line.isValid())
        return std::nullopt;
    const qreal x = line.cursorToX(column);
    qreal next = x;
    if (wholeCharacter)
        next = column < m_text.at(i).text.size() ? line.cursorToX(column + 1) : x + 1;
    return QRectF(m_margin + qMin(x, next), *top + line.y(), qAbs(next - x), line.height());
}

QRect OutputView::characterRect(qint64 offset)
{
    std::optional<QRectF> rect = cursorRect(m_text.positionOf(offset), true);
    if (!rect)
        return {};
    rect->setWidth(qMax<qreal>(1, rect->width()));
    return rect->toAlignedRect();
}

qint64 OutputView::offsetAt(QPoint viewportPoint)
{
    return m_text.offsetOf(positionAt(viewportPoint));
}

void OutputView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mousePressEvent(event);
        return;
    }
    const qint64 at = positionAt(event->position().toPoint());
    setSelection(event->modifiers() & Qt::ShiftModifier ? m_selAnchor : at, at);
    m_selecting = true;
    event->accept();
}

void OutputView::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_selecting || !(event->buttons() & Qt::LeftButton)) {
        QAbstractScrollArea::mouseMoveEvent(event);
        return;
    }
    const QPoint point = event->position().toPoint();
    setSelection(m_selAnchor, positionAt(point));
    autoScrollForDrag(point);
    event->accept();
}

void OutputView::autoScrollForDrag(QPoint point)
{
    m_dragStep = point.y() < 0 ? -1 : point.y() > viewport()->height() ? 1 : 0;
    if (m_dragStep == 0) {
        m_dragScroll.stop();
    } else if (!m_dragScroll.isActive()) {
        m_dragScroll.start(kDragScrollMs, this);
    }
}

void OutputView::timerEvent(QTimerEvent *event)
{
    if (event->timerId() == m_caretBlink.timerId()) {
        m_caretOn = !m_caretOn;
        updateCaret();
        return;
    }
    if (event->timerId() != m_dragScroll.timerId()) {
        QAbstractScrollArea::timerEvent(event);
        return;
    }
    if (!m_selecting || m_dragStep == 0) {
        m_dragScroll.stop();
        return;
    }
    verticalScrollBar()->setValue(verticalScrollBar()->value() + m_dragStep);
    const QPoint point = viewport()->mapFromGlobal(QCursor::pos());
    setSelection(m_selAnchor, positionAt(point));
}

void OutputView::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_selecting) {
        QAbstractScrollArea::mouseReleaseEvent(event);
        return;
    }
    m_selecting = false;
    m_dragScroll.stop();
    // As X11 text views do: the selection is the primary selection, pasted by a middle click.
    QClipboard *clipboard = QGuiApplication::clipboard();
    if (hasSelection() && clipboard->supportsSelection())
        clipboard->setText(selectedText(), QClipboard::Selection);
    event->accept();
}

void OutputView::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mouseDoubleClickEvent(event);
        return;
    }
    // The word under the pointer (within its piece: a cut falls between words).
    const auto [i, column] = m_text.placeOf(positionAt(event->position().toPoint()));
    if (i < 0)
        return;
    const OutputText::Piece &piece = m_text.at(i);
    QTextBoundaryFinder words(QTextBoundaryFinder::Word, piece.text);
    words.setPosition(column);
    qsizetype start = words.isAtBoundary() && (words.boundaryReasons() & QTextBoundaryFinder::StartOfItem)
                          ? words.position()
                          : words.toPreviousBoundary();
    words.setPosition(column);
    qsizetype end = words.toNextBoundary();
    if (start < 0)
        start = 0;
    if (end < 0)
        end = piece.text.size();
    setSelection(piece.start + start, piece.start + end);
    m_selecting = false;
    event->accept();
}

void OutputView::contextMenuEvent(QContextMenuEvent *event)
{
    QMenu menu(this);
    QAction *copyAction = menu.addAction(tr("&Copy"), this, &OutputView::copy);
    copyAction->setShortcut(QKeySequence::Copy);
    copyAction->setEnabled(hasSelection());
    menu.addSeparator();
    QAction *all = menu.addAction(tr("Select &All"), this, &OutputView::selectAll);
    all->setShortcut(QKeySequence::SelectAll);
    all->setEnabled(!m_text.isEmpty());
    menu.exec(event->globalPos());
}

} // namespace Runwatch
