// SPDX-License-Identifier: GPL-3.0-or-later
// A stream's SSE decoder (core/backends/ssedecoder.*, the OpenAI and A2A connectors') and the one
// route a body takes through it (HttpClient::openStream's decoder): the same RunEvents whatever the
// byte boundaries, whenever the decoder is handed over and whichever transport reads the body (the
// stream pump or QNAM), and a stream destroyed while the pump is decoding for it is safe (run
// under ASan in CI).

#include "awaitwithin.h"
#include "backends/a2a/a2arunstream.h"
#include "backends/openai/openairunstream.h"
#include "backends/ssedecoder.h"
#include "net/httpclient.h"
#include "net/streamreply.h"
#include "testdata.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QPointer>
#include <QScopeGuard>
#include <QSslCertificate>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <any>
#include <functional>
#include <memory>

using namespace Qt::StringLiterals;
using namespace Runwatch;
using RunwatchTest::awaitWithin;

namespace {

QString describe(const RunEvent &e)
{
    return u"%1|%2|%3|%4|%5|%6|%7|%8|%9"_s.arg(int(e.type))
        .arg(e.sequence)
        .arg(int(e.status))
        .arg(e.text, e.itemId, e.remoteId, e.rawStatus)
        .arg(int(e.verify))
        .arg(e.error.code);
}

// Everything a stream's decoder handed over, in order.
struct Collected
{
    QStringList events;
    int batches = 0;
    std::optional<StreamEnd::Reason> end;
    bool settle = false;
    std::any readerState; // the last one handed over

    void add(std::unique_ptr<StreamDecoded> decoded)
    {
        if (!decoded)
            return;
        auto &batch = static_cast<SseBatch &>(*decoded);
        ++batches;
        for (const RunEvent &e : std::as_const(batch.events))
            events << describe(e);
        if (batch.end && !end)
            end = batch.end->reason;
        settle = settle || batch.settle;
        if (batch.readerState.has_value())
            readerState = batch.readerState;
    }
};

std::unique_ptr<SseDecoder> openAiDecoder()
{
    return OpenAiRunStream::decoderFor(OpenAiMapper(true, -1));
}

// The A2A connector's decoder for a transcript under tests/data/a2a (the binding from its name).
std::unique_ptr<SseDecoder> a2aDecoder(const QString &file)
{
    const auto binding = file.contains(u"/rest-"_s) ? A2a::Binding::HttpJson : A2a::Binding::JsonRpc;
    const auto mode = file.contains(u"subscribe"_s) ? A2aRunStream::Mode::Follow : A2aRunStream::Mode::Start;
    return A2aRunStream::decoderFor(A2aMapper(u"Agent"_s, true), binding, mode);
}

using DecoderFactory = std::function<std::unique_ptr<SseDecoder>()>;

DecoderFactory decoderFor(const QString &file)
{
    if (file.startsWith(u"a2a/"_s))
        return [file] { return a2aDecoder(file); };
    return openAiDecoder;
}

// Feeds `sse` in the given pieces, taking what the decoder made after each.
Collected decodePieces(const QByteArray &sse, const QList<qsizetype> &cuts,
                       const DecoderFactory &factory = openAiDecoder)
{
    Collected out;
    auto decoder = factory();
    qsizetype from = 0;
    QList<qsizetype> ends = cuts;
    ends << sse.size();
    for (const qsizetype to : std::as_const(ends)) {
        decoder->decode(QByteArrayView(sse).sliced(from, to - from));
        std::unique_ptr<StreamDecoded> decoded;
        decoder->handOver(decoded);
        out.add(std::move(decoded));
        from = to;
    }
    return out;
}

QByteArray chunked(const QByteArray &data)
{
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

// A loopback server answering every request with `head` and then whatever the test writes.
class SseServer
{
public:
    using Writer = std::function<void(QTcpSocket *)>;

    explicit SseServer(Writer writer)
        : m_writer(std::move(writer))
    {
        QObject::connect(&m_server, &QTcpServer::pendingConnectionAvailable, &m_server, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                auto received = std::make_shared<QByteArray>();
                QObject::connect(socket, &QIODevice::readyRead, socket, [this, socket, received] {
                    *received += socket->readAll();
                    if (!received->contains("\r\n\r\n") || socket->property("answered").toBool())
                        return;
                    socket->setProperty("answered", true);
                    socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                  "Transfer-Encoding: chunked\r\n\r\n");
                    m_writer(socket);
                });
            }
        });
        QVERIFY(m_server.listen(QHostAddress::LocalHost, 0));
    }

    QUrl url() const
    {
        return QUrl(u"http://127.0.0.1:%1/responses/resp_1?stream=true"_s.arg(m_server.serverPort()));
    }

