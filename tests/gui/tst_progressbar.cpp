// SPDX-License-Identifier: GPL-3.0-or-later
// A jobs run against the jobs simulator reports progress (events at each quarter) and an
// estimated duration: the run list's status cell paints a progress bar of that fraction, the
// detail pane shows a progress bar and an ETA, and both go away when the job has finished.
#include "detailpane.h"
#include "domain/runprogress.h"
#include "mainwindow.h"
#include "models/runfilterproxy.h"
#include "models/runformat.h"
#include "models/runlistmodel.h"
#include "runtableview.h"
#include "statusstyle.h"
#include "uitesthelpers.h"

#include <QLabel>
#include <QPainter>
#include <QProgressBar>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kWait = 30000;
} // namespace

class TestProgressBar final : public QObject
{
    Q_OBJECT

    // How many pixels of the status cell's bottom bar have the badge's accent colour.
    static int paintedBarWidth(RunTableView *table, const QModelIndex &index, const QColor &accent,
                               int *cellWidth)
    {
        QStyleOptionViewItem option;
        option.initFrom(table->viewport());
        option.rect = QRect(QPoint(0, 0), table->visualRect(index).size());
        option.widget = table;
        option.state &= ~QStyle::State_Selected;
        QImage image(option.rect.size(), QImage::Format_ARGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        table->itemDelegateForIndex(index)->paint(&painter, option, index);
        painter.end();
        *cellWidth = option.rect.width();
        // The bar lies along the bottom edge of the badge area (2 px inside the cell).
        const int y = option.rect.bottom() - 3;
        int count = 0;
        for (int x = 0; x < image.width(); ++x) {
            if (image.pixelColor(x, y).rgb() == accent.rgb())
                ++count;
        }
        return count;
    }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }

    void jobsProgressBarAndEta()
    {
        Engine engine;
        MainWindow window(&engine.manager);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        // 400 steps of 20 ms: progress events at 25, 50 and 75 %, an estimate of 8 s.
        const QString id = engine.start(kJobs, u"normal deltas=400 interval_ms=20"_s);
        QTRY_VERIFY(window.activateRun(id));
        QTRY_VERIFY_WITH_TIMEOUT(
            engine.manager.run(id)->token.extra.contains(u"estimated_duration_seconds"_s), kWait);
        QCOMPARE(engine.manager.run(id)->token.extra.value(u"estimated_duration_seconds"_s).toDouble(), 8.0);

        QProgressBar *bar = window.detailPane()->progressBar();
        QTRY_VERIFY_WITH_TIMEOUT(bar->isVisible() && bar->value() >= 250, kWait);
        const Run *run = engine.manager.run(id);
        QVERIFY(!run->isTerminal());
        const double fraction = *reportedProgress(*run);
        QVERIFY(fraction >= 0.25 && fraction < 1.0);
        QCOMPARE(bar->value(), qRound(fraction * 1000));
        QVERIFY2(window.detailPane()->etaLabel()->text().contains(u"left"_s)
                     || window.detailPane()->etaLabel()->text() == u"finishing"_s,
                 qPrintable(window.detailPane()->etaLabel()->text()));

        // The list: the model's roles and the bar the status cell paints.
        RunListModel *model = window.runModel();
        model->flush();
        const QModelIndex cell = model->index(model->rowOf(id), StatusColumn);
        QTRY_VERIFY(model->data(cell, RunListModel::ProgressRole).isValid());
        const double shown = model->data(cell, RunListModel::ProgressRole).toDouble();
        QVERIFY(shown >= 0.25 && shown < 1.0);
        QVERIFY(model->data(cell, RunListModel::EtaRole).toDateTime().isValid());
        QVERIFY(model->data(cell, Qt::ToolTipRole).toString().contains(u"% done"_s));
        const QModelIndex viewCell = window.proxy()->mapFromSource(cell);
        const QColor accent
            = badgeStyle(RunStatus::InProgress, false, false, isDarkPalette(window.palette())).accent;
        int width = 0;
        const int painted = paintedBarWidth(window.table(), viewCell, accent, &width);
        // The filled part is the fraction of the track (the cell less 10 px of margins).
        const int track = width - 10;
        const double paintedFraction = double(painted) / track;
        QVERIFY2(paintedFraction > 0.2 && paintedFraction < 1.0,
                 qPrintable(u"painted %1 of %2"_s.arg(painted).arg(track)));

        // Finished: no bar in either place.
        QTRY_VERIFY_WITH_TIMEOUT(engine.manager.run(id)->status == RunStatus::Completed, kWait);
        QTRY_VERIFY(!bar->isVisible());
        model->flush();
        QVERIFY(
            !model->data(model->index(model->rowOf(id), StatusColumn), RunListModel::ProgressRole).isValid());
        QCOMPARE(paintedBarWidth(window.table(),
                                 window.proxy()->mapFromSource(model->index(model->rowOf(id), StatusColumn)),
                                 accent, &width),
                 0);
        Engine::stopAll(&engine.manager);
    }
};

QTEST_MAIN(TestProgressBar)
#include "tst_progressbar.moc"
