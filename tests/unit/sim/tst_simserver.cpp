// SPDX-License-Identifier: GPL-3.0-or-later
// Tests of the base the simulators share (sim/server/): the fault list and request log, SSE
// framing, and a minimal SimServer / SimStream driven over raw loopback sockets, so that the
// plumbing the three protocols rely on is checked byte for byte on its own.

#include "server/httpconnection.h"
#include "server/requestlog.h"
#include "server/simfaults.h"
#include "server/simserver.h"
#include "server/simstream.h"

#include <QEventLoop>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

using namespace Qt::StringLiterals;
using namespace RunwatchSim;

namespace {

struct TestFault
{
    QString aim;
    int count = 1;
};

// Cuts its stream where the drop-after fault says, as the protocol streams do.
class TestStream final : public SimStream
{
public:
    TestStream(HttpConnection *connection, const StreamFaults &faults, QObject *parent)
        : SimStream(connection, faults, true, parent)
    {}

    void send(const QByteArray &frame)
    {
        if (dropDue()) {
            drop(frame);
            return;
        }
        writeEvent(frame);
    }
    using SimStream::end;
};

// Answers /json with JSON, /sse with three events (cut by `faults`), anything else 404.
class TestServer final : public SimServer
{
public:
    explicit TestServer(const ServerLimits &limits)
    {
        setLimits(limits);
        setBasePath(u"/base"_s);
    }

    StreamFaults faults;
    int routed = 0;

private:
    void route(HttpConnection *connection, const HttpRequest &request) override
    {
        ++routed;
        if (request.path == "/json"_L1) {
            sendJson(connection, 200, QJsonObject{{u"ok"_s, true}}, {{"x-test", "1"}});
        } else if (request.path == "/sse"_L1) {
            beginEventStream(connection, {{"x-test", "2"}});
            auto *stream = new TestStream(connection, faults, this);
            for (int i = 1; i <= 3; ++i)
                stream->send(sseFrame("tick", QByteArray::number(i), i));
            stream->end();
        } else {
            sendBody(connection, 404, "text/plain", "no\n");
        }
    }
};

// Writes `request` on a new connection and returns everything the server sent until it closed
// (or 5 s passed). The server runs in this thread: the wait is an event loop, not a blocking read.
QByteArray exchange(quint16 port, const QByteArray &request)
{
    QTcpSocket socket;
    QByteArray received;
    QEventLoop loop;
    QObject::connect(&socket, &QTcpSocket::connected, &loop, [&] { socket.write(request); });
    QObject::connect(&socket, &QTcpSocket::readyRead, &loop, [&] { received += socket.readAll(); });
    QObject::connect(&socket, &QTcpSocket::disconnected, &loop, &QEventLoop::quit);
    QObject::connect(&socket, &QTcpSocket::errorOccurred, &loop, &QEventLoop::quit);
    QTimer::singleShot(5000, &loop, &QEventLoop::quit);
    socket.connectToHost(QHostAddress::LocalHost, port);
    loop.exec();
    return received + socket.readAll();
}

} // namespace

