// SPDX-License-Identifier: GPL-3.0-or-later
// HttpClient against a scripted loopback server: retries and their timing (measured on the
// server side), error taxonomy, timeouts, redirects, body caps and live streams. Plus table
// tests of the pure helpers (parseRetryAfter, retryDelay, checkTransportSecurity,
// classifyHttpError).

#include "awaitwithin.h"
#include "net/httpclient.h"
#include "scriptedserver.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QNetworkReply>
#include <QSet>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>
#include <QTimeZone>
#include <QTimer>

#include <memory>
#include <optional>

using namespace Qt::StringLiterals;
using RunwatchTest::awaitWithin;
using namespace std::chrono_literals;
using namespace Runwatch;
using RunwatchTest::RecordedRequest;
using RunwatchTest::ScriptedReply;
using RunwatchTest::ScriptedServer;

Q_DECLARE_METATYPE(Runwatch::ErrorKind)

namespace {

// Small delays so retry tests stay fast; tests that measure server delays set their own.
RetryPolicy fastPolicy()
{
    RetryPolicy p;
    p.initialDelay = 10ms;
    p.maxDelay = 40ms;
    p.connectTimeout = 5000ms;
    p.inactivityTimeout = 5000ms;
    return p;
}

HttpRequest get(const QUrl &url)
{
    HttpRequest r;
    r.url = url;
    r.headers = {{"Authorization", "Bearer sk-test"}};
    return r;
}

HttpRequest post(const QUrl &url, const QByteArray &body, bool idempotent = true)
{
    HttpRequest r = get(url);
    r.method = "POST";
    r.body = body;
    r.idempotent = idempotent;
    return r;
}

// A port on 127.0.0.1 where nothing listens (bound once by us, then released).
quint16 closedPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}

qint64 gapMs(const QList<RecordedRequest> &requests, int i)
{
    return requests.at(i).receivedAtMs - requests.at(i - 1).receivedAtMs;
}

const QByteArray kOpenAi400
    = R"({"error":{"message":"Invalid value for 'model'.","type":"invalid_request_error","param":"model","code":"invalid_value"}})";

} // namespace

class TestHttpClient : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Whatever a test left in flight (a client destroyed mid-request) has unwound before the
    // next one: nothing may still be suspended when the process exits (LeakSanitizer gate).
    void cleanup() { QTRY_COMPARE_WITH_TIMEOUT(HttpClient::liveRequests(), 0, 5000); }

    // --- pure helpers -----------------------------------------------------------------------
    void parseRetryAfter_data();
    void parseRetryAfter();
    void retryDelay_data();
    void retryDelay();
    void checkTransportSecurity_data();
    void checkTransportSecurity();
    void classifyHttpError_data();
    void classifyHttpError();

    // --- send() over loopback ---------------------------------------------------------------
    void sendJson();
    void retryAfterSecondsHonoured();
    void retryAfterMsHonoured();
    void serverErrorGivesUpAfterThreeAttempts();
    void clientErrorNotRetried();
    void statusKinds_data();
    void statusKinds();
    void authChallengeIsAuthError_data();
    void authChallengeIsAuthError();
    void retryAfterOverCapGivesUpImmediately();
    void connectionRefusedIsRetriedNetworkError();
    void neverAnsweringServerTimesOut();
    void headersThenDropIsNetworkError();
    void crossOriginRedirectRefused();
    void sameOriginRedirectFollowed_data();
    void sameOriginRedirectFollowed();
    void redirectLoopIsProtocolError();
    void bodyOverCapIsProtocolError_data();
    void bodyOverCapIsProtocolError();
    void errorBodyIsBounded();
    void requestIdKept();
    void xShouldRetryHonoured_data();
    void xShouldRetryHonoured();
    void nonIdempotentRetriesOnlyWhenUnprocessed_data();
    void nonIdempotentRetriesOnlyWhenUnprocessed();
    void nonIdempotentBodyDelivered_data();
    void nonIdempotentBodyDelivered();
    void insecureHttpRefusedBeforeConnecting();
    void abortAllCancelsInFlight();
    void abortAllDuringBackoff();
    void destroyingClientCompletesWithCancelled();

    // --- openStream() -----------------------------------------------------------------------
    void openStreamHandsOverLiveReply();
    void openStreamRetries503();
    void openStreamErrorBody();
    void openStreamInactivityTimeout();
};

// ---------------------------------------------------------------------------------------------

void TestHttpClient::parseRetryAfter_data()
{
    QTest::addColumn<QByteArray>("retryAfterMs");
    QTest::addColumn<QByteArray>("retryAfter");
    QTest::addColumn<qint64>("expected"); // -1: nullopt

    // Names given as servers send them: matching is case-insensitive.
    QTest::newRow("ms integer") << QByteArray("300") << QByteArray() << qint64(300);
    QTest::newRow("ms float rounds up") << QByteArray("300.2") << QByteArray() << qint64(301);
    QTest::newRow("ms beats seconds") << QByteArray("200") << QByteArray("5") << qint64(200);
    QTest::newRow("garbage ms falls back") << QByteArray("soon") << QByteArray("2") << qint64(2000);
    QTest::newRow("seconds") << QByteArray() << QByteArray("1") << qint64(1000);
    QTest::newRow("seconds padded") << QByteArray() << QByteArray(" 7 ") << qint64(7000);
    QTest::newRow("float seconds") << QByteArray() << QByteArray("1.5") << qint64(1500);
    QTest::newRow("zero") << QByteArray() << QByteArray("0") << qint64(0);
    // now = Wed, 21 Oct 2015 07:28:00 GMT (see the test body)
    QTest::newRow("imf-fixdate") << QByteArray() << QByteArray("Wed, 21 Oct 2015 07:28:30 GMT")
                                 << qint64(30000);
    QTest::newRow("rfc850 date") << QByteArray() << QByteArray("Wednesday, 21-Oct-15 07:29:00 GMT")
                                 << qint64(60000);
    QTest::newRow("asctime date") << QByteArray() << QByteArray("Wed Oct 21 07:28:05 2015") << qint64(5000);
    QTest::newRow("date in the past")
        << QByteArray() << QByteArray("Tue, 20 Oct 2015 07:28:00 GMT") << qint64(0);
    QTest::newRow("impossible date") << QByteArray() << QByteArray("Wed, 32 Oct 2015 07:28:00 GMT")
                                     << qint64(-1);
    QTest::newRow("date without GMT")
        << QByteArray() << QByteArray("Wed, 21 Oct 2015 07:28:30 +0200") << qint64(-1);
    QTest::newRow("garbage") << QByteArray() << QByteArray("later please") << qint64(-1);
    QTest::newRow("negative") << QByteArray() << QByteArray("-1") << qint64(-1);
    QTest::newRow("negative ms") << QByteArray("-5") << QByteArray() << qint64(-1);
    QTest::newRow("inf") << QByteArray("inf") << QByteArray("nan") << qint64(-1);
    QTest::newRow("exponent") << QByteArray() << QByteArray("1e3") << qint64(-1);
    QTest::newRow("empty values") << QByteArray("") << QByteArray("") << qint64(-1);
    QTest::newRow("absent") << QByteArray() << QByteArray() << qint64(-1);
}

