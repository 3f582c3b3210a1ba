// SPDX-License-Identifier: GPL-3.0-or-later
// The live output view: appends are batched per frame, a backlog is spread over frames within the
// budget, long paragraphs are soft-split, memory is bounded, and it auto-scrolls only when the
// user was at the bottom.
#include "outputview.h"

#include "domain/heavyframes.h"
#include "otherheavychore.h"

#include <QAbstractTextDocumentLayout>
#include <QClipboard>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPaintEvent>
#include <QScreen>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTextBlock>
#include <QTextLayout>
#include <QtTest>

#include <functional>

using namespace Runwatch;
using RunwatchTest::OtherHeavyChore;
using namespace Qt::StringLiterals;

namespace {
// Records the regions a widget paints.
class PaintRecorder final : public QObject
{
public:
    explicit PaintRecorder(QWidget *widget) { widget->installEventFilter(this); }
    QList<QRegion> regions;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint)
            regions.append(static_cast<QPaintEvent *>(event)->region());
        return QObject::eventFilter(watched, event);
    }
};
// An output view in a window whose focus is elsewhere, as in the detail pane while the operator
// works in the list: the view draws a live run's line itself only while it has no focus.
struct ViewInWindow
{
    QWidget window;
    QLineEdit *focus = new QLineEdit;
    OutputView *view = new OutputView;

    ViewInWindow()
    {
        auto *layout = new QHBoxLayout(&window);
        layout->addWidget(focus);
        layout->addWidget(view, 1);
        view->setCursorWidth(0);          // a blinking cursor would differ between two grabs
        view->setSoftSplitColumn(100000); // only the lines under test
        window.resize(560, 260);
    }

    bool showWithText()
    {
        window.show();
        window.activateWindow();
        if (!QTest::qWaitForWindowActive(&window))
            return false;
        focus->setFocus();
        for (int i = 0; i < 40; ++i)
            view->appendText(u"line %1\n"_s.arg(i));
        view->flushAll();
        return !view->hasFocus();
    }

    // What the window shows where the view's text is (its backing store, painted piecemeal).
    QImage shown() const
    {
        const QImage all
            = window.screen()->grabWindow(window.winId()).toImage().convertToFormat(QImage::Format_RGB32);
        return all.copy(QRect(view->viewport()->mapTo(&window, QPoint()), view->viewport()->size()));
    }
    QImage fresh() const { return view->viewport()->grab().toImage().convertToFormat(QImage::Format_RGB32); }
};
} // namespace