class TestSimServer final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void faultListTakesInOrderAndCounts()
    {
        FaultList<TestFault> faults;
        faults.reset({TestFault{u"a"_s, 2}, TestFault{u"b"_s, 1}, TestFault{u"a"_s, -1}});
        const auto aimedAt = [](const QString &target) {
            return [target](const TestFault &fault) { return fault.aim == target; };
        };
        QCOMPARE(faults.take(aimedAt(u"a"_s))->count, 2);
        QCOMPARE(faults.take(aimedAt(u"a"_s))->count, 2);
        // The first is used up: the unlimited one answers from now on.
        QCOMPARE(faults.take(aimedAt(u"a"_s))->count, -1);
        QCOMPARE(faults.take(aimedAt(u"a"_s))->count, -1);
        QVERIFY(faults.take(aimedAt(u"b"_s)));
        QVERIFY(!faults.take(aimedAt(u"b"_s)));
        QVERIFY(!faults.take(aimedAt(u"c"_s)));
        faults.reset({TestFault{u"b"_s, 1}}); // counters restart
        QVERIFY(faults.take(aimedAt(u"b"_s)));

        int served = 0;
        QVERIFY(takeFault(1, &served));
        QVERIFY(!takeFault(1, &served));
        QCOMPARE(served, 1);
        QVERIFY(!takeFault(0, &served));
    }

    void requestLogNumbersAndForgets()
    {
        RequestLog<RequestRecord> log;
        QCOMPARE(log.append(RequestRecord()), 1);
        QCOMPARE(log.append(RequestRecord()), 2);
        QVERIFY(log.find(2));
        log.find(2)->status = 204;
        QCOMPARE(log.records().at(1).status, 204);
        QVERIFY(!log.find(3));
        log.clear();
        QVERIFY(!log.find(2));
        QCOMPARE(log.append(RequestRecord()), 3); // numbering goes on
        QCOMPARE(log.find(3)->serial, 3);

        // A long-running server keeps the newest records only.
        for (int i = 0; i < 20000; ++i)
            log.append(RequestRecord());
        QVERIFY(log.records().size() <= 20000);
        QVERIFY(!log.find(3));
        QCOMPARE(log.find(20003)->serial, 20003);
        QCOMPARE(log.records().last().serial, 20003);
    }

    void recordHeadersIgnoreCase()
    {
        RequestRecord record;
        record.headers = {{"content-type", "application/json"}, {"x-a", "1"}, {"x-a", "2"}};
        QCOMPARE(record.header("Content-Type"), QByteArray("application/json"));
        QCOMPARE(record.header("x-a"), QByteArray("1"));
        QVERIFY(record.header("x-b").isEmpty());
    }

    void sseFrameLayouts()
    {
        QCOMPARE(sseFrame("tick", "{}", 7), QByteArray("id: 7\nevent: tick\ndata: {}\n\n"));
        QCOMPARE(sseFrame({}, "{}"), QByteArray("data: {}\n\n"));
        QCOMPARE(sseFrame("e", "x", -1, "\r\n"), QByteArray("event: e\r\ndata: x\r\n\r\n"));
    }

    void jsonReplyHeadersInOrder()
    {
        TestServer server{ServerLimits()};
        QVERIFY(server.listen());
        QCOMPARE(server.baseUrl().path(), u"/base"_s);
        QCOMPARE(server.baseUrl().host(), u"127.0.0.1"_s);
        const QByteArray reply
            = exchange(server.port(), "GET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        QCOMPARE(reply, QByteArray("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-test: 1\r\n"
                                   "Content-Length: 11\r\nConnection: close\r\n\r\n{\"ok\":true}"));
    }

    void rejectedRequestsAreCounted()
    {
        TestServer server{ServerLimits()};
        QVERIFY(server.listen());
        const QByteArray reply = exchange(server.port(), "NOT A REQUEST\r\n\r\n");
        QVERIFY2(reply.startsWith("HTTP/1.1 400 "), reply.constData());
        QCOMPARE(server.rejectedRequestCount(), 1);
        QCOMPARE(server.routed, 0);
    }

    void connectionsBeyondTheLimitAreClosed()
    {
        ServerLimits limits;
        limits.maxConnections = 1;
        TestServer server{limits};
        QVERIFY(server.listen());
        QTcpSocket first;
        first.connectToHost(QHostAddress::LocalHost, server.port());
        QTRY_COMPARE_WITH_TIMEOUT(first.state(), QAbstractSocket::ConnectedState, 5000);
        // The first one is served (so it was accepted before the second arrives) and kept open.
        first.write("GET /json HTTP/1.1\r\nHost: x\r\n\r\n");
        QTRY_VERIFY_WITH_TIMEOUT(first.bytesAvailable() > 0, 5000);
        QTcpSocket second;
        second.connectToHost(QHostAddress::LocalHost, server.port());
        QTRY_COMPARE_WITH_TIMEOUT(second.state(), QAbstractSocket::UnconnectedState, 5000);
        QCOMPARE(first.state(), QAbstractSocket::ConnectedState);
        QCOMPARE(server.routed, 1);
    }

    void streamEndsWithTheTerminatingChunk()
    {
        TestServer server{ServerLimits()};
        QVERIFY(server.listen());
        const QByteArray reply
            = exchange(server.port(), "GET /sse HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        QVERIFY2(reply.startsWith("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: "
                                  "no-cache\r\nx-test: 2\r\nTransfer-Encoding: chunked\r\n"),
                 reply.constData());
        for (int i = 1; i <= 3; ++i)
            QVERIFY(reply.contains(sseFrame("tick", QByteArray::number(i), i)));
        QVERIFY(reply.endsWith("0\r\n\r\n"));
    }

    void streamDropModes_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addRow("close") << int(DropMode::Close);
        QTest::addRow("reset") << int(DropMode::Reset);
        QTest::addRow("mid") << int(DropMode::MidEvent);
    }

    void streamDropModes()
    {
        QFETCH(int, mode);
        TestServer server{ServerLimits()};
        server.faults.dropAfterEvents = 2;
        server.faults.dropMode = DropMode(mode);
        QVERIFY(server.listen());
        const QByteArray reply = exchange(server.port(), "GET /sse HTTP/1.1\r\nHost: x\r\n\r\n");
        if (DropMode(mode) != DropMode::Reset) { // a reset may lose what was in flight
            QVERIFY(reply.contains(sseFrame("tick", "1", 1)));
            QVERIFY(reply.contains(sseFrame("tick", "2", 2)));
        }
        const QByteArray third = sseFrame("tick", "3", 3);
        QVERIFY(!reply.contains(third));
        QVERIFY(!reply.endsWith("0\r\n\r\n")); // cut, not ended
        if (DropMode(mode) == DropMode::MidEvent)
            QVERIFY2(reply.endsWith(QByteArray(third.left(third.size() / 2) + "\r\n")), reply.constData());
    }
};

QTEST_GUILESS_MAIN(TestSimServer)
#include "tst_simserver.moc"