void TestHttpClient::parseRetryAfter()
{
    QFETCH(QByteArray, retryAfterMs);
    QFETCH(QByteArray, retryAfter);
    QFETCH(qint64, expected);

    QList<QPair<QByteArray, QByteArray>> headers{{"x-request-id", "req_1"}};
    // A null QByteArray means "header absent"; an empty one is present but empty.
    if (!retryAfterMs.isNull())
        headers.append({"retry-after-ms", retryAfterMs});
    if (!retryAfter.isNull())
        headers.append({"Retry-After", retryAfter});
    const QDateTime now(QDate(2015, 10, 21), QTime(7, 28, 0), QTimeZone::utc());

    const std::optional<qint64> got = Runwatch::parseRetryAfter(headers, now);
    if (expected < 0) {
        QVERIFY2(!got, qPrintable(u"unexpected value %1"_s.arg(got.value_or(-1))));
    } else {
        QVERIFY(got);
        QCOMPARE(*got, expected);
    }
}

void TestHttpClient::retryDelay_data()
{
    QTest::addColumn<int>("retryIndex");
    QTest::addColumn<double>("jitter");
    QTest::addColumn<qint64>("serverDelay"); // -1: none
    QTest::addColumn<qint64>("low");
    QTest::addColumn<qint64>("high");

    // Default policy: 500 ms initial, 8 s cap, 25 % jitter.
    QTest::newRow("first retry") << 0 << 0.25 << qint64(-1) << qint64(375) << qint64(500);
    QTest::newRow("second retry") << 1 << 0.25 << qint64(-1) << qint64(750) << qint64(1000);
    QTest::newRow("capped") << 4 << 0.25 << qint64(-1) << qint64(6000) << qint64(8000);
    QTest::newRow("far beyond cap") << 40 << 0.25 << qint64(-1) << qint64(6000) << qint64(8000);
    QTest::newRow("negative index") << -3 << 0.25 << qint64(-1) << qint64(375) << qint64(500);
    QTest::newRow("no jitter") << 2 << 0.0 << qint64(-1) << qint64(2000) << qint64(2000);
    QTest::newRow("full jitter") << 0 << 1.0 << qint64(-1) << qint64(0) << qint64(500);
    QTest::newRow("server delay exact") << 0 << 0.25 << qint64(1234) << qint64(1234) << qint64(1234);
    QTest::newRow("server delay above backoff cap")
        << 0 << 0.25 << qint64(30000) << qint64(30000) << qint64(30000);
    QTest::newRow("server zero uses backoff") << 1 << 0.25 << qint64(0) << qint64(750) << qint64(1000);
}

void TestHttpClient::retryDelay()
{
    QFETCH(int, retryIndex);
    QFETCH(double, jitter);
    QFETCH(qint64, serverDelay);
    QFETCH(qint64, low);
    QFETCH(qint64, high);

    RetryPolicy policy;
    policy.jitter = jitter;
    const std::optional<qint64> server = serverDelay < 0 ? std::nullopt : std::optional<qint64>(serverDelay);
    QSet<qint64> seen;
    for (int i = 0; i < 300; ++i) {
        const qint64 d = Runwatch::retryDelay(policy, retryIndex, server).count();
        QVERIFY2(d >= low && d <= high, qPrintable(u"%1 outside [%2, %3]"_s.arg(d).arg(low).arg(high)));
        seen.insert(d);
    }
    // Jitter must actually spread the retries of many clients.
    if (low != high)
        QVERIFY2(seen.size() > 10, qPrintable(u"only %1 distinct delays"_s.arg(seen.size())));
}

void TestHttpClient::checkTransportSecurity_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("allowInsecure");
    QTest::addColumn<QString>("code"); // empty: accepted

    QTest::newRow("https") << u"https://api.openai.com/v1"_s << false << QString();
    QTest::newRow("https custom port") << u"https://example.com:8443/"_s << false << QString();
    QTest::newRow("http 127.0.0.1") << u"http://127.0.0.1:8080/v1"_s << false << QString();
    QTest::newRow("http 127.x.y.z") << u"http://127.1.2.3/"_s << false << QString();
    QTest::newRow("http ::1") << u"http://[::1]:9000/"_s << false << QString();
    QTest::newRow("http mapped loopback") << u"http://[::ffff:127.0.0.1]/"_s << false << QString();
    QTest::newRow("http localhost") << u"http://localhost:11434/v1"_s << false << QString();
    QTest::newRow("http LOCALHOST") << u"http://LOCALHOST/"_s << false << QString();
    QTest::newRow("http remote") << u"http://api.example.com/v1"_s << false << u"insecure_transport"_s;
    QTest::newRow("http remote allowed") << u"http://api.example.com/v1"_s << true << QString();
    QTest::newRow("http lan") << u"http://192.168.1.20:8000/"_s << false << u"insecure_transport"_s;
    QTest::newRow("http 128.0.0.1") << u"http://128.0.0.1/"_s << false << u"insecure_transport"_s;
    QTest::newRow("loopback-looking host")
        << u"http://127.0.0.1.evil.example/"_s << false << u"insecure_transport"_s;
    QTest::newRow("localhost subdomain trick")
        << u"http://localhost.evil.example/"_s << false << u"insecure_transport"_s;
    QTest::newRow("ftp") << u"ftp://example.com/file"_s << false << u"invalid_url"_s;
    QTest::newRow("file") << u"file:///etc/passwd"_s << true << u"invalid_url"_s;
    QTest::newRow("no host") << u"http:///v1"_s << false << u"invalid_url"_s;
    QTest::newRow("empty") << QString() << false << u"invalid_url"_s;
}

void TestHttpClient::checkTransportSecurity()
{
    QFETCH(QString, url);
    QFETCH(bool, allowInsecure);
    QFETCH(QString, code);

    const RunError e = Runwatch::checkTransportSecurity(QUrl(url), allowInsecure);
    if (code.isEmpty()) {
        QVERIFY2(!e.isError(), qPrintable(e.toString()));
    } else {
        QCOMPARE(e.kind, ErrorKind::Client);
        QCOMPARE(e.code, code);
        QVERIFY(!e.message.isEmpty());
        QVERIFY(!e.retryable);
    }
}

