// SPDX-License-Identifier: GPL-3.0-or-later
// The live output view: appends are batched per frame, a backlog is spread over frames within the
// budget, long paragraphs are soft-split, a growing one is cut where its last line starts, memory
// is bounded, it follows the end only when the operator was at the bottom, an append repaints what
// it changed, and what the window shows is a fresh rendering (the operator's side:
// tst_outputviewoperator).
#include "outputview.h"

#include "domain/heavyframes.h"
#include "otherheavychore.h"
#include "outputviewtesthelpers.h"

#include <QClipboard>
#include <QPaintEvent>
#include <QScrollBar>
#include <QSignalSpy>
#include <QtTest>

#include <functional>

using namespace Runwatch;
using RunwatchTest::OtherHeavyChore;
using RunwatchTest::ViewInWindow;
using RunwatchTest::wordAt;
using namespace Qt::StringLiterals;

namespace {
// Records the regions a widget paints.
class PaintRecorder final : public QObject
{
public:
    explicit PaintRecorder(QWidget *widget) { widget->installEventFilter(this); }
    QList<QRegion> regions;
    QRegion painted() const
    {
        QRegion all;
        for (const QRegion &region : regions)
            all += region;
        return all;
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint)
            regions.append(static_cast<QPaintEvent *>(event)->region());
        return QObject::eventFilter(watched, event);
    }
};

} // namespace

