// SPDX-License-Identifier: GPL-3.0-or-later
// Big history: N stored runs (default 100,000, generated once into a scratch database; a year of
// a team's history is 1,000,000) — time from start to a usable run list (store opened, every live
// run and the newest page held by the engine: HistoryWindow, the run list model) and the resident
// memory it takes, then how long the count of the rest takes (on a thread of its own) and the cost
// of the next pages as the list is scrolled to its end. Targets: ≤ 300 ms to the first screenful,
// ≤ 400 MB at 1,000,000 runs (issue 30).
// With --app, each round starts the desktop app itself on that store (RUNWATCH_STARTUP_TRACE) and
// reports when its run list first painted rows and when it had painted every run it holds,
// measured from the moment the process was started.
//
//   bench_store [runs=100000] [db=/tmp/runwatch-bench-store.sqlite] [--app PATH/runwatch] [--rounds N]
#include "calibration.h"
#include "domain/connection.h"
#include "engine/runmanager.h"
#include "models/historywindow.h"
#include "models/runlistmodel.h"
#include "store/runstore.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTimer>
#include <QUuid>

#include <cstdio>
#include <ctime>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

// What the app holds at start besides the live runs (AppController::kFirstHistoryPage).
constexpr int kFirstPage = 500;

qint64 procStatusKb(const char *field)
{
    QFile f(u"/proc/self/status"_s);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(qstrlen(field)).trimmed().split(' ').first().toLongLong();
    }
    return -1;
}

void generate(const QString &path, int count)
{
    RunStore store;
    if (!store.open(path))
        qFatal("%s", qPrintable(store.errorString()));
    const QString text = QString(u"The quick brown fox jumps over the lazy dog. "_s).repeated(25); // ~1.1 KB
    const QDateTime t0 = QDateTime::currentDateTimeUtc().addDays(-30);
    store.setFlushInterval(1 << 30);
    for (int i = 0; i < count; ++i) {
        Run run;
        run.localId = QUuid::createUuid().toString(QUuid::WithoutBraces).left(8) + QString::number(i);
        run.connection = u"prod"_s;
        run.backend = u"openai"_s;
        run.baseUrl = u"https://api.example.invalid/v1"_s;
        run.remoteId = u"resp_%1"_s.arg(i);
        run.createdAt = t0.addSecs(i * 20);
        run.updatedAt = run.createdAt.addSecs(60);
        run.model = u"gpt-5"_s;
        run.prompt = u"Research task number %1 about otters and their tools"_s.arg(i);
        run.title = Run::summarize(run.prompt);
        // Mostly finished history, a few hundred still active.
        run.status
            = i % 400 == 0 ? RunStatus::InProgress : (i % 7 == 0 ? RunStatus::Failed : RunStatus::Completed);
        run.rawStatus = statusName(run.status);
        if (run.isTerminal())
            run.finishedAt = run.updatedAt;
        run.primaryText = text;
        run.token.remoteId = run.remoteId;
        run.token.sequence = 300;
        run.token.streamable = true;
        store.scheduleSave(run);
        if (i % 5000 == 4999)
            store.flush();
    }
    store.flush();
}

