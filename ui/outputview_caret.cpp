// SPDX-License-Identifier: GPL-3.0-or-later
// OutputView's caret and keys: the caret is the moving end of the selection, moved by the
// platform's text-navigation keys (Shift extends), shown blinking while the view has focus.
#include "outputview.h"

#include <QAccessible>
#include <QApplication>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QStyleHints>

#include <array>
#include <utility>

namespace Runwatch {

namespace {
struct KeyMove
{
    QKeySequence::StandardKey move;
    QKeySequence::StandardKey select;
    int caretMove; // OutputView::CaretMove
};
} // namespace

void OutputView::keyPressEvent(QKeyEvent *event)
{
    if (event == QKeySequence::Copy) {
        copy();
        event->accept();
        return;
    }
    if (event == QKeySequence::SelectAll) {
        selectAll();
        event->accept();
        return;
    }
    static const std::array<KeyMove, 12> keys{{
        {QKeySequence::MoveToPreviousChar, QKeySequence::SelectPreviousChar, int(CaretMove::Left)},
        {QKeySequence::MoveToNextChar, QKeySequence::SelectNextChar, int(CaretMove::Right)},
        {QKeySequence::MoveToPreviousWord, QKeySequence::SelectPreviousWord, int(CaretMove::WordLeft)},
        {QKeySequence::MoveToNextWord, QKeySequence::SelectNextWord, int(CaretMove::WordRight)},
        {QKeySequence::MoveToPreviousLine, QKeySequence::SelectPreviousLine, int(CaretMove::Up)},
        {QKeySequence::MoveToNextLine, QKeySequence::SelectNextLine, int(CaretMove::Down)},
        {QKeySequence::MoveToStartOfLine, QKeySequence::SelectStartOfLine, int(CaretMove::LineStart)},
        {QKeySequence::MoveToEndOfLine, QKeySequence::SelectEndOfLine, int(CaretMove::LineEnd)},
        {QKeySequence::MoveToPreviousPage, QKeySequence::SelectPreviousPage, int(CaretMove::PageUp)},
        {QKeySequence::MoveToNextPage, QKeySequence::SelectNextPage, int(CaretMove::PageDown)},
        {QKeySequence::MoveToStartOfDocument, QKeySequence::SelectStartOfDocument, int(CaretMove::Start)},
        {QKeySequence::MoveToEndOfDocument, QKeySequence::SelectEndOfDocument, int(CaretMove::End)},
    }};
    for (const KeyMove &key : keys) {
        const bool extend = event == key.select;
        if (extend || event == key.move) {
            if (m_text.size() > 0)
                moveCaret(movedPosition(m_selCursor, CaretMove(key.caretMove)), extend);
            event->accept();
            return;
        }
    }
    QAbstractScrollArea::keyPressEvent(event); // anything else goes up
}

qint64 OutputView::movedPosition(qint64 from, CaretMove move)
{
    const auto [i, column] = m_text.placeOf(from);
    const OutputText::Piece &piece = m_text.at(i);
    const QTextLayout &layout = m_text.layout(i);
    const auto lineOf = [&layout](int at) { return layout.lineForTextPosition(at); };
    const auto mode = move == CaretMove::Left || move == CaretMove::Right ? QTextLayout::SkipCharacters
                                                                          : QTextLayout::SkipWords;
    switch (move) {
    case CaretMove::Left:
    case CaretMove::WordLeft:
        if (column > 0)
            return piece.start + layout.previousCursorPosition(column, mode);
        if (i == 0)
            return from;
        if (piece.continues) {
            // A cut: no break between the pieces, this position is also the end of the one before.
            const OutputText::Piece &before = m_text.at(i - 1);
            return before.start + m_text.layout(i - 1).previousCursorPosition(int(before.text.size()), mode);
        }
        return from - 1; // the line break before this paragraph
    case CaretMove::Right:
    case CaretMove::WordRight:
        if (column < piece.text.size())
            return piece.start + layout.nextCursorPosition(column, mode);
        if (i + 1 >= m_text.size())
            return from;
        return m_text.at(i + 1).continues ? movedPosition(m_text.at(i + 1).start, move)
                                          : m_text.at(i + 1).start;
    case CaretMove::Up:
        return verticalMove(from, -1);
    case CaretMove::Down:
        return verticalMove(from, 1);
    case CaretMove::LineStart:
        return piece.start + lineOf(column).textStart();
    case CaretMove::LineEnd: {
        const QTextLine line = lineOf(column);
        int end = line.textStart() + line.textLength();
        // A wrapped line ends before the space it broke at (after it is the next line's start).
        if (line.lineNumber() + 1 < m_text.lineCount(i) && end > line.textStart()
            && piece.text.at(end - 1).isSpace()) {
            --end;
        }
        return piece.start + end;
    }
    case CaretMove::PageUp:
    case CaretMove::PageDown:
        return verticalMove(from,
                            (move == CaretMove::PageUp ? -1 : 1) * qMax(1, verticalScrollBar()->pageStep()));
    case CaretMove::Start:
        return m_text.startPosition();
    case CaretMove::End:
        return m_text.endPosition();
    }
    return from;
}

qint64 OutputView::verticalMove(qint64 position, int lines)
{
    auto [i, column] = m_text.placeOf(position);
    const QTextLine from = m_text.layout(i).lineForTextPosition(column);
    const qreal x = from.cursorToX(column);
    int line = from.lineNumber() + lines;
    while (line < 0 && i > 0) {
        --i;
        m_text.height(i); // laid out: its lines are counted
        line += m_text.lineCount(i);
    }
    while (line >= m_text.lineCount(i) && i + 1 < m_text.size()) {
        line -= m_text.lineCount(i);
        ++i;
        m_text.height(i);
    }
    line = qBound(0, line, m_text.lineCount(i) - 1);
    column = m_text.layout(i).lineAt(line).xToCursor(x);
    return m_text.at(i).start + qBound(0, column, int(m_text.at(i).text.size()));
}

void OutputView::moveCaret(qint64 to, bool extend)
{
    setSelection(extend ? m_selAnchor : to, to);
    ensurePositionVisible(m_selCursor);
    startBlinking();
    if (QAccessible::isActive()) {
        QAccessibleTextCursorEvent event(this, int(caretOffset()));
        QAccessible::updateAccessibility(&event);
    }
}

void OutputView::ensurePositionVisible(qint64 position)
{
    const auto [i, column] = m_text.placeOf(position);
    if (i < 0)
        return;
    const QTextLine line = m_text.layout(i).lineForTextPosition(column);
    const int lineNumber = line.isValid() ? line.lineNumber() : 0;
    bool below = i > m_top.index || (i == m_top.index && lineNumber >= m_top.line);
    if (const std::optional<int> top = pieceTop(i)) {
        const int y = *top + m_text.lineTop(i, lineNumber);
        if (y >= 0 && y + m_text.lineHeight(i, lineNumber) <= viewport()->height())
            return; // on screen
        below = y > 0;
    }
    const qint64 value = m_text.linesBefore(i) + lineNumber;
    QScrollBar *bar = verticalScrollBar();
    bar->setValue(int(below ? value - bar->pageStep() + 1 : value));
}

void OutputView::ensureOffsetVisible(qint64 offset)
{
    ensurePositionVisible(m_text.positionOf(offset));
}

std::optional<QRect> OutputView::caretRect()
{
    const std::optional<QRectF> at = cursorRect(m_selCursor, false);
    if (!at)
        return std::nullopt;
    return QRectF(at->left() - 1, at->top(), 3, at->height()).toAlignedRect();
}

void OutputView::updateCaret()
{
    if (const std::optional<QRect> rect = caretRect())
        viewport()->update(*rect);
}

void OutputView::startBlinking()
{
    // Shown at once after a move, then blinking at the platform's rate (none: always shown).
    m_caretOn = true;
    const int flash = QGuiApplication::styleHints()->cursorFlashTime();
    if (flash > 0) {
        m_caretBlink.start(flash / 2, this);
    } else {
        m_caretBlink.stop();
    }
    updateCaret();
}

void OutputView::focusInEvent(QFocusEvent *event)
{
    QAbstractScrollArea::focusInEvent(event);
    // The caret starts where the operator is looking: at the top line when it is off screen.
    if (!hasSelection() && m_text.size() > 0 && !caretRect()) {
        const qsizetype i = qMin(m_top.index, m_text.size() - 1);
        const qint64 start = m_text.at(i).start
                             + m_text.layout(i).lineAt(qMin(m_top.line, m_text.lineCount(i) - 1)).textStart();
        m_selAnchor = m_selCursor = start;
    }
    startBlinking();
    if (hasSelection())
        viewport()->update(); // the selection's active colours
}

void OutputView::focusOutEvent(QFocusEvent *event)
{
    QAbstractScrollArea::focusOutEvent(event);
    m_caretBlink.stop();
    m_caretOn = false;
    updateCaret();
    if (hasSelection())
        viewport()->update();
}

} // namespace Runwatch
