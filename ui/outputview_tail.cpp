// SPDX-License-Identifier: GPL-3.0-or-later
// OutputView's tail: the line a live run is writing, laid out and painted by the view itself until
// the document takes it (see the class comment in outputview.h).
#include "outputcuts.h"
#include "outputview.h"

#include "domain/heavyframes.h"

#include <QAccessible>
#include <QApplication>
#include <QPaintEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextLayout>

#include <utility>

namespace Runwatch {

using OutputCuts::kCutContinues;
using OutputCuts::readsRightToLeft;

bool OutputView::tailAllowed() const
{
    // Whatever needs the document whole: an operator in the view (its focus, a selection), a
    // screen reader (it reads the document), a view that is not laid out.
    // (QApplication::focusWidget() is hasFocus() for a view without a focus proxy, without
    // hasFocus()'s walk up to the window.)
    if (!m_cutGrowing || !isVisible() || viewport()->width() <= 0 || QApplication::focusWidget() == this
        || textCursor().hasSelection() || QAccessible::isActive())
        return false;
    // With one paragraph, the document would be empty once the tail took that paragraph's text,
    // and its placeholder would show under the tail.
    const QTextDocument *doc = document();
    if (doc->blockCount() < 2)
        return false;
    const QTextLayout *layout = doc->lastBlock().layout();
    return layout && layout->lineCount() > 0;
}

bool OutputView::appendToTail(const QString &text)
{
    QTextDocument *doc = document();
    if (m_tail.isEmpty() && doc->lastBlock().length() > 1) {
        // The tail continues the last paragraph's last line: it takes the paragraph's text when
        // that is one line (a cut piece, a short paragraph) that reads left to right.
        const QTextBlock last = doc->lastBlock();
        if (last.layout()->lineCount() != 1 || readsRightToLeft(last.text()))
            return false;
        m_tail = last.text();
        QTextCursor cursor(doc);
        cursor.setPosition(last.position());
        cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
        cursor.removeSelectedText();
    }
    const qsizetype lastBreak = text.lastIndexOf(u'\n');
    if (lastBreak >= 0) {
        // What closes a paragraph goes into the document, the tail before it.
        QTextCursor cursor(doc);
        cursor.movePosition(QTextCursor::End);
        cursor.insertText(std::exchange(m_tail, text.mid(lastBreak + 1))
                          + QStringView(text).first(lastBreak + 1));
    } else {
        m_tail += text;
    }
    if (readsRightToLeft(m_tail)) {
        // Its direction is the paragraph's to decide, not the line's.
        commitTail();
        return true;
    }
    layoutTail();
    takeFullLines();
    if (m_tailLayout)
        viewport()->update(tailRect(tailBlockRect()));
    return true;
}

void OutputView::takeFullLines()
{
    m_lineDue = false;
    if (!m_tailLayout || m_tailLayout->lineCount() < 2)
        return;
    // Taking a line and the scroll after it are the view's heavy chore: not in a frame where
    // another took place (HeavyFrames). Meanwhile the tail's second line waits below the last.
    if (!HeavyFrames::claim()) {
        m_lineDue = true;
        if (!m_frameTimer.isActive())
            m_frameTimer.start();
        return;
    }
    // The line is full: the document takes it (and any before it) as a piece of its own, where
    // the next line starts, as cutGrowingParagraph() would have cut it; one edit, so that the
    // document lays the line out and announces it once.
    QTextDocument *doc = document();
    const int start = m_tailLayout->lineAt(m_tailLayout->lineCount() - 1).textStart();
    QTextCursor cursor(doc);
    cursor.beginEditBlock(); // first: inside an edit, the cursor's move skips its visual x
    cursor.movePosition(QTextCursor::End);
    cursor.insertText(m_tail.first(start));
    cursor.insertBlock();
    cursor.endEditBlock();
    doc->lastBlock().setUserState(kCutContinues);
    m_cutWidth = viewport()->width();
    m_tail.remove(0, start);
    layoutTail();
}

void OutputView::commitTail()
{
    m_tailLayout.reset();
    m_lineDue = false;
    if (m_tail.isEmpty())
        return;
    QTextCursor cursor(document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText(std::exchange(m_tail, {}));
}

void OutputView::layoutTail()
{
    if (m_tail.isEmpty()) {
        m_tailLayout.reset();
        return;
    }
    // Laid out as QPlainTextDocumentLayout lays out a paragraph, at the place and width of the
    // document's last, empty one: the line breaks where it will break in the document.
    const QTextLine place = document()->lastBlock().layout()->lineAt(0);
    if (m_tailLayout) {
        // The same font and device (a change of either commits the tail, which drops the layout);
        // the wrap mode and the options may change without.
        m_tailLayout->setText(m_tail);
    } else {
        m_tailLayout = std::make_unique<QTextLayout>(m_tail, document()->defaultFont(), viewport());
        m_tailLayout->setCacheEnabled(true); // painted from the same shaping
    }
    m_tailLayout->setTextOption(document()->defaultTextOption());
    m_tailLayout->beginLayout();
    qreal y = place.y();
    for (QTextLine line = m_tailLayout->createLine(); line.isValid(); line = m_tailLayout->createLine()) {
        line.setLeadingIncluded(true);
        line.setLineWidth(place.width());
        line.setPosition(QPointF(place.x(), y));
        y += line.height();
    }
    m_tailLayout->endLayout();
}

QRectF OutputView::tailBlockRect() const
{
    // Looking the paragraph up walks every paragraph on screen (QPlainTextEdit counts down from
    // the top one), twice a frame: kept while its key (the paragraphs, the scroll, the viewport's
    // size) holds and no edit or relayout came (the constructor's connections drop it).
    const TailPlace::Key key{document()->blockCount(), verticalScrollBar()->value(),
                             horizontalScrollBar()->value(), viewport()->size()};
    if (!m_tailPlace || m_tailPlace->key != key) {
        const QRectF place = blockBoundingGeometry(document()->lastBlock()).translated(contentOffset());
        m_tailPlace = TailPlace{key, place};
    }
    return m_tailPlace->rect;
}

QRect OutputView::tailRect(const QRectF &place) const
{
    // The tail's lines (a second one while a full line waits for its frame) and the paragraph
    // they are drawn in, across the view.
    QRectF drawn = place;
    if (m_tailLayout)
        drawn |= m_tailLayout->boundingRect().translated(place.topLeft());
    const QRect aligned = drawn.toAlignedRect();
    return {0, aligned.top(), viewport()->width(), aligned.height()};
}

void OutputView::paintEvent(QPaintEvent *event)
{
    if (!m_tailLayout) {
        QPlainTextEdit::paintEvent(event);
        return;
    }
    const QRectF place = tailBlockRect();
    const QRect line = tailRect(place);
    // An append repaints the tail's line alone, where the document has nothing to draw.
    if (!line.contains(event->rect()))
        QPlainTextEdit::paintEvent(event);
    if (!line.intersects(event->rect()))
        return;
    QPainter painter(viewport());
    painter.setClipRegion(event->region());
    painter.setPen(palette().text().color());
    m_tailLayout->draw(&painter, place.topLeft());
}

void OutputView::focusInEvent(QFocusEvent *event)
{
    commitTail(); // the operator's cursor and selection work on the document
    QPlainTextEdit::focusInEvent(event);
}

void OutputView::mousePressEvent(QMouseEvent *event)
{
    commitTail();
    QPlainTextEdit::mousePressEvent(event);
}

void OutputView::contextMenuEvent(QContextMenuEvent *event)
{
    commitTail(); // "Select All", "Copy"
    QPlainTextEdit::contextMenuEvent(event);
}

void OutputView::changeEvent(QEvent *event)
{
    switch (event->type()) {
    case QEvent::FontChange:
    case QEvent::StyleChange:
    case QEvent::LayoutDirectionChange:
        commitTail(); // laid out with the old font or direction
        break;
    default:
        break;
    }
    QPlainTextEdit::changeEvent(event);
}

} // namespace Runwatch