void TestHttpClient::classifyHttpError_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<ErrorKind>("kind");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message"); // exact unless it starts with '~' (contains)
    QTest::addColumn<bool>("retryable");

    QTest::newRow("openai 400") << 400 << kOpenAi400 << ErrorKind::Client << u"invalid_value"_s
                                << u"Invalid value for 'model'."_s << false;
    QTest::newRow("openai 429 quota")
        << 429
        << QByteArray(
               R"({"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}})")
        << ErrorKind::RateLimited << u"insufficient_quota"_s << u"You exceeded your current quota."_s << true;
    QTest::newRow("null code falls back to type")
        << 500
        << QByteArray(
               R"({"error":{"message":"The server had an error.","type":"server_error","param":null,"code":null}})")
        << ErrorKind::Server << u"server_error"_s << u"The server had an error."_s << true;
    QTest::newRow("azure numeric-string code")
        << 429 << QByteArray(R"({"error":{"code":"429","message":"Requests exceeded."}})")
        << ErrorKind::RateLimited << u"429"_s << u"Requests exceeded."_s << true;
    QTest::newRow("numeric code") << 409 << QByteArray(R"({"error":{"code":7,"message":"locked"}})")
                                  << ErrorKind::Conflict << u"7"_s << u"locked"_s << true;
    QTest::newRow("error as string") << 401 << QByteArray(R"({"error":"bad key"})") << ErrorKind::Auth
                                     << QString() << u"bad key"_s << false;
    QTest::newRow("top-level message") << 403 << QByteArray(R"({"message":"region blocked"})")
                                       << ErrorKind::Auth << QString() << u"region blocked"_s << false;
    QTest::newRow("html 502 with title")
        << 502
        << QByteArray("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>"
                      "<center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center>"
                      "</body></html>")
        << ErrorKind::Server << QString() << u"HTTP 502 Bad Gateway: 502 Bad Gateway"_s << true;
    QTest::newRow("html without title")
        << 503
        << QByteArray("<html><style>p{color:red}</style><body><p>Down for\n  maintenance</p>"
                      "</body></html>")
        << ErrorKind::Server << QString() << u"HTTP 503 Service Unavailable: Down for maintenance"_s << true;
    QTest::newRow("plain text") << 400 << QByteArray("missing field\n") << ErrorKind::Client << QString()
                                << u"HTTP 400 Bad Request: missing field"_s << false;
    QTest::newRow("truncated json") << 500 << QByteArray(R"({"error":{"mess)") << ErrorKind::Server
                                    << QString() << u"~HTTP 500 Internal Server Error: "_s << true;
    QTest::newRow("empty 503") << 503 << QByteArray() << ErrorKind::Server << QString()
                               << u"HTTP 503 Service Unavailable"_s << true;
    QTest::newRow("empty 404") << 404 << QByteArray() << ErrorKind::NotFound << QString()
                               << u"HTTP 404 Not Found"_s << false;
    QTest::newRow("empty 410") << 410 << QByteArray() << ErrorKind::NotFound << QString()
                               << u"HTTP 410 Gone"_s << false;
    QTest::newRow("408") << 408 << QByteArray() << ErrorKind::Timeout << QString()
                         << u"HTTP 408 Request Timeout"_s << true;
    QTest::newRow("422") << 422 << QByteArray() << ErrorKind::Client << QString()
                         << u"HTTP 422 Unprocessable Content"_s << false;
    QTest::newRow("418 unknown reason")
        << 418 << QByteArray() << ErrorKind::Client << QString() << u"HTTP 418"_s << false;
    QTest::newRow("599") << 599 << QByteArray() << ErrorKind::Server << QString() << u"HTTP 599"_s << true;
    QTest::newRow("302 unfollowed") << 302 << QByteArray() << ErrorKind::Protocol << QString()
                                    << u"~unexpected redirect not followed"_s << false;
    QTest::newRow("binary garbage") << 500 << QByteArray("\x01\x02\x7f\x00zz", 6) << ErrorKind::Server
                                    << QString() << u"~HTTP 500"_s << true;
}

void TestHttpClient::classifyHttpError()
{
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(ErrorKind, kind);
    QFETCH(QString, code);
    QFETCH(QString, message);
    QFETCH(bool, retryable);

    const RunError e = Runwatch::classifyHttpError(status, body, "req_abc");
    QCOMPARE(e.kind, kind);
    QCOMPARE(e.httpStatus, status);
    QCOMPARE(e.code, code);
    if (message.startsWith(u'~')) {
        QVERIFY2(e.message.contains(message.mid(1)), qPrintable(e.message));
    } else {
        QCOMPARE(e.message, message);
    }
    QVERIFY2(!e.message.contains(u'<'), qPrintable(e.message));
    QCOMPARE(e.retryable, retryable);
    QCOMPARE(e.retryable, isRetryable(e));
    QCOMPARE(e.requestId, u"req_abc"_s);
}

// ---------------------------------------------------------------------------------------------

void TestHttpClient::sendJson()
{
    ScriptedServer server;
    QVERIFY(server.isListening());
    server.enqueue("/v1/responses",
                   ScriptedReply::json(200, R"({"id":"resp_1","status":"queued"})",
                                       {{"x-request-id", "req_123"}, {"OpenAI-Processing-Ms", "12"}}));
    HttpClient client;
    client.setPolicy(fastPolicy());
    QSignalSpy received(&server, &ScriptedServer::requestReceived);

    const auto r = awaitWithin(
        client.send(post(server.url(u"/v1/responses"_s), R"({"model":"m","background":true})")));
    QVERIFY(r);
    QVERIFY2(r->ok(), qPrintable(r->error.toString()));
    QCOMPARE(r->status, 200);
    QCOMPARE(r->body, QByteArray(R"({"id":"resp_1","status":"queued"})"));
    QCOMPARE(r->header("x-request-id"), QByteArray("req_123"));
    QCOMPARE(r->header("openai-processing-ms"), QByteArray("12")); // names lower-cased
    QCOMPARE(r->attempts, 1);
    QVERIFY(!r->retryAfterMs);

    QCOMPARE(server.requestCount(), 1);
    QCOMPARE(received.size(), 1);
    const auto req = received.constFirst().constFirst().value<RecordedRequest>();
    QCOMPARE(req.method, QByteArray("POST"));
    QCOMPARE(req.target, QByteArray("/v1/responses"));
    QCOMPARE(req.header("authorization"), QByteArray("Bearer sk-test"));
    QCOMPARE(req.header("content-type"), QByteArray("application/json"));
    QCOMPARE(req.body, QByteArray(R"({"model":"m","background":true})"));
}

void TestHttpClient::retryAfterSecondsHonoured()
{
    ScriptedServer server;
    server.enqueue("/r", ScriptedReply::openAiError(429, "Rate limit reached for requests", "requests",
                                                    "rate_limit_exceeded", {{"Retry-After", "1"}}));
    server.enqueue("/r", ScriptedReply::json(200, "{}"));
    HttpClient client;
    client.setPolicy(fastPolicy());
    QList<std::chrono::milliseconds> delays;
    client.setSleepObserver([&delays](std::chrono::milliseconds d) { delays.append(d); });

    const auto r = awaitWithin(client.send(get(server.url(u"/r"_s))));
    QVERIFY(r);
    QVERIFY2(r->ok(), qPrintable(r->error.toString()));
    QCOMPARE(r->attempts, 2);
    QCOMPARE(delays, QList<std::chrono::milliseconds>{1000ms});
    const auto reqs = server.requests();
    QCOMPARE(reqs.size(), 2);
    QVERIFY2(gapMs(reqs, 1) >= 1000, qPrintable(u"retried after %1 ms"_s.arg(gapMs(reqs, 1))));
    QVERIFY2(gapMs(reqs, 1) < 3000, qPrintable(u"retried after %1 ms"_s.arg(gapMs(reqs, 1))));
}

