// SPDX-License-Identifier: GPL-3.0-or-later
// The output view's scroll bar repaints only when what it shows changes: a view streaming a long
// answer grows its range with every line, and the slider, at its minimum length at the bottom,
// stays where it is. What the window shows is the scroll bar as it is, whatever was skipped.
#include "outputview.h"
#include "quietscrollbar.h"

#include <QScreen>
#include <QScrollBar>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {
QRect sliderRect(QScrollBar *bar)
{
    QStyleOptionSlider option;
    option.initFrom(bar);
    option.subControls = QStyle::SC_None;
    option.activeSubControls = QStyle::SC_None;
    option.orientation = bar->orientation();
    option.minimum = bar->minimum();
    option.maximum = bar->maximum();
    option.sliderPosition = bar->sliderPosition();
    option.sliderValue = bar->value();
    option.singleStep = bar->singleStep();
    option.pageStep = bar->pageStep();
    option.upsideDown = bar->invertedAppearance();
    return bar->style()->subControlRect(QStyle::CC_ScrollBar, &option, QStyle::SC_ScrollBarSlider, bar);
}

// Handles what is posted: the scroll bar's look at the caller's changes (a new range: a frame
// later), then the repaint it asks for (posted in turn).
void settle(const QuietScrollBar &bar)
{
    QTRY_VERIFY(!bar.lookPending());
    for (int i = 0; i < 3; ++i)
        QCoreApplication::processEvents();
}

// `bar` on screen with a range of 0-100, `pageStep` and `value`, its first paint done.
bool shown(QuietScrollBar &bar, int height, int pageStep, int value)
{
    bar.resize(16, height);
    bar.setPageStep(pageStep);
    bar.setRange(0, 100);
    bar.setValue(value);
    bar.show();
    if (!QTest::qWaitForWindowExposed(&bar) || !QTest::qWaitFor([&bar] { return bar.paintCount() > 0; }))
        return false;
    settle(bar);
    return true;
}

// What the window shows of `widget` against a fresh rendering of it.
bool showsFresh(QWidget *window, QWidget *widget)
{
    const QImage shown
        = window->screen()->grabWindow(window->winId()).toImage().convertToFormat(QImage::Format_RGB32);
    const QRect area(widget->mapTo(window, QPoint()), widget->size());
    const QImage fresh = widget->grab().toImage().convertToFormat(QImage::Format_RGB32);
    return shown.copy(area) == fresh;
}
} // namespace

class TestQuietScrollBar final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void repaintsOnlyWhenItsLookChanges()
    {
        QuietScrollBar bar(Qt::Vertical);
        QVERIFY(shown(bar, 600, 50, 100));
        // (showsFresh() renders the bar once more for its comparison: counted from after it.)
        int painted = bar.paintCount();
        // A range that grows at the bottom shortens the slider: a repaint, of the slider's old
        // and new place only, after which the window shows what a whole repaint would.
        const QRect longer = sliderRect(&bar);
        bar.setRange(0, 200);
        bar.setValue(200);
        QVERIFY(sliderRect(&bar) != longer);
        // Not in the frame that grew the range: in the next one.
        QVERIFY(bar.lookPending());
        QCOMPARE(bar.paintCount(), painted);
        QTRY_COMPARE(bar.paintCount(), painted + 1);
        QVERIFY(showsFresh(&bar, &bar));
        settle(bar);
        painted = bar.paintCount();

        // Far past the point where the slider has its minimum length: the same pixels.
        bar.setRange(0, 1'000'000);
        bar.setValue(1'000'000);
        QTRY_COMPARE(bar.paintCount(), painted + 1);
        QVERIFY(showsFresh(&bar, &bar));
        settle(bar);
        painted = bar.paintCount();
        const QRect atBottom = sliderRect(&bar);
        for (int step = 1; step <= 50; ++step) {
            bar.setRange(0, 1'000'000 + step * 20);
            bar.setValue(bar.maximum());
            QCOMPARE(sliderRect(&bar), atBottom);
        }
        settle(bar);
        QCOMPARE(bar.paintCount(), painted);

        // Leaving the end changes the look (the slider moves; the arrow is enabled again).
        bar.setValue(0);
        QTRY_COMPARE(bar.paintCount(), painted + 1);
        QVERIFY(showsFresh(&bar, &bar));
    }

    // Where the style draws the bar alike along its length (Fusion does), a slider that grows
    // shorter or moves repaints only the rows around its old and new ends; the window still
    // shows what a whole repaint would, at every step.
    void repaintsTheRowsAroundTheSlidersEnds()
    {
        QuietScrollBar bar(Qt::Vertical);
        QVERIFY(shown(bar, 700, 100, 50));
        QVERIFY2(bar.repaintsEndsOnly(), qPrintable(bar.style()->name()));
        for (int step = 1; step <= 12; ++step) {
            const QRect before = sliderRect(&bar);
            const int painted = bar.paintCount();
            // The text grew a little (a shorter slider), or the operator scrolled a little.
            if (step % 3 == 0) {
                bar.setValue(bar.value() + 7);
            } else {
                bar.setRange(0, bar.maximum() + 9);
            }
            const QRect after = sliderRect(&bar);
            QVERIFY(after != before);
            QTRY_COMPARE(bar.paintCount(), painted + 1);
            // Two bands of rows around the ends that moved, each a few rows more than the move.
            const QRect covered = bar.lastPaintRegion().boundingRect();
            const int moved = qAbs(after.top() - before.top()) + qAbs(after.bottom() - before.bottom());
            int rows = 0;
            for (const QRect &r : bar.lastPaintRegion())
                rows += r.height();
            QVERIFY2(rows <= moved + 4 * 9,
                     qPrintable(u"%1 rows repainted for a slider that moved %2"_s.arg(rows).arg(moved)));
            QVERIFY(covered.height() > 0);
            QVERIFY(showsFresh(&bar, &bar));
            settle(bar);
        }
    }

    // In the output view: a long answer streaming at the bottom leaves the scroll bar alone, and
    // what the window shows of it is a fresh rendering of the bar as it is.
    void outputViewStreamingAtTheBottom()
    {
        OutputView view;
        view.resize(420, 260);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        auto *bar = qobject_cast<QuietScrollBar *>(view.verticalScrollBar());
        QVERIFY(bar);
        QString lines;
        for (int i = 0; i < 3000; ++i)
            lines += u"line %1\n"_s.arg(i);
        view.appendText(lines);
        view.flushAll();
        QTRY_VERIFY(view.isAtBottom());
        settle(*bar);
        const int before = bar->paintCount();
        for (int i = 0; i < 20; ++i) {
            view.appendText(u"more %1\n"_s.arg(i));
            view.flushAll();
            settle(*bar);
        }
        QVERIFY(view.isAtBottom());
        QCOMPARE(bar->paintCount(), before);
        QVERIFY(showsFresh(&view, bar));
    }
};

QTEST_MAIN(TestQuietScrollBar)
#include "tst_quietscrollbar.moc"
