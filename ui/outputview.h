// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "outputtext.h"

#include <QAbstractScrollArea>
#include <QBasicTimer>
#include <QElapsedTimer>
#include <QTimer>

#include <chrono>
#include <optional>
#include <utility>

namespace Runwatch {

// The live primary output of a run: an append-only text view of its own, after Qt Creator's
// output pane for the batching (docs/performance-targets.md), with the text kept in pieces that
// are each laid out once (OutputText) instead of a QTextDocument:
// - appends are queued and written at most once per frame (16 ms timer);
// - a frame writes for at most frameBudget(); a large backlog (catch-up) spreads over frames
//   with catchUpBudget() per frame (larger: a run that is catching up is what the operator waits
//   for, and the frame still leaves most of its 16 ms to input); a batch is sized from the
//   measured cost per character, and while a backlog drains the view repaints every fourth
//   frame only;
// - it follows the end only when it was already at the bottom. A new line at the bottom scrolls
//   the view by that line (a blit of what is drawn, and the new line painted), in a frame no
//   other heavy chore took (HeavyFrames); meanwhile the line waits below the last;
// - an append repaints the lines it changed, nothing else;
// - memory is bounded (maximum piece count);
// - the operator selects with the mouse (a double click takes a word), copies with the
//   keyboard or the context menu, moves a caret and selects with the keys as in any text view
//   (read-only); a screen reader reads the text, the caret and the selection (outputaccessible.h).
// QPlainTextEdit did this before (session 33 replaced it): an append into its document cost
// ~0.2 ms whatever its size, and a line that filled cost 0.5-0.7 ms (the document's edit, a
// second shaping of the line, Qt's walks over the paragraphs on screen to set the scroll range),
// the heaviest frames of a 200-run stream.
class OutputView final : public QAbstractScrollArea
{
    Q_OBJECT
public:
    explicit OutputView(QWidget *parent = nullptr);
    ~OutputView() override;

    // Queues text for the next frame.
    void appendText(QStringView text);
    // Replaces everything at once (another run selected, the server's text replaced ours).
    void setText(const QString &text);
    void clearOutput();

    // Writes everything queued now, ignoring the frame budget (tests, benchmarks).
    void flushAll();
    qsizetype pendingSize() const { return m_pending.size() - m_pendingPos; }
    bool isAtBottom() const;

    void setSoftSplitColumn(int chars) { m_text.setSoftSplitColumn(chars); }
    int softSplitColumn() const { return m_text.softSplitColumn(); }
    void setMaxPieces(int pieces);
    void setFrameBudget(std::chrono::microseconds budget) { m_budget = budget; }
    std::chrono::microseconds frameBudget() const { return m_budget; }
    // The budget of a frame that starts with more queued than frameBudget() can write.
    void setCatchUpBudget(std::chrono::microseconds budget) { m_catchUpBudget = budget; }
    std::chrono::microseconds catchUpBudget() const { return m_catchUpBudget; }
    void setPlaceholderText(const QString &text);
    QString placeholderText() const { return m_placeholder; }
    // Whether a growing paragraph is cut where its last line starts (tests compare with and
    // without).
    void setCutsGrowingParagraphs(bool cut) { m_text.setCutsGrowing(cut); }

    // The text as shown: its paragraphs, a soft split as a line break, no break at a cut.
    QString shownText() const { return m_text.text(); }
    // Characters written so far.
    qint64 writtenChars() const { return m_written; }
    // The pieces the text is kept in, and its lines at this width (tests, benchmarks).
    qsizetype pieceCount() const { return m_text.size(); }
    qint64 lineCount() const { return m_text.totalLines(); }
    // Each line's text as laid out, top to bottom (tests).
    QStringList layoutLines();

    bool hasSelection() const { return m_selAnchor != m_selCursor; }
    // Where the caret is (an offset into shownText()): the end of the selection that moves.
    qint64 caretOffset() const { return m_text.offsetOf(m_selCursor); }
    QString selectedText() const;
    void selectAll();
    void copy() const;

