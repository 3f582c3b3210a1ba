// SPDX-License-Identifier: GPL-3.0-or-later
// Tests of runwatch-sim's OpenAI Responses simulator through its HTTP interface, with a client
// written for it (QNetworkAccessManager in openaisimclient.h, raw QTcpSocket here), never
// runwatch_core: the simulator must be checked against the protocol reference, not against the
// client it is meant to test. Its Foundry project layout is tested in tst_openaisim_foundry.

#include "openai/openaisim.h"
#include "openaisimclient.h"
#include "simcommandline.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <memory>

using namespace Qt::StringLiterals;
using namespace RunwatchSim;
using namespace OpenAiSimTest;

namespace {

QJsonObject backgroundBody(const QString &input, bool stream, const QJsonObject &metadata = {})
{
    QJsonObject body{{u"model"_s, u"sim-model"_s},
                     {u"input"_s, input},
                     {u"background"_s, true},
                     {u"store"_s, true},
                     {u"stream"_s, stream}};
    if (!metadata.isEmpty())
        body.insert("metadata"_L1, metadata);
    return body;
}

// Raw HTTP over a socket, for byte-level checks. The server runs in this thread, so this waits in
// an event loop (never a blocking socket wait). Returns when the server closes, `stopAfter` bytes
// arrived, or on timeout.
QByteArray rawExchange(quint16 port, const QByteArray &request, int timeoutMs = 5000, qint64 stopAfter = -1)
{
    QTcpSocket socket;
    QByteArray received;
    QEventLoop loop;
    QObject::connect(&socket, &QTcpSocket::connected, &loop, [&] { socket.write(request); });
    QObject::connect(&socket, &QTcpSocket::readyRead, &loop, [&] {
        received += socket.readAll();
        if (stopAfter >= 0 && received.size() >= stopAfter)
            loop.quit();
    });
    QObject::connect(&socket, &QTcpSocket::disconnected, &loop, &QEventLoop::quit);
    QObject::connect(&socket, &QTcpSocket::errorOccurred, &loop, &QEventLoop::quit);
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    socket.connectToHost(QHostAddress::LocalHost, port);
    loop.exec();
    received += socket.readAll();
    socket.abort();
    return received;
}

QByteArray rawPost(const QString &path, const QByteArray &body)
{
    return "POST " + path.toUtf8()
           + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
             "Content-Type: application/json\r\nContent-Length: "
           + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

QByteArray rawGet(const QString &pathAndQuery)
{
    return "GET " + pathAndQuery.toUtf8() + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
}

// Decodes chunked transfer coding as far as the bytes go; `complete` tells whether the
// terminating chunk arrived.
QByteArray dechunk(const QByteArray &raw, bool *complete = nullptr)
{
    QByteArray out;
    qsizetype pos = 0;
    if (complete)
        *complete = false;
    while (true) {
        const qsizetype lineEnd = raw.indexOf("\r\n", pos);
        if (lineEnd < 0)
            break;
        bool ok = false;
        const qsizetype size = raw.mid(pos, lineEnd - pos).toLongLong(&ok, 16);
        if (!ok)
            break;
        if (size == 0) {
            if (complete)
                *complete = raw.mid(lineEnd + 2, 2) == "\r\n";
            break;
        }
        out += raw.mid(lineEnd + 2, size); // may be cut short by a drop
        if (raw.size() < lineEnd + 2 + size + 2)
            break;
        pos = lineEnd + 2 + size + 2;
    }
    return out;
}

// Body of a raw HTTP answer (after the blank line), de-chunked when chunked.
QByteArray rawBody(const QByteArray &answer, bool *complete = nullptr)
{
    const qsizetype end = answer.indexOf("\r\n\r\n");
    if (end < 0)
        return QByteArray();
    const QByteArray body = answer.mid(end + 4);
    if (answer.left(end).toLower().contains("\r\ntransfer-encoding: chunked"))
        return dechunk(body, complete);
    if (complete)
        *complete = true;
    return body;
}

int rawStatus(const QByteArray &answer)
{
    return answer.mid(9, 3).toInt();
}

QString statusOf(const OpenAiSimulator &sim, const QString &id)
{
    const auto info = sim.response(id);
    return info ? info->status : QString();
}

bool endedOf(const OpenAiSimulator &sim, const QString &id)
{
    const auto info = sim.response(id);
    return info && info->ended;
}

const QStringList kNormalTypes{
    u"response.created"_s,
    u"response.queued"_s,
    u"response.in_progress"_s,
    u"response.output_item.added"_s,
    u"response.content_part.added"_s,
    u"response.output_text.delta"_s,
    u"response.output_text.delta"_s,
    u"response.output_text.delta"_s,
    u"response.output_text.delta"_s,
    u"response.output_text.done"_s,
    u"response.content_part.done"_s,
    u"response.output_item.done"_s,
    u"response.completed"_s,
};

} // namespace

class TestOpenAiSim final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The create stream is the §6.1 transcript: ordered types, sequence numbers from 0,
    // `event:` equal to the JSON type, deterministic text and a final snapshot with usage.
    void createStreamTranscript()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        QVERIFY(sim->baseUrl().toString().startsWith("http://127.0.0.1:"_L1));
        QVERIFY(sim->baseUrl().toString().endsWith("/v1"_L1));
        Client client(sim->baseUrl());
        const Reply reply = client.create(backgroundBody(u"Say hi"_s, true));
        QVERIFY(reply.finished);
        QCOMPARE(reply.status, 200);
        QVERIFY(reply.headers.value("content-type").startsWith("text/event-stream"));
        QVERIFY(reply.headers.value("x-request-id").startsWith("req_"));
        QVERIFY(!reply.headers.contains("content-length"));

        const QList<SseEvent> events = reply.events();
        QCOMPARE(typesOf(events), kNormalTypes);
        for (qsizetype i = 0; i < events.size(); ++i) {
            QVERIFY(events.at(i).validJson);
            QCOMPARE(events.at(i).json.value("sequence_number"_L1).toInteger(), i);
            QCOMPARE(QString::fromUtf8(events.at(i).event), events.at(i).json.value("type"_L1).toString());
        }
        const QJsonObject created = events.first().json.value("response"_L1).toObject();
        QCOMPARE(created.value("status"_L1).toString(), u"queued"_s);
        QCOMPARE(created.value("background"_L1).toBool(), true);
        QVERIFY(created.value("id"_L1).toString().startsWith("resp_"_L1));
        QVERIFY(created.value("output"_L1).toArray().isEmpty());
        QVERIFY(created.value("usage"_L1).isNull());

