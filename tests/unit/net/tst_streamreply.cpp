// SPDX-License-Identifier: GPL-3.0-or-later
// The stream pump (core/net/stream*, http1response) end to end through HttpClient::openStream,
// against loopback servers (TCP and TLS) writing raw bytes the test scripts, so that the framing
// is under the test's control.

#include "awaitwithin.h"
#include "net/httpclient.h"
#include "net/streampump.h"
#include "testdata.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QPointer>
#include <QScopeGuard>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

using namespace Qt::StringLiterals;
using RunwatchTest::awaitWithin;
using namespace std::chrono_literals;
using namespace Runwatch;
using Runwatch::detail::StreamPump;

namespace {

// A loopback server that answers in raw bytes. It reads each connection's request (header
// section plus a Content-Length body), records it, and hands the socket to the test's handler,
// which writes whatever it likes, keeps the socket open or closes it. With a TLS configuration
// it is a QSslServer; connections then count once their handshake succeeded.
class RawServer
{
public:
    using Handler = std::function<void(QTcpSocket *peer, const QByteArray &request)>;

    explicit RawServer(Handler handler, const std::optional<QSslConfiguration> &tls = std::nullopt)
        : m_handler(std::move(handler))
    {
        if (tls) {
            auto *ssl = new QSslServer;
            ssl->setSslConfiguration(*tls);
            m_server.reset(ssl);
        } else {
            m_server.reset(new QTcpServer);
        }
        // Not newConnection: Qt 6.4's QSslServer emits that before the handshake, when there is
        // nothing to take yet, and never again once the socket is encrypted.
        QObject::connect(m_server.get(), &QTcpServer::pendingConnectionAvailable, m_server.get(),
                         [this] { accept(); });
        if (!m_server->listen(QHostAddress::LocalHost, 0))
            qWarning("RawServer: cannot listen: %s", qPrintable(m_server->errorString()));
    }

    quint16 port() const { return m_server->serverPort(); }
    QUrl url(const QString &pathAndQuery, const QString &scheme = u"http"_s) const
    {
        return QUrl(u"%1://127.0.0.1:%2%3"_s.arg(scheme, QString::number(port()), pathAndQuery));
    }
    int connections() const { return static_cast<int>(m_peers.size()); }
    QList<QByteArray> requests() const { return m_requests; }

private:
    struct Peer
    {
        QPointer<QTcpSocket> socket;
        QByteArray received;
        bool answered = false;
    };

    void accept()
    {
        while (QTcpSocket *socket = m_server->nextPendingConnection()) {
            auto peer = std::make_shared<Peer>();
            peer->socket = socket;
            m_peers.append(peer);
            QObject::connect(socket, &QIODevice::readyRead, socket, [this, p = peer.get()] { read(*p); });
            read(*peer);
        }
    }

    void read(Peer &peer)
    {
        peer.received += peer.socket->readAll();
        const qsizetype end = peer.received.indexOf("\r\n\r\n");
        if (peer.answered || end < 0)
            return;
        qint64 length = 0;
        for (const QByteArray &line : peer.received.left(end).split('\n')) {
            if (line.toLower().startsWith("content-length:"))
                length = line.mid(15).trimmed().toLongLong();
        }
        if (peer.received.size() < end + 4 + length)
            return;
        peer.answered = true;
        m_requests.append(peer.received.left(end + 4 + length));
        m_handler(peer.socket, m_requests.constLast());
    }

