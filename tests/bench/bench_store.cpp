// SPDX-License-Identifier: GPL-3.0-or-later
// Big history: N stored runs (default 100,000, generated once into a scratch database) — time from
// start to a usable run list (store opened, summaries loaded, every run registered with the
// engine) and the resident memory it takes. Targets (PERFORMANCE.md): ≤ 1 s, ≤ 300 MB.
//
//   bench_store [runs=100000] [db=/tmp/runwatch-bench-store.sqlite]
#include "engine/runmanager.h"
#include "engine/runstore.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QUuid>

#include <cstdio>
#include <ctime>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

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

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int count = argc > 1 ? std::atoi(argv[1]) : 100000;
    const QString path = argc > 2 ? QString::fromLocal8Bit(argv[2]) : u"/tmp/runwatch-bench-store.sqlite"_s;

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
        }
        probe.close();
        std::printf("%-40s %10s %12s %12s\n", "round (fresh process)", "ms", "RSS MB", "peak MB");
        for (int round = 0; round < 3; ++round) {
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
    QList<Run> runs = store.loadRuns(RunStore::Load::Summary);
    const qint64 loadMs = t.elapsed() - openMs;
    for (Run &run : runs)
        manager.adoptRun(std::move(run), false);
    const qint64 ms = t.elapsed();
    timespec cpu1{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
    const double cpuMs = double(cpu1.tv_sec - cpu0.tv_sec) * 1e3 + double(cpu1.tv_nsec - cpu0.tv_nsec) / 1e6;
    const qint64 rss = procStatusKb("VmRSS:");
    const qint64 peak = procStatusKb("VmHWM:");
    std::printf("%-40s %10lld %12.1f %12.1f   (cpu %.0f ms; %lld runs; open %lld ms, load %lld ms, engine "
                "%lld ms; %.1f MB before)\n",
                "open + summaries + engine", qlonglong(ms), double(rss) / 1024, double(peak) / 1024, cpuMs,
                qlonglong(manager.runIds().size()), qlonglong(openMs), qlonglong(loadMs),
                qlonglong(ms - openMs - loadMs), double(rssBefore) / 1024);
    return manager.runIds().size() == count ? 0 : 1;
}
