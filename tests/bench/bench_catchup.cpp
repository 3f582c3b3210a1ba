// SPDX-License-Identifier: GPL-3.0-or-later
// End-to-end catch-up: 100k events of a finished background response replayed from a loopback
// server (GET ?stream=true) through HttpClient → SseParser → OpenAI mapper → applyEvent into a
// Run. Reports wall time and the client thread's CPU time per event (docs/performance-targets.md targets:
// ≤ 1.0–1.5 µs CPU per event, ≤ 0.25 s for 100k events).
//
// The simulator runs in its own thread so its work is not counted as client CPU.
#include "backends/openai/openaibackend.h"
#include "backends/openai/openaimapper.h"
#include "calibration.h"
#include "domain/runreducer.h"
#include "net/sseparser.h"
#include "openai/openaisim.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <ctime>
#include <future>
#include <thread>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

double cpuSeconds(clockid_t clock)
{
    timespec ts{};
    clock_gettime(clock, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}
double threadCpuSeconds()
{
    return cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
}

struct Sample
{
    double wall = 0;
    double cpu = 0;
    double processCpu = 0; // every thread of the process, the servers' included
    qint64 events = 0;
    qint64 bytes = 0;
    bool ok = false;
};

// Waits for `done` while the event loop runs.
template<typename Pred>
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
    const double process0 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
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
    s.processCpu = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - process0;
    delete stream;
    s.ok = finished && end.reason == StreamEnd::Reason::Terminal && run.primaryText == expected
           && run.status == RunStatus::Completed;
    if (!s.ok) {
        std::fprintf(stderr, "replay failed: reason %d, text %lld/%lld chars, %s\n", int(end.reason),
                     qlonglong(run.primaryText.size()), qlonglong(expected.size()),
                     qPrintable(end.error.toString()));
    }
    return s;
}

