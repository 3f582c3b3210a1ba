// SPDX-License-Identifier: GPL-3.0-or-later
// HttpRequest::busy against a scripted loopback server: a refusal that only means "not now"
// (OpenAI's 409 conversation_locked) is waited out and the request, idempotent or not, sent again
// once; other answers with the same status are not; the server's Retry-After is honoured; the
// wait is bounded by the request's patience, ends with abortAll(), and does not use up retries.

#include "awaitwithin.h"
#include "net/httpclient.h"
#include "scriptedserver.h"

#include <QNetworkReply>
#include <QTest>

#include <vector>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace Runwatch;
using RunwatchTest::awaitWithin;
using RunwatchTest::ScriptedReply;
using RunwatchTest::ScriptedServer;

namespace {

RetryPolicy fastPolicy()
{
    RetryPolicy p;
    p.initialDelay = 10ms;
    p.maxDelay = 40ms;
    p.connectTimeout = 5000ms;
    p.inactivityTimeout = 5000ms;
    return p;
}

// A create that must not run twice, whose server may answer "conversation busy".
HttpRequest create(const QUrl &url, std::chrono::milliseconds patience = 5000ms)
{
    HttpRequest r;
    r.method = "POST";
    r.url = url;
    r.body = R"({"conversation":"conv_1"})";
    r.idempotent = false;
    r.busy = HttpRequest::BusyRefusal{.status = 409, .code = u"conversation_locked"_s, .patience = patience};
    return r;
}

ScriptedReply locked(RunwatchTest::HeaderList headers = {})
{
    return ScriptedReply::openAiError(409, "Conversation conv_1 is locked.", "invalid_request_error",
                                      "conversation_locked", std::move(headers));
}

const QByteArray kCreated = R"({"id":"resp_1","status":"queued"})";

} // namespace

