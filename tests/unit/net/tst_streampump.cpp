// SPDX-License-Identifier: GPL-3.0-or-later
// The pace of the stream pump's hand-overs (core/net/streampump.cpp): relaxed streams take turns,
// and an owner thread with many hundreds of them gets each one's turn less often
// (StreamPump::relaxedPeriod), against a loopback server that writes an event to every stream
// every 50 ms. Whether relaxed streams lose or reorder nothing is tst_streampace's.

#include "awaitwithin.h"
#include "net/httpclient.h"
#include "net/streamdecoder.h"
#include "net/streampump.h"

#include <QElapsedTimer>
#include <QNetworkReply>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace Runwatch;
using detail::StreamPump;
using RunwatchTest::awaitWithin;

namespace {

// Answers every request with an open event stream, and writes an event to every stream it
// answered every 50 ms.
class TickingServer
{
public:
    TickingServer()
    {
        QObject::connect(&m_server, &QTcpServer::pendingConnectionAvailable, &m_server, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection())
                QObject::connect(socket, &QIODevice::readyRead, socket, [this, socket] { answer(socket); });
        });
        m_tick.setInterval(50);
        QObject::connect(&m_tick, &QTimer::timeout, &m_server, [this] {
            for (const QPointer<QTcpSocket> &socket : std::as_const(m_streams)) {
                if (socket)
                    socket->write("c\r\ndata: tick\n\n\r\n"); // one chunk of 12 bytes
            }
        });
        m_tick.start();
    }

    bool listen() { return m_server.listen(QHostAddress::LocalHost, 0); }
    QUrl url() const { return QUrl(u"http://127.0.0.1:%1/events"_s.arg(m_server.serverPort())); }

private:
    void answer(QTcpSocket *socket)
    {
        QByteArray &request = m_requests[socket];
        request += socket->readAll();
        if (!request.contains("\r\n\r\n") || m_streams.contains(socket))
            return;
        socket->write(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
        m_streams.append(socket);
    }

    QTcpServer m_server;
    QTimer m_tick;
    QHash<QTcpSocket *, QByteArray> m_requests;
    QList<QPointer<QTcpSocket>> m_streams;
};

// `count` relaxed streams from `server`; how often each is handed over (readyRead) while `window`
// goes by, after they all got going.
std::vector<int> handOvers(const TickingServer &server, int count, std::chrono::milliseconds window)
{
    HttpClient client;
    std::vector<QCoro::Task<OpenedStream>> tasks;
    tasks.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i) {
        HttpRequest request;
        request.url = server.url();
        tasks.push_back(client.openStream(request));
    }
    QList<QPointer<QNetworkReply>> replies;
    for (auto &task : tasks) {
        auto opened = awaitWithin(std::move(task), 30000);
        if (!opened || !opened->reply || !opened->inFrames) {
            qWarning("a stream did not open on the stream pump");
            return {};
        }
        auto *relaxable = dynamic_cast<DecodedStream *>(opened->reply.data());
        if (!relaxable)
            return {};
        relaxable->setRelaxed(true);
        replies.append(opened->reply);
    }
    std::vector<int> counts(std::size_t(count), 0);
    bool counting = false;
    for (int i = 0; i < count; ++i) {
        QNetworkReply *reply = replies[i];
        QObject::connect(reply, &QIODevice::readyRead, reply, [reply, &counts, &counting, i] {
            reply->readAll();
            if (counting)
                ++counts[std::size_t(i)];
        });
    }
    QTest::qWait(1000); // past every stream's first hand-over, which does not wait for its turn
    counting = true;
    QTest::qWait(int(window.count()));
    counting = false;
    for (const auto &reply : std::as_const(replies)) {
        if (!reply || reply->isFinished())
            return {}; // the streams must stay open throughout
        reply->abort();
    }
    return counts;
}

// What a decoder made: once watched, says on which thread it was freed.
class Made final : public StreamDecoded
{
public:
    explicit Made(std::shared_ptr<std::atomic<QThread *>> freedOn)
        : m_freedOn(std::move(freedOn))
    {}
    ~Made() override
    {
        if (m_watched)
            m_freedOn->store(QThread::currentThread());
    }
    void append(StreamDecoded &&) override {}
    void watch() { m_watched = true; }

private:
    std::shared_ptr<std::atomic<QThread *>> m_freedOn;
    bool m_watched = false;
};

// Makes a Made of every piece of the body.
class MakingDecoder final : public StreamDecoder
{
public:
    explicit MakingDecoder(std::shared_ptr<std::atomic<QThread *>> freedOn)
        : m_freedOn(std::move(freedOn))
    {}
    bool decode(QByteArrayView) override
    {
        m_made = true;
        return true;
    }
    void handOver(std::unique_ptr<StreamDecoded> &out) override
    {
        if (std::exchange(m_made, false))
            appendDecoded(out, std::make_unique<Made>(m_freedOn));
    }

private:
    std::shared_ptr<std::atomic<QThread *>> m_freedOn;
    bool m_made = false;
};