private:
    QTcpServer m_server;
    Writer m_writer;
};

// Writes `body` as chunks of `piece` bytes, one per event-loop turn, then (when `last`) the last
// chunk.
void dribble(QTcpSocket *socket, const QByteArray &body, qsizetype piece, bool last = true)
{
    auto *timer = new QTimer(socket);
    QObject::connect(timer, &QTimer::timeout, socket,
                     [socket, timer, body, piece, last, offset = qsizetype(0)]() mutable {
                         if (offset >= body.size()) {
                             if (last)
                                 socket->write("0\r\n\r\n");
                             timer->stop();
                             return;
                         }
                         socket->write(chunked(body.mid(offset, piece)));
                         offset += piece;
                     });
    timer->start(0);
}

QCoro::Task<OpenedStream> open(HttpClient *http, QUrl url, StreamDecoderFactory makeDecoder = {})
{
    HttpRequest request;
    request.url = std::move(url);
    co_return co_await http->openStream(std::move(request), std::move(makeDecoder));
}

// Every field of an event but the structured ones (Read keeps those apart), for comparing two
// routes' events exactly.
QString everything(const RunEvent &e)
{
    return describe(e)
           + u"|%1|%2|%3|%4|%5|%6|%7"_s.arg(e.eventId, QString::number(int(e.kind)), e.title, e.model)
                 .arg(int(e.streamable))
                 .arg(int(e.continuation))
                 .arg(QString::fromUtf8(QJsonDocument(e.tokenExtra).toJson(QJsonDocument::Compact)));
}

// Reads an opened stream's decoded results until the reply finishes: what the reader of either
// transport gets.
struct Read
{
    QStringList events;
    QList<std::optional<InputRequest>> inputs;
    QList<std::optional<TokenUsage>> usages;
    QList<RunError> errors;
    std::optional<StreamEnd::Reason> end;
    bool settle = false;
    std::any readerState;

    void add(std::unique_ptr<StreamDecoded> decoded)
    {
        if (!decoded)
            return;
        auto &batch = static_cast<SseBatch &>(*decoded);
        for (const RunEvent &e : std::as_const(batch.events)) {
            events << everything(e);
            inputs << e.input;
            usages << e.usage;
            errors << e.error;
        }
        if (batch.end && !end)
            end = batch.end->reason;
        settle = settle || batch.settle;
        if (batch.readerState.has_value())
            readerState = batch.readerState;
    }
};

} // namespace

