// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runerror.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QDateTime>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QSet>
#include <QUrl>

#include <QCoroTask>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;

namespace Runwatch {

namespace detail {
class HttpAttempt;
class RetrySleep;
struct ClientRequests;
} // namespace detail

// Retry and timeout policy (OpenAI SDK semantics, protocol reference §3.3).
struct RetryPolicy
{
    int maxRetries = 2; // attempts = maxRetries + 1
    // Delay before retry n without a server delay: min(initial * 2^n, max) * (1 - jitter * rand).
    std::chrono::milliseconds initialDelay{500};
    std::chrono::milliseconds maxDelay{8000};
    double jitter = 0.25;
    // A server that asks us to wait longer than this gets a clear error instead of a retry.
    std::chrono::milliseconds maxRetryAfter{120000};
    // Until the response headers arrive (DNS, connect, TLS, and a server that never answers).
    // A time-to-headers limit: raise it for calls the server answers only when done
    // (e.g. a non-background POST /responses).
    std::chrono::milliseconds connectTimeout{10000};
    // No bytes for this long on an open reply (QNetworkRequest::setTransferTimeout); 0 = off.
    std::chrono::milliseconds inactivityTimeout{60000};
    // Largest 2xx body send() buffers; a larger one is a Protocol error. Error bodies (non-2xx)
    // are truncated at min(this, 1 MiB) instead, because their status is what matters.
    qint64 maxBodyBytes = 64 * 1024 * 1024;
};

struct HttpRequest
{
    QByteArray method = "GET"; // upper-cased by the client
    QUrl url;
    QList<QPair<QByteArray, QByteArray>> headers; // sent as given; Content-Type defaults to JSON
    QByteArray body;
    // false: never repeated once the request may have reached the application (e.g. POST
    // /responses without an idempotency key would start a second run). Such a request is only
    // retried when it cannot have been processed: connection refused, host not found, 408
    // (the server did not get the whole request), 429 and 503 (rejected before processing),
    // or when the server itself says `x-should-retry: true`. Timeouts, resets, 409, 500,
    // 502 and 504 are not repeated: the caller must reconcile (e.g. by metadata.client_run_id);
    // the error keeps `retryable` = true because the condition itself is transient.
    // QNAM's own silent re-send after a connection closed without an answer is suppressed
    // too (the body is handed over as a read-once device, sent with Content-Length).
    bool idempotent = true;
};

struct HttpResponse
{
    int status = 0;                               // HTTP status; 0 when none arrived
    QList<QPair<QByteArray, QByteArray>> headers; // names lower-cased
    QByteArray body;
    RunError error;                     // set for transport errors and non-2xx
    std::optional<qint64> retryAfterMs; // parsed retry-after-ms / Retry-After of the last reply
    // Attempts made by the retry loop (0 when refused before sending, e.g. insecure http).
    // Same-origin redirects followed within one attempt are not counted.
    int attempts = 0;

    bool ok() const { return !error.isError(); }
    // Value of the first header with that (lower-case) name; empty when absent.
    QByteArray header(QByteArrayView lowerName) const;
};

// Parses `retry-after-ms` (float ms) first, then `Retry-After` (seconds, float, or HTTP date),
// in milliseconds (rounded up, a date in the past gives 0). Header names are matched
// case-insensitively. Returns nullopt when absent or unparseable. `now` is injectable for tests.
std::optional<qint64> parseRetryAfter(const QList<QPair<QByteArray, QByteArray>> &lowerCaseHeaders,
                                      const QDateTime &now);

// Maps a finished HTTP exchange to the error taxonomy: 401/403 Auth, 404/410 NotFound,
// 408 Timeout, 409 Conflict, 429 RateLimited, 5xx Server, other 4xx Client, anything else
// (3xx, 1xx, nonsense) Protocol. Understands the OpenAI error body
// {"error":{"message","type","code"}} (code falls back to type when null), and otherwise
// quotes a short plain-text excerpt (an HTML page's <title>). Keeps x-request-id.
// `retryable` is set from isRetryable().
RunError classifyHttpError(int status, const QByteArray &body, const QByteArray &requestId);

// Whether a transport error or HTTP status is worth retrying: Network (except TLS failures),
// Timeout (including 408), Conflict (409), RateLimited (429), Server (5xx).
bool isRetryable(const RunError &error);

// The delay before retry number `retryIndex` (0-based): the server's delay when it gave a
// positive one (never sooner; the maxRetryAfter cap is applied by the caller, not here),
// else min(initial * 2^n, max) * (1 - jitter * rand) with rand in [0, 1).
std::chrono::milliseconds retryDelay(const RetryPolicy &policy, int retryIndex,
                                     std::optional<qint64> serverDelayMs);

// https is always fine; plain http only to loopback (127.0.0.0/8, ::1, "localhost") unless
// allowInsecureHttp. Other schemes and invalid URLs are refused. Returns a Client error
// (code "insecure_transport" / "invalid_url") or a RunError with kind None.
RunError checkTransportSecurity(const QUrl &url, bool allowInsecureHttp);

// An opened streaming reply: headers of a 2xx arrived, the body is still coming.
//
// Ownership: `reply` is a child of the client's QNetworkAccessManager and now belongs to the
// caller, who must `deleteLater()` it (after `abort()` to stop early; never `delete` it while
// something awaits it). If the HttpClient is destroyed first the reply goes with it, hence the
// QPointer. Bytes may already be buffered and the reply may even have finished before the
// caller gets it: read `bytesAvailable()` / check `isFinished()` before waiting on `readyRead`.
// The inactivity timeout stays armed on the reply (QNetworkRequest::setTransferTimeout); when it
// fires the reply finishes with OperationCanceledError, the same code as the caller's own
// `abort()` — keep a flag of your own to tell them apart.
struct OpenedStream
{
    HttpResponse response;         // status/headers; body empty; error on failure
    QPointer<QNetworkReply> reply; // null on failure
};

// One QNetworkAccessManager per client, shared by every request of a connection.
// Redirects: followed only within the same origin (scheme, host, port), at most 5 per attempt;
// a redirect anywhere else is a Protocol error and is not requested at all, so credentials are
// never forwarded.
class HttpClient : public QObject
{
    Q_OBJECT
public:
    explicit HttpClient(QObject *parent = nullptr);
    ~HttpClient() override;