// Takes what the stream's decoder made, once, and gives it back (DecodedStream::recycle).
class RecyclingReader final : public StreamDecodedReader
{
public:
    explicit RecyclingReader(DecodedStream *stream)
        : m_stream(stream)
    {}
    void decodedReady() override
    {
        std::unique_ptr<StreamDecoded> made = m_stream->take();
        if (made && !m_recycled) {
            m_recycled = true;
            static_cast<Made &>(*made).watch();
            m_stream->recycle(std::move(made));
        }
    }
    bool recycled() const { return m_recycled; }

private:
    DecodedStream *m_stream;
    bool m_recycled = false;
};

double mean(const std::vector<int> &counts)
{
    double sum = 0;
    for (int c : counts)
        sum += c;
    return counts.empty() ? 0 : sum / double(counts.size());
}

} // namespace

class TestStreamPump final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // Six hundred streams hold twelve hundred sockets here (the server's ends too): above
        // the usual soft limit of 1,024 descriptors, below the usual hard one.
        rlimit files{};
        QVERIFY(getrlimit(RLIMIT_NOFILE, &files) == 0);
        files.rlim_cur = files.rlim_max;
        QVERIFY(setrlimit(RLIMIT_NOFILE, &files) == 0);
        QVERIFY2(files.rlim_cur >= 2 * kMany + 256,
                 qPrintable(u"needs %1 file descriptors, the hard limit is %2"_s.arg(2 * kMany + 256)
                                .arg(qulonglong(files.rlim_max))));
    }

    // A few dozen relaxed streams are handed over once in kRelaxedFrames turns; six hundred once
    // in kMaxRelaxedFrames, each hand-over bringing more: the owner's thread touches each stream
    // half as often.
    void turnsLengthenWithManyStreams()
    {
        static_assert(StreamPump::relaxedPeriod(kFew) == StreamPump::kRelaxedFrames);
        static_assert(StreamPump::relaxedPeriod(kMany) == StreamPump::kMaxRelaxedFrames);
        TickingServer server;
        QVERIFY(server.listen());
        constexpr auto kWindow = 3000ms;
        const std::vector<int> few = handOvers(server, kFew, kWindow);
        QCOMPARE(int(few.size()), kFew);
        const std::vector<int> many = handOvers(server, kMany, kWindow);
        QCOMPARE(int(many.size()), kMany);

        qInfo("hand-overs per stream in %lld ms: %.1f with %d streams, %.1f with %d",
              qlonglong(kWindow.count()), mean(few), kFew, mean(many), kMany);
        // At most one turn a frame, and a stream's turn once in kMaxRelaxedFrames of them (plus
        // the turns that come early after a quiet spell, and the window's edges).
        const int mostWhenMany = int(kWindow / (StreamPump::kFrame * StreamPump::kMaxRelaxedFrames)) + 3;
        const int busiest = *std::max_element(many.cbegin(), many.cend());
        QVERIFY2(busiest <= mostWhenMany,
                 qPrintable(u"a stream of %1 handed over %2 times in %3 ms (at most %4)"_s.arg(kMany)
                                .arg(busiest)
                                .arg(kWindow.count())
                                .arg(mostWhenMany)));
        // Measured against the few in the same run, whatever the machine's speed: the many are
        // handed over about half as often (each turn brings more).
        QVERIFY2(mean(many) <= 0.7 * mean(few),
                 qPrintable(u"hand-overs per stream: %1 with %2 streams, %3 with %4"_s.arg(mean(many))
                                .arg(kMany)
                                .arg(mean(few))
                                .arg(kFew)));
        QVERIFY2(mean(many) > 0, "the many streams were never handed over");
    }

    // What a reader is done with goes back to the pump, which frees it on its own thread, where
    // its decoder allocated it (~5 % of the GUI thread with a thousand streams when freed there).
    // Fails with recycle() freeing it at once, or on the owner's thread.
    void spentResultsFreedOnThePumpThread()
    {
        TickingServer server;
        QVERIFY(server.listen());
        HttpClient client;
        HttpRequest request;
        request.url = server.url();
        auto freedOn = std::make_shared<std::atomic<QThread *>>(nullptr);
        auto opened = awaitWithin(client.openStream(request,
                                                    [freedOn]() -> std::unique_ptr<StreamDecoder> {
                                                        return std::make_unique<MakingDecoder>(freedOn);
                                                    }),
                                  30000);
        QVERIFY(opened && opened->reply && opened->inFrames && opened->decoded);
        RecyclingReader reader(opened->decoded);
        opened->decoded->setReader(&reader);
        QVERIFY(QTest::qWaitFor([&reader] { return reader.recycled(); }, 10000));
        // Freed at the pump's next hand-over (the server writes every 50 ms), not here.
        QVERIFY(QTest::qWaitFor([&freedOn] { return freedOn->load() != nullptr; }, 10000));
        QVERIFY(freedOn->load() != QThread::currentThread());
        QCOMPARE(freedOn->load()->objectName(), u"Runwatch streams"_s); // the pump's thread
        opened->reply->abort();
    }

private:
    static constexpr int kFew = 40;
    static constexpr int kMany = 600;
};

QTEST_GUILESS_MAIN(TestStreamPump)
#include "tst_streampump.moc"