void TestHttpClient::retryAfterMsHonoured()
{
    ScriptedServer server;
    // retry-after-ms wins over Retry-After (which alone would mean 5 s).
    server.enqueue("/r", ScriptedReply::json(503, "{}", {{"retry-after-ms", "300"}, {"Retry-After", "5"}}));
    server.enqueue("/r", ScriptedReply::json(200, "{}"));
    HttpClient client;
    client.setPolicy(fastPolicy());
    QList<std::chrono::milliseconds> delays;
    client.setSleepObserver([&delays](std::chrono::milliseconds d) { delays.append(d); });

    const auto r = awaitWithin(client.send(get(server.url(u"/r"_s))));
    QVERIFY(r);
    QVERIFY2(r->ok(), qPrintable(r->error.toString()));
    QCOMPARE(delays, QList<std::chrono::milliseconds>{300ms});
    const auto reqs = server.requests();
    QCOMPARE(reqs.size(), 2);
    QVERIFY2(gapMs(reqs, 1) >= 300, qPrintable(u"retried after %1 ms"_s.arg(gapMs(reqs, 1))));
    QVERIFY2(gapMs(reqs, 1) < 2000, qPrintable(u"retried after %1 ms"_s.arg(gapMs(reqs, 1))));
}

void TestHttpClient::serverErrorGivesUpAfterThreeAttempts()
{
    ScriptedServer server;
    server.enqueue(
        "/r", ScriptedReply::openAiError(503, "The engine is currently overloaded", "server_error", {}), 3);
    server.enqueue("/r", ScriptedReply::json(200, "{}")); // must never be reached
    HttpClient client;
    RetryPolicy policy = fastPolicy();
    policy.jitter = 0;
    client.setPolicy(policy);
    QList<std::chrono::milliseconds> delays;
    client.setSleepObserver([&delays](std::chrono::milliseconds d) { delays.append(d); });

    const auto r = awaitWithin(client.send(get(server.url(u"/r"_s))));
    QVERIFY(r);
    QCOMPARE(r->error.kind, ErrorKind::Server);
    QCOMPARE(r->error.httpStatus, 503);
    QCOMPARE(r->status, 503);
    QCOMPARE(r->error.message, u"The engine is currently overloaded"_s);
    QCOMPARE(r->error.code, u"server_error"_s);
    QVERIFY(r->error.retryable);
    QCOMPARE(r->attempts, 3);
    QCOMPARE(server.requestCount("/r"), 3);
    QCOMPARE(server.pendingReplies("/r"), 1);
    // Exponential backoff without jitter: 10 ms, then 20 ms.
    QCOMPARE(delays, (QList<std::chrono::milliseconds>{10ms, 20ms}));
}

void TestHttpClient::clientErrorNotRetried()
{
    ScriptedServer server;
    server.enqueue("/r", ScriptedReply::json(400, kOpenAi400, {{"x-request-id", "req_400"}}));
    server.enqueue("/r", ScriptedReply::json(200, "{}"));
    HttpClient client;
    client.setPolicy(fastPolicy());
    int sleeps = 0;
    client.setSleepObserver([&sleeps](std::chrono::milliseconds) { ++sleeps; });

    const auto r = awaitWithin(client.send(post(server.url(u"/r"_s), "{}")));
    QVERIFY(r);
    QCOMPARE(r->error.kind, ErrorKind::Client);
    QCOMPARE(r->error.httpStatus, 400);
    QCOMPARE(r->error.message, u"Invalid value for 'model'."_s);
    QCOMPARE(r->error.code, u"invalid_value"_s);
    QCOMPARE(r->error.requestId, u"req_400"_s);
    QVERIFY(!r->error.retryable);
    QCOMPARE(r->body, kOpenAi400); // the caller may want the whole body
    QCOMPARE(r->attempts, 1);
    QCOMPARE(sleeps, 0);
    QCOMPARE(server.requestCount(), 1);
}

void TestHttpClient::statusKinds_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<ErrorKind>("kind");
    QTest::addColumn<int>("expectedAttempts");

    QTest::newRow("401") << 401 << ErrorKind::Auth << 1;
    QTest::newRow("403") << 403 << ErrorKind::Auth << 1;
    QTest::newRow("404") << 404 << ErrorKind::NotFound << 1;
    QTest::newRow("410") << 410 << ErrorKind::NotFound << 1;
    QTest::newRow("422") << 422 << ErrorKind::Client << 1;
    QTest::newRow("408") << 408 << ErrorKind::Timeout << 3;
    QTest::newRow("409") << 409 << ErrorKind::Conflict << 3;
    QTest::newRow("429") << 429 << ErrorKind::RateLimited << 3;
    QTest::newRow("500") << 500 << ErrorKind::Server << 3;
    QTest::newRow("502") << 502 << ErrorKind::Server << 3;
    QTest::newRow("504") << 504 << ErrorKind::Server << 3;
}

void TestHttpClient::statusKinds()
{
    QFETCH(int, status);
    QFETCH(ErrorKind, kind);
    QFETCH(int, expectedAttempts);

    ScriptedServer server;
    server.enqueue("/r", ScriptedReply::openAiError(status, "nope", "some_type", "some_code"), 3);
    HttpClient client;
    client.setPolicy(fastPolicy());

    const auto r = awaitWithin(client.send(get(server.url(u"/r"_s))));
    QVERIFY(r);
    QCOMPARE(r->error.kind, kind);
    QCOMPARE(r->error.httpStatus, status);
    QCOMPARE(r->error.message, u"nope"_s);
    QCOMPARE(r->error.code, u"some_code"_s);
    QCOMPARE(r->attempts, expectedAttempts);
    QCOMPARE(server.requestCount(), expectedAttempts);
}

void TestHttpClient::authChallengeIsAuthError_data()
{
    QTest::addColumn<QByteArray>("challenge");
    QTest::newRow("bearer") << QByteArray(R"(Bearer realm="api", error="invalid_token")");
    QTest::newRow("basic") << QByteArray(R"(Basic realm="proxy")");
}

// QNAM has its own 401 handling (authenticationRequired); it must not hang or hide the status.
void TestHttpClient::authChallengeIsAuthError()
{
    QFETCH(QByteArray, challenge);

    ScriptedServer server;
    server.enqueue("/r",
                   ScriptedReply::openAiError(401, "Incorrect API key provided.", "invalid_request_error",
                                              "invalid_api_key", {{"WWW-Authenticate", challenge}}));
    HttpClient client;
    client.setPolicy(fastPolicy());

    const auto r = awaitWithin(client.send(get(server.url(u"/r"_s))));
    QVERIFY(r);
    QCOMPARE(r->error.kind, ErrorKind::Auth);
    QCOMPARE(r->error.httpStatus, 401);
    QCOMPARE(r->error.code, u"invalid_api_key"_s);
    QCOMPARE(r->error.message, u"Incorrect API key provided."_s);
    QCOMPARE(r->attempts, 1);
    QCOMPARE(server.requestCount(), 1);
}