    void setPolicy(const RetryPolicy &policy) { m_policy = policy; }
    const RetryPolicy &policy() const { return m_policy; }
    QNetworkAccessManager *networkAccessManager() const { return m_nam; }

    // Checked by send()/openStream() before anything goes on the wire (checkTransportSecurity).
    void setAllowInsecureHttp(bool allow) { m_allowInsecureHttp = allow; }
    bool allowInsecureHttp() const { return m_allowInsecureHttp; }

    // Buffered request with retries. Body size is capped (policy.maxBodyBytes) — a larger body
    // is a Protocol error. Never throws; failures are in HttpResponse::error. The request's
    // credentials (Authorization, api-key) are replaced by "[redacted]" wherever a failed
    // response quotes them (error message, code, body); openStream() does the same.
    QCoro::Task<HttpResponse> send(HttpRequest request);

    // For SSE: retries until a 2xx response's headers arrive, then hands over the live reply
    // (see OpenedStream for ownership). Sets `Accept: text/event-stream` unless given.
    // A non-2xx reply is read completely (bounded) and returned as an error with its body.
    QCoro::Task<OpenedStream> openStream(HttpRequest request);

    // Aborts every request in flight: they complete with ErrorKind::Cancelled and are not
    // retried; one waiting between retries stops waiting. The coroutines awaiting them resume on
    // the next event-loop turn. Streams already handed over are the caller's to abort.
    void abortAll();

    // abortAll() for good: every later send()/openStream() completes at once with Cancelled,
    // without touching the network. For an orderly exit (RunBackend::shutdown); the destructor
    // does it too. Either way the awaiting coroutines resume from the event loop: let it turn
    // (waitForStoppedRequests) before the process exits, or their frames are never unwound.
    void shutdown();
    bool isShutDown() const { return m_shutDown; }

    // Requests (send / openStream) of all clients whose coroutine has not completed yet.
    static int liveRequests();
    // Of those, the ones whose client was shut down or destroyed: they are about to complete
    // with Cancelled as soon as the event loop turns.
    static int stoppedRequests();
    // Runs this thread's event loop until stoppedRequests() is 0, or `timeout` has passed; says
    // whether it got to 0. For exits and teardowns, after shutdown() or destruction of clients.
    // Requests of clients still running are not waited for.
    static bool waitForStoppedRequests(std::chrono::milliseconds timeout);

    // Whether a reply from openStream() hands over its data at most once per frame (read on the
    // stream pump's thread) rather than one readyRead per received chunk (QNAM).
    static bool deliversInFrames(const QNetworkReply *reply);

    // Test hook: called with the computed delay just before each sleep between retries.
    using SleepHook = std::function<void(std::chrono::milliseconds)>;
    void setSleepObserver(SleepHook hook) { m_sleepObserver = std::move(hook); }

private:
    friend class detail::HttpAttempt;
    friend class detail::RetrySleep;

    QCoro::Task<OpenedStream> perform(HttpRequest request, bool stream);
    QNetworkReply *issue(const HttpRequest &request, const RetryPolicy &policy, bool stream);

    QNetworkAccessManager *m_nam = nullptr;
    RetryPolicy m_policy;
    SleepHook m_sleepObserver;
    bool m_allowInsecureHttp = false;
    bool m_shutDown = false;
    quint64 m_abortGeneration = 0;
    QSet<detail::HttpAttempt *> m_inFlight;
    QSet<detail::RetrySleep *> m_sleeping;
    // Shared with the requests' frames, which may outlive this object.
    std::shared_ptr<detail::ClientRequests> m_requests;
};

} // namespace Runwatch
