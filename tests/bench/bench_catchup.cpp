// SPDX-License-Identifier: GPL-3.0-or-later
// End-to-end catch-up: 100k events of a finished background response replayed from a loopback
// server (GET ?stream=true) through HttpClient → SseParser → OpenAI mapper → applyEvent into a
// Run. Reports wall time and the client thread's CPU time per event (PERFORMANCE.md targets:
// ≤ 1.0–1.5 µs CPU per event, ≤ 0.25 s for 100k events).
//
// The simulator runs in its own thread so its work is not counted as client CPU.
#include "backends/openai/openaibackend.h"
#include "backends/openai/openaimapping.h"
#include "net/sseparser.h"
#include "simulator.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <ctime>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

double threadCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

struct Sample
{
    double wall = 0;
    double cpu = 0;
    qint64 events = 0;
    qint64 bytes = 0;
    bool ok = false;
};

// Waits for `done` while the event loop runs.
template <typename Pred>
bool spin(Pred done, int ms)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < ms)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 20);
    return done();
}

Sample replayThroughConnector(OpenAiBackend &backend, const QString &remoteId, const QString &expected)
{
    Sample s;
    Run run;
    ContinuationToken token;
    token.remoteId = remoteId;
    token.streamable = true;
    bool finished = false;
    StreamEnd end;
    const double cpu0 = threadCpuSeconds();
    QElapsedTimer wall;
    wall.start();
    RunStream *stream = backend.follow(token, nullptr);
    QObject::connect(stream, &RunStream::eventsReceived, stream, [&](const QList<RunEvent> &events) {
        const QDateTime now = QDateTime::currentDateTimeUtc();
        for (const RunEvent &e : events)
            applyEvent(run, e, now);
        s.events += events.size();
    });
    QObject::connect(stream, &RunStream::finished, stream, [&](const StreamEnd &e) {
        end = e;
        finished = true;
    });
    spin([&] { return finished; }, 60000);
    s.wall = double(wall.nsecsElapsed()) / 1e9;
    s.cpu = threadCpuSeconds() - cpu0;
    delete stream;
    s.ok = finished && end.reason == StreamEnd::Reason::Terminal && run.primaryText == expected
        && run.status == RunStatus::Completed;
    if (!s.ok)
        std::fprintf(stderr, "replay failed: reason %d, text %lld/%lld chars, %s\n", int(end.reason),
                     qlonglong(run.primaryText.size()), qlonglong(expected.size()),
                     qPrintable(end.error.toString()));
    return s;
}