    Handler m_handler;
    std::unique_ptr<QTcpServer> m_server;
    QList<std::shared_ptr<Peer>> m_peers;
    QList<QByteArray> m_requests;
};

const QByteArray kSseHead = QByteArrayLiteral(
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");

QByteArray chunk(const QByteArray &data)
{
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

QByteArray targetOf(const QByteArray &request)
{
    return request.left(request.indexOf("\r\n")).split(' ').value(1);
}

// Writes `bytes` a few at a time, one piece per timer tick, so that the client gets the
// response cut at arbitrary points (mid chunk-size line, mid CRLF, mid trailer).
void dribble(QTcpSocket *peer, const QByteArray &bytes, qsizetype piece)
{
    auto *timer = new QTimer(peer);
    QObject::connect(timer, &QTimer::timeout, peer,
                     [peer, timer, bytes, piece, offset = qsizetype(0)]() mutable {
                         peer->write(bytes.mid(offset, piece));
                         peer->flush();
                         offset += piece;
                         if (offset >= bytes.size())
                             timer->stop();
                     });
    timer->start(1);
}

// Reads the reply until it has finished and is drained (or `ms` passed); everything read.
QByteArray readToEnd(const QPointer<QNetworkReply> &reply, int ms = 10000)
{
    QByteArray got;
    (void)QTest::qWaitFor(
        [&] {
            if (!reply)
                return true;
            got += reply->readAll();
            return reply->isFinished() && reply->bytesAvailable() == 0;
        },
        ms);
    return got;
}

// openStream under the watchdog: the live reply, or null (the reason logged). Whether the stream
// pump reads it (OpenedStream::inFrames) rides on the reply for deliversInFrames().
QPointer<QNetworkReply> openLive(HttpClient &client, const HttpRequest &request)
{
    const auto opened = awaitWithin(client.openStream(request));
    if (!opened || !opened->response.ok())
        qWarning("openStream: %s", opened ? qPrintable(opened->response.error.toString()) : "no result");
    if (opened && opened->reply)
        opened->reply->setProperty("tst_inFrames", opened->inFrames);
    return opened ? opened->reply : nullptr;
}

// What openStream said of a reply from openLive(): read by the stream pump, handed over in frames.
bool deliversInFrames(const QNetworkReply *reply)
{
    return reply && reply->property("tst_inFrames").toBool();
}

// openStream expected to fail: its response, or nullopt when it did not complete or opened.
std::optional<HttpResponse> openFails(HttpClient &client, const HttpRequest &request)
{
    const auto opened = awaitWithin(client.openStream(request));
    return opened && !opened->reply ? std::optional(opened->response) : std::nullopt;
}

// `n` bytes of the backpressure test's body from `offset` on: a prime period, so that a lost or
// repeated slice (a power of two long) shows.
QByteArray pattern(qint64 offset, qsizetype n)
{
    QByteArray out(n, Qt::Uninitialized);
    for (qsizetype i = 0; i < n; ++i)
        out[i] = static_cast<char>((offset + i) % 251);
    return out;
}

// Fast retries, and timeouts generous enough for a loaded CI machine.
RetryPolicy testPolicy()
{
    RetryPolicy p;
    p.initialDelay = 10ms;
    p.maxDelay = 40ms;
    p.connectTimeout = 5000ms;
    p.inactivityTimeout = 10000ms;
    return p;
}

struct TestClient : HttpClient
{
    TestClient() { setPolicy(testPolicy()); }
};

HttpRequest get(const QUrl &url)
{
    HttpRequest r;
    r.url = url;
    r.headers = {{"Authorization", "Bearer sk-test"}};
    return r;
}

QSslConfiguration serverTls()
{
    QSslConfiguration c = QSslConfiguration::defaultConfiguration();
    c.setLocalCertificate(QSslCertificate(RunwatchTest::readData(u"tls/cert.pem"_s)));
    c.setPrivateKey(QSslKey(RunwatchTest::readData(u"tls/key.pem"_s), QSsl::Rsa));
    c.setPeerVerifyMode(QSslSocket::VerifyNone);
    return c;
}

} // namespace

class TestStreamReply : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void chunkedSseBody();
    void lengthAndCloseFraming_data();
    void lengthAndCloseFraming();
    void manyStreamsToOneHost();
    void postNeverResent();
    void requestOnTheWire();
    void lineBreakInHeaderRefused_data();
    void lineBreakInHeaderRefused();
    void backpressureBoundsUnreadData();
    void inactivityTimeout();
    void proxyGoesThroughQnam();
    void malformedResponse_data();
    void malformedResponse();
    void tlsCertificateChecked();
    void clientDestroyedMidStream();
};

void TestStreamReply::initTestCase()
{
    // The switch back to QNAM is read once per process: make sure the pump is what runs here.
    qunsetenv("RUNWATCH_STREAM_TRANSPORT");
}

void TestStreamReply::chunkedSseBody()
{
    const QByteArray events = "data: one\n\ndata: two!\n\ndata: a\r\ndata: b\r\n\r\n";
    RawServer server([](QTcpSocket *peer, const QByteArray &) {
        peer->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Tag: a\r\n"
                    "Transfer-Encoding: chunked\r\nX-Tag: b\r\n\r\n");
        // Extensions (quoted, with a ';' inside), upper-case and zero-padded sizes, a CRLF inside
        // the data, trailer fields; the connection stays open, so only the 0-chunk ends the body.
        dribble(peer,
                "b;ext=1\r\ndata: one\n\n\r\n"
                "00000C ; name=\"q;x\"\r\ndata: two!\n\n\r\n"
                "14\r\ndata: a\r\ndata: b\r\n\r\n\r\n"
                "0;last\r\nX-Trailer: t\r\nServer-Timing: x\r\n\r\n",
                5);
    });
    TestClient client;
    const QPointer<QNetworkReply> reply = openLive(client, get(server.url(u"/s"_s)));
    QVERIFY(reply);
    QVERIFY(deliversInFrames(reply));
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    QCOMPARE(reply->rawHeader("content-type"), QByteArray("text/event-stream"));
    QCOMPARE(reply->rawHeader("X-Tag"), QByteArray("a, b"));

