// SPDX-License-Identifier: GPL-3.0-or-later
// Catch-up into the output view: 100k deltas arrive at once (a long run reattached or resumed
// from the start) and the view writes them frame by frame within its budget. Reports deltas/s
// (target >= 300k) and the GUI thread's work per frame while it catches up.
//
//   bench_output_ingest [deltas=100000] [delta-text="tok "]

#include "calibration.h"
#include "framemeter.h"
#include "outputview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <cstdio>

using namespace Runwatch;
using namespace Qt::StringLiterals;

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    RunwatchBench::MeteredApplication app(argc, argv);
    const QStringList args = app.arguments().mid(1);
    const int deltas = args.value(0, u"100000"_s).toInt();
    const QString delta = args.value(1, u"tok "_s);

    OutputView view;
    view.resize(800, 600);
    view.show();
    QCoreApplication::processEvents();

    // Typical tokens are short words; vary them a little so layout sees real text, and end a
    // paragraph every 40 deltas (~200 characters), like prose and list items do.
    QStringList pieces;
    for (int i = 0; i < 40; ++i)
        pieces << delta + QString(i % 3, u'x') + (i == 39 ? u"\n"_s : QString());

    RunwatchBench::printCalibration();
    RunwatchBench::FrameMeter meter;
    app.meter = &meter;
    QElapsedTimer clock;
    meter.start();
    clock.start();
    qint64 chars = 0;
    for (int i = 0; i < deltas; ++i) {
        const QString &p = pieces.at(i % pieces.size());
        view.appendText(p);
        chars += p.size();
    }
    const qint64 queuedNs = clock.nsecsElapsed();
    while (view.pendingSize() > 0)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    const qint64 ns = clock.nsecsElapsed();
    meter.stop();
    const double seconds = double(ns) / 1e9;
    std::printf("bench_output_ingest: %d deltas (%lld chars) queued in %.1f ms, in the view after %.1f ms\n",
                deltas, static_cast<long long>(chars), double(queuedNs) / 1e6, double(ns) / 1e6);
    std::printf("catch-up ingest: %.0f deltas/s (%.1f MB/s of text), %lld pieces, frame budget %lld us "
                "(catch-up %lld us)\n",
                double(deltas) / seconds, double(chars) * 2 / seconds / 1e6,
                static_cast<long long>(view.pieceCount()), static_cast<long long>(view.frameBudget().count()),
                static_cast<long long>(view.catchUpBudget().count()));
    RunwatchBench::FrameMeter::print("catch-up", meter.stats());
    meter.printFrames();

    // Steady state: a live run at 50 deltas/s costs one small write per frame.
    RunwatchBench::FrameMeter live;
    app.meter = &live;
    live.start();
    int sent = 0;
    QTimer feed;
    QObject::connect(&feed, &QTimer::timeout, &view,
                     [&] { view.appendText(pieces.at(sent++ % pieces.size())); });
    feed.start(20);
    QEventLoop loop;
    QTimer::singleShot(2000, &loop, &QEventLoop::quit);
    loop.exec();
    live.stop();
    RunwatchBench::FrameMeter::print("live 50 deltas/s", live.stats());
    return 0;
}