class TestOutputView final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Many appends within one frame reach the document in one batch.
    void appendsAreBatchedPerFrame()
    {
        OutputView view;
        view.resize(400, 300);
        view.show();
        QSignalSpy flushed(&view, &OutputView::flushed);
        for (int i = 0; i < 500; ++i)
            view.appendText(u"tok%1 "_s.arg(i));
        QCOMPARE(view.document()->characterCount(), 1); // nothing written yet
        QVERIFY(flushed.wait(1000));
        QCOMPARE(flushed.count(), 1);
        QCOMPARE(view.writtenChars(), qint64(view.toPlainText().remove(u'\n').size()));
        QVERIFY(view.toPlainText().startsWith(u"tok0 tok1 "_s));
        QVERIFY(view.toPlainText().trimmed().endsWith(u"tok499"_s));
    }

    // A paragraph longer than the split column is cut at whitespace; the text itself is intact.
    void longParagraphsAreSoftSplit()
    {
        OutputView view;
        view.setSoftSplitColumn(100);
        QString text;
        for (int i = 0; i < 200; ++i)
            text += u"word%1 "_s.arg(i);
        for (qsizetype at = 0; at < text.size(); at += 37)
            view.appendText(QStringView(text).mid(at, 37));
        view.flushAll();
        const QTextDocument *doc = view.document();
        QVERIFY(doc->blockCount() > 10);
        for (QTextBlock b = doc->begin(); b.isValid(); b = b.next()) {
            QVERIFY2(b.length() - 1 <= 100, qPrintable(b.text()));
            // Cut between words, never inside one.
            QVERIFY2(b.text().isEmpty() || b.text().endsWith(u' ') || !b.next().isValid(),
                     qPrintable(b.text()));
        }
        QCOMPARE(view.toPlainText().remove(u'\n'), text);
        // Real newlines still start paragraphs.
        view.clearOutput();
        view.appendText(u"a\nb\r\nc"_s);
        view.flushAll();
        QCOMPARE(view.toPlainText(), u"a\nb\nc"_s);
    }

    // A huge backlog is written over several frames, each within (about) the budget.
    void backlogRespectsFrameBudget()
    {
        OutputView view;
        view.resize(600, 400);
        view.show();
        view.setFrameBudget(std::chrono::microseconds(1000));
        view.setCatchUpBudget(std::chrono::microseconds(2000));
        QString delta = u"tok "_s;
        for (int i = 0; i < 200000; ++i)
            view.appendText(delta);
        QSignalSpy flushed(&view, &OutputView::flushed);
        QTRY_VERIFY_WITH_TIMEOUT(view.pendingSize() == 0, 30000);
        QVERIFY2(flushed.count() >= 2, "a 800 KB backlog should not go in one frame");
        QCOMPARE(view.writtenChars(), qint64(200000 * delta.size()));
    }

    // The view keeps at most maximumBlockCount paragraphs.
    void memoryIsBounded()
    {
        OutputView view;
        view.setMaxBlocks(50);
        for (int i = 0; i < 500; ++i)
            view.appendText(u"line %1\n"_s.arg(i));
        view.flushAll();
        QVERIFY(view.document()->blockCount() <= 50);
        QVERIFY(view.toPlainText().contains(u"line 499"_s));
        QVERIFY(!view.toPlainText().contains(u"line 10\n"_s));
    }

    // New text scrolls the view only when it was already at the bottom.
    void autoScrollOnlyAtBottom()
    {
        OutputView view;
        view.resize(300, 120);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        for (int i = 0; i < 200; ++i)
            view.appendText(u"line %1\n"_s.arg(i));
        view.flushAll();
        QScrollBar *bar = view.verticalScrollBar();
        QVERIFY(bar->maximum() > 0);
        QVERIFY(view.isAtBottom());
        view.appendText(u"more\n"_s);
        view.flushAll();
        QCOMPARE(bar->value(), bar->maximum()); // followed the tail
        bar->setValue(10);                      // the user scrolled up to read
        view.appendText(u"even more\n"_s);
        view.flushAll();
        QCOMPARE(bar->value(), 10);
        QVERIFY(bar->value() < bar->maximum());
    }

    // A live run grows its last paragraph by a wrapped line several times a second: only that
    // paragraph is repainted (and the bottom line the scroll uncovers), not every visible line,
    // and what the window shows afterwards is exactly a fresh rendering of the text.
    void growingLastParagraphRepaintsItAlone()
    {
        OutputView view;
        view.setCursorWidth(0); // a blinking cursor would differ between two grabs
        view.resize(420, 260);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QWidget *viewport = view.viewport();
        for (int i = 0; i < 40; ++i)
            view.appendText(u"line %1\n"_s.arg(i));
        view.appendText(u"word0 "_s);
        view.flushAll();
        PaintRecorder recorder(viewport);
        QTRY_VERIFY(!recorder.regions.isEmpty());
        QVERIFY(view.isAtBottom());

        // The paragraph's first piece (it is cut where a line starts as it grows).
        const QTextBlock first = view.document()->lastBlock();
        const auto lineCount
            = [&view] { return qRound(view.document()->documentLayout()->documentSize().height()); };
        int lines = lineCount();
        int growths = 0;
        for (int word = 1; growths < 4 && word < 400; ++word) {
            recorder.regions.clear();
            view.appendText(u"word%1 "_s.arg(word));
            view.flushAll();
            QTRY_VERIFY(!recorder.regions.isEmpty());
            if (lineCount() == lines)
                continue;
            lines = lineCount();
            ++growths;
            QVERIFY(view.isAtBottom()); // it followed the new line
            QRegion painted;
            for (const QRegion &region : std::as_const(recorder.regions))
                painted += region;
            // The paragraph's lines and the margin below them, not the 40 lines above.
            // (The top of the paragraph's first line, in viewport coordinates.)
            const QRect block = view.cursorRect(QTextCursor(first)).adjusted(0, -2, 0, 0);
            QVERIFY2(viewport->height() - block.top() < viewport->height() / 2,
                     "the paragraph fills half the view");
            QVERIFY2(painted.boundingRect().top() >= block.top(),
                     qPrintable(u"painted %1 px from y %2 for a paragraph at y %3 (view %4 px)"_s
                                    .arg(painted.boundingRect().height())
                                    .arg(painted.boundingRect().top())
                                    .arg(block.top())
                                    .arg(viewport->height())));
        }
        QCOMPARE(growths, 4);

        // What the window shows (the backing store, painted piecemeal) is a fresh rendering.
        const QImage shown
            = view.screen()->grabWindow(view.winId()).toImage().convertToFormat(QImage::Format_RGB32);
        const QRect area(viewport->mapTo(&view, QPoint()), viewport->size());
        const QImage fresh = viewport->grab().toImage().convertToFormat(QImage::Format_RGB32);
        QCOMPARE(shown.copy(area), fresh);
    }

    // A growing paragraph is cut where its last line starts: the view shows exactly what it
    // would uncut, an append lays out a few lines, not the paragraph; a width change joins the
    // pieces (the two views look alike at the new width too, with the same word at the top);
    // a copied selection has no break at a cut.
    void growingParagraphIsCutWhereALineStarts()
    {
        OutputView cut;
        OutputView whole;
        whole.setCutsGrowingParagraphs(false);
        for (OutputView *view : {&cut, &whole}) {
            view->setCursorWidth(0);
            view->setSoftSplitColumn(100000); // only the cuts under test
            view->resize(420, 260);
            view->show();
            QVERIFY(QTest::qWaitForWindowExposed(view));
            for (int i = 0; i < 30; ++i)
                view->appendText(u"line %1\n"_s.arg(i));
            view->flushAll();
        }
        int mostLines = 0;
        for (int word = 0; word < 400; ++word) {
            for (OutputView *view : {&cut, &whole}) {
                view->appendText(u"word%1 "_s.arg(word));
                view->flushAll();
            }
            mostLines = qMax(mostLines, cut.document()->lastBlock().layout()->lineCount());
        }
        QCOMPARE(cut.toPlainText().remove(u'\n'), whole.toPlainText().remove(u'\n'));
        QCOMPARE(cut.shownText(), whole.toPlainText());
        QVERIFY2(cut.document()->blockCount() > whole.document()->blockCount() + 10,
                 qPrintable(u"%1 blocks cut, %2 whole"_s.arg(cut.document()->blockCount())
                                .arg(whole.document()->blockCount())));
        QVERIFY2(mostLines <= 3, qPrintable(u"%1 lines laid out again"_s.arg(mostLines)));
        QVERIFY(whole.document()->lastBlock().layout()->lineCount() > 20);
        // (The scroll bars came up meanwhile, narrowing the text: the cut view joined and cut
        // again, and kept to the bottom; the plain view stayed where its top line was.)
        QTRY_COMPARE(whole.viewport()->width(), cut.viewport()->width());
        for (OutputView *view : {&cut, &whole})
            view->verticalScrollBar()->setValue(view->verticalScrollBar()->maximum());
        // Each view's lines as laid out: the same words on each line, the pieces' as the whole
        // paragraph's. (Not the same pixels: a line inside a block sits at a fractional offset
        // that a piece's first line does not, a pixel apart at most.)
        const auto lines = [](const OutputView &view) {
            QStringList out;
            for (QTextBlock block = view.document()->firstBlock(); block.isValid(); block = block.next()) {
                view.document()->documentLayout()->blockBoundingRect(block); // laid out if it was not
                const QTextLayout *layout = block.layout();
                for (int i = 0; i < layout->lineCount(); ++i)
                    out << block.text().mid(layout->lineAt(i).textStart(), layout->lineAt(i).textLength());
            }
            return out;
        };
        const auto looksAlike = [&] {
            const QStringList a = lines(cut);
            const QStringList b = lines(whole);
            for (qsizetype i = 0; i < qMin(a.size(), b.size()); ++i) {
                if (a.at(i) != b.at(i)) {
                    qWarning() << "line" << i << "cut:" << a.at(i) << "whole:" << b.at(i);
                    return false;
                }
            }
            return a.size() == b.size();
        };
        QVERIFY(looksAlike());

        // Scrolled up into the paragraph, then wider: the same word stays at the top.
        for (OutputView *view : {&cut, &whole})
            view->verticalScrollBar()->setValue(view->verticalScrollBar()->maximum() - 12);
        const auto topWord = [](OutputView &view) {
            QTextCursor at = view.cursorForPosition(QPoint(12, 6));
            at.select(QTextCursor::WordUnderCursor);
            return at.selectedText();
        };
        QCOMPARE(topWord(cut), topWord(whole));
        const QString before = topWord(cut);
        for (OutputView *view : {&cut, &whole})
            view->resize(560, 260);
        QTRY_COMPARE(cut.document()->blockCount(), whole.document()->blockCount());
        QCOMPARE(cut.toPlainText(), whole.toPlainText());
        QCOMPARE(cut.shownText(), whole.toPlainText());
        // (Wider lines: the word is on the top line, which may start a few words earlier.)
        const QTextCursor top = cut.cursorForPosition(QPoint(12, 6));
        const QTextLine topLine = top.block().layout()->lineForTextPosition(top.positionInBlock());
        QVERIFY2(top.block().text().mid(topLine.textStart(), topLine.textLength()).contains(before),
                 qPrintable(top.block().text().mid(topLine.textStart(), topLine.textLength())));
        QVERIFY(looksAlike());

        // More text at the new width is cut again, and still looks as it would whole.
        for (OutputView *view : {&cut, &whole}) {
            view->verticalScrollBar()->setValue(view->verticalScrollBar()->maximum());
            for (int word = 400; word < 520; ++word)
                view->appendText(u"word%1 "_s.arg(word));
            view->flushAll();
        }
        QVERIFY(cut.document()->blockCount() > whole.document()->blockCount());
        QVERIFY(looksAlike());

        // A selection across the cuts copies as one paragraph.
        cut.selectAll();
        cut.copy();
        QCOMPARE(QGuiApplication::clipboard()->text(), whole.toPlainText());
    }

    // A live run's line stays out of the document until it is full or closed: the view draws it
    // where the document's last, empty paragraph holds its place, and each append repaints that
    // line alone. A full line goes into the document as a piece of its own; a line break closes
    // the paragraph without repainting the lines above; the view follows the end; what the window
    // shows is what the document draws once it has the line.
    void liveLineIsDrawnByTheView()
    {
        ViewInWindow w;
        QVERIFY(w.showWithText());
        OutputView &view = *w.view;
        // The 40 lines brought the scroll bar up, narrowing the text: painted now rather than with
        // the first word.
        QTRY_VERIFY(view.verticalScrollBar()->isVisible());
        QCoreApplication::sendPostedEvents();
        view.viewport()->repaint();
        PaintRecorder recorder(view.viewport());
        QSignalSpy flushed(&view, &OutputView::flushed);
        QString streamed = view.shownText();
        const int blocksAtStart = view.document()->blockCount();
        // A frame repaints a few lines at the end (the tail's; a line the document took; the line
        // scrolled in), not the view.
        const int fewLines
            = 5 * view.fontMetrics().lineSpacing() + 2 * int(view.document()->documentMargin());
        QVERIFY(view.viewport()->height() > 2 * fewLines);
        bool sawTail = false;
        for (int word = 0; word < 150; ++word) {
            const QString text = word % 40 == 39 ? u"end%1\n"_s.arg(word) : u"word%1 "_s.arg(word);
            recorder.regions.clear();
            view.appendText(text);
            streamed += text;
            QVERIFY(flushed.wait(1000));
            QCOMPARE(view.shownText(), streamed);
            // The document's last paragraph is the empty one the tail is drawn in.
            QCOMPARE(view.document()->lastBlock().length(), 1);
            sawTail = sawTail || !view.tailText().isEmpty();
            // The frame's repaint, now (the window's update request follows the frame's writing).
            QCoreApplication::sendPostedEvents(&w.window, QEvent::UpdateRequest);
            QVERIFY2(!recorder.regions.isEmpty(), qPrintable(u"nothing painted after "_s + text));
            QRegion painted;
            for (const QRegion &region : std::as_const(recorder.regions))
                painted += region;
            QVERIFY2(painted.boundingRect().height() <= fewLines,
                     qPrintable(u"after %1: painted %2 px of a %3 px view"_s.arg(text)
                                    .arg(painted.boundingRect().height())
                                    .arg(view.viewport()->height())));
            QVERIFY(view.isAtBottom());
        }
        QVERIFY(sawTail);
        // Full lines went into the document as they filled, each a piece of the paragraph.
        QVERIFY2(
            view.document()->blockCount() > blocksAtStart + 10,
            qPrintable(u"%1 paragraphs, %2 before"_s.arg(view.document()->blockCount()).arg(blocksAtStart)));
        QTRY_COMPARE(view.verticalScrollBar()->value(), view.verticalScrollBar()->maximum());
        QCoreApplication::sendPostedEvents(&w.window, QEvent::UpdateRequest);
        const QImage shown = w.shown();
        view.flushAll(); // the document takes the tail
        QVERIFY(view.tailText().isEmpty());
        QCOMPARE(view.shownText(), streamed);
        QCOMPARE(shown, w.fresh());
    }

    // The tail is drawn where the document's last paragraph is now, after whatever moved it
    // without writing the tail: the operator scrolling (the scroll bar, no focus), a new
    // height, the oldest paragraphs dropped (the maximum block count).
    void liveLineFollowsItsPlace()
    {
        ViewInWindow w;
        QVERIFY(w.showWithText());
        OutputView &view = *w.view;
        QTRY_VERIFY(view.verticalScrollBar()->isVisible());
        QSignalSpy flushed(&view, &OutputView::flushed);
        const QList<std::pair<QString, std::function<void()>>> moves = {
            {u"scrolled up"_s,
             [&] { view.verticalScrollBar()->setValue(view.verticalScrollBar()->maximum() - 2); }},
            {u"scrolled back"_s,
             [&] { view.verticalScrollBar()->setValue(view.verticalScrollBar()->maximum()); }},
            {u"taller"_s, [&] { w.window.resize(w.window.width(), w.window.height() + 37); }},
            {u"shorter"_s, [&] { w.window.resize(w.window.width(), w.window.height() - 61); }},
            {u"oldest dropped"_s, [&] { view.setMaxBlocks(view.document()->blockCount() - 5); }},
        };
        for (const auto &[what, move] : moves) {
            view.appendText(u"tail "_s);
            QVERIFY(flushed.wait(1000));
            QVERIFY2(!view.tailText().isEmpty(), qPrintable(what));
            QCoreApplication::sendPostedEvents(&w.window, QEvent::UpdateRequest); // its place known
            move();
            QCoreApplication::sendPostedEvents();
            QVERIFY2(!view.tailText().isEmpty(), qPrintable(what)); // the move left the tail alone
            // The next append repaints the tail, at the place it looks up.
            view.appendText(u"more "_s);
            QVERIFY(flushed.wait(1000));
            QCoreApplication::sendPostedEvents(&w.window, QEvent::UpdateRequest);
            const QImage shown = w.shown();
            view.flushAll(); // the document takes the tail, where the view drew it
            QVERIFY2(view.tailText().isEmpty(), qPrintable(what));
            QVERIFY2(shown == w.fresh(), qPrintable(what));
        }
    }

    // Whatever needs the document whole gets it: focus (the operator's cursor and selection), a
    // click, a new width; while the view has focus, text goes straight into the document.
    void operatorGetsTheWholeDocument()
    {
        ViewInWindow w;
        QVERIFY(w.showWithText());
        OutputView &view = *w.view;
        QSignalSpy flushed(&view, &OutputView::flushed);
        const auto stream = [&](const QString &text) {
            view.appendText(text);
            return flushed.wait(1000);
        };
        const auto documentEndsWith = [&](const QString &text) { return view.toPlainText().endsWith(text); };

        QVERIFY(stream(u"alpha beta "_s));
        QCOMPARE(view.tailText(), u"alpha beta "_s);
        view.setFocus();
        QTRY_VERIFY(view.hasFocus());
        QVERIFY(view.tailText().isEmpty());
        QVERIFY(documentEndsWith(u"alpha beta "_s));
        QVERIFY(stream(u"gamma "_s));
        QVERIFY(view.tailText().isEmpty());
        QVERIFY(documentEndsWith(u"alpha beta gamma "_s));

        w.focus->setFocus();
        QTRY_VERIFY(!view.hasFocus());
        QVERIFY(stream(u"delta\nepsilon "_s));
        QCOMPARE(view.tailText(), u"epsilon "_s);
        QTest::mousePress(view.viewport(), Qt::LeftButton, {}, QPoint(20, 20));
        QVERIFY(view.tailText().isEmpty());
        QVERIFY(documentEndsWith(u"delta\nepsilon "_s));
        QTest::mouseRelease(view.viewport(), Qt::LeftButton, {}, QPoint(20, 20));

        w.focus->setFocus();
        QTRY_VERIFY(!view.hasFocus());
        QVERIFY(stream(u"zeta "_s));
        QCOMPARE(view.tailText(), u"epsilon zeta "_s);
        w.window.resize(w.window.width() + 80, w.window.height());
        QTRY_VERIFY(view.tailText().isEmpty());
        QVERIFY(documentEndsWith(u"epsilon zeta "_s));
        QCOMPARE(view.shownText(), view.toPlainText());
    }

    // Taking a full line into the document (and the scroll after it) is a heavy chore: it takes a
    // frame no other heavy chore took (HeavyFrames); meanwhile the tail holds the line, and the
    // text shown stays whole.
    void aFullLineTakesAFrameOfItsOwn()
    {
        ViewInWindow w;
        QVERIFY(w.showWithText());
        OutputView &view = *w.view;
        OtherHeavyChore other;
        QList<qint64> taken;
        connect(view.document(), &QTextDocument::blockCountChanged, this, [&] { taken << other.now(); });
        QString streamed = view.shownText();
        QSignalSpy flushed(&view, &OutputView::flushed);
        for (int word = 0; word < 120; ++word) {
            const QString text = u"word%1 "_s.arg(word);
            view.appendText(text);
            streamed += text;
            QVERIFY(flushed.wait(1000));
            QCOMPARE(view.shownText(), streamed);
        }
        QTRY_VERIFY(view.tailText().size() < 60); // the last full line taken too
        other.stop();
        QVERIFY2(taken.size() >= 5, qPrintable(QString::number(taken.size())));
        QVERIFY(other.claims() > 20);
        for (const qint64 take : std::as_const(taken)) {
            QVERIFY2(other.sinceItsFrame(take) >= HeavyFrames::kFrame.count() - 1,
                     qPrintable(u"a line taken %1 ms after another chore's frame began"_s.arg(
                         other.sinceItsFrame(take))));
        }
        QCOMPARE(view.shownText(), streamed);
    }

    // A line that reads right to left goes into the document at once: its direction is the
    // paragraph's to decide.
    void rightToLeftLineGoesToTheDocument()
    {
        ViewInWindow w;
        QVERIFY(w.showWithText());
        QSignalSpy flushed(w.view, &OutputView::flushed);
        w.view->appendText(u"word "_s);
        QVERIFY(flushed.wait(1000));
        QCOMPARE(w.view->tailText(), u"word "_s);
        w.view->appendText(u"\u05e9\u05dc\u05d5\u05dd "_s);
        QVERIFY(flushed.wait(1000));
        QVERIFY(w.view->tailText().isEmpty());
        QVERIFY(w.view->toPlainText().endsWith(u"word \u05e9\u05dc\u05d5\u05dd "_s));
    }

    // A paragraph that reads right to left anywhere is left whole: a piece of it would take a
    // direction of its own.
    void rightToLeftParagraphIsLeftWhole()
    {
        OutputView view;
        view.resize(420, 260);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setSoftSplitColumn(100000);
        for (int word = 0; word < 200; ++word)
            view.appendText(word == 3 ? u"\u05e9\u05dc\u05d5\u05dd "_s : u"word%1 "_s.arg(word));
        view.flushAll();
        QCOMPARE(view.document()->blockCount(), 1);
    }

    // setText() replaces everything, drops what was queued and shows the tail.
    void setTextReplaces()
    {
        OutputView view;
        view.appendText(u"stale"_s);
        view.setText(u"fresh"_s);
        QCOMPARE(view.toPlainText(), u"fresh"_s);
        QCOMPARE(view.pendingSize(), 0);
        QVERIFY(view.isUndoRedoEnabled() == false);
        QVERIFY(view.isReadOnly());
    }
};

QTEST_MAIN(TestOutputView)
#include "tst_outputview.moc"