    QCOMPARE(readToEnd(reply), events);
    QVERIFY(reply->isFinished());
    QCOMPARE(reply->error(), QNetworkReply::NoError);
}

void TestStreamReply::lengthAndCloseFraming_data()
{
    QTest::addColumn<QByteArray>("response");
    QTest::addColumn<bool>("close");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("error");

    const QByteArray body = "data: one\n\ndata: two\n\n";
    const QByteArray head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n";
    // Kept open, with bytes after the body: only the length can end it, and nothing beyond.
    QTest::newRow("content-length") << QByteArray(head + "Content-Length: " + QByteArray::number(body.size())
                                                  + "\r\n\r\n" + body + "data: not part of it\n\n")
                                    << false << body << int(QNetworkReply::NoError);
    QTest::newRow("close-delimited") << QByteArray(head + "\r\n" + body) << true << body
                                     << int(QNetworkReply::NoError);
    QTest::newRow("content-length cut short")
        << QByteArray(head + "Content-Length: " + QByteArray::number(body.size() + 100) + "\r\n\r\n" + body)
        << true << body << int(QNetworkReply::RemoteHostClosedError);
}

void TestStreamReply::lengthAndCloseFraming()
{
    QFETCH(QByteArray, response);
    QFETCH(bool, close);
    QFETCH(QByteArray, body);
    QFETCH(int, error);
    RawServer server([&](QTcpSocket *peer, const QByteArray &) {
        peer->write(response);
        if (close)
            peer->disconnectFromHost();
    });
    TestClient client;
    const QPointer<QNetworkReply> reply = openLive(client, get(server.url(u"/s"_s)));
    QVERIFY(reply);
    QVERIFY(deliversInFrames(reply));
    QCOMPARE(readToEnd(reply), body);
    QVERIFY(reply->isFinished());
    QCOMPARE(int(reply->error()), error);
}