void TestHttpClient::retryAfterOverCapGivesUpImmediately()
{
    ScriptedServer server;
    server.enqueue("/r",
                   ScriptedReply::openAiError(429, "You exceeded your current quota.", "insufficient_quota",
                                              "insufficient_quota", {{"Retry-After", "300"}}));
    server.enqueue("/r", ScriptedReply::json(200, "{}"));
    HttpClient client;
    client.setPolicy(fastPolicy()); // maxRetryAfter stays at the default 120 s
    int sleeps = 0;
    client.setSleepObserver([&sleeps](std::chrono::milliseconds) { ++sleeps; });

    QElapsedTimer clock;
    clock.start();
    const auto r = awaitWithin(client.send(get(server.url(u"/r"_s))));
    QVERIFY(r);
    QVERIFY2(clock.elapsed() < 2000, "must give up at once, not wait");
    QCOMPARE(r->error.kind, ErrorKind::RateLimited);
    QCOMPARE(r->error.httpStatus, 429);
    QCOMPARE(r->error.code, u"insufficient_quota"_s);
    QVERIFY2(r->error.message.startsWith(u"You exceeded your current quota."_s),
             qPrintable(r->error.message));
    QVERIFY2(r->error.message.contains(u"server asked to retry after 300 s, more than the 120 s limit"_s),
             qPrintable(r->error.message));
    QCOMPARE(r->retryAfterMs, std::optional<qint64>(300000));
    QCOMPARE(r->attempts, 1);
    QCOMPARE(sleeps, 0);
    QCOMPARE(server.requestCount(), 1);
}

void TestHttpClient::connectionRefusedIsRetriedNetworkError()
{
    const quint16 port = closedPort();
    QVERIFY(port != 0);
    HttpClient client;
    client.setPolicy(fastPolicy());
    int sleeps = 0;
    client.setSleepObserver([&sleeps](std::chrono::milliseconds) { ++sleeps; });

    const auto r = awaitWithin(client.send(get(QUrl(u"http://127.0.0.1:%1/v1/responses"_s.arg(port)))));
    QVERIFY(r);
    QCOMPARE(r->error.kind, ErrorKind::Network);
    QCOMPARE(r->error.code, u"connection_refused"_s);
    QCOMPARE(r->error.httpStatus, 0);
    QCOMPARE(r->status, 0);
    QVERIFY(r->error.retryable);
    QVERIFY2(r->error.message.contains(QString::number(port)), qPrintable(r->error.message));
    QCOMPARE(r->attempts, 3);
    QCOMPARE(sleeps, 2);
}

void TestHttpClient::neverAnsweringServerTimesOut()
{
    ScriptedServer server;
    server.enqueue("/r", ScriptedReply::neverAnswer(), 2);
    HttpClient client;
    RetryPolicy policy = fastPolicy();
    policy.connectTimeout = 300ms;
    policy.maxRetries = 1;
    client.setPolicy(policy);

    QElapsedTimer clock;
    clock.start();
    const auto r = awaitWithin(client.send(get(server.url(u"/r"_s))));
    QVERIFY(r);
    QCOMPARE(r->error.kind, ErrorKind::Timeout);
    QCOMPARE(r->error.code, u"connect_timeout"_s);
    QVERIFY(r->error.retryable);
    QCOMPARE(r->attempts, 2);
    QCOMPARE(server.requestCount(), 2);
    // Each attempt waited for the connect timeout (the timer is coarse: allow 5 % early).
    QVERIFY2(gapMs(server.requests(), 1) >= 285, qPrintable(QString::number(gapMs(server.requests(), 1))));
    QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
}

void TestHttpClient::headersThenDropIsNetworkError()
{
    ScriptedServer server;
    auto drop = ScriptedReply::headersThenDrop(200, {{"Content-Type", "application/json"}}, 100);
    drop.body = R"({"id":)"; // a partial body, then the connection goes away
    server.enqueue("/r", drop);
    server.enqueue("/r", ScriptedReply::json(200, R"({"id":"ok"})"));
    HttpClient client;
    client.setPolicy(fastPolicy());

    const auto r = awaitWithin(client.send(get(server.url(u"/r"_s))));
    QVERIFY(r);
    QVERIFY2(r->ok(), qPrintable(r->error.toString()));
    QCOMPARE(r->body, QByteArray(R"({"id":"ok"})"));
    QCOMPARE(r->attempts, 2);

    // Without retries the broken body is reported, not passed off as a short success.
    ScriptedServer server2;
    server2.enqueue("/r", drop);
    RetryPolicy once = fastPolicy();
    once.maxRetries = 0;
    client.setPolicy(once);
    const auto r2 = awaitWithin(client.send(get(server2.url(u"/r"_s))));
    QVERIFY(r2);
    QCOMPARE(r2->error.kind, ErrorKind::Network);
    QCOMPARE(r2->error.httpStatus, 200);
    QVERIFY(r2->body.isEmpty());
}

void TestHttpClient::crossOriginRedirectRefused()
{
    ScriptedServer origin;
    ScriptedServer elsewhere;
    QVERIFY(origin.port() != elsewhere.port());
    const QByteArray target = elsewhere.url(u"/steal"_s).toEncoded();
    origin.enqueue("/v1/responses", ScriptedReply::redirect(302, target));
    elsewhere.enqueue("/steal", ScriptedReply::json(200, "{}"));
    HttpClient client;
    client.setPolicy(fastPolicy());

    const auto r = awaitWithin(client.send(get(origin.url(u"/v1/responses"_s))));
    QVERIFY(r);
    QCOMPARE(r->error.kind, ErrorKind::Protocol);
    QCOMPARE(r->error.code, u"cross_origin_redirect"_s);
    QCOMPARE(r->error.message, u"redirect to another host refused: "_s + QString::fromLatin1(target));
    QCOMPARE(r->error.httpStatus, 302);
    QVERIFY(!r->error.retryable);
    QCOMPARE(r->attempts, 1);
    QCOMPARE(origin.requestCount(), 1);
    QCOMPARE(elsewhere.requestCount(), 0); // the credentials never left
}

void TestHttpClient::sameOriginRedirectFollowed_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("location");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("expectedMethod");
    QTest::addColumn<bool>("bodyKept");

    QTest::newRow("302 GET relative")
        << 302 << QByteArray("/new?x=1") << QByteArray("GET") << QByteArray("GET") << false;
    QTest::newRow("301 GET absolute")
        << 301 << QByteArray() << QByteArray("GET") << QByteArray("GET") << false;
    QTest::newRow("307 POST keeps body")
        << 307 << QByteArray("/new?x=1") << QByteArray("POST") << QByteArray("POST") << true;
    QTest::newRow("308 DELETE") << 308 << QByteArray("/new?x=1") << QByteArray("DELETE")
                                << QByteArray("DELETE") << false;
    QTest::newRow("303 POST becomes GET")
        << 303 << QByteArray("/new?x=1") << QByteArray("POST") << QByteArray("GET") << false;
}

