// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPlainTextDocumentLayout>

class QTextCursor;

namespace Runwatch {

// QPlainTextDocumentLayout repaints the whole view whenever an edit changes the height of one
// paragraph (its "optimization potential" branch). A live run grows its last paragraph by a
// wrapped line several times a second, and each time every visible line was painted again: the
// heaviest frames of a 200-run stream; so was every line break that arrived. Text added to the end
// of the document can change nothing but the paragraph it starts in and those it adds (nothing
// lies below them), so this layout asks for those alone; the view's scroll to the new bottom then
// blits the rest. Everything else (removals, edits above the end, the block limit trimming the
// top, relayouts) takes the base path.
class OutputLayout final : public QPlainTextDocumentLayout
{
public:
    explicit OutputLayout(QTextDocument *document)
        : QPlainTextDocumentLayout(document)
    {}

    // Cuts the last paragraph where `cursor` is, the start of one of its lines: no line moves, so
    // only the two pieces are repainted (the base would repaint the whole view, since the
    // paragraph's height changed).
    void cutAt(QTextCursor &cursor);

protected:
    void documentChanged(int from, int charsRemoved, int charsAdded) override;

private:
    // The most paragraphs an append at the end repaints one by one.
    static constexpr int kMaxNarrowedBlocks = 8;
    bool m_cutting = false;
};

} // namespace Runwatch
