// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/runerror.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QUrl>

#include <QCoroTask>

#include <chrono>
#include <functional>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;

namespace Runwatch {

// Retry and timeout policy (OpenAI SDK semantics, protocol reference §3.3).
struct RetryPolicy
{
    int maxRetries = 2;                            // attempts = maxRetries + 1
    std::chrono::milliseconds initialDelay{500};   // delay before retry n: min(initial * 2^n, max) * (1 - jitter*rand)
    std::chrono::milliseconds maxDelay{8000};
    double jitter = 0.25;
    // A server that asks us to wait longer than this gets a clear error instead of a retry.
    std::chrono::milliseconds maxRetryAfter{120000};
    std::chrono::milliseconds connectTimeout{10000};    // until response headers arrive
    std::chrono::milliseconds inactivityTimeout{60000}; // no bytes for this long on an open reply
};

struct HttpRequest
{
    QByteArray method = "GET";
    QUrl url;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    // false: never retried once the request may have reached the server (e.g. POST /responses
    // without an idempotency key); connection-refused / 429 / 503-before-acceptance still retry.
    bool idempotent = true;
};

struct HttpResponse
{
    int status = 0;                                    // HTTP status; 0 when none arrived
    QList<QPair<QByteArray, QByteArray>> headers;      // names lower-cased
    QByteArray body;
    RunError error;                                    // set for transport errors and non-2xx
    std::optional<qint64> retryAfterMs;                // parsed retry-after-ms / Retry-After
    int attempts = 0;                                  // how many requests were sent

    bool ok() const { return !error.isError(); }
    QByteArray header(QByteArrayView lowerName) const;
};

// Parses `retry-after-ms` (float ms) first, then `Retry-After` (seconds, float, or HTTP date).
// Returns nullopt when absent or unparseable. `now` is injectable for tests.
std::optional<qint64> parseRetryAfter(const QList<QPair<QByteArray, QByteArray>> &lowerCaseHeaders,
                                      const QDateTime &now);

// Maps a finished HTTP exchange to the error taxonomy. Understands the OpenAI error body
// {"error":{"message","type","code"}} and keeps x-request-id.
RunError classifyHttpError(int status, const QByteArray &body, const QByteArray &requestId);

// Whether a transport error or HTTP status is worth retrying (network, timeout, 408, 409, 429, 5xx).
bool isRetryable(const RunError &error);

// The delay before retry number `retryIndex` (0-based): honours the server's delay when given
// (never sooner), else exponential backoff with jitter.
std::chrono::milliseconds retryDelay(const RetryPolicy &policy, int retryIndex,
                                     std::optional<qint64> serverDelayMs);

// Refuses plain http:// to a non-loopback host unless allowed. Returns an error or None.
RunError checkTransportSecurity(const QUrl &url, bool allowInsecureHttp);

// An opened streaming reply: headers of a 2xx arrived, the body is still coming.
struct OpenedStream
{
    HttpResponse response;                 // status/headers; body empty; error on failure
    QPointer<QNetworkReply> reply;         // null on failure; caller owns (deleteLater)
};

// One QNetworkAccessManager per client, shared by every request of a connection.
// Redirects: followed only within the same origin; a redirect to another host is an error
// (credentials are never forwarded).
class HttpClient : public QObject
{
    Q_OBJECT
public:
    explicit HttpClient(QObject *parent = nullptr);
    ~HttpClient() override;

    void setPolicy(const RetryPolicy &policy) { m_policy = policy; }
    const RetryPolicy &policy() const { return m_policy; }
    QNetworkAccessManager *networkAccessManager() const { return m_nam; }

    // Buffered request with retries. Body size is capped (64 MiB) — a larger body is a protocol error.
    QCoro::Task<HttpResponse> send(HttpRequest request);

    // For SSE: retries until a 2xx response's headers arrive, then hands over the live reply.
    // A non-2xx reply is read completely (bounded) and returned as an error with its body.
    // The inactivity timeout applies to the returned reply (QNetworkRequest::setTransferTimeout).
    QCoro::Task<OpenedStream> openStream(HttpRequest request);

    // Test hook: replaces the sleep between retries (called with the computed delay).
    using SleepHook = std::function<void(std::chrono::milliseconds)>;
    void setSleepObserver(SleepHook hook) { m_sleepObserver = std::move(hook); }

private:
    QNetworkAccessManager *m_nam = nullptr;
    RetryPolicy m_policy;
    SleepHook m_sleepObserver;
};

} // namespace Runwatch
