// SPDX-License-Identifier: GPL-3.0-or-later
// Many live runs in the real window: N runs streaming R deltas/s each (default 50) from the
// simulator (on its own thread, like the demo), the window showing the list and one run's output.
// Reports the GUI thread's work per 60 Hz frame (issue 13's targets: p99 <= 4 ms for 1,000 runs x
// 20 deltas/s, <= 2 ms for 200 runs x 50 deltas/s).
//
//   bench_gui_live [runs=200] [seconds=10] [runs-per-connection=5] [--rate R] [--no-store] [--no-window]
//
// --no-window measures the engine alone (network, parsing, reducer) for comparison.
// Besides the GUI thread's work per frame it reports the event-loop latency (how late a 16 ms
// precise timer on the GUI thread fires), the whole process's CPU time and its RSS.
// RUNWATCH_STREAM_TRANSPORT=qnam selects QNAM streams on the GUI thread (see
// docs/architecture.md, "Threads"); QNAM on the stream thread was measured against the pump and
// removed (docs/architecture.md, "The transport, decided by measurement").
//
// Runs are spread over several connections so that the comparison with
// RUNWATCH_STREAM_TRANSPORT=qnam stays possible: Qt 6.4's QNetworkAccessManager opens at most six
// HTTP/1.1 connections per host and each SSE stream holds one. The stream pump has no such limit.