void TestHttpClient::sameOriginRedirectFollowed()
{
    QFETCH(int, status);
    QFETCH(QByteArray, location);
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, expectedMethod);
    QFETCH(bool, bodyKept);

    ScriptedServer server;
    if (location.isEmpty())
        location = server.url(u"/new?x=1"_s).toEncoded();
    server.enqueue("/old", ScriptedReply::redirect(status, location));
    server.enqueue("/new", ScriptedReply::json(200, R"({"moved":true})"));
    HttpClient client;
    client.setPolicy(fastPolicy());

    HttpRequest req = get(server.url(u"/old"_s));
    req.method = method.toLower(); // normalised by the client
    if (method == "POST")
        req.body = R"({"a":1})";
    const auto r = awaitWithin(client.send(req));
    QVERIFY(r);
    QVERIFY2(r->ok(), qPrintable(r->error.toString()));
    QCOMPARE(r->body, QByteArray(R"({"moved":true})"));
    QCOMPARE(r->attempts, 1);
    const auto reqs = server.requests();
    QCOMPARE(reqs.size(), 2);
    QCOMPARE(reqs.at(1).target, QByteArray("/new?x=1"));
    QCOMPARE(reqs.at(1).method, expectedMethod);
    QCOMPARE(reqs.at(1).header("authorization"), QByteArray("Bearer sk-test"));
    QCOMPARE(reqs.at(1).body, bodyKept ? QByteArray(R"({"a":1})") : QByteArray());
}

void TestHttpClient::redirectLoopIsProtocolError()
{
    ScriptedServer server;
    server.enqueue("/loop", ScriptedReply::redirect(302, "/loop"), 20);
    HttpClient client;
    client.setPolicy(fastPolicy());

    const auto r = awaitWithin(client.send(get(server.url(u"/loop"_s))));
    QVERIFY(r);
    QCOMPARE(r->error.kind, ErrorKind::Protocol);
    QCOMPARE(r->error.code, u"too_many_redirects"_s);
    QCOMPARE(server.requestCount(), 6); // the original request and 5 redirects
}

void TestHttpClient::bodyOverCapIsProtocolError_data()
{
    QTest::addColumn<bool>("chunked");
    QTest::newRow("content-length announces too much") << false;
    QTest::newRow("chunked body grows too large") << true;
}

void TestHttpClient::bodyOverCapIsProtocolError()
{
    QFETCH(bool, chunked);

    ScriptedServer server;
    const QByteArray big(4096, 'x');
    if (chunked) {
        QList<ScriptedReply::Chunk> chunks;
        for (int i = 0; i < 8; ++i)
            chunks.append({0, big.left(512)});
        server.enqueue("/big", ScriptedReply::stream(200, {{"Content-Type", "application/json"}}, chunks));
    } else {
        server.enqueue("/big", ScriptedReply::json(200, big));
    }
    server.enqueue("/small", ScriptedReply::json(200, big.left(1024)));
    HttpClient client;
    RetryPolicy policy = fastPolicy();
    policy.maxBodyBytes = 1024;
    client.setPolicy(policy);

    const auto r = awaitWithin(client.send(get(server.url(u"/big"_s))));
    QVERIFY(r);
    QCOMPARE(r->error.kind, ErrorKind::Protocol);
    QCOMPARE(r->error.code, u"body_too_large"_s);
    QVERIFY2(r->error.message.contains(u"1024"_s), qPrintable(r->error.message));
    QVERIFY(r->body.isEmpty());
    QCOMPARE(r->attempts, 1); // not worth retrying

    // Exactly at the cap is fine.
    const auto ok = awaitWithin(client.send(get(server.url(u"/small"_s))));
    QVERIFY(ok);
    QVERIFY2(ok->ok(), qPrintable(ok->error.toString()));
    QCOMPARE(ok->body.size(), 1024);
}

void TestHttpClient::errorBodyIsBounded()
{
    ScriptedServer server;
    // A hostile 500 with a 3 MiB body: reported as the server error it is, body cut at 1 MiB.
    server.enqueue("/r", ScriptedReply::text(500, "text/plain", QByteArray(3 * 1024 * 1024, 'e')));
    HttpClient client;
    RetryPolicy policy = fastPolicy();
    policy.maxRetries = 0;
    client.setPolicy(policy);

    const auto r = awaitWithin(client.send(get(server.url(u"/r"_s))));
    QVERIFY(r);
    QCOMPARE(r->error.kind, ErrorKind::Server);
    QCOMPARE(r->error.httpStatus, 500);
    QCOMPARE(r->body.size(), 1024 * 1024);
    QVERIFY(r->error.message.size() < 400);
}

void TestHttpClient::requestIdKept()
{
    ScriptedServer server;
    server.enqueue(
        "/r", ScriptedReply::openAiError(500, "boom", "server_error", {}, {{"x-request-id", "req_first"}}));
    server.enqueue(
        "/r", ScriptedReply::openAiError(500, "boom", "server_error", {}, {{"X-Request-Id", "req_last"}}));
    server.enqueue(
        "/n", ScriptedReply::text(502, "text/html", "<h1>bad gateway</h1>", {{"x-request-id", "req_html"}}));
    HttpClient client;
    RetryPolicy policy = fastPolicy();
    policy.maxRetries = 1;
    client.setPolicy(policy);

    const auto r = awaitWithin(client.send(get(server.url(u"/r"_s))));
    QVERIFY(r);
    QCOMPARE(r->error.requestId, u"req_last"_s); // the final attempt's id
    QCOMPARE(r->header("x-request-id"), QByteArray("req_last"));
    QVERIFY2(r->error.toString().contains(u"req_last"_s), qPrintable(r->error.toString()));

    policy.maxRetries = 0;
    client.setPolicy(policy);
    const auto n = awaitWithin(client.send(get(server.url(u"/n"_s))));
    QVERIFY(n);
    QCOMPARE(n->error.requestId, u"req_html"_s);
    QCOMPARE(n->error.message, u"HTTP 502 Bad Gateway: bad gateway"_s);
}

void TestHttpClient::xShouldRetryHonoured_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("shouldRetry");
    QTest::addColumn<int>("expectedAttempts");
    QTest::addColumn<bool>("retryable");

    QTest::newRow("400 but server says retry") << 400 << QByteArray("true") << 2 << true;
    QTest::newRow("500 but server says no") << 500 << QByteArray("false") << 1 << false;
    QTest::newRow("429 but server says no") << 429 << QByteArray("FALSE") << 1 << false;
    QTest::newRow("garbage value ignored") << 500 << QByteArray("maybe") << 2 << true;
}