        QCOMPARE(deltasOf(events), OpenAiSimulator::tokenText(4));
        const QJsonObject final = events.last().json.value("response"_L1).toObject();
        QCOMPARE(final.value("status"_L1).toString(), u"completed"_s);
        QVERIFY(final.value("completed_at"_L1).isDouble());
        const QJsonObject usage = final.value("usage"_L1).toObject();
        QCOMPARE(usage.value("output_tokens"_L1).toInt(), 4);
        QCOMPARE(usage.value("total_tokens"_L1).toInt(), usage.value("input_tokens"_L1).toInt() + 4);
        const QJsonObject message = final.value("output"_L1).toArray().first().toObject();
        QCOMPARE(message.value("type"_L1).toString(), u"message"_s);
        QCOMPARE(message.value("content"_L1).toArray().first()["text"_L1].toString(),
                 OpenAiSimulator::tokenText(4));

        const QString id = created.value("id"_L1).toString();
        QCOMPARE(sim->lastResponseId(), id);
        QCOMPARE(sim->runsCreated(), 1);
        QCOMPARE(sim->streamConnectionsOpened(), 1);
        QCOMPARE(sim->response(id)->text, OpenAiSimulator::tokenText(4));
        QCOMPARE(sim->requestCount("POST", u"/v1/responses"), 1);
        QCOMPARE(sim->requests().first().requestId, reply.headers.value("x-request-id"));
        QCOMPARE(sim->requests().first().status, 200);
    }

    // Replay with starting_after returns exactly the events after N, then closes; without it the
    // whole stream from 0; past the end an empty 200.
    void resumeStartingAfter()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->baseUrl());
        QCOMPARE(client.create(backgroundBody(u"x"_s, true)).status, 200);
        const QString id = sim->lastResponseId();
        QVERIFY(endedOf(*sim, id));

        const Reply tail = client.get(u"/responses/%1?stream=true&starting_after=6"_s.arg(id));
        QCOMPARE(tail.status, 200);
        const QList<SseEvent> events = tail.events();
        QCOMPARE(typesOf(events), kNormalTypes.mid(7));
        QCOMPARE(events.first().json.value("sequence_number"_L1).toInt(), 7);
        QCOMPARE(events.last().json.value("sequence_number"_L1).toInt(), 12);

        const Reply all = client.get(u"/responses/%1?stream=true"_s.arg(id));
        QCOMPARE(typesOf(all.events()), kNormalTypes);

        const Reply past = client.get(u"/responses/%1?stream=true&starting_after=12"_s.arg(id));
        QCOMPARE(past.status, 200);
        QVERIFY(past.body.isEmpty());

        QCOMPARE(sim->startingAfterValues(), (QList<qint64>{6, 12}));
        QCOMPARE(sim->streamConnectionsOpened(), 4);
        QCOMPARE(sim->requestCount(OpenAiEndpoint::Stream), 3);

        const Reply bad = client.get(u"/responses/%1?stream=true&starting_after=abc"_s.arg(id));
        QCOMPARE(bad.status, 400);
        QCOMPARE(bad.errorBody().value("param"_L1).toString(), u"starting_after"_s);
    }

    // A resumed stream on a live response replays, then tails new events as they are generated,
    // then closes after the terminal event; the response keeps going with nobody connected.
    void resumeTailsLiveEvents()
    {
        OpenAiSimConfig config = fastConfig();
        config.manualAdvance = true;
        auto sim = makeSim(config);
        QVERIFY(sim);
        Client client(sim->baseUrl());
        QNetworkReply *first = client.start("POST", u"/responses"_s, toJson(backgroundBody(u"x"_s, true)));
        QByteArray firstBytes;
        connect(first, &QNetworkReply::readyRead, this, [&] { firstBytes += first->readAll(); });
        QTRY_VERIFY(!sim->lastResponseId().isEmpty());
        const QString id = sim->lastResponseId();
        QTRY_COMPARE(parseSse(firstBytes).size(), 2); // created, queued
        first->abort();
        first->deleteLater();

        sim->advance(id, 4); // in_progress … first delta, with no client connected
        QCOMPARE(statusOf(*sim, id), u"in_progress"_s);

        QNetworkReply *second = client.start("GET", u"/responses/%1?stream=true&starting_after=1"_s.arg(id));
        QByteArray secondBytes;
        connect(second, &QNetworkReply::readyRead, this, [&] { secondBytes += second->readAll(); });
        QTRY_COMPARE(parseSse(secondBytes).size(), 4); // replayed 2..5
        QVERIFY(!second->isFinished());
        sim->advance(id, 2);
        QTRY_COMPARE(parseSse(secondBytes).size(), 6); // tailed live
        QVERIFY(!second->isFinished());
        sim->advanceToEnd(id);
        QTRY_VERIFY(second->isFinished());
        secondBytes += second->readAll();
        const QList<SseEvent> events = parseSse(secondBytes);
        QCOMPARE(typesOf(events), kNormalTypes.mid(2));
        for (qsizetype i = 0; i < events.size(); ++i)
            QCOMPARE(events.at(i).json.value("sequence_number"_L1).toInteger(), i + 2);
        QCOMPARE(second->error(), QNetworkReply::NoError);
        second->deleteLater();
        QTRY_COMPARE(sim->activeStreamCount(), 0);
    }

    // The JSON GET shows the snapshot as it grows, then the final object.
    void jsonGetWhileRunningAndAfter()
    {
        OpenAiSimConfig config = fastConfig();
        config.manualAdvance = true;
        auto sim = makeSim(config);
        QVERIFY(sim);
        Client client(sim->baseUrl());
        const Reply created = client.create(backgroundBody(u"x"_s, false));
        QCOMPARE(created.status, 200);
        QVERIFY(created.headers.value("content-type").startsWith("application/json"));
        QCOMPARE(created.json().value("status"_L1).toString(), u"queued"_s);
        QCOMPARE(created.json().value("object"_L1).toString(), u"response"_s);
        QVERIFY(created.json().value("output"_L1).toArray().isEmpty());
        const QString id = created.json().value("id"_L1).toString();

        sim->advance(id, 5); // in_progress, item, part, 2 deltas
        const Reply running = client.get(u"/responses/"_s + id);
        QCOMPARE(running.status, 200);
        QCOMPARE(running.json().value("status"_L1).toString(), u"in_progress"_s);
        const QJsonObject item = running.json().value("output"_L1).toArray().first().toObject();
        QCOMPARE(item.value("status"_L1).toString(), u"in_progress"_s);
        QCOMPARE(item.value("content"_L1).toArray().first()["text"_L1].toString(),
                 OpenAiSimulator::tokenText(2));
        QVERIFY(running.json().value("usage"_L1).isNull());
        QVERIFY(running.json().value("completed_at"_L1).isNull());

        sim->advanceToEnd(id);
        const Reply done = client.get(u"/responses/"_s + id);
        QCOMPARE(done.json().value("status"_L1).toString(), u"completed"_s);
        QVERIFY(done.json().value("usage"_L1).isObject());
        QVERIFY(done.json().value("completed_at"_L1).isDouble());
        QCOMPARE(done.json()
                     .value("output"_L1)
                     .toArray()
                     .first()["content"_L1]
                     .toArray()
                     .first()["text"_L1]
                     .toString(),
                 OpenAiSimulator::tokenText(4));

        // Asking for a stream of a response created without stream:true.
        const Reply notStreamed = client.get(u"/responses/%1?stream=true"_s.arg(id));
        QCOMPARE(notStreamed.status, 400);
        QVERIFY(notStreamed.errorBody()
                    .value("message"_L1)
                    .toString()
                    .endsWith("was not created with stream=true."_L1));
    }

    // Cancel of a running response: 200 cancelled, idempotent; a live stream ends with
    // response.failed carrying status "cancelled" (cancel_mode failed_event).
    void cancelRunning()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->baseUrl());
        QNetworkReply *stream = client.start(
            "POST", u"/responses"_s, toJson(backgroundBody(u"x"_s, true, {{u"scenario"_s, u"long"_s}})));
        QTRY_VERIFY(!sim->lastResponseId().isEmpty());
        const QString id = sim->lastResponseId();
        QTRY_COMPARE(statusOf(*sim, id), u"in_progress"_s);

        const Reply cancelled = client.send("POST", u"/responses/%1/cancel"_s.arg(id));
        QCOMPARE(cancelled.status, 200);
        QCOMPARE(cancelled.json().value("status"_L1).toString(), u"cancelled"_s);
        QCOMPARE(cancelled.json().value("id"_L1).toString(), id);

        const Reply streamed = collect(stream);
        QVERIFY(streamed.finished);
        const QList<SseEvent> events = streamed.events();
        QCOMPARE(events.last().json.value("type"_L1).toString(), u"response.failed"_s);
        QCOMPARE(events.last().json.value("response"_L1)["status"_L1].toString(), u"cancelled"_s);

        const Reply again = client.send("POST", u"/responses/%1/cancel"_s.arg(id));
        QCOMPARE(again.status, 200);
        QCOMPARE(again.json().value("status"_L1).toString(), u"cancelled"_s);
        QCOMPARE(client.get(u"/responses/"_s + id).json().value("status"_L1).toString(), u"cancelled"_s);
        QVERIFY(endedOf(*sim, id));
    }

    void cancelTerminal_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<QString>("message");
        QTest::addRow("completed") << u"normal"_s << u"Cannot cancel a completed response."_s;
        QTest::addRow("failed") << u"fail"_s << u"Cannot cancel a failed response."_s;
        QTest::addRow("incomplete") << u"incomplete"_s << u"Cannot cancel an incomplete response."_s;
    }

    // Cancel of a terminal response is a 400 with the OpenAI error body (§1.5, §3.1).
    void cancelTerminal()
    {
        QFETCH(QString, scenario);
        QFETCH(QString, message);
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->baseUrl());
        const Reply created = client.create(backgroundBody(u"x"_s, false, {{u"scenario"_s, scenario}}));
        const QString id = created.json().value("id"_L1).toString();
        QTRY_VERIFY(endedOf(*sim, id));
        const Reply reply = client.send("POST", u"/responses/%1/cancel"_s.arg(id));
        QCOMPARE(reply.status, 400);
        const QJsonObject error = reply.errorBody();
        QCOMPARE(error.value("message"_L1).toString(), message);
        QCOMPARE(error.value("type"_L1).toString(), u"invalid_request_error"_s);
        QVERIFY(error.contains("param"_L1));
        QVERIFY(error.contains("code"_L1));
        QVERIFY(reply.headers.value("x-request-id").startsWith("req_"));
    }

    // cancel_mode=close: the stream just ends; cancel_mode=flip: reported cancelled, then the
    // response completes anyway (best-effort cancel seen on Azure).
    void cancelModes()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->baseUrl());
        QNetworkReply *stream
            = client.start("POST", u"/responses"_s,
                           toJson(backgroundBody(u"long"_s, true, {{u"cancel_mode"_s, u"close"_s}})));
        QTRY_VERIFY(!sim->lastResponseId().isEmpty());
        const QString closed = sim->lastResponseId();
        QTRY_COMPARE(statusOf(*sim, closed), u"in_progress"_s);
        QCOMPARE(client.send("POST", u"/responses/%1/cancel"_s.arg(closed)).status, 200);
        const Reply ended = collect(stream);
        QVERIFY(ended.finished);
        const QString lastType = typesOf(ended.events()).last();
        QVERIFY2(!lastType.startsWith("response.failed"_L1), qPrintable(lastType));
        QCOMPARE(statusOf(*sim, closed), u"cancelled"_s);

        const Reply created = client.create(
            backgroundBody(u"x"_s, false, {{u"cancel_mode"_s, u"flip"_s}, {u"deltas"_s, u"20"_s}}));
        const QString flipped = created.json().value("id"_L1).toString();
        QTRY_COMPARE(statusOf(*sim, flipped), u"in_progress"_s);
        const Reply cancel = client.send("POST", u"/responses/%1/cancel"_s.arg(flipped));
        QCOMPARE(cancel.json().value("status"_L1).toString(), u"cancelled"_s);
        QTRY_COMPARE(statusOf(*sim, flipped), u"completed"_s);
        QCOMPARE(sim->response(flipped)->text, OpenAiSimulator::tokenText(20));
    }

    // Beyond maxStoredResponses the oldest finished responses are forgotten (404).
    void retention()
    {
        OpenAiSimConfig config = fastConfig();
        config.maxStoredResponses = 2;
        auto sim = makeSim(config);
        QVERIFY(sim);
        Client client(sim->baseUrl());
        QStringList ids;
        for (int i = 0; i < 3; ++i) {
            ids.append(client.create(backgroundBody(u"x"_s, false)).json()["id"_L1].toString());
            QTRY_VERIFY(endedOf(*sim, ids.last()));
        }
        QCOMPARE(client.get(u"/responses/"_s + ids.at(0)).status, 404);
        QCOMPARE(client.get(u"/responses/"_s + ids.at(1)).status, 200);
        QCOMPARE(client.get(u"/responses/"_s + ids.at(2)).status, 200);
    }

    void deleteResponse()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->baseUrl());
        const QString id = client.create(backgroundBody(u"x"_s, false)).json()["id"_L1].toString();
        const Reply deleted = client.send("DELETE", u"/responses/"_s + id);
        QCOMPARE(deleted.status, 200);
        QCOMPARE(deleted.json(),
                 (QJsonObject{{u"id"_s, id}, {u"object"_s, u"response"_s}, {u"deleted"_s, true}}));
        QCOMPARE(client.get(u"/responses/"_s + id).status, 404);
        QVERIFY(sim->wasDeleted(id));
        QVERIFY(!sim->response(id));
    }

    void unknownId404()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->baseUrl());
        const Reply get = client.get(u"/responses/resp_nope"_s);
        QCOMPARE(get.status, 404);
        const QJsonObject error = get.errorBody();
        QVERIFY(error.value("message"_L1).toString().contains("resp_nope"_L1));
        QCOMPARE(error.value("type"_L1).toString(), u"invalid_request_error"_s);
        QVERIFY(error.contains("param"_L1) && error.contains("code"_L1));
        QCOMPARE(client.send("POST", u"/responses/resp_nope/cancel"_s).status, 404);
        QCOMPARE(client.send("DELETE", u"/responses/resp_nope"_s).status, 404);
        QCOMPARE(client.get(u"/responses/resp_nope?stream=true"_s).status, 404);
        QCOMPARE(client.get(u"/nothing/here"_s).status, 404);
    }

    // The first K matching requests get 429 with Retry-After and retry-after-ms; others pass.
    void rateLimitFirstRequests()
    {
        OpenAiSimConfig config = fastConfig();
        config.httpFaults.append(
            OpenAiHttpFault{{OpenAiEndpoint::Create}, 2, 429, 1, 250, OpenAiFaultBody::Error});
        auto sim = makeSim(config);
        QVERIFY(sim);
        Client client(sim->baseUrl());
        QCOMPARE(client.get(u"/models"_s).status, 200); // other endpoints unaffected
        for (int i = 0; i < 2; ++i) {
            const Reply limited = client.create(backgroundBody(u"x"_s, false));
            QCOMPARE(limited.status, 429);
            QCOMPARE(limited.headers.value("retry-after"), QByteArray("1"));
            QCOMPARE(limited.headers.value("retry-after-ms"), QByteArray("250"));
            QCOMPARE(limited.errorBody().value("code"_L1).toString(), u"rate_limit_exceeded"_s);
            QVERIFY(limited.headers.value("x-request-id").startsWith("req_"));
        }
        QCOMPARE(sim->runsCreated(), 0);
        QCOMPARE(client.create(backgroundBody(u"x"_s, false)).status, 200);
        QCOMPARE(sim->runsCreated(), 1);
        QCOMPARE(sim->requestCount(OpenAiEndpoint::Create), 3);
        QCOMPARE(sim->requests().at(1).faulted, true);
    }

    // Per-response HTTP faults from metadata: 503 on the first poll only; on create, counted per
    // identical request body so a retry gets through.
    void perResponseHttpFaults()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->baseUrl());
        const Reply created = client.create(backgroundBody(u"x"_s, false,
                                                           {{u"http_error_status"_s, u"503"_s},
                                                            {u"http_error_on"_s, u"get"_s},
                                                            {u"retry_after"_s, u"2"_s}}));
        QCOMPARE(created.status, 200);
        const QString id = created.json().value("id"_L1).toString();
        const Reply first = client.get(u"/responses/"_s + id);
        QCOMPARE(first.status, 503);
        QCOMPARE(first.headers.value("retry-after"), QByteArray("2"));
        QCOMPARE(client.get(u"/responses/"_s + id).status, 200);

        const QJsonObject body = backgroundBody(
            u"x"_s, false, {{u"http_error_count"_s, u"2"_s}, {u"http_error_on"_s, u"create"_s}});
        QCOMPARE(client.create(body).status, 429);
        QCOMPARE(client.create(body).status, 429);
        QCOMPARE(client.create(body).status, 200);

        // A 200 whose body is an HTML page, as from a captive portal.
        OpenAiSimConfig config = fastConfig();
        config.httpFaults.append(
            OpenAiHttpFault{{OpenAiEndpoint::Models}, 1, 200, -1, -1, OpenAiFaultBody::Html});
        sim->setConfig(config);
        const Reply html = client.get(u"/models"_s);
        QCOMPARE(html.status, 200);
        QVERIFY(html.headers.value("content-type").startsWith("text/html"));
        QVERIFY(html.body.startsWith("<!DOCTYPE html>"));
        QVERIFY(!html.headers.contains("retry-after"));
        QCOMPARE(client.get(u"/models"_s).json().value("object"_L1).toString(), u"list"_s);
    }

    // Drop after N events on the first connection only; the resume gets the rest.
    void dropAfterEvents()
    {
        OpenAiSimConfig config = fastConfig();
        config.streamFaults.dropAfterEvents = 3;
        config.streamFaults.connections = 1;
        auto sim = makeSim(config);
        QVERIFY(sim);
        Client client(sim->baseUrl());
        const Reply dropped = client.create(backgroundBody(u"x"_s, true));
        QVERIFY(dropped.finished);
        const QList<SseEvent> head = dropped.events();
        QCOMPARE(typesOf(head), kNormalTypes.mid(0, 3));
        QVERIFY(dropped.body.endsWith("\n\n")); // clean cut between events
        const QString id = sim->lastResponseId();

        const Reply rest = client.get(u"/responses/%1?stream=true&starting_after=2"_s.arg(id));
        QCOMPARE(typesOf(rest.events()), kNormalTypes.mid(3));
        QCOMPARE(sim->streamConnectionsOpened(), 2);
        QCOMPARE(sim->response(id)->streamConnections, 2);
    }

    // Per-response drop with drop_mode=mid: half an event, then the end of the connection.
    void dropMidEventFromMetadata()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        const QByteArray body
            = toJson(backgroundBody(u"x"_s, true, {{u"drop_after"_s, u"4"_s}, {u"drop_mode"_s, u"mid"_s}}));
        const QByteArray answer = rawExchange(sim->port(), rawPost(u"/v1/responses"_s, body));
        QCOMPARE(rawStatus(answer), 200);
        bool complete = true;
        const QByteArray sse = rawBody(answer, &complete);
        QVERIFY(!complete); // no terminating chunk: a cut, not an end
        QCOMPARE(parseSse(sse).size(), 4);
        QVERIFY(!sse.endsWith("\n\n"));
        QVERIFY(sse.mid(sse.lastIndexOf("\n\n") + 2).startsWith("event: response.content_part.added"));
    }

    // Resume refused when older than the configured age (0 = always), §1.4 message.
    void resumeRefused()
    {
        OpenAiSimConfig config = fastConfig();
        config.resumeMaxAgeMs = 0;
        auto sim = makeSim(config);
        QVERIFY(sim);
        Client client(sim->baseUrl());
        const Reply created = client.create(backgroundBody(u"x"_s, true));
        QCOMPARE(created.status, 200); // the create stream itself is not a resume
        const QString id = sim->lastResponseId();
        const Reply refused = client.get(u"/responses/%1?stream=true&starting_after=3"_s.arg(id));
        QCOMPARE(refused.status, 400);
        QCOMPARE(refused.errorBody().value("message"_L1).toString(),
                 u"This response can no longer be streamed because it is more than 5 minutes old."_s);
        QCOMPARE(client.get(u"/responses/"_s + id).status, 200); // polling still works

        // Per response: allowed globally, refused by metadata after 10 ms.
        sim->setResumeMaxAgeMs(-1);
        client.create(backgroundBody(u"x"_s, true, {{u"resume_max_age_ms"_s, u"10"_s}}));
        const QString second = sim->lastResponseId();
        QTest::qWait(20);
        QCOMPARE(client.get(u"/responses/%1?stream=true"_s.arg(second)).status, 400);
        client.create(backgroundBody(u"x"_s, true));
        QCOMPARE(client.get(u"/responses/%1?stream=true"_s.arg(sim->lastResponseId())).status, 200);
    }

    void storeFalseRejected()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->baseUrl());
        QJsonObject body = backgroundBody(u"x"_s, false);
        body.insert("store"_L1, false);
        const Reply reply = client.create(body);
        QCOMPARE(reply.status, 400);
        QCOMPARE(reply.errorBody().value("param"_L1).toString(), u"background"_s);
        QCOMPARE(reply.errorBody().value("type"_L1).toString(), u"invalid_request_error"_s);
        QCOMPARE(sim->runsCreated(), 0);
    }

    // Bad create bodies give OpenAI-style 400s.
    void createValidation()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->baseUrl());
        QCOMPARE(client.send("POST", u"/responses"_s, "{not json").status, 400);
        const Reply noModel = client.create(QJsonObject{{u"input"_s, u"x"_s}});
        QCOMPARE(noModel.status, 400);
        QCOMPARE(noModel.errorBody().value("param"_L1).toString(), u"model"_s);
        QJsonObject numberMetadata = backgroundBody(u"x"_s, false);
        numberMetadata.insert("metadata"_L1, QJsonObject{{u"deltas"_s, 5}});
        const Reply notString = client.create(numberMetadata);
        QCOMPARE(notString.status, 400);
        QCOMPARE(notString.errorBody().value("param"_L1).toString(), u"metadata.deltas"_s);
        const Reply badValue = client.create(backgroundBody(u"x"_s, false, {{u"deltas"_s, u"many"_s}}));
        QCOMPARE(badValue.status, 400);
        QCOMPARE(badValue.errorBody().value("param"_L1).toString(), u"metadata.deltas"_s);
        const Reply badScenario = client.create(backgroundBody(u"x"_s, false, {{u"scenario"_s, u"nope"_s}}));
        QCOMPARE(badScenario.status, 400);
        QCOMPARE(sim->runsCreated(), 0);
    }

    void authRequired()
    {
        OpenAiSimConfig config = fastConfig();
        config.apiKey = u"sk-test"_s;
        auto sim = makeSim(config);
        QVERIFY(sim);
        Client client(sim->baseUrl());
        const Reply none = client.get(u"/models"_s);
        QCOMPARE(none.status, 401);
        QVERIFY(!none.errorBody().value("message"_L1).toString().isEmpty());
        QCOMPARE(none.errorBody().value("type"_L1).toString(), u"invalid_request_error"_s);
        const Reply wrong = client.send("GET", u"/models"_s, {}, {{"Authorization", "Bearer sk-x"}});
        QCOMPARE(wrong.status, 401);
        QCOMPARE(wrong.errorBody().value("code"_L1).toString(), u"invalid_api_key"_s);
        QCOMPARE(client.send("GET", u"/models"_s, {}, {{"Authorization", "Bearer sk-test"}}).status, 200);
        QCOMPARE(client.send("GET", u"/models"_s, {}, {{"api-key", "sk-test"}}).status, 200);
        QCOMPARE(client.create(backgroundBody(u"x"_s, false), {{"api-key", "sk-wrong"}}).status, 401);
        QCOMPARE(sim->runsCreated(), 0);

        // The Azure-style path prefix is an alias.
        Client azure(QUrl(sim->baseUrl().toString().replace("/v1"_L1, "/openai/v1"_L1)));
        QCOMPARE(azure.create(backgroundBody(u"x"_s, false), {{"api-key", "sk-test"}}).status, 200);
    }

    void scenarios_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QJsonObject>("metadata");
        QTest::addColumn<QString>("lastType");
        QTest::addColumn<QString>("status");
        QTest::addRow("fail by text")
            << u"fail: please"_s << QJsonObject() << u"response.failed"_s << u"failed"_s;
        QTest::addRow("fail by metadata")
            << u"hello"_s << QJsonObject{{u"scenario"_s, u"fail"_s}} << u"response.failed"_s << u"failed"_s;
        QTest::addRow("incomplete") << u"incomplete"_s << QJsonObject() << u"response.incomplete"_s
                                    << u"incomplete"_s;
        QTest::addRow("error") << u"error"_s << QJsonObject() << u"error"_s << u"failed"_s;
        QTest::addRow("reasoning") << u"reasoning"_s << QJsonObject() << u"response.completed"_s
                                   << u"completed"_s;
        QTest::addRow("tool_call") << u"tool_call"_s << QJsonObject() << u"response.completed"_s
                                   << u"completed"_s;
        QTest::addRow("mcp_approval")
            << u"mcp_approval"_s << QJsonObject() << u"response.completed"_s << u"completed"_s;
        QTest::addRow("huge") << u"huge"_s << QJsonObject{{u"huge_bytes"_s, u"1100000"_s}}
                              << u"response.completed"_s << u"completed"_s;
    }

    void scenarios()
    {
        QFETCH(QString, input);
        QFETCH(QJsonObject, metadata);
        QFETCH(QString, lastType);
        QFETCH(QString, status);
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->baseUrl());
        const Reply reply = client.create(backgroundBody(input, true, metadata));
        QCOMPARE(reply.status, 200);
        const QList<SseEvent> events = reply.events();
        QVERIFY(!events.isEmpty());
        for (qsizetype i = 0; i < events.size(); ++i) {
            QVERIFY(events.at(i).validJson);
            QCOMPARE(events.at(i).json.value("sequence_number"_L1).toInteger(), i);
        }
        const QJsonObject last = events.last().json;
        QCOMPARE(last.value("type"_L1).toString(), lastType);
        const QString id = sim->lastResponseId();
        const QJsonObject polled = client.get(u"/responses/"_s + id).json();
        QCOMPARE(polled.value("status"_L1).toString(), status);
        const QStringList types = typesOf(events);
        const QByteArray tag = QTest::currentDataTag();

        if (tag == "fail by text" || tag == "fail by metadata") {
            QCOMPARE(last.value("response"_L1)["error"_L1]["code"_L1].toString(), u"server_error"_s);
            QCOMPARE(polled.value("error"_L1)["code"_L1].toString(), u"server_error"_s);
            QCOMPARE(types.count(u"response.output_text.delta"_s), 2); // deltas/2
        } else if (tag == "incomplete") {
            QCOMPARE(last.value("response"_L1)["incomplete_details"_L1]["reason"_L1].toString(),
                     u"max_output_tokens"_s);
        } else if (tag == "error") {
            // Nested shape of §2.5.
            const QJsonObject error = last.value("error"_L1).toObject();
            QCOMPARE(error.value("code"_L1).toString(), u"rate_limit_exceeded"_s);
            QVERIFY(!error.value("message"_L1).toString().isEmpty());
            QCOMPARE(polled.value("error"_L1)["code"_L1].toString(), u"rate_limit_exceeded"_s);
        } else if (tag == "reasoning") {
            const qsizetype summary = types.indexOf(u"response.reasoning_summary_text.done"_s);
            const qsizetype args = types.indexOf(u"response.function_call_arguments.done"_s);
            const qsizetype text = types.indexOf(u"response.output_text.delta"_s);
            QVERIFY(summary > 0 && args > summary && text > args);
            QCOMPARE(types.count(u"response.reasoning_summary_text.delta"_s), 3);
            const QJsonArray output = polled.value("output"_L1).toArray();
            QCOMPARE(output.size(), 3);
            QCOMPARE(output.at(0)["type"_L1].toString(), u"reasoning"_s);
            QCOMPARE(output.at(1)["type"_L1].toString(), u"function_call"_s);
            QCOMPARE(output.at(2)["type"_L1].toString(), u"message"_s);
            QCOMPARE(sim->response(id)->text, OpenAiSimulator::tokenText(4));
        } else if (tag == "tool_call") {
            const QJsonArray output = polled.value("output"_L1).toArray();
            QCOMPARE(output.size(), 1);
            const QJsonObject call = output.first().toObject();
            QCOMPARE(call.value("type"_L1).toString(), u"function_call"_s);
            QVERIFY(call.value("call_id"_L1).toString().startsWith("call_"_L1));
            QVERIFY(QJsonDocument::fromJson(call.value("arguments"_L1).toString().toUtf8()).isObject());
            // Human in the loop: continue the chain with the tool output.
            const Reply next = client.create(
                QJsonObject{{u"model"_s, u"m"_s},
                            {u"background"_s, true},
                            {u"store"_s, true},
                            {u"previous_response_id"_s, id},
                            {u"input"_s, QJsonArray{QJsonObject{{u"type"_s, u"function_call_output"_s},
                                                                {u"call_id"_s, call.value("call_id"_L1)},
                                                                {u"output"_s, u"{\"t\":20}"_s}}}}});
            QCOMPARE(next.status, 200);
            QCOMPARE(next.json().value("previous_response_id"_L1).toString(), id);
            QCOMPARE(
                client
                    .create(QJsonObject{{u"model"_s, u"m"_s}, {u"previous_response_id"_s, u"resp_unknown"_s}})
                    .status,
                404);
            // The chain must answer every pending call, by a call id it has (protocol §1.8).
            const auto answerWith = [&](const QJsonValue &input) {
                return client
                    .create(QJsonObject{{u"model"_s, u"m"_s},
                                        {u"background"_s, true},
                                        {u"previous_response_id"_s, id},
                                        {u"input"_s, input}})
                    .status;
            };
            QCOMPARE(answerWith(u"go on"_s), 400);
            QCOMPARE(answerWith(QJsonArray{QJsonObject{{u"type"_s, u"function_call_output"_s},
                                                       {u"call_id"_s, u"call_unknown"_s},
                                                       {u"output"_s, u"x"_s}}}),
                     400);
            QTRY_VERIFY(sim->response(sim->lastResponseId())->ended);
            QCOMPARE(sim->response(sim->lastResponseId())->text,
                     u"[%1: {\"t\":20}] "_s.arg(call.value("call_id"_L1).toString())
                         + OpenAiSimulator::tokenText(sim->config().deltas));
        } else if (tag == "mcp_approval") {
            const QJsonArray output = polled.value("output"_L1).toArray();
            QCOMPARE(output.size(), 1);
            const QJsonObject request = output.first().toObject();
            QCOMPARE(request.value("type"_L1).toString(), u"mcp_approval_request"_s);
            QVERIFY(request.value("id"_L1).toString().startsWith("mcpr_"_L1));
            QCOMPARE(request.value("server_label"_L1).toString(), u"docs"_s);
            QCOMPARE(request.value("name"_L1).toString(), u"search_docs"_s);
            const Reply next = client.create(QJsonObject{
                {u"model"_s, u"m"_s},
                {u"background"_s, true},
                {u"previous_response_id"_s, id},
                {u"input"_s, QJsonArray{QJsonObject{{u"type"_s, u"mcp_approval_response"_s},
                                                    {u"approval_request_id"_s, request.value("id"_L1)},
                                                    {u"approve"_s, true}}}}});
            QCOMPARE(next.status, 200);
            QTRY_VERIFY(sim->response(sim->lastResponseId())->ended);
            QVERIFY(
                sim->response(sim->lastResponseId())->text.startsWith(u"[approved: search_docs] tok0 "_s));
        } else if (tag == "huge") {
            qsizetype largest = 0;
            for (const SseEvent &event : events) {
                if (event.json.value("type"_L1).toString() == "response.output_text.delta"_L1)
                    largest = qMax(largest, event.json.value("delta"_L1).toString().size());
            }
            QCOMPARE(largest, qsizetype(1100000));
            QCOMPARE(sim->response(id)->text.size(), 1100000 + 3 * 5);
            QVERIFY(sim->response(id)->text.contains(OpenAiSimulator::hugeDelta(1100000)));
        }
    }

    // Options written into the prompt text, for people typing in the GUI's demo mode.
    void optionsFromInputText()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->baseUrl());
        const Reply reply = client.create(backgroundBody(u"normal deltas=6 keepalives=2"_s, true));
        const QStringList types = typesOf(reply.events());
        QCOMPARE(types.count(u"response.output_text.delta"_s), 6);
        QCOMPARE(types.mid(2, 2), (QStringList{u"keepalive"_s, u"keepalive"_s}));
        QCOMPARE(types.at(4), u"response.in_progress"_s);
        QCOMPARE(sim->response(sim->lastResponseId())->text, OpenAiSimulator::tokenText(6));

        const Reply custom
            = client.create(backgroundBody(u"x"_s, true, {{u"reply"_s, u"Hello there, world!"_s}}));
        QCOMPARE(deltasOf(custom.events()), u"Hello there, world!"_s);
    }

    // Byte-level stream faults: invalid JSON at one sequence number, invalid UTF-8 in a delta,
    // CRLF line endings, ": keep-alive" comments and [DONE].
    void streamByteFaults()
    {
        OpenAiSimConfig config = fastConfig();
        config.lineEnding = QByteArrayLiteral("\r\n");
        config.sendDoneSentinel = true;
        auto sim = makeSim(config);
        QVERIFY(sim);
        const QByteArray body = toJson(
            backgroundBody(u"x"_s, true, {{u"malformed_at"_s, u"5"_s}, {u"invalid_utf8_at"_s, u"6"_s}}));
        const QByteArray sse = rawBody(rawExchange(sim->port(), rawPost(u"/v1/responses"_s, body)));
        QVERIFY(sse.contains("\r\n\r\n"));
        QVERIFY(sse.endsWith("data: [DONE]\r\n\r\n"));
        const QList<SseEvent> events = parseSse(sse);
        QCOMPARE(events.size(), kNormalTypes.size() + 1); // + [DONE]
        QVERIFY(!events.at(5).validJson);
        QCOMPARE(events.at(5).event, QByteArray("response.output_text.delta"));
        QVERIFY(events.at(6).data.contains(QByteArray("\xC3\x28", 2)));
        QVERIFY(events.at(4).validJson);
        QVERIFY(events.at(7).validJson);

        // Comments keep an idle stream alive.
        OpenAiSimConfig idle = fastConfig();
        idle.manualAdvance = true;
        idle.commentIntervalMs = 5;
        sim->setConfig(idle);
        const QByteArray open = rawExchange(
            sim->port(), rawPost(u"/v1/responses"_s, toJson(backgroundBody(u"x"_s, true))), 200);
        QVERIFY(open.contains(": keep-alive\n\n"));
    }

    // A data line that never ends: the server keeps writing, stays bounded and serves others.
    void endlessLine()
    {
        OpenAiSimConfig config = fastConfig();
        config.endlessLineMaxBytes = 2 << 20;
        auto sim = makeSim(config);
        QVERIFY(sim);
        const QByteArray body = toJson(backgroundBody(u"x"_s, true, {{u"endless_line_at"_s, u"3"_s}}));
        const QByteArray answer = rawExchange(sim->port(), rawPost(u"/v1/responses"_s, body), 5000, 1 << 20);
        const QByteArray sse = rawBody(answer);
        QCOMPARE(parseSse(sse).size(), 3);
        const QByteArray tail = sse.mid(sse.lastIndexOf("\n\n") + 2);
        QVERIFY(tail.startsWith("event: response.output_item.added\ndata: "));
        QVERIFY(tail.size() > 512 * 1024);
        QVERIFY(!tail.contains("\n\n"));
        Client client(sim->baseUrl());
        QCOMPARE(client.get(u"/models"_s).status, 200);
    }

    // Slow drip: bytes arrive one per interval.
    void slowDrip()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        const QByteArray body = toJson(backgroundBody(u"x"_s, true, {{u"drip_ms"_s, u"2"_s}}));
        QElapsedTimer timer;
        timer.start();
        const QByteArray answer = rawExchange(sim->port(), rawPost(u"/v1/responses"_s, body), 150);
        const qint64 elapsed = timer.elapsed();
        const QByteArray sse = rawBody(answer);
        QVERIFY2(!sse.isEmpty(), "some bytes arrived");
        // At most one byte per 2 ms (plus a little slack for timer coalescing).
        QVERIFY2(sse.size() <= elapsed / 2 + 10, QByteArray::number(sse.size()).constData());
        QVERIFY(sse.startsWith("event: response.created"));
    }

    // Hostile or broken requests get 4xx and never take the server down.
    void hostileInput()
    {
        OpenAiSimConfig config = fastConfig();
        config.maxHeaderBytes = 1024;
        config.maxBodyBytes = 4096;
        config.requestTimeoutMs = 100;
        auto sim = makeSim(config);
        QVERIFY(sim);
        const quint16 port = sim->port();

        QCOMPARE(rawStatus(rawExchange(port, "BLAH\r\n\r\n")), 400);
        QCOMPARE(rawStatus(rawExchange(port, "GET /v1/models HTTP/1.1\r\nX-Big: " + QByteArray(4096, 'a')
                                                 + "\r\n\r\n")),
                 431);
        QCOMPARE(rawStatus(rawExchange(port, "POST /v1/responses HTTP/1.1\r\nContent-Length: "
                                             "99999999\r\n\r\n")),
                 413);
        QCOMPARE(rawStatus(rawExchange(port, "POST /v1/responses HTTP/1.1\r\nContent-Length: "
                                             "-5\r\n\r\n")),
                 400);
        QCOMPARE(rawStatus(rawExchange(port, "POST /v1/responses HTTP/1.1\r\nTransfer-Encoding: "
                                             "chunked\r\n\r\n")),
                 411);
        QCOMPARE(rawStatus(rawExchange(port, "GET /v1/models HTTP/1.1\r\n")), 408);
        QCOMPARE(rawStatus(rawExchange(port, rawPost(u"/v1/responses"_s, QByteArray(10, '\0')))), 400);
        QCOMPARE(rawStatus(rawExchange(port, rawPost(u"/v1/responses"_s, "[1,2]"))), 400);
        QCOMPARE(rawStatus(rawExchange(port, "GET /v1/models HTTP/1.1\r\nbad header\r\n\r\n")), 400);
        QVERIFY(sim->rejectedRequestCount() >= 7);

        // Still healthy, and every answer says who it was.
        const QByteArray ok = rawExchange(port, rawGet(u"/v1/models"_s));
        QCOMPARE(rawStatus(ok), 200);
        QVERIFY(ok.contains("\r\nx-request-id: req_"));
        QVERIFY(ok.contains("\r\nConnection: close\r\n"));
    }

    // Persistent connections: two pipelined requests on one socket. SSE is chunked and ends with
    // the terminating chunk; the close-delimited variant has no framing and ends by closing.
    void connectionFraming()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        const QByteArray keep = "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n";
        const QByteArray answer = rawExchange(sim->port(), keep + rawGet(u"/v1/models"_s));
        QCOMPARE(answer.count("HTTP/1.1 200 OK\r\n"), 2);
        QVERIFY(answer.contains("\r\nConnection: keep-alive\r\n"));
        QVERIFY(answer.contains("\r\nConnection: close\r\n"));
        QCOMPARE(sim->requestCount("GET", u"/v1/models"), 2);

        const QByteArray body = toJson(backgroundBody(u"x"_s, true));
        const QByteArray chunked = rawExchange(sim->port(), rawPost(u"/v1/responses"_s, body));
        QVERIFY(chunked.contains("\r\nTransfer-Encoding: chunked\r\n"));
        bool complete = false;
        QCOMPARE(typesOf(parseSse(rawBody(chunked, &complete))), kNormalTypes);
        QVERIFY(complete);

        OpenAiSimConfig config = fastConfig();
        config.closeDelimitedStreams = true;
        sim->setConfig(config);
        const QByteArray delimited = rawExchange(sim->port(), rawPost(u"/v1/responses"_s, body));
        QCOMPARE(rawStatus(delimited), 200);
        QVERIFY(!delimited.contains("Transfer-Encoding"));
        QVERIFY(!delimited.contains("Content-Length"));
        QCOMPARE(typesOf(parseSse(rawBody(delimited))), kNormalTypes);
    }

    // Foreground (background:false) responses: JSON answer when done, not resumable, not
    // cancellable once finished.
    void foregroundResponse()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->baseUrl());
        const Reply done = client.create(QJsonObject{{u"model"_s, u"m"_s}, {u"input"_s, u"x"_s}});
        QCOMPARE(done.status, 200);
        QCOMPARE(done.json().value("status"_L1).toString(), u"completed"_s);
        QCOMPARE(done.json().value("background"_L1).toBool(), false);
        const QString id = done.json().value("id"_L1).toString();
        const Reply stream = client.get(u"/responses/%1?stream=true"_s.arg(id));
        QCOMPARE(stream.status, 400);
        QVERIFY(stream.errorBody().value("message"_L1).toString().contains("background=true"_L1));
        const Reply cancel = client.send("POST", u"/responses/%1/cancel"_s.arg(id));
        QCOMPARE(cancel.status, 400);
        QCOMPARE(cancel.errorBody().value("message"_L1).toString(),
                 u"Cannot cancel a synchronous response."_s);
    }

    void modelsAndInputItems()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->baseUrl());
        const QJsonObject models = client.get(u"/models"_s).json();
        QCOMPARE(models.value("object"_L1).toString(), u"list"_s);
        QCOMPARE(models.value("data"_L1).toArray().first()["id"_L1].toString(), u"runwatch-sim-1"_s);
        const QString id = client.create(backgroundBody(u"Say hi"_s, false)).json()["id"_L1].toString();
        const QJsonObject items = client.get(u"/responses/%1/input_items"_s.arg(id)).json();
        QCOMPARE(items.value("data"_L1).toArray().first()["content"_L1][0]["text"_L1].toString(),
                 u"Say hi"_s);
    }

    void commandLine()
    {
        const CommandLineResult ok
            = parseCommandLine({u"runwatch-sim"_s,
                                u"--port"_s,
                                u"8123"_s,
                                u"--key"_s,
                                u"k"_s,
                                u"--interval-ms"_s,
                                u"7"_s,
                                u"--drop-after"_s,
                                u"3"_s,
                                u"--drop-mode"_s,
                                u"reset"_s,
                                u"--fault-connections"_s,
                                u"1"_s,
                                u"--http-fault"_s,
                                u"status=503,count=2,on=create+get,retry-after-ms=300"_s,
                                u"--rate-limit"_s,
                                u"1"_s,
                                u"--resume-max-age-ms"_s,
                                u"0"_s,
                                u"--line-ending"_s,
                                u"crlf"_s});
        QCOMPARE(int(ok.action), int(CommandLineResult::Action::Run));
        QCOMPARE(ok.options.port, quint16(8123));
        QVERIFY(ok.options.address.isLoopback());
        const OpenAiSimConfig &config = ok.options.config;
        QCOMPARE(config.apiKey, u"k"_s);
        QCOMPARE(config.intervalMs, 7);
        QCOMPARE(config.streamFaults.dropAfterEvents, 3);
        QCOMPARE(int(config.streamFaults.dropMode), int(DropMode::Reset));
        QCOMPARE(config.streamFaults.connections, 1);
        QCOMPARE(config.httpFaults.size(), 2);
        QCOMPARE(config.httpFaults.at(0).status, 503);
        QCOMPARE(config.httpFaults.at(0).count, 2);
        QCOMPARE(config.httpFaults.at(0).endpoints,
                 (QSet<OpenAiEndpoint>{OpenAiEndpoint::Create, OpenAiEndpoint::Retrieve}));
        QCOMPARE(config.httpFaults.at(0).retryAfterMs, 300);
        QCOMPARE(config.httpFaults.at(1).status, 429);
        QCOMPARE(config.resumeMaxAgeMs, 0);
        QCOMPARE(config.lineEnding, QByteArray("\r\n"));

        const CommandLineResult remote = parseCommandLine({u"runwatch-sim"_s, u"--host"_s, u"0.0.0.0"_s});
        QCOMPARE(int(remote.action), int(CommandLineResult::Action::Error));
        QVERIFY(remote.message.contains("--allow-remote"_L1));
        QCOMPARE(
            int(parseCommandLine({u"runwatch-sim"_s, u"--host"_s, u"0.0.0.0"_s, u"--allow-remote"_s}).action),
            int(CommandLineResult::Action::Run));
        QCOMPARE(int(parseCommandLine({u"runwatch-sim"_s, u"--port"_s, u"99999"_s}).action),
                 int(CommandLineResult::Action::Error));
        QCOMPARE(int(parseCommandLine({u"runwatch-sim"_s, u"--http-fault"_s, u"bogus"_s}).action),
                 int(CommandLineResult::Action::Error));
        const CommandLineResult help = parseCommandLine({u"runwatch-sim"_s, u"--help"_s});
        QCOMPARE(int(help.action), int(CommandLineResult::Action::Help));
        QVERIFY(help.message.contains("tool_call"_L1));
    }
};

QTEST_GUILESS_MAIN(TestOpenAiSim)
#include "tst_openaisim.moc"