void TestStreamReply::manyStreamsToOneHost()
{
    constexpr int kStreams = 10; // QNAM alone runs six connections per host and queues the rest
    RawServer server([](QTcpSocket *peer, const QByteArray &request) {
        if (targetOf(request) == "/ping") {
            peer->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n"
                        "{\"ok\":true}");
            return;
        }
        peer->write(kSseHead + chunk("data: " + targetOf(request) + "\n\n")); // and stays open
    });
    TestClient client;

    std::vector<QCoro::Task<OpenedStream>> tasks;
    for (int i = 0; i < kStreams; ++i)
        tasks.push_back(client.openStream(get(server.url(u"/s%1"_s.arg(i)))));
    QList<QPointer<QNetworkReply>> replies;
    for (int i = 0; i < kStreams; ++i) {
        auto opened = awaitWithin(std::move(tasks[i]));
        QVERIFY(opened);
        QVERIFY2(opened->response.ok(), qPrintable(opened->response.error.toString()));
        QVERIFY(opened->inFrames);
        replies.append(opened->reply);
    }
    for (int i = 0; i < kStreams; ++i) {
        const QByteArray expected = "data: /s" + QByteArray::number(i) + "\n\n";
        QByteArray got;
        QTRY_VERIFY_WITH_TIMEOUT(replies[i] && (got += replies[i]->readAll()) == expected, 5000);
    }
    // A buffered request to the same host is not stuck behind the open streams.
    const auto ping = awaitWithin(client.send(get(server.url(u"/ping"_s))));
    QVERIFY(ping);
    QVERIFY2(ping->ok(), qPrintable(ping->error.toString()));
    QCOMPARE(ping->body, QByteArray("{\"ok\":true}"));
    for (const auto &reply : std::as_const(replies))
        QVERIFY(reply && !reply->isFinished());
    QCOMPARE(server.connections(), kStreams + 1);
}

void TestStreamReply::postNeverResent()
{
    RawServer server([](QTcpSocket *peer, const QByteArray &) { peer->disconnectFromHost(); });
    TestClient client;
    RetryPolicy policy = testPolicy();
    policy.maxRetries = 3; // retries are allowed in general, just not for this request
    client.setPolicy(policy);

    HttpRequest request = get(server.url(u"/v1/responses"_s));
    request.method = "POST";
    request.body = "{\"input\":\"start a run\"}";
    request.idempotent = false;
    const auto failed = openFails(client, request);
    QVERIFY(failed);
    QCOMPARE(failed->error.code, u"connection_closed"_s);
    QCOMPARE(failed->attempts, 1);
    QCOMPARE(server.requests().size(), 1);
    QVERIFY(server.requests().constFirst().endsWith(request.body));
    QCOMPARE(server.connections(), 1);
}

void TestStreamReply::requestOnTheWire()
{
    RawServer server([](QTcpSocket *peer, const QByteArray &) {
        peer->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 0\r\n\r\n");
    });
    TestClient client;
    HttpRequest request = get(server.url(u"/v1/responses?stream=true&q=a%20b"_s));
    request.method = "POST";
    request.body = "{\"model\":\"m\",\"stream\":true}";
    request.idempotent = false;
    request.headers.append({QByteArrayLiteral("X-Custom"), QByteArrayLiteral("one, two")});
    QVERIFY(deliversInFrames(openLive(client, request)));

    QCOMPARE(server.requests().size(), 1);
    const QByteArray wire = server.requests().constFirst();
    const QByteArray head = wire.left(wire.indexOf("\r\n\r\n") + 2); // each line with its CRLF
    QCOMPARE(head.count('\n'), head.count("\r\n"));                  // no bare LF
    QVERIFY(head.startsWith("POST /v1/responses?stream=true&q=a%20b HTTP/1.1\r\n"));
    const QByteArray fields[] = {"Host: 127.0.0.1:" + QByteArray::number(server.port()),
                                 "Authorization: Bearer sk-test",
                                 "X-Custom: one, two",
                                 "Accept: text/event-stream",
                                 "Content-Length: " + QByteArray::number(request.body.size()),
                                 "Connection: close"};
    for (const QByteArray &field : fields)
        QVERIFY2(head.count(QByteArray("\r\n" + field + "\r\n")) == 1, field.constData());
    QCOMPARE(head.count("\r\nHost:"), 1);
    QVERIFY(!head.toLower().contains("transfer-encoding"));
    QCOMPARE(wire.mid(head.size() + 2), request.body);
}