class TestSseDecoder final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Cut once at every byte: the events (and the end) are those of the whole body at once.
    void splitAtEveryByte_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addRow("basic") << u"openai/stream-basic.sse"_s;
        QTest::addRow("reasoning + tools") << u"openai/reasoning-tools.sse"_s;
        QTest::addRow("failed tail") << u"openai/stream-failed-tail.sse"_s;
        QTest::addRow("malformed") << u"openai/malformed.sse"_s;
        QTest::addRow("a2a 1.0 JSON-RPC") << u"a2a/jsonrpc-1.0-stream.sse"_s;
        QTest::addRow("a2a 0.3 JSON-RPC") << u"a2a/jsonrpc-0.3-stream.sse"_s;
        QTest::addRow("a2a 1.0 input required") << u"a2a/jsonrpc-1.0-input-required.sse"_s;
        QTest::addRow("a2a 1.0 subscribe, cancelled") << u"a2a/jsonrpc-1.0-subscribe-cancel.sse"_s;
        QTest::addRow("a2a 1.0 HTTP+JSON") << u"a2a/rest-1.0-stream.sse"_s;
    }
    void splitAtEveryByte()
    {
        QFETCH(QString, file);
        QByteArray sse = RunwatchTest::readData(file);
        QVERIFY(!sse.isEmpty());
        // The reference elided a history as "[…]" (tests/data/a2a/README.md), as tst_a2a_mapping restores.
        sse.replace("[\xE2\x80\xA6]", "[]");
        const DecoderFactory factory = decoderFor(file);
        const Collected whole = decodePieces(sse, {}, factory);
        QVERIFY(!whole.events.isEmpty());
        QVERIFY(whole.end.has_value() || file.contains(u"reasoning"_s));
        for (qsizetype cut = 0; cut <= sse.size(); ++cut) {
            const Collected split = decodePieces(sse, {cut}, factory);
            QCOMPARE(split.events, whole.events);
            QCOMPARE(split.end, whole.end);
        }
        QList<qsizetype> everyByte;
        for (qsizetype cut = 1; cut < sse.size(); ++cut)
            everyByte << cut;
        const Collected bytes = decodePieces(sse, everyByte, factory);
        QCOMPARE(bytes.events, whole.events);
        QCOMPARE(bytes.end, whole.end);
    }

    // Once the stream's end is decided, later bytes change nothing.
    void stopsAtTheEnd()
    {
        const QByteArray sse = RunwatchTest::readData(u"openai/stream-basic.sse"_s);
        const Collected once = decodePieces(sse, {});
        const Collected twice = decodePieces(sse + sse, {sse.size()});
        QCOMPARE(once.end, std::optional(StreamEnd::Reason::Terminal));
        QCOMPARE(twice.events, once.events);
        QCOMPARE(twice.end, once.end);
    }

    // The A2A decoder maps what the connector mapped on its own thread before (the mapper fed
    // each event's envelope), ends the stream where the task ends, and hands the stream what it
    // needs of the mapping: the task, its context and whether the stream ended.
    void a2aDecoderMapsAsTheMapperDoes()
    {
        const QByteArray sse = RunwatchTest::readData(u"a2a/jsonrpc-1.0-stream.sse"_s);
        const Collected decoded = decodePieces(sse, {}, decoderFor(u"a2a/jsonrpc-1.0-stream.sse"_s));

        A2aMapper mapper(u"Agent"_s, true);
        QList<RunEvent> mapped;
        SseParser parser;
        parser.feed(sse, [&](const SseEvent &event) {
            const A2a::Reply reply = A2a::decodeJsonRpc(event.data);
            QVERIFY(reply.ok());
            mapper.apply(A2a::classify(reply.result), mapped);
        });
        QStringList expected;
        for (const RunEvent &e : std::as_const(mapped))
            expected << describe(e);
        QCOMPARE(decoded.events, expected);
        QCOMPARE(decoded.end, std::optional(StreamEnd::Reason::Terminal));
        QCOMPARE(mapper.primaryText(), u"You said: hello. Done."_s);

        const auto *state = std::any_cast<A2aRunStream::TrackerState>(&decoded.readerState);
        QVERIFY(state);
        QCOMPARE(state->taskId, u"7d680f84-9fd9-47a8-9e24-9165f9ab1fdc"_s);
        QCOMPARE(state->contextId, u"c36f6a6d-b772-455e-9543-32b88cfaa0ad"_s);
        QVERIFY(state->endState);
        QVERIFY(!state->messageReply);
    }

    // An A2A error in place of the first item of a subscription: the task is one GetTask away
    // (-32004, a terminal task), so the stream settles instead of failing.
    void a2aSubscribeRefusedSettles()
    {
        const QByteArray sse = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32004,"
                               "\"message\":\"Task is in a terminal state\"}}\n\n";
        const Collected follow = decodePieces(sse, {}, [] {
            return A2aRunStream::decoderFor(A2aMapper(), A2a::Binding::JsonRpc, A2aRunStream::Mode::Follow);
        });
        QVERIFY(follow.settle);
        QVERIFY(follow.events.isEmpty());
        const Collected start = decodePieces(sse, {}, [] {
            return A2aRunStream::decoderFor(A2aMapper(), A2a::Binding::JsonRpc, A2aRunStream::Mode::Start);
        });
        QVERIFY(!start.settle);
        QCOMPARE(start.end, std::optional(StreamEnd::Reason::Error));
    }

    // Through the real stream pump: the decoder given to openStream (attached when the headers are
    // in), or attached to a reply after bytes have piled up in it and its channel, yields the same
    // events as in memory.
    void pumpHandOver_data()
    {
        QTest::addColumn<qsizetype>("piece");
        QTest::addColumn<bool>("attachLate");
        QTest::addRow("1-byte chunks, at once") << qsizetype(1) << false;
        QTest::addRow("7-byte chunks, at once") << qsizetype(7) << false;
        QTest::addRow("whole, at once") << qsizetype(1 << 20) << false;
        QTest::addRow("1-byte chunks, late") << qsizetype(1) << true;
        QTest::addRow("61-byte chunks, late") << qsizetype(61) << true;
    }
    void pumpHandOver()
    {
        QFETCH(qsizetype, piece);
        QFETCH(bool, attachLate);
        const QByteArray sse = RunwatchTest::readData(u"openai/stream-basic.sse"_s);
        const Collected expected = decodePieces(sse, {});

        const qsizetype half = sse.size() / 2;
        QPointer<QTcpSocket> peer;
        SseServer server([&](QTcpSocket *socket) {
            peer = socket;
            if (attachLate) {
                dribble(socket, sse.left(half), piece, false); // the rest once the decoder is attached
            } else {
                dribble(socket, sse, piece);
            }
        });
        HttpClient http;
        http.setAllowInsecureHttp(true);
        QNetworkReply *reply = nullptr;
        DecodedStream *decoded = nullptr;
        if (attachLate) {
            // The pump's reply itself, as HttpClient makes it, with no decoder yet.
            HttpRequest request;
            request.url = server.url();
            auto *pumped = new detail::StreamReply(request, 0, &http);
            QTRY_VERIFY_WITH_TIMEOUT(pumped->bytesAvailable() > half / 2, 10000);
            pumped->attachDecoder(openAiDecoder());
            reply = pumped;
            decoded = pumped;
        } else {
            const std::optional<OpenedStream> opened = awaitWithin(open(&http, server.url(), openAiDecoder));
            QVERIFY(opened && opened->reply);
            QVERIFY(opened->inFrames);
            QVERIFY(opened->decoded);
            reply = opened->reply;
            decoded = opened->decoded;
        }

        Collected got;
        QObject::connect(reply, &QNetworkReply::readyRead, reply, [&] { got.add(decoded->take()); });
        got.add(decoded->take()); // what the reply held, decoded at once
        if (attachLate) {
            QVERIFY(peer);
            QTRY_VERIFY_WITH_TIMEOUT(!peer->findChild<QTimer *>() || !peer->findChild<QTimer *>()->isActive(),
                                     10000);
            dribble(peer, sse.mid(half), piece);
        }
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 20000);
        got.add(decoded->take());
        QCOMPARE(reply->error(), QNetworkReply::NoError);
        QCOMPARE(reply->bytesAvailable(), 0);
        QCOMPARE(got.events, expected.events);
        QCOMPARE(got.end, expected.end);
        reply->deleteLater();
    }

    // A QNetworkAccessManager reply (here: a client with a CA bundle of its own) is not read in
    // frames, and decodes through the decoder given to openStream all the same; a body that is
    // not an event stream gets no decoder from either transport.
    void qnamReplyDecodes()
    {
        const QByteArray sse = RunwatchTest::readData(u"openai/stream-basic.sse"_s);
        const Collected expected = decodePieces(sse, {});
        SseServer server([&](QTcpSocket *socket) { dribble(socket, sse, 97); });
        HttpClient http;
        http.setAllowInsecureHttp(true);
        http.setCaCertificates(QSslCertificate::fromData(RunwatchTest::readData(u"tls/cert.pem"_s)));
        QVERIFY(!http.caCertificates().isEmpty());
        const std::optional<OpenedStream> opened = awaitWithin(open(&http, server.url(), openAiDecoder));
        QVERIFY(opened && opened->reply);
        QVERIFY(!opened->inFrames);
        QVERIFY(opened->decoded);
        Collected got;
        QObject::connect(opened->reply, &QNetworkReply::readyRead, opened->reply,
                         [&] { got.add(opened->decoded->take()); });
        got.add(opened->decoded->take());
        QTRY_VERIFY_WITH_TIMEOUT(opened->reply->isFinished(), 20000);
        got.add(opened->decoded->take());
        QCOMPARE(got.events, expected.events);
        QCOMPARE(got.end, expected.end);
        opened->reply->deleteLater();

        // The decoder is made for an event stream only.
        QTcpServer plain;
        QObject::connect(&plain, &QTcpServer::pendingConnectionAvailable, &plain, [&plain] {
            while (QTcpSocket *socket = plain.nextPendingConnection()) {
                QObject::connect(socket, &QIODevice::readyRead, socket, [socket] {
                    if (!socket->readAll().contains("\r\n\r\n") || socket->property("answered").toBool())
                        return;
                    socket->setProperty("answered", true);
                    socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                  "Content-Length: 11\r\n\r\n{\"ok\":true}");
                });
            }
        });
        QVERIFY(plain.listen(QHostAddress::LocalHost, 0));
        const QUrl plainUrl(u"http://127.0.0.1:%1/task"_s.arg(plain.serverPort()));
        int made = 0;
        const StreamDecoderFactory counting = [&made]() -> std::unique_ptr<StreamDecoder> {
            ++made;
            return openAiDecoder();
        };
        HttpClient pumped;
        pumped.setAllowInsecureHttp(true);
        for (HttpClient *client : {&pumped, &http}) {
            const std::optional<OpenedStream> json = awaitWithin(open(client, plainUrl, counting));
            QVERIFY(json && json->reply);
            QCOMPARE(json->inFrames, client == &pumped);
            QVERIFY(!json->decoded);
            QTRY_VERIFY_WITH_TIMEOUT(json->reply->isFinished(), 10000);
            QCOMPARE(json->reply->readAll(), QByteArray("{\"ok\":true}"));
            json->reply->deleteLater();
        }
        QCOMPARE(made, 0);
    }

    // One route for a byte: the same transcript through the same decoder gives exactly the same
    // events, end and reader state whether the stream pump reads it (on its thread, handed over
    // in frames) or QNAM does (behind a proxy or with a CA bundle: decoded on the reader's thread).
    void transportsDecodeAlike_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qsizetype>("piece");
        for (const QString &file :
             {u"openai/stream-basic.sse"_s, u"openai/reasoning-tools.sse"_s,
              u"openai/stream-failed-tail.sse"_s, u"openai/malformed.sse"_s, u"a2a/jsonrpc-1.0-stream.sse"_s,
              u"a2a/jsonrpc-1.0-input-required.sse"_s, u"a2a/rest-1.0-stream.sse"_s}) {
            for (const qsizetype piece : {qsizetype(1), qsizetype(61), qsizetype(1 << 20)})
                QTest::addRow("%s, %lld-byte chunks", qPrintable(file), qlonglong(piece)) << file << piece;
        }
    }
    void transportsDecodeAlike()
    {
        QFETCH(QString, file);
        QFETCH(qsizetype, piece);
        QByteArray sse = RunwatchTest::readData(file);
        QVERIFY(!sse.isEmpty());
        sse.replace("[\xE2\x80\xA6]", "[]"); // as splitAtEveryByte
        SseServer server([&](QTcpSocket *socket) { dribble(socket, sse, piece); });

        const auto readThrough = [&](HttpClient &http, bool framed) {
            Read got;
            const std::optional<OpenedStream> opened
                = awaitWithin(open(&http, server.url(), decoderFor(file)));
            if (!opened || !opened->reply || !opened->decoded || opened->inFrames != framed) {
                qWarning("the stream did not open with a decoder on the expected transport");
                return std::optional<Read>();
            }
            QNetworkReply *reply = opened->reply;
            DecodedStream *decoded = opened->decoded;
            const QMetaObject::Connection reading = QObject::connect(reply, &QNetworkReply::readyRead, reply,
                                                                     [&] { got.add(decoded->take()); });
            const auto done = qScopeGuard([reply, reading] {
                QObject::disconnect(reading);
                reply->abort();
                reply->deleteLater();
            });
            got.add(decoded->take());
            // An event loop, not qWaitFor: that sleeps 10 ms between turns, and 1-byte chunks
            // written one per turn would take minutes.
            QEventLoop loop;
            QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
            QTimer::singleShot(30000, &loop, &QEventLoop::quit);
            if (!reply->isFinished())
                loop.exec();
            if (!reply->isFinished()) {
                qWarning("the stream did not finish within 30 s");
                return std::optional<Read>();
            }
            got.add(decoded->take());
            return std::optional(got);
        };
        HttpClient pumpClient;
        pumpClient.setAllowInsecureHttp(true);
        HttpClient qnamClient;
        qnamClient.setAllowInsecureHttp(true);
        qnamClient.setCaCertificates(QSslCertificate::fromData(RunwatchTest::readData(u"tls/cert.pem"_s)));

        const std::optional<Read> pump = readThrough(pumpClient, true);
        const std::optional<Read> qnam = readThrough(qnamClient, false);
        QVERIFY(pump);
        QVERIFY(qnam);
        QVERIFY(!pump->events.isEmpty());
        QCOMPARE(qnam->events, pump->events);
        QVERIFY(qnam->inputs == pump->inputs);
        QVERIFY(qnam->usages == pump->usages);
        QVERIFY(qnam->errors == pump->errors);
        QCOMPARE(qnam->end, pump->end);
        QCOMPARE(qnam->settle, pump->settle);
        // And both are what the decoder makes of the whole transcript in memory.
        const Collected memory = decodePieces(sse, {}, decoderFor(file));
        QCOMPARE(pump->events.size(), memory.events.size());
        QCOMPARE(pump->end, memory.end);
        if (file.startsWith(u"a2a/"_s)) {
            const auto *a = std::any_cast<A2aRunStream::TrackerState>(&pump->readerState);
            const auto *b = std::any_cast<A2aRunStream::TrackerState>(&qnam->readerState);
            QVERIFY(a && b);
            QCOMPARE(b->taskId, a->taskId);
            QCOMPARE(b->contextId, a->contextId);
            QCOMPARE(b->endState, a->endState);
            QCOMPARE(b->messageReply, a->messageReply);
        }
    }

    // The reader goes away while the pump thread decodes a busy stream for it: the decoder dies
    // with the stream's channel, after its last use (ASan checks the rest).
    void destroyMidBatch()
    {
        // One response.output_text.delta event, repeated endlessly with rising sequence numbers.
        qint64 sequence = 0;
        auto events = [&sequence](int count) {
            QByteArray out;
            for (int i = 0; i < count; ++i) {
                out += "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
                       "\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"abcdefgh\","
                       "\"sequence_number\":"
                       + QByteArray::number(++sequence) + "}\n\n";
            }
            return out;
        };
        SseServer server([&](QTcpSocket *socket) {
            auto *timer = new QTimer(socket);
            QObject::connect(timer, &QTimer::timeout, socket, [socket, events] {
                if (socket->bytesToWrite() < 1 << 20)
                    socket->write(chunked(events(200)));
            });
            timer->start(0);
        });
        HttpClient http;
        http.setAllowInsecureHttp(true);
        for (int round = 0; round < 10; ++round) {
            const std::optional<OpenedStream> opened = awaitWithin(open(&http, server.url(), openAiDecoder));
            QVERIFY(opened && opened->reply && opened->decoded);
            QNetworkReply *reply = opened->reply;
            DecodedStream *decodedStream = opened->decoded;
            int seen = 0;
            const auto take = [&seen, decodedStream] {
                if (auto decoded = decodedStream->take())
                    seen += int(static_cast<SseBatch &>(*decoded).events.size());
            };
            QObject::connect(reply, &QNetworkReply::readyRead, reply, take);
            take();
            QTRY_VERIFY_WITH_TIMEOUT(seen > 100 * (round % 3), 10000);
            if (round % 2)
                reply->abort();
            delete reply; // mid-stream: the pump thread is likely decoding the next batch now
        }
        // The pump is still fine: a fresh stream decodes to the end.
        const QByteArray sse = RunwatchTest::readData(u"openai/stream-basic.sse"_s);
        SseServer again([&](QTcpSocket *socket) { dribble(socket, sse, 1 << 20); });
        const std::optional<OpenedStream> opened = awaitWithin(open(&http, again.url(), openAiDecoder));
        QVERIFY(opened && opened->reply && opened->decoded);
        Collected got;
        got.add(opened->decoded->take());
        QObject::connect(opened->reply, &QNetworkReply::readyRead, opened->reply,
                         [&] { got.add(opened->decoded->take()); });
        QTRY_VERIFY_WITH_TIMEOUT(opened->reply->isFinished(), 10000);
        QCOMPARE(got.end, std::optional(StreamEnd::Reason::Terminal));
        delete opened->reply;
    }
};

QTEST_GUILESS_MAIN(TestSseDecoder)
#include "tst_ssedecoder.moc"
