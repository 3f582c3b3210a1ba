// SPDX-License-Identifier: GPL-3.0-or-later
#include "outputview.h"

#include "outputcuts.h"
#include "outputlayout.h"
#include "quietscrollbar.h"

#include <QMimeData>
#include <QPlainTextDocumentLayout>
#include <QResizeEvent>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Bounds of one frame's batch. Within them the batch is sized from the measured cost per
// character, so a frame ends close to its budget instead of overshooting it.
constexpr qsizetype kMinPiece = 1024;
constexpr qsizetype kMaxPiece = 256 * 1024;
constexpr int kPaintEveryNthCatchUpFrame = 4;
// How far back a soft split looks for whitespace before it cuts a word.
constexpr int kSplitLookBack = 120;
// The lines a growing paragraph reaches before it is cut where its last line starts.
constexpr int kSplitLines = 3;
} // namespace

bool OutputCuts::readsRightToLeft(QStringView text)
{
    return std::any_of(text.begin(), text.end(), [](QChar c) {
        switch (c.direction()) {
        case QChar::DirR:
        case QChar::DirAL:
        case QChar::DirRLE:
        case QChar::DirRLO:
        case QChar::DirRLI:
            return true;
        default:
            return false;
        }
    });
}

using OutputCuts::kCutContinues;
using OutputCuts::readsRightToLeft;

OutputView::OutputView(QWidget *parent)
    : QPlainTextEdit(parent)
{
    setVerticalScrollBar(new QuietScrollBar(Qt::Vertical, this));
    auto *doc = new QTextDocument(this);
    m_layout = new OutputLayout(doc);
    m_layout->setPaintDevice(viewport());
    doc->setDocumentLayout(m_layout);
    doc->setDefaultFont(font());
    setDocument(doc);
    setReadOnly(true);
    setUndoRedoEnabled(false);
    setMaximumBlockCount(20000);
    setLineWrapMode(QPlainTextEdit::WidgetWidth);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    document()->setDocumentMargin(10);
    m_frameTimer.setObjectName(u"outputFrame"_s);
    m_frameTimer.setSingleShot(true);
    m_frameTimer.setInterval(16);
    m_frameTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_frameTimer, &QTimer::timeout, this, &OutputView::flushFrame);
    // What moves the tail's place without changing tailBlockRect()'s key: an edit, a relayout.
    connect(doc, &QTextDocument::contentsChange, this, [this] { m_tailPlace.reset(); });
    connect(m_layout, &QAbstractTextDocumentLayout::update, this, [this] { m_tailPlace.reset(); });
}

OutputView::~OutputView() = default;

bool OutputView::isAtBottom() const
{
    const QScrollBar *bar = verticalScrollBar();
    return bar->value() >= bar->maximum();
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
    // A freshly selected run shows its tail: start at the bottom.
    flushFrame();
    verticalScrollBar()->setValue(verticalScrollBar()->maximum());
}

void OutputView::clearOutput()
{
    m_frameTimer.stop();
    m_pending.clear();
    m_pendingPos = 0;
    m_tail.clear();
    m_tailLayout.reset();
    m_lineDue = false;
    clear();
    m_cutWidth = -1;
    m_lineLength = 0;
    m_written = 0;
    m_catchUpFrames = 0;
    viewport()->setUpdatesEnabled(true);
}

QString OutputView::softSplit(QStringView piece)
{
    QString out;
    out.reserve(piece.size() + piece.size() / m_softSplit + 2);
    qsizetype i = 0;
    while (i < piece.size()) {
        const qsizetype nl = piece.indexOf(u'\n', i);
        const qsizetype segEnd = nl < 0 ? piece.size() : nl;
        // Cut the segment into parts that keep the trailing paragraph short.
        while (segEnd - i > m_softSplit - m_lineLength) {
            qsizetype cut = i + qMax(1, m_softSplit - m_lineLength);
            const qsizetype floor = qMax(i, cut - kSplitLookBack);
            qsizetype ws = cut;
            while (ws > floor && !piece.at(ws - 1).isSpace())
                --ws;
            if (ws > floor)
                cut = ws;
            out.append(piece.mid(i, cut - i));
            out.append(u'\n');
            m_lineLength = 0;
            i = cut;
        }
        out.append(piece.mid(i, segEnd - i));
        m_lineLength += int(segEnd - i);
        i = segEnd;
        if (nl >= 0) {
            out.append(u'\n');
            m_lineLength = 0;
            i = nl + 1;
        }
    }
    out.remove(u'\r');
    return out;
}