void TestStreamReply::lineBreakInHeaderRefused_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("value");
    QTest::newRow("CRLF in value") << QByteArray("X-Note") << QByteArray("a\r\nX-Injected: 1");
    QTest::newRow("LF in value") << QByteArray("X-Note") << QByteArray("a\nX-Injected: 1");
    QTest::newRow("CRLF in name") << QByteArray("X-Injected: 1\r\nX-Note") << QByteArray("a");
}

void TestStreamReply::lineBreakInHeaderRefused()
{
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, value);
    RawServer server(
        [](QTcpSocket *peer, const QByteArray &) { peer->write(kSseHead + chunk("data: x\n\n")); });
    TestClient client;
    HttpRequest request = get(server.url(u"/s"_s));
    request.headers.append({name, value});
    const auto failed = openFails(client, request);
    QVERIFY(failed);
    // Refused by HttpClient before either transport is asked (tst_requestframing has both).
    QCOMPARE(failed->error.kind, ErrorKind::Client);
    QCOMPARE(failed->error.code, u"invalid_request"_s);
    QCOMPARE(server.connections(), 0);
}

void TestStreamReply::backpressureBoundsUnreadData()
{
    // The server writes as fast as the connection takes it (close-delimited) until told to
    // stop. Not a fixed 32 MiB: loopback receive buffers autotune up to tcp_rmem's maximum
    // (32 MiB on common kernels) and could swallow it all, leaving the server nothing unsent.
    constexpr qsizetype kSlice = 256 * 1024;
    qint64 sent = 0;
    bool stop = false;
    QPointer<QTcpSocket> serverSide;
    RawServer server([&](QTcpSocket *peer, const QByteArray &) {
        serverSide = peer;
        peer->write("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n");
        const auto refill = [&, peer] {
            for (; !stop && peer->bytesToWrite() < 4 * kSlice; sent += kSlice)
                peer->write(pattern(sent, kSlice));
        };
        QObject::connect(peer, &QIODevice::bytesWritten, peer, refill);
        refill();
    });
    TestClient client;
    const QPointer<QNetworkReply> reply = openLive(client, get(server.url(u"/big"_s)));
    QVERIFY(reply);
    QVERIFY(deliversInFrames(reply));

    // Nobody reads: the reply fills up to the limit, then the connection stops reading and the
    // rest waits in the kernel's buffers and on the server's side.
    QTRY_VERIFY_WITH_TIMEOUT(reply->bytesAvailable() >= StreamPump::MaxUnread / 2, 20000);
    constexpr qint64 kBound = StreamPump::MaxUnread + 4 * 1024 * 1024;
    const bool overflowed = QTest::qWaitFor([&] { return !reply || reply->bytesAvailable() > kBound; }, 1500);
    QVERIFY2(!overflowed, qPrintable(u"unread: %1 bytes"_s.arg(reply ? reply->bytesAvailable() : -1)));
    QVERIFY(serverSide && serverSide->bytesToWrite() > 0); // held up, not done
    QVERIFY(!reply->isFinished());

    // Reading lets it flow again, to the end: not a byte lost, repeated or reordered.
    stop = true;
    const qint64 total = sent;
    serverSide->disconnectFromHost(); // after what is queued
    qint64 received = 0;
    bool intact = true;
    QVERIFY(QTest::qWaitFor(
        [&] {
            if (!reply)
                return true;
            const QByteArray part = reply->readAll();
            intact = intact && part == pattern(received, part.size());
            received += part.size();
            return reply->isFinished() && reply->bytesAvailable() == 0;
        },
        30000));
    QVERIFY(reply);
    QCOMPARE(received, total);
    QVERIFY(intact);
    QCOMPARE(reply->error(), QNetworkReply::NoError);
}

