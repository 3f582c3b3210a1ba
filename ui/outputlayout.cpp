// SPDX-License-Identifier: GPL-3.0-or-later
#include "outputlayout.h"

#include <QSignalBlocker>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextLayout>

namespace Runwatch {

void OutputLayout::cutAt(QTextCursor &cursor)
{
    m_cutting = true;
    cursor.insertBlock();
    m_cutting = false;
}

void OutputLayout::documentChanged(int from, int charsRemoved, int charsAdded)
{
    QTextDocument *doc = document();
    const QTextBlock last = doc->lastBlock();
    if (m_cutting) {
        const QSizeF sizeBefore = documentSize();
        {
            const QSignalBlocker quiet(this);
            QPlainTextDocumentLayout::documentChanged(from, charsRemoved, charsAdded);
        }
        if (documentSize() != sizeBefore)
            Q_EMIT documentSizeChanged(documentSize());
        Q_EMIT updateBlock(last.previous());
        Q_EMIT updateBlock(last);
        return;
    }
    // Text added at the end of the document changes nothing above the paragraph it starts in.
    // (Qt's own narrowing covers only an append that ends in a new paragraph's text: one that
    // ends with a line break is reported as a change of the paragraph it closes, and the base
    // repaints the whole view for it.) A catch-up that adds many paragraphs takes the base path:
    // it repaints the view anyway, and each paragraph's update would look up its place.
    const QTextBlock first = doc->findBlock(from);
    const bool appended = charsRemoved == 0 && charsAdded > 0
                          && from + charsAdded >= doc->characterCount() - 1 && first.isValid()
                          && first.layout()->lineCount() > 0
                          && last.blockNumber() - first.blockNumber() <= kMaxNarrowedBlocks;
    if (!appended) {
        QPlainTextDocumentLayout::documentChanged(from, charsRemoved, charsAdded);
        return;
    }
    const qreal heightBefore = blockBoundingRect(first).height();
    const QSizeF sizeBefore = documentSize(); // (widest line, line count)
    {
        // The base lays the paragraphs out and would announce a full update; its announcements
        // are made again below, narrowed.
        const QSignalBlocker quiet(this);
        QPlainTextDocumentLayout::documentChanged(from, charsRemoved, charsAdded);
    }
    // Always when paragraphs were added: the size read before the base ran already counts them
    // (the document gives a paragraph not laid out yet one line), so comparing would miss the
    // line they add, and the view's scroll range with it.
    if (first != last || documentSize() != sizeBefore)
        Q_EMIT documentSizeChanged(documentSize());
    // A paragraph that lost height (never seen for an append, but shaping is not ours to
    // promise) would leave its old bottom lines on screen: repaint everything then.
    if (blockBoundingRect(first).height() < heightBefore) {
        requestUpdate();
        return;
    }
    for (QTextBlock block = first; block.isValid(); block = block.next())
        Q_EMIT updateBlock(block);
}

} // namespace Runwatch