void OutputView::write(QStringView piece)
{
    QTextCursor cursor(document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText(softSplit(piece));
    m_written += piece.size();
}

void OutputView::flushFrame()
{
    if (pendingSize() <= 0) {
        if (m_lineDue) {
            const bool stick = isAtBottom();
            takeFullLines();
            if (stick)
                verticalScrollBar()->setValue(verticalScrollBar()->maximum());
        }
        return;
    }
    const bool stick = isAtBottom();
    // How much fits in this frame's budget at the cost per character measured so far. The
    // whole batch goes in as one edit block, so the document lays it out (and recounts its
    // lines, which walks every paragraph) once per frame rather than once per piece.
    const double nsPerChar = qMax(m_nsPerChar, 1.0);
    const auto budgeted = qsizetype(double(std::chrono::nanoseconds(m_budget).count()) / nsPerChar);
    qsizetype quota = budgeted;
    if (pendingSize() > quota)
        quota = qsizetype(double(std::chrono::nanoseconds(m_catchUpBudget).count()) / nsPerChar);
    const qsizetype n = qMin(qBound(kMinPiece, quota, kMaxPiece), pendingSize());
    const QStringView piece = QStringView(m_pending).mid(m_pendingPos, n);
    // A live run's few characters a frame go to the tail; a catch-up goes to the document.
    bool tailed = false;
    if (n == pendingSize() && n <= budgeted && tailAllowed()) {
        const int lineLength = m_lineLength; // softSplit() moves it on: restored if not taken
        tailed = appendToTail(softSplit(piece));
        if (tailed) {
            m_written += piece.size();
        } else {
            m_lineLength = lineLength;
        }
    }
    if (!tailed) {
        commitTail();
        m_clock.start();
        QTextCursor block(document());
        block.beginEditBlock();
        write(piece);
        block.endEditBlock();
        cutGrowingParagraph();
        const qint64 spent = m_clock.nsecsElapsed();
        if (n >= kMinPiece)
            m_nsPerChar = 0.5 * m_nsPerChar + 0.5 * double(spent) / double(n);
    }
    m_pendingPos += n;
    if (pendingSize() == 0) {
        m_pending.clear();
        m_pendingPos = 0;
    } else if (m_pendingPos > kMaxPiece) {
        m_pending.remove(0, m_pendingPos);
        m_pendingPos = 0;
    }
    if (stick)
        verticalScrollBar()->setValue(verticalScrollBar()->maximum());
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
    const bool stick = isAtBottom();
    commitTail();
    QTextCursor block(document());
    block.beginEditBlock();
    write(QStringView(m_pending).mid(m_pendingPos));
    block.endEditBlock();
    cutGrowingParagraph();
    m_pending.clear();
    m_pendingPos = 0;
    m_catchUpFrames = 0;
    viewport()->setUpdatesEnabled(true);
    if (stick)
        verticalScrollBar()->setValue(verticalScrollBar()->maximum());
    Q_EMIT flushed();
}

void OutputView::cutGrowingParagraph()
{
    if (!m_cutGrowing || !isVisible() || viewport()->width() <= 0)
        return;
    if (m_cutWidth >= 0 && m_cutWidth != viewport()->width())
        joinCutParagraphs(); // pieces cut at another width would break early at this one
    const QTextBlock last = document()->lastBlock();
    const QTextLayout *layout = last.layout();
    if (!layout || layout->lineCount() < kSplitLines)
        return;
    const int start = layout->lineAt(layout->lineCount() - 1).textStart();
    if (start <= 0 || readsRightToLeft(last.text()))
        return;
    // Where the last line starts, the lines before it break as they did: the text looks the
    // same, and the next appends lay out one line instead of the whole paragraph.
    QTextCursor cursor(document());
    cursor.setPosition(last.position() + start);
    m_layout->cutAt(cursor);
    document()->lastBlock().setUserState(kCutContinues);
    m_cutWidth = viewport()->width();
}

int OutputView::joinCutParagraphs()
{
    m_cutWidth = -1;
    // The character at the top of the view stays there; each separator removed before it moves
    // it one back.
    int top = firstVisibleBlock().position();
    if (const QTextLayout *layout = firstVisibleBlock().layout(); layout && layout->lineCount() > 0) {
        const int line = qBound(0, verticalScrollBar()->value() - firstVisibleBlock().firstLineNumber(),
                                layout->lineCount() - 1);
        top += layout->lineAt(line).textStart();
    }
    const int topBefore = top;
    QTextCursor cursor(document());
    cursor.beginEditBlock();
    for (QTextBlock block = document()->lastBlock(); block.isValid();) {
        const QTextBlock before = block.previous();
        if (block.userState() == kCutContinues && before.isValid()) {
            const int separator = block.position() - 1;
            // The joined block is the first piece's: its mark (not the second's) carries on.
            const int state = before.userState();
            cursor.setPosition(separator);
            cursor.deleteChar();
            cursor.block().setUserState(state);
            if (separator < topBefore)
                --top;
        }
        block = before;
    }
    cursor.endEditBlock();
    return top;
}

void OutputView::resizeEvent(QResizeEvent *event)
{
    if (event->size().width() != event->oldSize().width())
        commitTail(); // laid out for the old width
    const bool join = m_cutWidth >= 0 && event->size().width() != event->oldSize().width();
    const bool stick = isAtBottom();
    const int top = join ? joinCutParagraphs() : 0;
    QPlainTextEdit::resizeEvent(event);
    if (!join)
        return;
    if (stick) {
        verticalScrollBar()->setValue(verticalScrollBar()->maximum());
        return;
    }
    const QTextBlock block = document()->findBlock(top);
    const QTextLayout *layout = block.layout();
    if (!block.isValid() || !layout || layout->lineCount() == 0)
        return;
    const QTextLine line = layout->lineForTextPosition(top - block.position());
    verticalScrollBar()->setValue(block.firstLineNumber() + (line.isValid() ? line.lineNumber() : 0));
}

QString OutputView::textBetween(int start, int end) const
{
    QString text;
    for (QTextBlock block = document()->findBlock(start); block.isValid() && block.position() <= end;
         block = block.next()) {
        if (block.position() > start && block.userState() != kCutContinues)
            text += u'\n';
        const int from = qMax(start, block.position()) - block.position();
        const int to = qMin(end, block.position() + block.length() - 1) - block.position();
        text += QStringView(block.text()).mid(from, qMax(0, to - from));
    }
    return text;
}

QString OutputView::shownText() const
{
    return textBetween(0, document()->characterCount() - 1) + m_tail;
}

QMimeData *OutputView::createMimeDataFromSelection() const
{
    const QTextCursor selection = textCursor();
    auto *data = new QMimeData;
    data->setText(textBetween(selection.selectionStart(), selection.selectionEnd()));
    return data;
}

} // namespace Runwatch