class TestHttpBusy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cleanup() { QTRY_COMPARE_WITH_TIMEOUT(HttpClient::liveRequests(), 0, 5000); }

    // Three refusals, then taken: four requests on the wire, the last one answered; more than the
    // policy's one retry, since busy waits do not count as retries.
    void waitedOutThenSentOnce()
    {
        ScriptedServer server;
        server.enqueue("/v1/responses", locked(), 3);
        server.enqueue("/v1/responses", ScriptedReply::json(200, kCreated));
        HttpClient client;
        RetryPolicy policy = fastPolicy();
        policy.maxRetries = 1;
        client.setPolicy(policy);
        std::vector<std::chrono::milliseconds> sleeps;
        client.setSleepObserver([&sleeps](std::chrono::milliseconds d) { sleeps.push_back(d); });

        const auto r = awaitWithin(client.send(create(server.url(u"/v1/responses"_s))));
        QVERIFY(r);
        QVERIFY2(r->ok(), qPrintable(r->error.toString()));
        QCOMPARE(r->body, kCreated);
        QCOMPARE(r->attempts, 4);
        QCOMPARE(server.requestCount(), 4);
        QCOMPARE(sleeps.size(), size_t(3));
        for (const auto &req : server.requests())
            QCOMPARE(req.body, QByteArray(R"({"conversation":"conv_1"})"));
    }

    // Another 409 (not the busy code) of a request that must not run twice is not repeated.
    void otherConflictNotRepeated()
    {
        ScriptedServer server;
        server.enqueue("/v1/responses",
                       ScriptedReply::openAiError(409, "Something else.", "invalid_request_error", "other"));
        server.enqueue("/v1/responses", ScriptedReply::json(200, kCreated));
        HttpClient client;
        client.setPolicy(fastPolicy());

        const auto r = awaitWithin(client.send(create(server.url(u"/v1/responses"_s))));
        QVERIFY(r);
        QCOMPARE(r->error.kind, ErrorKind::Conflict);
        QCOMPARE(r->error.code, u"other"_s);
        QCOMPARE(server.requestCount(), 1);
    }

    // Without `busy`, conversation_locked is a 409 like any other: not repeated (never a blind
    // re-post of a create).
    void withoutBusyNotRepeated()
    {
        ScriptedServer server;
        server.enqueue("/v1/responses", locked());
        server.enqueue("/v1/responses", ScriptedReply::json(200, kCreated));
        HttpClient client;
        client.setPolicy(fastPolicy());
        HttpRequest r = create(server.url(u"/v1/responses"_s));
        r.busy.reset();

        const auto answer = awaitWithin(client.send(std::move(r)));
        QVERIFY(answer);
        QCOMPARE(answer->error.code, u"conversation_locked"_s);
        QCOMPARE(server.requestCount(), 1);
    }

    // The server's Retry-After is the wait (not sooner), measured on the server side.
    void retryAfterHonoured()
    {
        ScriptedServer server;
        server.enqueue("/v1/responses", locked({{"retry-after-ms", "300"}}));
        server.enqueue("/v1/responses", ScriptedReply::json(200, kCreated));
        HttpClient client;
        client.setPolicy(fastPolicy());

        const auto r = awaitWithin(client.send(create(server.url(u"/v1/responses"_s))));
        QVERIFY(r);
        QVERIFY(r->ok());
        QCOMPARE(server.requestCount(), 2);
        const qint64 gap = server.requests().at(1).receivedAtMs - server.requests().at(0).receivedAtMs;
        QVERIFY2(gap >= 290, qPrintable(QString::number(gap)));
    }

    // A wait that would end past the patience is not begun: the refusal is the answer at once.
    void waitPastPatienceNotBegun()
    {
        ScriptedServer server;
        server.enqueue("/v1/responses", locked({{"retry-after-ms", "30000"}}));
        HttpClient client;
        client.setPolicy(fastPolicy());

        const auto r = awaitWithin(client.send(create(server.url(u"/v1/responses"_s), 5000ms)));
        QVERIFY(r);
        QCOMPARE(r->error.code, u"conversation_locked"_s);
        QCOMPARE(server.requestCount(), 1);
    }

    // Patience runs out: the last refusal is the answer, saying how long it waited; the request
    // went out no more often than the waits allowed.
    void patienceBounded()
    {
        ScriptedServer server;
        server.enqueue("/v1/responses", locked({{"retry-after-ms", "100"}}), 100);
        HttpClient client;
        client.setPolicy(fastPolicy());

        const auto r = awaitWithin(client.send(create(server.url(u"/v1/responses"_s), 350ms)));
        QVERIFY(r);
        QCOMPARE(r->error.kind, ErrorKind::Conflict);
        QCOMPARE(r->error.code, u"conversation_locked"_s);
        QVERIFY2(r->error.message.contains(u"still refused after waiting"_s), qPrintable(r->error.message));
        QVERIFY2(server.requestCount() >= 3 && server.requestCount() <= 4,
                 qPrintable(QString::number(server.requestCount())));
    }

    // A server asking for longer than the policy allows gets a clear error, not a long wait.
    void retryAfterOverCapGivesUp()
    {
        ScriptedServer server;
        server.enqueue("/v1/responses", locked({{"retry-after", "600"}}));
        HttpClient client;
        client.setPolicy(fastPolicy());

        const auto r = awaitWithin(client.send(create(server.url(u"/v1/responses"_s), 3600000ms)));
        QVERIFY(r);
        QCOMPARE(r->error.code, u"conversation_locked"_s);
        QCOMPARE(server.requestCount(), 1);
    }

    // abortAll() during the wait ends it with Cancelled; nothing more is sent.
    void abortAllEndsTheWait()
    {
        ScriptedServer server;
        server.enqueue("/v1/responses", locked({{"retry-after-ms", "30000"}}));
        server.enqueue("/v1/responses", ScriptedReply::json(200, kCreated));
        HttpClient client;
        client.setPolicy(fastPolicy());
        client.setSleepObserver([&client](std::chrono::milliseconds) { client.abortAll(); });

        const auto r = awaitWithin(client.send(create(server.url(u"/v1/responses"_s), 60000ms)));
        QVERIFY(r);
        QCOMPARE(r->error.kind, ErrorKind::Cancelled);
        QCOMPARE(server.requestCount(), 1);
    }

    // A stream's create is waited out the same way before its 200 arrives.
    void openStreamWaitsToo()
    {
        ScriptedServer server;
        server.enqueue("/v1/responses", locked());
        server.enqueue("/v1/responses", ScriptedReply::stream(200, {{"Content-Type", "text/event-stream"}},
                                                              {{0, "data: {}\n\n"}}));
        HttpClient client;
        client.setPolicy(fastPolicy());

        const auto opened = awaitWithin(client.openStream(create(server.url(u"/v1/responses"_s))));
        QVERIFY(opened);
        QVERIFY2(opened->response.ok(), qPrintable(opened->response.error.toString()));
        QVERIFY(opened->reply);
        QCOMPARE(server.requestCount(), 2);
        opened->reply->abort();
        opened->reply->deleteLater();
    }
};

QTEST_GUILESS_MAIN(TestHttpBusy)
#include "tst_httpbusy.moc"