void TestHttpClient::xShouldRetryHonoured()
{
    QFETCH(int, status);
    QFETCH(QByteArray, shouldRetry);
    QFETCH(int, expectedAttempts);
    QFETCH(bool, retryable);

    ScriptedServer server;
    server.enqueue("/r", ScriptedReply::json(status, "{}", {{"x-should-retry", shouldRetry}}), 2);
    HttpClient client;
    RetryPolicy policy = fastPolicy();
    policy.maxRetries = 1;
    client.setPolicy(policy);

    const auto r = awaitWithin(client.send(get(server.url(u"/r"_s))));
    QVERIFY(r);
    QCOMPARE(r->error.httpStatus, status);
    QCOMPARE(r->attempts, expectedAttempts);
    QCOMPARE(r->error.retryable, retryable);
    QCOMPARE(server.requestCount(), expectedAttempts);
}

void TestHttpClient::nonIdempotentRetriesOnlyWhenUnprocessed_data()
{
    QTest::addColumn<ScriptedReply>("first");
    QTest::addColumn<int>("expectedAttempts");
    QTest::addColumn<ErrorKind>("kindIfFailed");

    QTest::newRow("429 retried") << ScriptedReply::json(429, "{}") << 2 << ErrorKind::None;
    QTest::newRow("503 retried") << ScriptedReply::json(503, "{}") << 2 << ErrorKind::None;
    QTest::newRow("408 retried") << ScriptedReply::json(408, "{}") << 2 << ErrorKind::None;
    QTest::newRow("500 not retried") << ScriptedReply::json(500, "{}") << 1 << ErrorKind::Server;
    QTest::newRow("502 not retried") << ScriptedReply::json(502, "{}") << 1 << ErrorKind::Server;
    QTest::newRow("504 not retried") << ScriptedReply::json(504, "{}") << 1 << ErrorKind::Server;
    QTest::newRow("409 not retried") << ScriptedReply::json(409, "{}") << 1 << ErrorKind::Conflict;
    QTest::newRow("500 with x-should-retry")
        << ScriptedReply::json(500, "{}", {{"x-should-retry", "true"}}) << 2 << ErrorKind::None;
    QTest::newRow("reset after request not retried")
        << ScriptedReply::resetWithoutAnswer() << 1 << ErrorKind::Network;
    QTest::newRow("close after request not retried")
        << ScriptedReply::closeWithoutAnswer() << 1 << ErrorKind::Network;
}

void TestHttpClient::nonIdempotentRetriesOnlyWhenUnprocessed()
{
    QFETCH(ScriptedReply, first);
    QFETCH(int, expectedAttempts);
    QFETCH(ErrorKind, kindIfFailed);

    ScriptedServer server;
    server.enqueue("/v1/responses", first);
    server.enqueue("/v1/responses", ScriptedReply::json(200, R"({"id":"resp_1"})"));
    HttpClient client;
    client.setPolicy(fastPolicy());
    QSignalSpy received(&server, &ScriptedServer::requestReceived);

    const auto r = awaitWithin(client.send(post(server.url(u"/v1/responses"_s), "{}", false)));
    QVERIFY(r);
    QCOMPARE(r->error.kind, kindIfFailed);
    QCOMPARE(r->attempts, expectedAttempts);
    // Exactly as many requests on the wire: QNAM's own silent re-send is suppressed too.
    QCOMPARE(server.requestCount(), expectedAttempts);
    for (const auto &req : server.requests())
        QCOMPARE(req.body, QByteArray("{}"));
    if (kindIfFailed == ErrorKind::Network) {
        QCOMPARE(r->error.code, u"connection_closed"_s);
        QVERIFY(r->error.retryable); // transient, but only the caller can decide (reconcile)
    }
}

void TestHttpClient::nonIdempotentBodyDelivered_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("small") << QByteArray(R"({"model":"m","background":true,"store":true})");
    QTest::newRow("3 MiB") << QByteArray(3 * 1024 * 1024, 'b');
}

// The read-once body used for non-idempotent requests must still deliver every byte.
void TestHttpClient::nonIdempotentBodyDelivered()
{
    QFETCH(QByteArray, body);

    ScriptedServer server;
    server.enqueue("/v1/responses", ScriptedReply::json(200, R"({"id":"resp_1"})"));
    HttpClient client;
    client.setPolicy(fastPolicy());

    const auto r = awaitWithin(client.send(post(server.url(u"/v1/responses"_s), body, false)));
    QVERIFY(r);
    QVERIFY2(r->ok(), qPrintable(r->error.toString()));
    QCOMPARE(server.requestCount(), 1);
    const RecordedRequest req = server.requests().constFirst();
    QCOMPARE(req.method, QByteArray("POST"));
    QCOMPARE(req.header("content-length"), QByteArray::number(body.size()));
    QCOMPARE(req.body.size(), body.size());
    QVERIFY(req.body == body);
}

void TestHttpClient::insecureHttpRefusedBeforeConnecting()
{
    HttpClient client;
    client.setPolicy(fastPolicy());
    // .invalid never resolves (RFC 6761): if we tried, the error would be host_not_found.
    const auto r = awaitWithin(client.send(get(QUrl(u"http://api.example.invalid/v1"_s))));
    QVERIFY(r);
    QCOMPARE(r->error.kind, ErrorKind::Client);
    QCOMPARE(r->error.code, u"insecure_transport"_s);
    QCOMPARE(r->attempts, 0);

    client.setAllowInsecureHttp(true);
    const auto r2 = awaitWithin(client.send(get(QUrl(u"http://api.example.invalid/v1"_s))));
    QVERIFY(r2);
    QCOMPARE(r2->error.kind, ErrorKind::Network);
    QCOMPARE(r2->error.code, u"host_not_found"_s);
}

void TestHttpClient::abortAllCancelsInFlight()
{
    ScriptedServer server;
    server.enqueue("/r", ScriptedReply::neverAnswer());
    server.enqueue("/r", ScriptedReply::json(200, "{}"));
    HttpClient client;
    client.setPolicy(fastPolicy());

    auto task = client.send(get(server.url(u"/r"_s)));
    QTRY_COMPARE_WITH_TIMEOUT(server.requestCount(), 1, 5000);
    client.abortAll();
    const auto r = awaitWithin(std::move(task));
    QVERIFY(r);
    QCOMPARE(r->error.kind, ErrorKind::Cancelled);
    QVERIFY(!r->error.retryable);
    QCOMPARE(r->attempts, 1);
    QCOMPARE(server.requestCount(), 1);

    // The client stays usable.
    const auto again = awaitWithin(client.send(get(server.url(u"/r"_s))));
    QVERIFY(again);
    QVERIFY2(again->ok(), qPrintable(again->error.toString()));
}

void TestHttpClient::abortAllDuringBackoff()
{
    ScriptedServer server;
    server.enqueue("/r", ScriptedReply::json(503, "{}", {{"retry-after-ms", "200"}}));
    server.enqueue("/r", ScriptedReply::json(200, "{}"));
    HttpClient client;
    client.setPolicy(fastPolicy());
    client.setSleepObserver([&client](std::chrono::milliseconds) { client.abortAll(); });

    const auto r = awaitWithin(client.send(get(server.url(u"/r"_s))));
    QVERIFY(r);
    QCOMPARE(r->error.kind, ErrorKind::Cancelled);
    QCOMPARE(server.requestCount(), 1);
}