class TestOutputView final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Many appends within one frame are written in one batch.
    void appendsAreBatchedPerFrame()
    {
        OutputView view;
        view.resize(400, 300);
        view.show();
        QSignalSpy flushed(&view, &OutputView::flushed);
        for (int i = 0; i < 500; ++i)
            view.appendText(u"tok%1 "_s.arg(i));
        QVERIFY(view.shownText().isEmpty()); // nothing written yet
        QVERIFY(flushed.wait(1000));
        QCOMPARE(flushed.count(), 1);
        QCOMPARE(view.writtenChars(), qint64(view.shownText().remove(u'\n').size()));
        QVERIFY(view.shownText().startsWith(u"tok0 tok1 "_s));
        QVERIFY(view.shownText().endsWith(u"tok499 "_s));
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
        const QStringList paragraphs = view.shownText().split(u'\n');
        QVERIFY(paragraphs.size() > 10);
        for (qsizetype i = 0; i < paragraphs.size(); ++i) {
            QVERIFY2(paragraphs.at(i).size() <= 100, qPrintable(paragraphs.at(i)));
            // Cut between words, never inside one.
            QVERIFY2(paragraphs.at(i).endsWith(u' ') || i == paragraphs.size() - 1,
                     qPrintable(paragraphs.at(i)));
        }
        QCOMPARE(view.shownText().remove(u'\n'), text);
        // Real newlines still start paragraphs.
        view.clearOutput();
        view.appendText(u"a\nb\r\nc"_s);
        view.flushAll();
        QCOMPARE(view.shownText(), u"a\nb\nc"_s);
        QCOMPARE(view.writtenChars(), 6);
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
        QCOMPARE(view.shownText().size(), 200000 * delta.size() + view.shownText().count(u'\n'));
    }

    // A catch-up lays out what it shows, not every paragraph it writes (as QPlainTextEdit does):
    // a paragraph not laid out counts one line until it is drawn or scrolled to, and the view
    // reaches both ends of the text.
    void catchUpLaysOutWhatItShows()
    {
        OutputView view;
        view.resize(300, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QString text;
        for (int i = 0; i < 300; ++i)
            text += u"paragraph %1 is long enough to wrap over several lines at this width\n"_s.arg(i);
        view.appendText(text);
        view.flushAll();
        QTRY_VERIFY(view.isAtBottom());
        const qint64 estimated = view.lineCount();
        QVERIFY2(estimated < 2 * 300, qPrintable(QString::number(estimated))); // most count one line
        const qint64 last = view.characterCount() - 5;
        QVERIFY(view.viewport()->rect().contains(view.characterRect(last)));
        // To the top, a page at a time back down: the pieces shown are laid out as they come.
        view.verticalScrollBar()->triggerAction(QAbstractSlider::SliderToMinimum);
        QCOMPARE(view.offsetAt(QPoint(10, 12)), 0);
        while (!view.isAtBottom())
            view.verticalScrollBar()->triggerAction(QAbstractSlider::SliderPageStepAdd);
        QVERIFY(view.lineCount() > estimated);
        QVERIFY(view.viewport()->rect().contains(view.characterRect(last)));
        const qint64 exact = view.layoutLines().size();
        QCOMPARE(view.lineCount(), exact);
        QVERIFY(exact > 2 * 300);
    }

    // A view not on screen, or a sliver of one, does not cut its growing paragraph: its width is a
    // default or a few characters, and every line a piece would push the oldest text out.
    void hiddenOrNarrowViewDoesNotCut()
    {
        for (const bool shown : {false, true}) {
            OutputView view;
            view.setSoftSplitColumn(100000);
            view.resize(shown ? 60 : 400, 200);
            if (shown) {
                view.show();
                QVERIFY(QTest::qWaitForWindowExposed(&view));
            }
            for (int word = 0; word < 300; ++word) {
                view.appendText(u"word%1 "_s.arg(word));
                view.flushAll();
            }
            QCOMPARE(view.pieceCount(), 1);
            QVERIFY(view.shownText().startsWith(u"word0 "_s));
        }
    }

    // The view keeps at most maxPieces pieces: the oldest go.
    void memoryIsBounded()
    {
        OutputView view;
        view.setMaxPieces(50);
        for (int i = 0; i < 500; ++i)
            view.appendText(u"line %1\n"_s.arg(i));
        view.flushAll();
        QVERIFY(view.pieceCount() <= 50);
        QVERIFY(view.shownText().contains(u"line 499"_s));
        QVERIFY(!view.shownText().contains(u"line 10\n"_s));
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
        QVERIFY(bar->maximum() > 150);
        QVERIFY(view.isAtBottom());
        view.appendText(u"more\n"_s);
        view.flushAll();
        QCOMPARE(bar->value(), bar->maximum()); // followed the end
        bar->setValue(10);                      // the operator scrolled up to read
        view.appendText(u"even more\n"_s);
        view.flushAll();
        QCOMPARE(bar->value(), 10);
        QVERIFY(bar->value() < bar->maximum());
        // Line 10 is the top line now.
        QVERIFY(view.shownText().mid(view.offsetAt(QPoint(10, 4)), 8).startsWith(u"line 10\n"_s));
    }

    // A live run's text, word by word and line by line: each frame repaints a few lines at the end
    // (the line that grew, a line scrolled in), not the view; the view follows the end; full lines
    // are cut off the growing paragraph; what the window shows is a fresh rendering of the text.
    void anAppendRepaintsWhatChanged()
    {
        ViewInWindow w;
        QVERIFY(w.showWithText());
        OutputView &view = *w.view;
        QTRY_VERIFY(view.verticalScrollBar()->isVisible());
        QCoreApplication::sendPostedEvents();
        view.viewport()->repaint();
        PaintRecorder recorder(view.viewport());
        QSignalSpy flushed(&view, &OutputView::flushed);
        QString streamed = view.shownText();
        const qsizetype piecesAtStart = view.pieceCount();
        const int fewLines = 3 * view.fontMetrics().lineSpacing() + 10;
        QVERIFY(view.viewport()->height() > 2 * fewLines);
        for (int word = 0; word < 150; ++word) {
            const QString text = word % 40 == 39 ? u"end%1\n"_s.arg(word) : u"word%1 "_s.arg(word);
            recorder.regions.clear();
            view.appendText(text);
            streamed += text;
            QVERIFY(flushed.wait(1000));
            QCOMPARE(view.shownText(), streamed);
            // The frame's repaint, now (the window's update request follows the frame's writing).
            QCoreApplication::sendPostedEvents(&w.window, QEvent::UpdateRequest);
            QVERIFY2(!recorder.regions.isEmpty(), qPrintable(u"nothing painted after "_s + text));
            const QRect painted = recorder.painted().boundingRect();
            QVERIFY2(painted.height() <= fewLines,
                     qPrintable(u"after %1: painted %2 px of a %3 px view"_s.arg(text)
                                    .arg(painted.height())
                                    .arg(view.viewport()->height())));
            QVERIFY2(painted.bottom() >= view.viewport()->height() - fewLines - 10, "painted at the end");
            QTRY_VERIFY(view.isAtBottom()); // (a scroll may wait a frame: HeavyFrames)
        }
        QVERIFY2(view.pieceCount() > piecesAtStart + 10,
                 qPrintable(u"%1 pieces, %2 before"_s.arg(view.pieceCount()).arg(piecesAtStart)));
        QCOMPARE(w.shown(), w.fresh());
    }

    // A growing paragraph is cut where its last line starts: the view shows exactly what it
    // would uncut, an append lays out a line or two, not the paragraph; a width change joins the
    // pieces (the two views look alike at the new width too, with the same word at the top); a
    // copied selection has no break at a cut.
    void growingParagraphIsCutWhereALineStarts()
    {
        OutputView cut;
        OutputView whole;
        whole.setCutsGrowingParagraphs(false);
        for (OutputView *view : {&cut, &whole}) {
            view->setSoftSplitColumn(100000); // only the cuts under test
            view->resize(420, 260);
            view->show();
            QVERIFY(QTest::qWaitForWindowExposed(view));
            for (int i = 0; i < 30; ++i)
                view->appendText(u"line %1\n"_s.arg(i));
            view->flushAll();
        }
        for (int word = 0; word < 400; ++word) {
            for (OutputView *view : {&cut, &whole}) {
                view->appendText(u"word%1 "_s.arg(word));
                view->flushAll();
            }
        }
        QCOMPARE(cut.shownText(), whole.shownText());
        QVERIFY2(cut.pieceCount() > whole.pieceCount() + 10,
                 qPrintable(u"%1 pieces cut, %2 whole"_s.arg(cut.pieceCount()).arg(whole.pieceCount())));
        QCOMPARE(whole.pieceCount(), 31);
        // (The scroll bars came up meanwhile, narrowing the text: the cut view joined its pieces
        // and cut again as the paragraph grew.)
        QTRY_COMPARE(whole.viewport()->width(), cut.viewport()->width());
        QCOMPARE(cut.lineCount(), whole.lineCount());
        QCOMPARE(cut.layoutLines(), whole.layoutLines());
        for (OutputView *view : {&cut, &whole})
            QVERIFY(view->isAtBottom());

        // Scrolled up into the paragraph, then wider: the same word stays at the top.
        for (OutputView *view : {&cut, &whole})
            view->verticalScrollBar()->setValue(view->verticalScrollBar()->maximum() - 12);
        const auto topWord
            = [](OutputView &view) { return wordAt(view.shownText(), view.offsetAt(QPoint(14, 4))); };
        QCOMPARE(topWord(cut), topWord(whole));
        const QString before = topWord(cut);
        for (OutputView *view : {&cut, &whole})
            view->resize(560, 260);
        QTRY_COMPARE(cut.pieceCount(), whole.pieceCount());
        QCOMPARE(cut.shownText(), whole.shownText());
        QCOMPARE(cut.layoutLines(), whole.layoutLines());
        // (Wider lines: the word is on the top line, which may start a few words earlier.)
        const qint64 top = cut.offsetAt(QPoint(14, 4));
        const QString topLine = cut.shownText().mid(top, 200).section(u"word"_s, 0, 6);
        QVERIFY2(cut.shownText().mid(top - 100, 300).contains(before), qPrintable(topLine));

        // More text at the new width is cut again, and still looks as it would whole.
        for (OutputView *view : {&cut, &whole}) {
            view->verticalScrollBar()->setValue(view->verticalScrollBar()->maximum());
            for (int word = 400; word < 520; ++word)
                view->appendText(u"word%1 "_s.arg(word));
            view->flushAll();
        }
        QVERIFY(cut.pieceCount() > whole.pieceCount());
        QCOMPARE(cut.layoutLines(), whole.layoutLines());

        // A selection across the cuts copies as one paragraph.
        cut.selectAll();
        cut.copy();
        QCOMPARE(QGuiApplication::clipboard()->text(), whole.shownText());
    }

    // What the window shows stays a fresh rendering after whatever moved the text: the operator
    // scrolling, a new height, the oldest pieces dropped, a new width; then more text.
    void shownStaysFreshAfterMoves()
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
            {u"a page up"_s,
             [&] { view.verticalScrollBar()->triggerAction(QAbstractSlider::SliderPageStepSub); }},
            {u"to the end"_s,
             [&] { view.verticalScrollBar()->triggerAction(QAbstractSlider::SliderToMaximum); }},
            {u"taller"_s, [&] { w.window.resize(w.window.width(), w.window.height() + 37); }},
            {u"shorter"_s, [&] { w.window.resize(w.window.width(), w.window.height() - 61); }},
            {u"wider"_s, [&] { w.window.resize(w.window.width() + 53, w.window.height()); }},
            {u"oldest dropped"_s, [&] { view.setMaxPieces(int(view.pieceCount()) - 5); }},
        };
        for (const auto &[what, move] : moves) {
            view.appendText(u"tail words "_s);
            QVERIFY(flushed.wait(1000));
            QCoreApplication::sendPostedEvents(&w.window, QEvent::UpdateRequest);
            move();
            QCoreApplication::sendPostedEvents();
            QVERIFY2(w.shown() == w.fresh(), qPrintable(what));
            view.appendText(u"more words\nand a line "_s);
            QVERIFY(flushed.wait(1000));
            QTRY_VERIFY2(w.shown() == w.fresh(), qPrintable(what));
        }
    }

    // Following a new line (a scroll of the view) is a heavy chore: it takes a frame no other
    // heavy chore took (HeavyFrames); meanwhile the text is whole and the view catches up.
    void followingANewLineTakesAFrameOfItsOwn()
    {
        ViewInWindow w;
        QVERIFY(w.showWithText());
        OutputView &view = *w.view;
        OtherHeavyChore other;
        QList<qint64> scrolled;
        connect(view.verticalScrollBar(), &QScrollBar::valueChanged, this, [&] { scrolled << other.now(); });
        QString streamed = view.shownText();
        QSignalSpy flushed(&view, &OutputView::flushed);
        for (int word = 0; word < 120; ++word) {
            const QString text = u"word%1 "_s.arg(word);
            view.appendText(text);
            streamed += text;
            QVERIFY(flushed.wait(1000));
            QCOMPARE(view.shownText(), streamed);
        }
        QTRY_VERIFY(view.isAtBottom());
        other.stop();
        QVERIFY2(scrolled.size() >= 5, qPrintable(QString::number(scrolled.size())));
        QVERIFY(other.claims() > 20);
        for (const qint64 at : std::as_const(scrolled)) {
            QVERIFY2(other.sinceItsFrame(at) >= HeavyFrames::kFrame.count() - 1,
                     qPrintable(
                         u"scrolled %1 ms after another chore's frame began"_s.arg(other.sinceItsFrame(at))));
        }
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
        for (int word = 0; word < 200; ++word) {
            view.appendText(word == 3 ? u"\u05e9\u05dc\u05d5\u05dd "_s : u"word%1 "_s.arg(word));
            view.flushAll();
        }
        QCOMPARE(view.pieceCount(), 1);
        QVERIFY(view.lineCount() > 10);
    }

    // The operator selects with the mouse (a drag, a double click for a word, shift-click to
    // extend) and copies with the keyboard; Ctrl+A takes everything; Ctrl+End and Ctrl+Home go to
    // setText() replaces everything, drops what was queued and shows the end.
    void setTextReplaces()
    {
        OutputView view;
        view.resize(300, 120);
        view.appendText(u"stale"_s);
        QString lines;
        for (int i = 0; i < 100; ++i)
            lines += u"fresh %1\n"_s.arg(i);
        view.setText(lines);
        QCOMPARE(view.shownText(), lines);
        QCOMPARE(view.pendingSize(), 0);
        QVERIFY(view.isAtBottom());
        QVERIFY(view.verticalScrollBar()->maximum() > 50);
    }
};

QTEST_MAIN(TestOutputView)
#include "tst_outputview.moc"
