// SPDX-License-Identifier: GPL-3.0-or-later
// A big history in the real window: N stored runs adopted into the engine, listed, sorted and
// scrolled. Reports the time from "runs known" to a usable, sorted list, the time per scroll
// step (each step repaints the visible rows), filter and re-sort times, and memory.
//
//   bench_table_scroll [runs=100000]

#include "calibration.h"
#include "engine/runmanager.h"
#include "framemeter.h"
#include "mainwindow.h"
#include "models/runfilterproxy.h"
#include "models/runlistmodel.h"
#include "runtableview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QScrollBar>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

long rssMb()
{
    QFile f(u"/proc/self/status"_s);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLong() / 1024;
    }
    return -1;
}

double percentile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(q * double(v.size())))];
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const int runs = app.arguments().value(1, u"100000"_s).toInt();
    const long rssBefore = rssMb();

    RunManager manager;
    const QStringList statuses{u"completed"_s, u"failed"_s, u"cancelled"_s, u"completed"_s, u"incomplete"_s};
    const QDateTime base = QDateTime::currentDateTimeUtc().addDays(-30);
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < runs; ++i) {
        Run r;
        r.localId = u"r%1"_s.arg(i, 6, 10, QChar(u'0'));
        r.remoteId = u"resp_%1"_s.arg(i * 7919, 8, 16, QChar(u'0'));
        r.connection = u"conn-%1"_s.arg(i % 7);
        r.backend = u"openai"_s;
        r.model = i % 3 ? u"gpt-5"_s : u"o4-deep-research"_s;
        r.title = u"Run %1: summarise incident %2 and draft follow-ups"_s.arg(i).arg(i % 977);
        r.status = statusFromName(statuses.at(i % statuses.size()));
        r.createdAt = base.addSecs(i * 13);
        r.updatedAt = r.createdAt.addSecs(60 + i % 600);
        r.finishedAt = r.updatedAt;
        manager.adoptRun(std::move(r), false);
    }
    const double adoptMs = double(clock.nsecsElapsed()) / 1e6;

    clock.restart();
    MainWindow window(&manager);
    window.resize(1440, 860);
    window.show();
    window.runModel()->flush();
    QCoreApplication::processEvents();
    window.table()->viewport()->repaint();
    const double listMs = double(clock.nsecsElapsed()) / 1e6;
    const int rows = window.proxy()->rowCount();

    // Scroll from top to bottom in steps of a third of a page, repainting each step.
    QScrollBar *bar = window.table()->verticalScrollBar();
    const int step = qMax(1, bar->pageStep() / 3);
    std::vector<double> stepMs;
    QElapsedTimer s;
    for (int v = 0; v <= bar->maximum() && stepMs.size() < 3000; v += qMax(step, bar->maximum() / 3000)) {
        s.start();
        const qint64 cpu0 = RunwatchBench::threadCpuNs();
        bar->setValue(v);
        window.table()->viewport()->repaint();
        stepMs.push_back(double(RunwatchBench::threadCpuNs() - cpu0) / 1e6);
    }
    // A repaint of the visible rows alone (what one frame of any update costs).
    std::vector<double> paintMs;
    for (int i = 0; i < 200; ++i) {
        s.start();
        const qint64 cpu0 = RunwatchBench::threadCpuNs();
        window.table()->viewport()->repaint();
        paintMs.push_back(double(RunwatchBench::threadCpuNs() - cpu0) / 1e6);
    }
    // Jumps (Page Down / End / dragging the thumb far).
    std::vector<double> jumpMs;
    for (int i = 0; i < 200; ++i) {
        s.start();
        const qint64 cpu0 = RunwatchBench::threadCpuNs();
        bar->setValue(int(qint64(bar->maximum()) * ((i * 7919) % 1000) / 1000));
        window.table()->viewport()->repaint();
        jumpMs.push_back(double(RunwatchBench::threadCpuNs() - cpu0) / 1e6);
    }

    clock.restart();
    window.table()->sortByColumn(TitleColumn, Qt::AscendingOrder);
    const double sortTitleMs = double(clock.nsecsElapsed()) / 1e6;
    clock.restart();
    window.proxy()->setText(u"incident 42 "_s);
    const double filterMs = double(clock.nsecsElapsed()) / 1e6;
    const int matches = window.proxy()->rowCount();
    clock.restart();
    window.proxy()->setText({});
    const double unfilterMs = double(clock.nsecsElapsed()) / 1e6;

    std::printf("bench_table_scroll: %d runs\n", runs);
    RunwatchBench::printCalibration();
    std::printf("adopt into the engine: %.0f ms; window with the sorted list (newest first) shown: %.0f ms "
                "(%d rows)\n",
                adoptMs, listMs, rows);
    std::printf(
        "scroll steps (1/3 page, repaint; CPU time): %zu steps, p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
        stepMs.size(), percentile(stepMs, 0.5), percentile(stepMs, 0.99), percentile(stepMs, 1.0));
    std::printf("repaint of the visible rows: p50 %.2f ms, p99 %.2f ms\n", percentile(paintMs, 0.5),
                percentile(paintMs, 0.99));
    std::printf("random jumps (repaint): p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", percentile(jumpMs, 0.5),
                percentile(jumpMs, 0.99), percentile(jumpMs, 1.0));
    std::printf("re-sort by title: %.0f ms; text filter: %.0f ms (%d matches); clear filter: %.0f ms\n",
                sortTitleMs, filterMs, matches, unfilterMs);
    std::printf("memory: %ld MB RSS (%ld MB before the runs)\n", rssMb(), rssBefore);
    return 0;
}