void TestStreamReply::inactivityTimeout()
{
    RawServer server([](QTcpSocket *peer, const QByteArray &) { peer->write(kSseHead + chunk(": hi\n\n")); });
    TestClient client;
    RetryPolicy policy = testPolicy();
    policy.inactivityTimeout = 300ms;
    client.setPolicy(policy);
    const QPointer<QNetworkReply> reply = openLive(client, get(server.url(u"/s"_s)));
    QVERIFY(reply);
    QVERIFY(deliversInFrames(reply));
    QByteArray got;
    QTRY_VERIFY_WITH_TIMEOUT((got += reply->readAll()) == ": hi\n\n", 5000);
    QElapsedTimer silence;
    silence.start();
    QVERIFY(!reply->isFinished());
    // The server stays connected but silent: the pump gives up as QNAM's transfer timeout would.
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 5000);
    QCOMPARE(reply->error(), QNetworkReply::OperationCanceledError);
    QVERIFY2(silence.elapsed() >= 100, qPrintable(QString::number(silence.elapsed())));
}

void TestStreamReply::proxyGoesThroughQnam()
{
    const QByteArray body = "data: proxied\n\n";
    RawServer proxy([&body](QTcpSocket *peer, const QByteArray &) {
        peer->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: "
                    + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    });
    RawServer origin([](QTcpSocket *, const QByteArray &) {}); // must not be contacted at all
    TestClient client;
    client.networkAccessManager()->setProxy(
        QNetworkProxy(QNetworkProxy::HttpProxy, u"127.0.0.1"_s, proxy.port()));
    const QPointer<QNetworkReply> reply = openLive(client, get(origin.url(u"/s?x=1"_s)));
    QVERIFY(reply);
    QVERIFY(!deliversInFrames(reply));
    QCOMPARE(origin.connections(), 0);
    QCOMPARE(proxy.requests().size(), 1);
    const QByteArray requestLine
        = "GET http://127.0.0.1:" + QByteArray::number(origin.port()) + "/s?x=1 HTTP/1.1\r\n";
    QVERIFY2(proxy.requests().constFirst().startsWith(requestLine),
             proxy.requests().constFirst().constData());
    QCOMPARE(readToEnd(reply), body);
}

void TestStreamReply::malformedResponse_data()
{
    QTest::addColumn<QByteArray>("response");
    QTest::addColumn<bool>("opens"); // the header section is fine, the body is not
    QTest::addColumn<QByteArray>("body");

    QTest::newRow("status not a number")
        << QByteArray("HTTP/1.1 abc OK\r\nContent-Length: 0\r\n\r\n") << false << QByteArray();
    QTest::newRow("not HTTP") << QByteArray("SSH-2.0-OpenSSH_9.6\r\n") << false << QByteArray();
    QTest::newRow("conflicting lengths")
        << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello") << false
        << QByteArray();
    QTest::newRow("bad chunk size") << QByteArray(kSseHead + chunk("data: one\n\n")
                                                  + "zz\r\ndata: two\n\n\r\n")
                                    << true << QByteArray("data: one\n\n");
}

void TestStreamReply::malformedResponse()
{
    QFETCH(QByteArray, response);
    QFETCH(bool, opens);
    QFETCH(QByteArray, body);
    // The connection stays open: the error must come from parsing, not from a close.
    RawServer server([&](QTcpSocket *peer, const QByteArray &) { peer->write(response); });
    TestClient client;
    if (!opens) {
        const auto failed = openFails(client, get(server.url(u"/s"_s)));
        QVERIFY(failed);
        QCOMPARE(failed->error.kind, ErrorKind::Protocol);
        QCOMPARE(failed->attempts, 1);
        return;
    }
    const QPointer<QNetworkReply> reply = openLive(client, get(server.url(u"/s"_s)));
    QVERIFY(reply);
    QVERIFY(deliversInFrames(reply));
    QCOMPARE(readToEnd(reply), body);
    QCOMPARE(reply->error(), QNetworkReply::ProtocolFailure);
}

