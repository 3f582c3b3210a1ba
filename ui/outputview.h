// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QPlainTextEdit>
#include <QTimer>

#include <chrono>
#include <memory>
#include <optional>

class QTextLayout;

namespace Runwatch {

// The live primary output of a run, after Qt Creator's output pane (docs/performance-targets.md):
// - appends are queued and written at most once per frame (16 ms timer);
// - a frame writes for at most frameBudget(); a large backlog (catch-up) spreads over frames
//   so the window stays responsive, with catchUpBudget() per frame (larger: a run that is
//   catching up is what the operator waits for, and the frame still leaves most of its 16 ms to
//   input); a batch is sized from the measured cost per character, and while a backlog drains
//   the view repaints every fourth frame only;
// - it auto-scrolls only when the view was already at the bottom;
// - memory is bounded (maximum block count);
// - long paragraphs are soft-split at whitespace, because appending to one long paragraph
//   re-lays out the whole paragraph (0.15 ms per KB); the run keeps the true text, and "Copy
//   output" copies that, not the view;
// - a growing paragraph is also cut where its last line starts once it has kSplitLines lines,
//   which looks the same at this width (the lines before it break as they did) and keeps what an
//   append lays out again to a line or two; a width change joins the pieces again (they would
//   break early at another width), and a copied selection leaves the cuts out;
// - the line a live run is writing (its tail) stays out of the document until the line is full
//   or a line break comes: the view lays out and paints that one line itself, where the
//   document's last, empty paragraph holds its place. An append into QTextDocument costs
//   ~0.2 ms whatever its size (the edit, the block's layout, the signals, the repaint of the
//   block), fifty times a second for a fast run; the tail costs the line's layout (0.1-0.17 ms in
//   the app, mostly shaping) and the paint of that line. The document takes the line when it is
//   full, in a frame no other heavy chore took (HeavyFrames). Whatever needs the document whole (focus,
//   a click, a context menu, a selection, a screen reader, a new width or font, flushAll())
//   writes the tail into it first; so do right-to-left text and a document with no paragraph
//   yet (its placeholder would show under the tail);
// - undo/redo is off.
class OutputLayout; // outputlayout.h

class OutputView final : public QPlainTextEdit
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

    void setSoftSplitColumn(int chars) { m_softSplit = qMax(80, chars); }
    int softSplitColumn() const { return m_softSplit; }
    void setMaxBlocks(int blocks) { setMaximumBlockCount(blocks); }
    void setFrameBudget(std::chrono::microseconds budget) { m_budget = budget; }
    std::chrono::microseconds frameBudget() const { return m_budget; }
    // The budget of a frame that starts with more queued than frameBudget() can write.
    void setCatchUpBudget(std::chrono::microseconds budget) { m_catchUpBudget = budget; }
    std::chrono::microseconds catchUpBudget() const { return m_catchUpBudget; }
    // The text as the view shows it: its paragraphs, without the cuts made for the layout's sake
    // (a soft split stays a line break).
    QString shownText() const;
    // The text shown but not in the document yet: the line being written (see above).
    QString tailText() const { return m_tail; }
    // Characters written to the document so far (soft splits not counted).
    qint64 writtenChars() const { return m_written; }

    // Whether a growing paragraph is cut where its last line starts (tests compare with and
    // without).
    void setCutsGrowingParagraphs(bool cut) { m_cutGrowing = cut; }

Q_SIGNALS:
    // A frame's batch went into the document.
    void flushed();

protected:
    void resizeEvent(QResizeEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void focusInEvent(QFocusEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void changeEvent(QEvent *event) override;
    QMimeData *createMimeDataFromSelection() const override;

private:
    // After a write: the last paragraph cut where its last line starts, when it has grown to
    // kSplitLines lines at this width.
    void cutGrowingParagraph();
    // The cut paragraphs joined again (the width changed). Returns where the character at the
    // top of the view went.
    int joinCutParagraphs();
    // The text from `start` to `end` (document positions), without the cuts.
    QString textBetween(int start, int end) const;
    void flushFrame();
    void write(QStringView piece);
    // The tail (outputview_tail.cpp). Whether this frame's text may go to the tail.
    bool tailAllowed() const;
    // Appends soft-split text: what closes a paragraph or fills a line goes into the document,
    // the rest stays in the tail. False (nothing taken) when the document's last paragraph is
    // not one the tail can continue.
    bool appendToTail(const QString &text);
    // The tail written into the document (its last, empty paragraph).
    void commitTail();
    void layoutTail();
    // The tail's full lines into the document, in a frame no other heavy chore took; else
    // m_lineDue, and the next frame tries again.
    void takeFullLines();
    // Where the tail is drawn: the document's last paragraph, in viewport coordinates.
    QRectF tailBlockRect() const;
    // What a change of the tail repaints: its lines and that paragraph (`place`, from
    // tailBlockRect()), across the view.
    QRect tailRect(const QRectF &place) const;
    QString softSplit(QStringView piece);

    QString m_pending;
    qsizetype m_pendingPos = 0; // consumed prefix of m_pending (no O(n) removal per frame)
    int m_lineLength = 0;       // characters in the document's last paragraph
    int m_softSplit = 1000;
    int m_catchUpFrames = 0; // consecutive frames that left a backlog
    std::chrono::microseconds m_budget{1800};
    std::chrono::microseconds m_catchUpBudget{3000};
    double m_nsPerChar = 250.0; // measured while writing; starts cautious
    qint64 m_written = 0;
    OutputLayout *m_layout = nullptr;
    bool m_cutGrowing = true;
    int m_cutWidth = -1; // the viewport's width when paragraphs were cut; -1: none are
    QString m_tail;
    std::unique_ptr<QTextLayout> m_tailLayout; // m_tail laid out as the document would
    struct TailPlace
    {
        struct Key
        {
            int blocks = 0;
            int top = 0;  // the vertical scroll bar's value (the top line)
            int left = 0; // the horizontal one's
            QSize viewport;
            bool operator==(const Key &) const = default;
        };
        Key key;
        QRectF rect;
    };
    mutable std::optional<TailPlace> m_tailPlace; // tailBlockRect(), until something moves it
    bool m_lineDue = false;                       // the tail holds a full line (takeFullLines())
    QTimer m_frameTimer;
    QElapsedTimer m_clock;
};

} // namespace Runwatch