    // For the screen reader (outputaccessible.h): offsets into shownText().
    qint64 characterCount() const { return m_text.offsetOf(m_text.endPosition()); }
    QString textBetween(qint64 start, qint64 end) const
    {
        return m_text.text(m_text.positionOf(start), m_text.positionOf(end));
    }
    std::pair<qint64, qint64> selectionOffsets() const;
    void selectOffsets(qint64 start, qint64 end);
    QRect characterRect(qint64 offset); // viewport coordinates; empty when off screen
    qint64 offsetAt(QPoint viewportPoint);
    void ensureOffsetVisible(qint64 offset);

Q_SIGNALS:
    // A frame's batch was written.
    void flushed();

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;
    void changeEvent(QEvent *event) override;
    void focusInEvent(QFocusEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void timerEvent(QTimerEvent *event) override;

private:
    // The top line on screen: piece `index`, its line `line`, drawn `offset` pixels above the
    // viewport's top (at the bottom, the last line sits at the bottom and the top line may be cut).
    struct Anchor
    {
        qsizetype index = 0;
        int line = 0;
        int offset = 0;
        bool operator==(const Anchor &) const = default;
    };

    void flushFrame();
    void write(QStringView piece);
    // Scrolls to the end (a heavy chore: HeavyFrames), or marks it due for a later frame.
    void follow();
    // The top line when the last line sits at the bottom.
    Anchor bottomAnchor();
    // The top line `lines` lines from the current one (pieces not laid out count one line).
    Anchor walk(qint64 lines);
    // Shows `target` at the top: a blit of what stays on screen, or a repaint.
    void scrollTo(Anchor target);
    // The pixels the view's top moves from one anchor to the other; nullopt when that is a view's
    // height or more (the caller repaints all).
    std::optional<int> distance(Anchor from, Anchor to, int limit);
    // The scroll bar set to the text: its range, page, and the top line as its value (`bottom`:
    // bottomAnchor(), when the caller has it).
    void syncScrollBar();
    void syncScrollBar(Anchor bottom);
    // The top margin above a line: the first line's only.
    int marginAbove(qsizetype index, int line) const { return index == 0 && line == 0 ? m_margin : 0; }
    // The oldest pieces went (the maximum piece count): the top line and the selection follow.
    void piecesDropped(qsizetype dropped);
    qint64 valueOf(Anchor anchor) const;
    // The y (viewport) of piece `index`'s top, if it is on screen or just below; else nullopt.
    std::optional<int> pieceTop(qsizetype index);
    // The viewport's width and font given to the text; a new width or font lays out again, and
    // the view keeps to the bottom (`stick`) or keeps the character at its top.
    void relayout(bool stick);

    // Selection (outputview_select.cpp).
    qint64 positionAt(QPoint viewportPoint);
    void setSelection(qint64 anchor, qint64 cursor);
    void autoScrollForDrag(QPoint viewportPoint);

    // The caret and the keys (outputview_caret.cpp): the selection's moving end, shown while the
    // view has focus. The text is read-only; the caret is there to select and read by keyboard.
    enum class CaretMove {
        Left,
        Right,
        WordLeft,
        WordRight,
        Up,
        Down,
        LineStart,
        LineEnd,
        PageUp,
        PageDown,
        Start,
        End,
    };
    qint64 movedPosition(qint64 from, CaretMove move);
    // One line up or down from `position`, at its x; itself at the first or last line.
    qint64 verticalMove(qint64 position, int lines);
    void moveCaret(qint64 to, bool extend);
    void ensurePositionVisible(qint64 position);
    // The caret's rectangle in the viewport; nullopt when it is off screen.
    std::optional<QRect> caretRect();
    // Where `position` is drawn (viewport coordinates): its line's height at the cursor's x, as wide
    // as the character after it when `wholeCharacter`; nullopt off screen.
    std::optional<QRectF> cursorRect(qint64 position, bool wholeCharacter);
    void updateCaret();
    void startBlinking();

    OutputText m_text;
    Anchor m_top;
    bool m_followDue = false; // at the bottom, and a new line waits for a frame to scroll
    bool m_syncing = false;   // the scroll bar is being set to the text, not moved by the operator
    int m_margin = 10;
    QString m_placeholder;

    QString m_pending;
    qsizetype m_pendingPos = 0; // consumed prefix of m_pending (no O(n) removal per frame)
    int m_catchUpFrames = 0;    // consecutive frames that left a backlog
    std::chrono::microseconds m_budget{1800};
    std::chrono::microseconds m_catchUpBudget{3000};
    double m_nsPerChar = 250.0; // measured while writing; starts cautious
    qint64 m_written = 0;
    QTimer m_frameTimer;
    QElapsedTimer m_clock;

    qint64 m_selAnchor = 0;
    qint64 m_selCursor = 0;
    bool m_selecting = false;
    QBasicTimer m_dragScroll;
    QBasicTimer m_caretBlink;
    bool m_caretOn = false;
    int m_dragStep = 0; // lines per drag-scroll tick, up (<0) or down
};

} // namespace Runwatch