void TestStreamReply::tlsCertificateChecked()
{
    if (!QSslSocket::supportsSsl())
        QFAIL("no TLS backend: Qt Network has no working TLS plugin, the TLS check cannot run");
    const QByteArray events = "data: secret one\n\ndata: secret two\n\n";
    bool encrypted = false;
    // QSslServer hands a connection over only once its handshake succeeded.
    RawServer server(
        [&](QTcpSocket *peer, const QByteArray &) {
            const auto *tls = qobject_cast<QSslSocket *>(peer);
            encrypted = tls && tls->isEncrypted();
            peer->write(kSseHead + chunk(events.left(18)) + chunk(events.mid(18)) + "0\r\n\r\n");
        },
        serverTls());
    TestClient client; // two retries allowed: a certificate error must not use them
    const HttpRequest request = get(server.url(u"/s"_s, u"https"_s));

    // Self-signed, not trusted: refused, once.
    const auto refused = openFails(client, request);
    QVERIFY(refused);
    QCOMPARE(refused->error.code, u"tls_error"_s);
    QCOMPARE(refused->attempts, 1);
    QVERIFY(server.requests().isEmpty());

    // Trusted as a CA (the pump reads the default configuration for each connection).
    const QSslCertificate cert(RunwatchTest::readData(u"tls/cert.pem"_s));
    QVERIFY(!cert.isNull());
    const QSslConfiguration saved = QSslConfiguration::defaultConfiguration();
    const auto restore = qScopeGuard([&saved] { QSslConfiguration::setDefaultConfiguration(saved); });
    QSslConfiguration trusting = saved;
    trusting.addCaCertificate(cert);
    QSslConfiguration::setDefaultConfiguration(trusting);
    const QPointer<QNetworkReply> reply = openLive(client, request);
    QVERIFY(reply);
    QVERIFY(deliversInFrames(reply));
    QCOMPARE(readToEnd(reply), events);
    QCOMPARE(reply->error(), QNetworkReply::NoError);
    QVERIFY(encrypted);
}

void TestStreamReply::clientDestroyedMidStream()
{
    // Every connection gets an event every millisecond for as long as it is open.
    RawServer server([](QTcpSocket *peer, const QByteArray &) {
        peer->write(kSseHead);
        auto *ticker = new QTimer(peer);
        QObject::connect(ticker, &QTimer::timeout, peer, [peer] {
            if (peer->state() == QAbstractSocket::ConnectedState)
                peer->write(chunk("data: tick\n\n"));
        });
        ticker->start(1);
    });
    const auto streamTicks = [&server](HttpClient &client) {
        const QPointer<QNetworkReply> reply = openLive(client, get(server.url(u"/s"_s)));
        QByteArray got;
        const bool ticking = reply && deliversInFrames(reply) && QTest::qWaitFor([&] {
                                 return !reply || (got += reply->readAll()).size() >= 120;
                             });
        return ticking && got.startsWith("data: tick\n\ndata: tick\n\n") ? reply : nullptr;
    };

    auto client = std::make_unique<TestClient>();
    const QPointer<QNetworkReply> first = streamTicks(*client);
    QVERIFY(first);
    const std::weak_ptr<StreamPump> firstPump = StreamPump::shared(); // the open reply keeps it alive
    client.reset(); // takes the reply with it while data keeps arriving on the pump's thread
    QVERIFY(first.isNull());
    // The last stream gone, the pump stopped its thread; the next stream starts a new one.
    QVERIFY(firstPump.expired());

    TestClient second;
    QVERIFY(streamTicks(second));
    QCOMPARE(server.connections(), 2);
}

QTEST_GUILESS_MAIN(TestStreamReply)
#include "tst_streamreply.moc"