void TestHttpClient::destroyingClientCompletesWithCancelled()
{
    ScriptedServer server;
    server.enqueue("/r", ScriptedReply::neverAnswer());
    auto *client = new HttpClient;
    client->setPolicy(fastPolicy());

    auto task = client->send(get(server.url(u"/r"_s)));
    QTRY_COMPARE_WITH_TIMEOUT(server.requestCount(), 1, 5000);
    delete client;
    const auto r = awaitWithin(std::move(task), 5000);
    QVERIFY2(r, "the coroutine must finish, not hang");
    QCOMPARE(r->error.kind, ErrorKind::Cancelled);
}

// ---------------------------------------------------------------------------------------------

void TestHttpClient::openStreamHandsOverLiveReply()
{
    ScriptedServer server;
    server.enqueue("/v1/responses/resp_1", ScriptedReply::hold(200, {{"Content-Type", "text/event-stream"},
                                                                     {"x-request-id", "req_sse"}}));
    HttpClient client;
    RetryPolicy policy = fastPolicy();
    policy.connectTimeout = 300ms;
    client.setPolicy(policy);

    auto opened = awaitWithin(client.openStream(get(server.url(u"/v1/responses/resp_1?stream=true"_s))));
    QVERIFY(opened);
    QVERIFY2(opened->response.ok(), qPrintable(opened->response.error.toString()));
    QCOMPARE(opened->response.status, 200);
    QCOMPARE(opened->response.header("x-request-id"), QByteArray("req_sse"));
    QCOMPARE(opened->response.attempts, 1);
    QVERIFY(opened->response.body.isEmpty());
    QPointer<QNetworkReply> reply = opened->reply;
    QVERIFY(reply);
    const std::unique_ptr<QNetworkReply, void (*)(QNetworkReply *)> cleanup(
        reply.data(), [](QNetworkReply *r) { r->deleteLater(); });
    QCOMPARE(server.requests().constFirst().header("accept"), QByteArray("text/event-stream"));
    QCOMPARE(server.requests().constFirst().target, QByteArray("/v1/responses/resp_1?stream=true"));

    // Nothing was sent yet: the reply is open and empty.
    QVERIFY(!reply->isFinished());
    QByteArray got = reply->readAll();
    QVERIFY(got.isEmpty());

    server.pushToHeld("data: {\"a\":1}\n\n");
    QTRY_VERIFY_WITH_TIMEOUT((got += reply->readAll()).contains("data: {\"a\":1}\n\n"), 5000);
    QVERIFY(!got.contains("data: {\"b\""));

    // Longer than the connect timeout: that timer must be gone once the stream was handed over.
    QTest::qWait(500);
    QVERIFY(!reply->isFinished());

    server.pushToHeld("data: {\"b\":2}\n\n");
    QTRY_VERIFY_WITH_TIMEOUT((got += reply->readAll()).contains("data: {\"b\":2}\n\n"), 5000);
    QCOMPARE(got, QByteArray("data: {\"a\":1}\n\ndata: {\"b\":2}\n\n"));

    server.endHeld();
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 5000);
    QCOMPARE(reply->error(), QNetworkReply::NoError);
}

void TestHttpClient::openStreamRetries503()
{
    ScriptedServer server;
    server.enqueue("/s", ScriptedReply::json(503, "{}", {{"retry-after-ms", "100"}}));
    server.enqueue("/s", ScriptedReply::stream(200, {{"Content-Type", "text/event-stream"}},
                                               {{0, "data: one\n\n"}, {50, "data: two\n\n"}}));
    HttpClient client;
    client.setPolicy(fastPolicy());

    HttpRequest req = get(server.url(u"/s"_s));
    req.headers.append(
        {QByteArrayLiteral("Accept"), QByteArrayLiteral("text/event-stream; q=1")}); // a given Accept is kept
    auto opened = awaitWithin(client.openStream(req));
    QVERIFY(opened);
    QVERIFY2(opened->response.ok(), qPrintable(opened->response.error.toString()));
    QCOMPARE(opened->response.attempts, 2);
    QPointer<QNetworkReply> reply = opened->reply;
    QVERIFY(reply);
    QByteArray got;
    QTRY_VERIFY_WITH_TIMEOUT((got += reply->readAll()).contains("data: two\n\n"), 5000);
    QCOMPARE(got, QByteArray("data: one\n\ndata: two\n\n"));
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 5000);
    reply->deleteLater();

    const auto reqs = server.requests();
    QCOMPARE(reqs.size(), 2);
    QVERIFY(gapMs(reqs, 1) >= 100);
    QCOMPARE(reqs.at(1).header("accept"), QByteArray("text/event-stream; q=1"));
}

void TestHttpClient::openStreamErrorBody()
{
    ScriptedServer server;
    server.enqueue("/s",
                   ScriptedReply::openAiError(
                       400, "This response can no longer be streamed because it is more than 5 minutes old.",
                       "invalid_request_error", {}, {{"x-request-id", "req_old"}}));
    server.enqueue("/s", ScriptedReply::json(200, "{}"));
    HttpClient client;
    client.setPolicy(fastPolicy());

    auto opened = awaitWithin(client.openStream(get(server.url(u"/s"_s))));
    QVERIFY(opened);
    QVERIFY(!opened->reply);
    QCOMPARE(opened->response.error.kind, ErrorKind::Client);
    QCOMPARE(opened->response.status, 400);
    QCOMPARE(opened->response.error.requestId, u"req_old"_s);
    QVERIFY(opened->response.error.message.startsWith(u"This response can no longer be streamed"_s));
    QVERIFY(opened->response.body.contains("invalid_request_error"));
    QCOMPARE(opened->response.attempts, 1);
    QCOMPARE(server.requestCount(), 1);
}

void TestHttpClient::openStreamInactivityTimeout()
{
    ScriptedServer server;
    server.enqueue("/s", ScriptedReply::hold());
    HttpClient client;
    RetryPolicy policy = fastPolicy();
    policy.inactivityTimeout = 300ms;
    client.setPolicy(policy);

    auto opened = awaitWithin(client.openStream(get(server.url(u"/s"_s))));
    QVERIFY(opened);
    QVERIFY2(opened->response.ok(), qPrintable(opened->response.error.toString()));
    QPointer<QNetworkReply> reply = opened->reply;
    QVERIFY(reply);
    server.pushToHeld(": keep-alive\n\n");
    QByteArray got;
    QTRY_VERIFY_WITH_TIMEOUT((got += reply->readAll()).contains("keep-alive"), 5000);
    QElapsedTimer silence;
    silence.start();
    // The server goes quiet: QNAM's transfer timeout aborts the reply.
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 5000);
    QCOMPARE(reply->error(), QNetworkReply::OperationCanceledError);
    QVERIFY2(silence.elapsed() >= 200, qPrintable(QString::number(silence.elapsed())));
    reply->deleteLater();
}

QTEST_GUILESS_MAIN(TestHttpClient)
#include "tst_httpclient.moc"
