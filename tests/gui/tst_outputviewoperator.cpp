// SPDX-License-Identifier: GPL-3.0-or-later
// The output view's operator side: the mouse selects (a drag, a word, shift-click), the keys move a
// caret and select, Copy and Select All, the placeholder, and what a screen reader reads
// (tst_announcements reads it over AT-SPI as the text arrives).
#include "outputview.h"

#include "outputviewtesthelpers.h"

#include <QAccessible>
#include <QClipboard>
#include <QScrollBar>
#include <QtTest>

using namespace Runwatch;
using RunwatchTest::ViewInWindow;
using namespace Qt::StringLiterals;

class TestOutputViewOperator final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // either end, PageDown takes the caret and the view down.
    void operatorSelectsAndCopies()
    {
        ViewInWindow w;
        QVERIFY(w.showWithText());
        OutputView &view = *w.view;
        view.verticalScrollBar()->setValue(0);
        QWidget *viewport = view.viewport();
        const int line = view.fontMetrics().lineSpacing();
        // "line 0" at the top, "line 1" below it.
        QTest::mousePress(viewport, Qt::LeftButton, {}, QPoint(11, 10 + line / 2));
        QTest::mouseMove(viewport, QPoint(viewport->width() - 5, 10 + line + line / 2));
        QTest::mouseRelease(viewport, Qt::LeftButton, {},
                            QPoint(viewport->width() - 5, 10 + line + line / 2));
        QCOMPARE(view.selectedText(), u"line 0\nline 1"_s);
        view.setFocus();
        QTRY_VERIFY(view.hasFocus());
        QTest::keySequence(&view, QKeySequence::Copy);
        QCOMPARE(QGuiApplication::clipboard()->text(), u"line 0\nline 1"_s);

        QTest::mouseDClick(viewport, Qt::LeftButton, {}, QPoint(14, 10 + 2 * line + line / 2));
        QCOMPARE(view.selectedText(), u"line"_s);
        QTest::mouseClick(viewport, Qt::LeftButton, Qt::ShiftModifier,
                          QPoint(viewport->width() - 5, 10 + 3 * line + line / 2));
        QCOMPARE(view.selectedText(), u"line 2\nline 3"_s);

        QTest::keySequence(&view, QKeySequence::SelectAll);
        QCOMPARE(view.selectedText(), view.shownText());
        QTest::keySequence(&view, QKeySequence::MoveToEndOfDocument);
        QVERIFY(view.isAtBottom());
        QTest::keySequence(&view, QKeySequence::MoveToStartOfDocument);
        QCOMPARE(view.verticalScrollBar()->value(), 0);
        QTest::keyClick(&view, Qt::Key_PageDown); // the caret a page down, then the view with it
        QTest::keyClick(&view, Qt::Key_PageDown);
        QVERIFY(view.verticalScrollBar()->value() > 3);
        QCOMPARE(w.shown(), w.fresh()); // the caret painted as it is
    }

    // The keys move a caret and select as in any text view (the platform's bindings), across the
    // cuts of a growing paragraph one character at a time; the view keeps the caret on screen.
    void keysMoveTheCaretAndSelect()
    {
        ViewInWindow w;
        QVERIFY(w.showWithText());
        OutputView &view = *w.view;
        for (int word = 0; word < 120; ++word) {
            view.appendText(u"word%1 "_s.arg(word));
            view.flushAll(); // word by word, as a live run: cut where its lines start
        }
        QVERIFY(view.pieceCount() > 45);
        view.setFocus();
        QTRY_VERIFY(view.hasFocus());
        const auto keys = [&view](QKeySequence::StandardKey key, int times = 1) {
            for (int i = 0; i < times; ++i)
                QTest::keySequence(&view, key);
        };
        keys(QKeySequence::MoveToStartOfDocument);
        QCOMPARE(view.caretOffset(), 0);
        QCOMPARE(view.verticalScrollBar()->value(), 0);
        keys(QKeySequence::SelectNextChar, 4);
        QCOMPARE(view.selectedText(), u"line"_s);
        keys(QKeySequence::SelectEndOfLine);
        QCOMPARE(view.selectedText(), u"line 0"_s);
        keys(QKeySequence::SelectNextLine);
        QCOMPARE(view.selectedText(), u"line 0\nline 1"_s);
        keys(QKeySequence::MoveToNextChar); // past the line break: the next line's start
        QVERIFY(!view.hasSelection());
        QCOMPARE(view.shownText().mid(view.caretOffset(), 6), u"line 2"_s);

        // Through the cut paragraph a character at a time, and back.
        const qint64 paragraph = view.shownText().indexOf(u"word0 "_s);
        keys(QKeySequence::MoveToEndOfDocument);
        QCOMPARE(view.caretOffset(), view.characterCount());
        QTRY_VERIFY(view.isAtBottom());
        keys(QKeySequence::MoveToPreviousLine, 3);
        keys(QKeySequence::MoveToStartOfLine);
        const qint64 lineStart = view.caretOffset();
        QVERIFY(lineStart > paragraph);
        keys(QKeySequence::MoveToPreviousChar, 200);
        QCOMPARE(view.caretOffset(), lineStart - 200);
        keys(QKeySequence::MoveToNextChar, 200);
        QCOMPARE(view.caretOffset(), lineStart);
        keys(QKeySequence::SelectPreviousChar, 300);
        QCOMPARE(view.selectedText(), view.shownText().mid(lineStart - 300, 300));

        // A page up from the end: the caret moves a page of lines, and the view shows it.
        keys(QKeySequence::MoveToEndOfDocument);
        keys(QKeySequence::MoveToPreviousPage, 2);
        QVERIFY(view.caretOffset() < view.characterCount());
        QVERIFY(!view.isAtBottom());
        QVERIFY(view.viewport()->rect().contains(view.characterRect(view.caretOffset()).center()));
        QCOMPARE(w.shown(), w.fresh()); // the caret painted as it is
    }

    // A screen reader reads the text, its selection and where a character is (tst_announcements
    // reads it over AT-SPI as the text arrives).
    void screenReaderReadsTheText()
    {
        ViewInWindow w;
        QVERIFY(w.showWithText());
        OutputView &view = *w.view;
        view.appendText(u"last words"_s);
        view.flushAll();
        QAccessibleInterface *iface = QAccessible::queryAccessibleInterface(&view);
        QVERIFY(iface);
        QCOMPARE(iface->role(), QAccessible::EditableText);
        QVERIFY(iface->state().readOnly);
        QAccessibleTextInterface *text = iface->textInterface();
        QVERIFY(text);
        QCOMPARE(text->characterCount(), int(view.shownText().size()));
        QCOMPARE(text->text(0, text->characterCount()), view.shownText());
        QCOMPARE(iface->text(QAccessible::Value), view.shownText());
        const int start = int(view.shownText().indexOf(u"line 39"_s));
        text->setSelection(0, start, start + 7);
        QCOMPARE(view.selectedText(), u"line 39"_s);
        QCOMPARE(text->selectionCount(), 1);
        int a = -1;
        int b = -1;
        text->selection(0, &a, &b);
        QCOMPARE(std::pair(a, b), std::pair(start, start + 7));
        // The last line's first character is on screen, where the view says it is.
        const int last = int(view.shownText().indexOf(u"last words"_s));
        const QRect rect = text->characterRect(last);
        QVERIFY(!rect.isEmpty());
        QCOMPARE(text->offsetAtPoint(rect.center()), last);
    }

    // An empty view shows its placeholder; text replaces it.
    void placeholderWhileEmpty()
    {
        ViewInWindow w;
        w.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        const QImage blank = w.fresh();
        w.view->setPlaceholderText(u"This run produced no output."_s);
        QVERIFY(w.fresh() != blank);
        w.view->setText(u"x"_s);
        QVERIFY(w.fresh() != blank);
        QCOMPARE(w.view->placeholderText(), u"This run produced no output."_s);
    }
};

QTEST_MAIN(TestOutputViewOperator)
#include "tst_outputviewoperator.moc"