// Serves one prepared SSE body per connection the way a server replays a finished response in
// bulk: HTTP/1.1, chunked, 16 KiB per chunk (the docs/performance-targets.md test stream). Blocking socket
// calls on a thread of its own, so none of its work is counted as client CPU.
class BulkServer
{
public:
    explicit BulkServer(QByteArray body)
        : m_body(std::move(body))
    {
        std::promise<quint16> port;
        std::future<quint16> ready = port.get_future();
        m_thread = std::thread([this, &port] { serve(port); });
        m_port = ready.get();
    }
    ~BulkServer()
    {
        m_stop = true;
        m_thread.join();
    }
    QUrl baseUrl() const { return QUrl(u"http://127.0.0.1:%1/v1"_s.arg(m_port)); }
    // CPU this server's thread spent on its last connection.
    double lastServeCpu() const { return double(m_lastServeNs.load()) / 1e9; }

private:
    void serve(std::promise<quint16> &port)
    {
        QTcpServer server;
        server.listen(QHostAddress::LocalHost, 0);
        port.set_value(server.serverPort());
        while (!m_stop) {
            if (!server.waitForNewConnection(50))
                continue;
            const double cpu0 = threadCpuSeconds();
            std::unique_ptr<QTcpSocket> socket(server.nextPendingConnection());
            QByteArray request;
            while (!request.contains("\r\n\r\n") && socket->waitForReadyRead(5000))
                request += socket->readAll();
            socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                          "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
            constexpr qsizetype kChunk = 16 * 1024;
            for (qsizetype pos = 0; pos < m_body.size(); pos += kChunk) {
                const QByteArray piece = m_body.mid(pos, kChunk);
                socket->write(QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n");
                socket->waitForBytesWritten(5000);
            }
            socket->write("0\r\n\r\n");
            socket->waitForBytesWritten(5000);
            socket->disconnectFromHost();
            if (socket->state() != QAbstractSocket::UnconnectedState)
                socket->waitForDisconnected(5000);
            m_lastServeNs = qint64((threadCpuSeconds() - cpu0) * 1e9);
        }
    }

    QByteArray m_body;
    std::atomic<bool> m_stop{false};
    std::atomic<qint64> m_lastServeNs{0};
    quint16 m_port = 0;
    std::thread m_thread;
};

// The same bytes without the network: parser + mapper + reducer only.
Sample parseOnly(const QByteArray &body, const QString &expected)
{
    Sample s;
    Run run;
    SseParser parser;
    OpenAiMapper mapper(true, -1);
    QList<RunEvent> batch;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const double cpu0 = threadCpuSeconds();
    QElapsedTimer wall;
    wall.start();
    constexpr qsizetype chunk = 16 * 1024;
    for (qsizetype pos = 0; pos < body.size(); pos += chunk) {
        parser.feed(QByteArrayView(body).sliced(pos, std::min(chunk, body.size() - pos)),
                    [&](const SseEvent &e) { mapper.map(e.type, e.data, batch); });
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
    auto *sim = new RunwatchSim::OpenAiSimulator;
    sim->moveToThread(&simThread);
    QUrl baseUrl;
    QMetaObject::invokeMethod(
        sim,
        [&] {
            RunwatchSim::OpenAiSimConfig cfg = sim->config();
            cfg.intervalMs = 0;
            sim->setConfig(cfg);
            sim->listen();
            baseUrl = sim->baseUrl();
        },
        Qt::BlockingQueuedConnection);

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
    spin(
        [&] {
            QMetaObject::invokeMethod(
                sim,
                [&] { ended = sim->response(remoteId).value_or(RunwatchSim::OpenAiResponseInfo{}).ended; },
                Qt::BlockingQueuedConnection);
            return ended;
        },
        120000);
    QString expected;
    QByteArray wire;
    QMetaObject::invokeMethod(
        sim,
        [&] {
            expected = sim->response(remoteId)->text;
            for (const QByteArray &payload : sim->eventPayloads(remoteId)) {
                // Rebuild the wire form for the parse-only row (type from the payload itself).
                const qsizetype t = payload.indexOf("\"type\":\"") + 8;
                const QByteArray type = payload.mid(t, payload.indexOf('"', t) - t);
                wire += "event: " + type + "\ndata: " + payload + "\n\n";
            }
        },
        Qt::BlockingQueuedConnection);

    std::printf("Runwatch catch-up benchmark: %d deltas (%lld events, %.1f MB on the wire)\n", deltas,
                qlonglong(wire.count("\n\n")), double(wire.size()) / 1e6);
    RunwatchBench::printCalibration();
    std::printf("%-46s %10s %10s %12s %12s\n", "what (best of rounds)", "wall s", "cpu s", "cpu µs/ev",
                "events/s");

    auto setFraming = [&](bool closeDelimited) {
        QMetaObject::invokeMethod(
            sim,
            [&] {
                RunwatchSim::OpenAiSimConfig cfg = sim->config();
                cfg.closeDelimitedStreams = closeDelimited;
                sim->setConfig(cfg);
            },
            Qt::BlockingQueuedConnection);
    };
    BulkServer bulk(wire);
    Connection bulkConnection = c;
    bulkConnection.baseUrl = bulk.baseUrl();
    OpenAiBackend bulkBackend(bulkConnection);

    Sample bestChunked, bestClose, bestParse, bestBulk;
    bestChunked.cpu = bestClose.cpu = bestParse.cpu = bestBulk.cpu = 1e9;
    for (int r = 0; r < rounds; ++r) {
        Sample bulkSample = replayThroughConnector(bulkBackend, remoteId, expected);
        // The client's whole cost: main thread + the stream pump's thread (the server's share removed).
        bulkSample.processCpu -= bulk.lastServeCpu();
        if (!bulkSample.ok) {
            std::fprintf(stderr, "the bulk replay produced a different run\n");
            return 1;
        }
        if (bulkSample.cpu < bestBulk.cpu)
            bestBulk = bulkSample;
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
        std::printf("%-46s %10.3f %10.3f %12.3f %12.0f\n", name, s.wall, s.cpu,
                    s.cpu / double(s.events) * 1e6, double(s.events) / s.wall);
    };
    row("in-memory bytes -> parser+mapper+reducer", bestParse);
    row("loopback, 16 KiB chunks (bulk replay) -> Run", bestBulk);
    row("loopback, close-delimited body -> Run", bestClose);
    row("loopback, one HTTP/1.1 chunk per event -> Run", bestChunked);
    std::printf("cpu = the client (main) thread only; the stream pump's thread (or Qt's HTTP thread with\n"
                "RUNWATCH_STREAM_TRANSPORT=qnam) and the simulator thread are not counted.\n");
    std::printf("bulk replay, whole client (main + stream thread): %.3f s cpu, %.3f µs/event\n",
                bestBulk.processCpu, bestBulk.processCpu / double(bestBulk.events) * 1e6);

    QMetaObject::invokeMethod(
        sim, [&] { delete sim; }, Qt::BlockingQueuedConnection);
    simThread.quit();
    simThread.wait();
    return 0;
}