// One round of the desktop app on the store: milliseconds from starting the process to each trace
// line. The store's runs belong to connection "prod", which is not saved (a saved "bench"
// connection keeps the app out of its demo), so nothing is followed over the network.
bool appRound(const QString &app, const QString &path)
{
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"RUNWATCH_STARTUP_TRACE"_s, u"1"_s);
    if (!env.contains(u"QT_QPA_PLATFORM"_s))
        env.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::SeparateChannels);
    const qint64 started = QDateTime::currentMSecsSinceEpoch();
    child.start(app, {u"--store"_s, path});
    if (!child.waitForStarted(10000)) {
        std::printf("cannot start %s\n", qPrintable(app));
        return false;
    }
    QByteArray err;
    QHash<QByteArray, QList<QByteArray>> marks;
    QElapsedTimer limit;
    limit.start();
    while (!marks.contains("list-complete") && limit.elapsed() < 60000
           && child.state() == QProcess::Running) {
        child.waitForReadyRead(1000);
        err += child.readAllStandardError();
        for (const QByteArray &line : err.split('\n')) {
            if (line.startsWith("runwatch-startup: ")) {
                const QList<QByteArray> parts = line.mid(18).split(' ');
                if (parts.size() >= 5) // list-complete adds the longest stall
                    marks.insert(parts.at(0), parts);
            }
        }
    }
    child.kill();
    child.waitForFinished(5000);
    if (!marks.contains("first-rows") || !marks.contains("list-complete")) {
        std::printf("the app did not report its start-up (stderr: %s)\n", err.right(2000).constData());
        return false;
    }
    const auto at = [&](const char *what) { return marks.value(what).at(1).toLongLong() - started; };
    std::printf(
        "%-40s %10lld %12.1f   (whole list %lld ms, %s rows, cpu %s ms, longest GUI stall %s ms; first "
        "screenful %s rows, cpu %s ms)\n",
        "app: first rows painted", at("first-rows"),
        double(marks.value("list-complete").at(3).toLongLong()) / 1024, at("list-complete"),
        marks.value("list-complete").at(2).constData(), marks.value("list-complete").at(4).constData(),
        marks.value("list-complete").value(5, "?").constData(), marks.value("first-rows").at(2).constData(),
        marks.value("first-rows").at(4).constData());
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QStringList positional;
    QString appPath;
    int rounds = 3;
    const QStringList args = QCoreApplication::arguments().mid(1);
    for (qsizetype i = 0; i < args.size(); ++i) {
        if (args.at(i) == u"--app"_s && i + 1 < args.size()) {
            appPath = args.at(++i);
        } else if (args.at(i) == u"--rounds"_s && i + 1 < args.size()) {
            rounds = args.at(++i).toInt();
        } else {
            positional << args.at(i);
        }
    }
    const int count = !positional.isEmpty() ? positional.at(0).toInt() : 100000;
    const QString path = positional.size() > 1 ? positional.at(1) : u"/tmp/runwatch-bench-store.sqlite"_s;

    if (!qEnvironmentVariableIsSet("BENCH_STORE_CHILD")) {
        // Generate once, then measure in a fresh process so nothing is warm in our own heap.
        RunStore probe;
        if (!probe.open(path) || probe.runCount() != count) {
            probe.close();
            QFile::remove(path);
            QFile::remove(path + u"-wal"_s);
            QFile::remove(path + u"-shm"_s);
            std::printf("generating %d runs into %s …\n", count, qPrintable(path));
            generate(path, count);
            // Reopened for the connection below: saving into the closed probe did nothing, so the
            // first --app run on a new file met the demo instead of the history.
            if (!probe.open(path))
                qFatal("%s", qPrintable(probe.errorString()));
        }
        if (!appPath.isEmpty() && !probe.hasConnections()) {
            Connection bench;
            bench.name = u"bench"_s;
            bench.backend = u"openai"_s;
            bench.baseUrl = QUrl(u"http://127.0.0.1:9/v1"_s);
            probe.saveConnectionConfig(bench.name, bench.toJson());
        }
        probe.close();
        RunwatchBench::printCalibration();
        if (!appPath.isEmpty()) {
            std::printf("%-40s %10s %12s\n", "round (fresh app process)", "ms", "RSS MB");
            bool ok = true;
            for (int round = 0; round < rounds; ++round)
                ok = appRound(appPath, path) && ok;
            return ok ? 0 : 1;
        }
        std::printf("%-40s %10s %12s %12s\n", "round (fresh process)", "ms", "RSS MB", "peak MB");
        for (int round = 0; round < rounds; ++round) {
            QProcess child;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(u"BENCH_STORE_CHILD"_s, u"1"_s);
            child.setProcessEnvironment(env);
            child.setProcessChannelMode(QProcess::ForwardedChannels);
            child.start(QCoreApplication::applicationFilePath(), {QString::number(count), path});
            child.waitForFinished(-1);
        }
        return 0;
    }

    const qint64 rssBefore = procStatusKb("VmRSS:");
    timespec cpu0{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
    QElapsedTimer t;
    t.start();
    RunStore store;
    if (!store.open(path))
        return 1;
    RunManager manager;
    manager.setStore(&store);
    const qint64 openMs = t.elapsed();
    // What a front end holds of it first (HistoryWindow): the newest page.
    HistoryWindow history(&manager, &store);
    history.start(kFirstPage);
    const qint64 loadMs = t.elapsed() - openMs;
    RunListModel model(&manager);
    model.setHistory(&history);
    const qint64 ms = t.elapsed();
    timespec cpu1{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
    const double cpuMs = double(cpu1.tv_sec - cpu0.tv_sec) * 1e3 + double(cpu1.tv_nsec - cpu0.tv_nsec) / 1e6;
    const qint64 rss = procStatusKb("VmRSS:");
    const qint64 peak = procStatusKb("VmHWM:");
    const qsizetype firstHeld = manager.runIds().size();
    // Then the rest of the start, which the app does once the list has painted: the older live
    // runs, and the counts of the rest from a thread.
    QElapsedTimer c;
    c.start();
    history.completeStart();
    QEventLoop wait;
    QObject::connect(&history, &HistoryWindow::notHeldCountsChanged, &wait, &QEventLoop::quit);
    QTimer::singleShot(600000, &wait, &QEventLoop::quit);
    if (!history.countsKnown())
        wait.exec();
    const qint64 countMs = c.elapsed();
    model.flush(); // the last live runs' rows, which the model inserts from its timer
    std::printf("%-40s %10lld %12.1f %12.1f   (cpu %.0f ms; %lld runs held; open %lld ms, first page %lld "
                "ms, model %lld ms; %.1f MB before)\n",
                "open + first page + model", qlonglong(ms), double(rss) / 1024, double(peak) / 1024, cpuMs,
                qlonglong(firstHeld), qlonglong(openMs), qlonglong(loadMs), qlonglong(ms - openMs - loadMs),
                double(rssBefore) / 1024);
    std::printf(
        "%-40s %10lld %12.1f   (%lld runs held with the live ones; %d counted, on a thread of its own)\n",
        "then: older live runs + counts", qlonglong(countMs), double(procStatusKb("VmRSS:")) / 1024,
        qlonglong(manager.runIds().size()), model.counts().value(StatusCategory::All));
    // Scrolling to the end of the list: the next pages, deep in the history.
    QList<qint64> pages;
    for (int page = 0; page < 5 && model.canFetchMore({}); ++page) {
        QElapsedTimer p;
        p.start();
        model.fetchMore({});
        pages << p.elapsed();
    }
    std::printf("%-40s %10s %12.1f   (%lld pages of %d: %s ms)\n", "then: scrolled to the end 5 times", "",
                double(procStatusKb("VmRSS:")) / 1024, qlonglong(pages.size()), RunListModel::kHistoryPage,
                qPrintable([&] {
                    QStringList each;
                    for (const qint64 ms : std::as_const(pages))
                        each << QString::number(ms);
                    return each.join(u' ');
                }()));
    return model.counts().value(StatusCategory::All) == count ? 0 : 1;
}