// The same bytes without the network: parser + mapper + reducer only.
Sample parseOnly(const QByteArray &body, const QString &expected)
{
    Sample s;
    Run run;
    SseParser parser;
    OpenAi::StreamMapper mapper(true, -1);
    QList<RunEvent> batch;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const double cpu0 = threadCpuSeconds();
    QElapsedTimer wall;
    wall.start();
    constexpr qsizetype chunk = 16 * 1024;
    for (qsizetype pos = 0; pos < body.size(); pos += chunk) {
        parser.feed(QByteArrayView(body).sliced(pos, std::min(chunk, body.size() - pos)), [&](const SseEvent &e) {
            mapper.map(e.type, e.data, batch);
        });
        for (const RunEvent &e : std::as_const(batch))
            applyEvent(run, e, now);
        s.events += batch.size();
        batch.clear();
    }
    s.wall = double(wall.nsecsElapsed()) / 1e9;
    s.cpu = threadCpuSeconds() - cpu0;
    s.bytes = body.size();
    s.ok = run.primaryText == expected;
    return s;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int deltas = argc > 1 ? std::atoi(argv[1]) : 100000;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;

    // Simulator in its own thread.
    QThread simThread;
    simThread.start();
    auto *sim = new RunwatchSim::Simulator;
    sim->moveToThread(&simThread);
    QUrl baseUrl;
    QMetaObject::invokeMethod(sim, [&] {
        RunwatchSim::SimulatorConfig cfg = sim->config();
        cfg.intervalMs = 0;
        sim->setConfig(cfg);
        sim->listen();
        baseUrl = sim->baseUrl();
    }, Qt::BlockingQueuedConnection);

    Connection c;
    c.name = u"bench"_s;
    c.backend = u"openai"_s;
    c.baseUrl = baseUrl;
    c.auth = AuthStyle::None;
    OpenAiBackend backend(c);

    // Create a background response with `deltas` deltas and let it finish.
    StartRequest req;
    req.model = u"runwatch-sim-1"_s;
    req.prompt = u"normal deltas=%1 interval_ms=0"_s.arg(deltas);
    req.stream = true; // so it can be re-streamed
    QString remoteId;
    bool started = false;
    RunStream *create = backend.start(req, nullptr);
    QObject::connect(create, &RunStream::eventsReceived, create, [&](const QList<RunEvent> &events) {
        for (const RunEvent &e : events) {
            if (e.type == RunEvent::Type::Identity && !e.remoteId.isEmpty())
                remoteId = e.remoteId;
        }
    });
    QObject::connect(create, &RunStream::finished, create, [&] { started = true; });
    spin([&] { return started; }, 120000);
    delete create;
    if (remoteId.isEmpty()) {
        std::fprintf(stderr, "could not create the response\n");
        return 1;
    }
    bool ended = false;
    spin([&] {
        QMetaObject::invokeMethod(sim, [&] { ended = sim->response(remoteId).value_or(RunwatchSim::ResponseInfo{}).ended; },
                                  Qt::BlockingQueuedConnection);
        return ended;
    }, 120000);
    QString expected;
    QByteArray wire;
    QMetaObject::invokeMethod(sim, [&] {
        expected = sim->response(remoteId)->text;
        for (const QByteArray &payload : sim->eventPayloads(remoteId)) {
            // Rebuild the wire form for the parse-only row (type from the payload itself).
            const qsizetype t = payload.indexOf("\"type\":\"") + 8;
            const QByteArray type = payload.mid(t, payload.indexOf('"', t) - t);
            wire += "event: " + type + "\ndata: " + payload + "\n\n";
        }
    }, Qt::BlockingQueuedConnection);

    std::printf("Runwatch catch-up benchmark: %d deltas (%lld events, %.1f MB on the wire)\n", deltas,
                qlonglong(wire.count("\n\n")), double(wire.size()) / 1e6);
    std::printf("%-46s %10s %10s %12s %12s\n", "what (best of rounds)", "wall s", "cpu s", "cpu µs/ev", "events/s");

    auto setFraming = [&](bool closeDelimited) {
        QMetaObject::invokeMethod(sim, [&] {
            RunwatchSim::SimulatorConfig cfg = sim->config();
            cfg.closeDelimitedStreams = closeDelimited;
            sim->setConfig(cfg);
        }, Qt::BlockingQueuedConnection);
    };
    Sample bestChunked, bestClose, bestParse;
    bestChunked.cpu = bestClose.cpu = bestParse.cpu = 1e9;
    for (int r = 0; r < rounds; ++r) {
        setFraming(false);
        const Sample chunked = replayThroughConnector(backend, remoteId, expected);
        setFraming(true);
        const Sample close = replayThroughConnector(backend, remoteId, expected);
        const Sample p = parseOnly(wire, expected);
        if (!chunked.ok || !close.ok || !p.ok) {
            std::fprintf(stderr, "a replay produced a different run\n");
            return 1;
        }
        if (chunked.cpu < bestChunked.cpu)
            bestChunked = chunked;
        if (close.cpu < bestClose.cpu)
            bestClose = close;
        if (p.cpu < bestParse.cpu)
            bestParse = p;
    }
    auto row = [](const char *name, const Sample &s) {
        std::printf("%-46s %10.3f %10.3f %12.3f %12.0f\n", name, s.wall, s.cpu, s.cpu / double(s.events) * 1e6,
                    double(s.events) / s.wall);
    };
    row("in-memory bytes -> parser+mapper+reducer", bestParse);
    row("loopback, close-delimited body -> Run", bestClose);
    row("loopback, one HTTP/1.1 chunk per event -> Run", bestChunked);
    std::printf("cpu = the client (main) thread only; Qt's HTTP thread and the simulator thread are not counted.\n");

    QMetaObject::invokeMethod(sim, [&] { delete sim; }, Qt::BlockingQueuedConnection);
    simThread.quit();
    simThread.wait();
    return 0;
}
