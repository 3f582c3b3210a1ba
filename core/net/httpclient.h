// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "httpauthorizer.h"
#include "httperrors.h"
#include "httpmessage.h"
#include "httppolicy.h"
#include "streamdecoder.h"

#include <QNetworkProxy>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QSslCertificate>

#include <QCoroTask>

#include <chrono>
#include <functional>
#include <memory>

class QNetworkAccessManager;
class QNetworkReply;

namespace Runwatch {

namespace detail {
class HttpAttempt;
class RetrySleep;
class StreamReply;
struct ClientRequests;
} // namespace detail

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
    // What the decoder given to openStream() makes of the body: take the results here instead of
    // reading bytes from the reply. Null without a decoder, or when the body is not an event
    // stream (its bytes are then read from the reply as usual). Owned by the reply: valid while
    // `reply` is.
    DecodedStream *decoded = nullptr;
    // The stream pump reads the reply: what arrives is handed over at most once per frame (one
    // readyRead, or one call of the decoded stream's reader) rather than one readyRead per
    // received chunk (QNAM).
    bool inFrames = false;
};

// Whether a response's body is an event stream (Content-Type text/event-stream).
bool isEventStream(const HttpResponse &response);

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

    // A connection's own proxy (every request and stream goes through it; streams then go through
    // QNAM, not the stream pump) and extra CA certificates trusted besides the system's (e.g. a
    // company CA; such a client's streams go through QNAM too, whose requests carry the TLS
    // configuration).
    void setProxy(const QNetworkProxy &proxy);
    void setCaCertificates(const QList<QSslCertificate> &certificates) { m_caCertificates = certificates; }
    const QList<QSslCertificate> &caCertificates() const { return m_caCertificates; }

    // Puts the connection's credential on every request (but those with withCredentials =
    // false) right before it is sent; a 401 is answered by one more try with a renewed
    // credential when the authorizer can renew it (a token command). Not owned; one authorizer
    // may serve several clients. shutdown() stops it.
    void setAuthorizer(HttpAuthorizer *authorizer) { m_authorizer = authorizer; }

    // Buffered request with retries. Body size is capped (policy.maxBodyBytes) — a larger body
    // is a Protocol error. Never throws; failures are in HttpResponse::error. The request's
    // credentials (Authorization, api-key) are replaced by "[redacted]" wherever a failed
    // response quotes them (error message, code, body); openStream() does the same.
    QCoro::Task<HttpResponse> send(HttpRequest request);

    // For SSE: retries until a 2xx response's headers arrive, then hands over the live reply
    // (see OpenedStream for ownership). Sets `Accept: text/event-stream` unless given.
    // A non-2xx reply is read completely (bounded) and returned as an error with its body.
    // When the body is an event stream, `makeDecoder` gives the decoder it goes through — on the
    // thread that reads the socket, the stream pump's or (QNAM) this one's — and the caller takes
    // the results from OpenedStream::decoded, whichever transport read them.
    QCoro::Task<OpenedStream> openStream(HttpRequest request, StreamDecoderFactory makeDecoder = {});

    // Aborts every request in flight: they complete with ErrorKind::Cancelled and are not
    // retried; one waiting between retries stops waiting. The coroutines awaiting them resume on
    // the next event-loop turn. Streams already handed over are the caller's to abort.
    void abortAll();

    // abortAll() for good, for an orderly exit (RunBackend::shutdown): every later send() and
    // openStream() completes at once with Cancelled, without touching the network. The task
    // completes once every request of this client has: the coroutines awaiting them resume from
    // the event loop (with Cancelled) and run on to their next suspension or their end first.
    // Await it or drop it; it stays valid when the client is destroyed meanwhile. The destructor
    // stops the client the same way, without anything to wait on.
    QCoro::Task<> shutdown();
    bool isShutDown() const { return m_shutDown; }

    // Requests (send / openStream) of all clients whose coroutine has not completed yet. For tests
    // and diagnostics (a request still live when the process exits is a frame left suspended);
    // nothing waits on it.
    static int liveRequests();

    // Test hook: called with the computed delay just before each sleep between retries.
    using SleepHook = std::function<void(std::chrono::milliseconds)>;
    void setSleepObserver(SleepHook hook) { m_sleepObserver = std::move(hook); }

private:
    friend class detail::HttpAttempt;
    friend class detail::RetrySleep;

    void stop();
    // perform() with the authorizer's credential, once more after a 401 when it can renew it.
    QCoro::Task<OpenedStream> authorized(HttpRequest request, bool stream, StreamDecoderFactory makeDecoder);
    QCoro::Task<OpenedStream> perform(HttpRequest request, bool stream, StreamDecoderFactory makeDecoder);
    // One attempt's reply; `pumped` is set when the stream pump reads it, cleared otherwise.
    QNetworkReply *issue(const HttpRequest &request, const RetryPolicy &policy, bool stream,
                         QPointer<detail::StreamReply> &pumped);

    QNetworkAccessManager *m_nam = nullptr;
    RetryPolicy m_policy;
    SleepHook m_sleepObserver;
    QPointer<HttpAuthorizer> m_authorizer;
    bool m_allowInsecureHttp = false;
    QList<QSslCertificate> m_caCertificates;
    bool m_shutDown = false;
    quint64 m_abortGeneration = 0;
    QSet<detail::HttpAttempt *> m_inFlight;
    QSet<detail::RetrySleep *> m_sleeping;
    // Shared with the requests' frames, which may outlive this object.
    std::shared_ptr<detail::ClientRequests> m_requests;
};

} // namespace Runwatch
