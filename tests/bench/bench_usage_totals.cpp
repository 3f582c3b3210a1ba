// SPDX-License-Identifier: GPL-3.0-or-later
// The status bar's usage totals on a big history: N finished runs with token usage, listed in the
// real window (sorted newest first, as the app shows them), summed by usageTotals() through the
// filter proxy: a full pass unfiltered and filtered (what UsageTotalsLabel does once per
// coalescing interval), and a sort by the cost column.
//
//   bench_usage_totals [runs=100000]

#include "calibration.h"
#include "engine/runmanager.h"
#include "mainwindow.h"
#include "models/runfilterproxy.h"
#include "models/runlistmodel.h"
#include "models/usagetotals.h"
#include "runtableview.h"
#include "usagetotalslabel.h"

#include <QApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {
double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

template<typename F>
double medianMs(int rounds, F &&f)
{
    std::vector<double> ms;
    QElapsedTimer clock;
    for (int i = 0; i < rounds; ++i) {
        clock.start();
        f();
        ms.push_back(double(clock.nsecsElapsed()) / 1e6);
    }
    return median(ms);
}
} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const int runs = app.arguments().value(1, u"100000"_s).toInt();

    RunManager manager;
    const QDateTime base = QDateTime::currentDateTimeUtc().addDays(-30);
    const QStringList models{u"gpt-5"_s, u"gpt-5-mini-2025-08-07"_s, u"o4-deep-research"_s, u"claude-x"_s};
    for (int i = 0; i < runs; ++i) {
        Run r;
        r.localId = u"r%1"_s.arg(i, 6, 10, QChar(u'0'));
        r.connection = u"conn-%1"_s.arg(i % 7);
        r.backend = u"openai"_s;
        r.model = models.at(i % models.size());
        r.title = u"Run %1: summarise incident %2"_s.arg(i).arg(i % 977);
        r.status = RunStatus::Completed;
        r.createdAt = base.addSecs(i * 13);
        r.updatedAt = r.finishedAt = r.createdAt.addSecs(60 + i % 600);
        if (i % 10 != 0) { // one run in ten reported nothing
            r.usage.inputTokens = 500 + i % 4000;
            r.usage.outputTokens = 200 + i % 9000;
            r.usage.reasoningTokens = i % 3 ? -1 : 100;
        }
        manager.adoptRun(std::move(r), false);
    }
    PriceTable prices;
    prices.currency = u"USD"_s;
    prices.prices << ModelPrice{u"gpt-5"_s, 1.25, 10} << ModelPrice{u"gpt-5-mini"_s, 0.25, 2}
                  << ModelPrice{u"o4-deep-research"_s, 2, 8};
    manager.prices()->setTable(prices);

    MainWindow window(&manager);
    window.resize(1366, 768);
    window.show();
    window.runModel()->flush();
    QCoreApplication::processEvents();

    UsageTotals totals;
    const double fullMs = medianMs(21, [&] { totals = usageTotals(window.proxy(), prices); });
    const UsageTotals all = totals;
    const double labelMs = medianMs(21, [&] { window.usageTotals()->recompute(); });
    window.proxy()->setText(u"incident 4"_s);
    const double filteredMs = medianMs(21, [&] { totals = usageTotals(window.proxy(), prices); });
    window.proxy()->setText({});
    window.table()->setColumnHidden(CostColumn, false);
    // Each sort from another column's order, in the real window (proxy, view and header), so the
    // cost column is compared with columns whose values need no pricing.
    const auto timeSort = [&](int column) {
        window.table()->sortByColumn(column == TitleColumn ? StartedColumn : TitleColumn, Qt::AscendingOrder);
        QCoreApplication::processEvents();
        QElapsedTimer clock;
        clock.start();
        window.table()->sortByColumn(column, Qt::DescendingOrder);
        return double(clock.nsecsElapsed()) / 1e6;
    };
    const double sortCostMs = timeSort(CostColumn);
    const double sortTitleMs = timeSort(TitleColumn);
    const double sortStartedMs = timeSort(StartedColumn);

    std::printf("bench_usage_totals: %d runs (%d with usage, %d unpriced)\n", all.runs, all.withUsage,
                all.unpriced);
    RunwatchBench::printCalibration();
    std::printf(
        "totals, full pass through the proxy: median %.1f ms; label recompute (pass + text): %.1f ms\n",
        fullMs, labelMs);
    std::printf("totals, filtered (%d rows): median %.1f ms\n", totals.runs, filteredMs);
    std::printf(
        "sort by the cost column: %.0f ms; by title %.0f ms, by start time %.0f ms (cost / title %.2f)\n",
        sortCostMs, sortTitleMs, sortStartedMs, sortCostMs / sortTitleMs);
    std::printf("totals: %s\n", qPrintable(formatUsageTotals(all, prices.currency)));
    manager.shutdown();
    return 0;
}