#include "calibration.h"
#include "engine/runmanager.h"
#include "framemeter.h"
#include "mainwindow.h"
#include "openai/openaisim.h"
#include "store/runstore.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {
// Runs the event loop for `ms`, sleeping when idle like the app does.
void spin(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

double processCpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
           + double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Resident set size now, in MB (/proc/self/statm's second field, in pages).
double rssMb()
{
    QFile statm(u"/proc/self/statm"_s);
    if (!statm.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    return double(fields.value(1).toLongLong()) * double(getpagesize()) / (1024.0 * 1024.0);
}

// How late a 16 ms precise timer on the GUI thread fires: what an input event or a paint waits
// for at worst besides its own work.
class LatencyProbe
{
public:
    LatencyProbe()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(16);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            m_late.push_back(double(std::max<qint64>(0, now - m_last - 16'000'000)) / 1e6);
            m_last = now;
        });
    }
    void start()
    {
        m_clock.start();
        m_last = 0;
        m_timer.start();
    }
    void stop() { m_timer.stop(); }
    void print() const
    {
        std::vector<double> late = m_late;
        std::sort(late.begin(), late.end());
        auto at = [&late](double q) {
            return late.empty() ? 0.0 : late[std::min(late.size() - 1, size_t(q * double(late.size())))];
        };
        std::printf("event-loop latency over %zu ticks: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", late.size(),
                    at(0.5), at(0.99), late.empty() ? 0.0 : late.back());
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    std::vector<double> m_late;
};
} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    RunwatchBench::MeteredApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    const bool useStore = !args.removeAll(u"--no-store"_s);
    const bool useWindow = !args.removeAll(u"--no-window"_s);
    int rate = 50; // deltas per second per run
    if (const qsizetype at = args.indexOf(u"--rate"_s); at >= 0) {
        rate = std::clamp(args.value(at + 1).toInt(), 1, 1000);
        args.remove(at, std::min<qsizetype>(2, args.size() - at));
    }
    const int runs = args.value(0, u"200"_s).toInt();
    const int seconds = args.value(1, u"10"_s).toInt();
    const int perConnection = qMax(1, args.value(2, u"5"_s).toInt());

    RunwatchSim::OpenAiSimConfig config;
    config.intervalMs = 1000 / rate;
    config.queuedMs = 0;
    // Enough deltas for warm-up and measurement; the simulator plans every step up front.
    config.longDeltas = (seconds + 40) * rate;
    config.maxConnections = 4096;
    QThread simThread;
    auto *sim = new RunwatchSim::OpenAiSimulator(config);
    sim->moveToThread(&simThread);
    simThread.start();
    QUrl url;
    QMetaObject::invokeMethod(
        sim,
        [&] {
            sim->listen();
            url = sim->baseUrl();
        },
        Qt::BlockingQueuedConnection);

    QTemporaryDir dir;
    RunStore store;
    RunManager manager;
    if (useStore && store.open(dir.filePath(u"bench.sqlite"_s)))
        manager.setStore(&store);
    const int connections = (runs + perConnection - 1) / perConnection;
    for (int c = 0; c < connections; ++c) {
        Connection conn;
        conn.name = u"sim-%1"_s.arg(c);
        conn.backend = u"openai"_s;
        conn.baseUrl = url;
        conn.auth = AuthStyle::None;
        manager.addConnection(conn);
    }
    MainWindow *window = nullptr;
    if (useWindow) {
        window = new MainWindow(&manager);
        window->resize(1440, 860);
        window->show();
    }

    QStringList ids;
    for (int i = 0; i < runs; ++i) {
        StartRequest r;
        r.prompt = u"long run %1"_s.arg(i);
        r.model = u"runwatch-sim-1"_s;
        ids << manager.startRun(u"sim-%1"_s.arg(i / perConnection), r);
    }
    spin(50);
    if (window)
        window->activateRun(ids.first());

    // Warm-up: every run streaming.
    QElapsedTimer warm;
    warm.start();
    int streaming = 0;
    while (warm.elapsed() < 20000) {
        spin(200);
        streaming = 0;
        for (const QString &id : std::as_const(ids))
            streaming += manager.run(id) && !manager.run(id)->primaryText.isEmpty() ? 1 : 0;
        if (streaming == runs)
            break;
    }

    qint64 deltas = 0;
    QObject::connect(&manager, &RunManager::runEventsApplied, &manager,
                     [&](const QString &, const QList<RunEvent> &events) {
                         for (const RunEvent &e : events)
                             deltas += e.type == RunEvent::Type::PrimaryDelta ? 1 : 0;
                     });
    // Outside the measured stretch, after the warm-up: the machine as the measurement finds it.
    RunwatchBench::printCalibration();
    RunwatchBench::FrameMeter meter;
    app.meter = &meter;
    LatencyProbe latency;
    QElapsedTimer wall;
    wall.start();
    const double cpuBefore = processCpuSeconds();
    meter.start();
    latency.start();
    spin(seconds * 1000);
    latency.stop();
    meter.stop();
    const double cpu = processCpuSeconds() - cpuBefore;
    const double elapsed = double(wall.elapsed()) / 1000.0;

    std::printf(
        "bench_gui_live: %d runs x %d deltas/s (%d streaming after warm-up) over %d connections, store "
        "%s, window %s, %d s\n",
        runs, rate, streaming, connections, useStore ? "on" : "off", useWindow ? "on" : "off", seconds);
    std::printf("deltas applied: %lld (%.0f/s, %.1f per run per second)\n", static_cast<long long>(deltas),
                double(deltas) / elapsed, double(deltas) / elapsed / runs);
    RunwatchBench::FrameMeter::print("live", meter.stats());
    meter.printFrames();
    meter.printBreakdown();
    latency.print();
    std::printf(
        "process (simulator thread included): CPU %.2f s in %.1f s (%.0f %% of one core), RSS %.0f MB, "
        "transport %s\n",
        cpu, elapsed, 100.0 * cpu / elapsed, rssMb(),
        qEnvironmentVariable("RUNWATCH_STREAM_TRANSPORT").compare(u"qnam"_s, Qt::CaseInsensitive) == 0
            ? "qnam (GUI thread)"
            : "pump");

    for (const QString &id : std::as_const(ids))
        manager.stopFollowing(id);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    delete window;
    QMetaObject::invokeMethod(
        sim, [sim] { delete sim; }, Qt::BlockingQueuedConnection);
    simThread.quit();
    simThread.wait();
    return 0;
}
