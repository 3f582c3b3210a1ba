// SPDX-License-Identifier: GPL-3.0-or-later
#include "httpclient.h"

#include "httpattempt.h"
#include "netlog.h"
#include "qnamdecodedstream.h"
#include "streamreply.h"

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSslConfiguration>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

Q_LOGGING_CATEGORY(lcNet, "runwatch.net", QtInfoMsg)

namespace Runwatch {

namespace {

constexpr int kMaxRedirects = 5;

// perform() frames that have not completed, across all clients (HttpClient::liveRequests).
std::atomic<int> g_liveRequests{0};

} // namespace

namespace detail {

class DrainWait;

// One client's requests in flight. Shared with their frames and with shutdown()'s task: a frame
// outlives its client when the client is destroyed under it, and still counts until it completes.
struct ClientRequests
{
    int live = 0;
    std::vector<DrainWait *> drainWaits; // shutdown() tasks waiting for `live` to reach 0

    void ended();
};

// What shutdown()'s task awaits: the moment the client has no request left.
class DrainWait final : public ResumableWait
{
public:
    explicit DrainWait(ClientRequests &requests)
        : m_requests(requests)
    {
        m_requests.drainWaits.push_back(this);
    }
    ~DrainWait() { std::erase(m_requests.drainWaits, this); }
    DrainWait(const DrainWait &) = delete;
    DrainWait &operator=(const DrainWait &) = delete;

    void wake() { complete(); }

private:
    ClientRequests &m_requests;
};

void ClientRequests::ended()
{
    if (--live > 0)
        return;
    for (DrainWait *wait : drainWaits)
        wait->wake(); // resumes from the event loop: nothing here changes under the loop
}

// A request body QNAM can read exactly once (see HttpClient::issue). Sequential, so QNAM
// streams it instead of buffering a copy, and reset() refuses quietly.
class ReadOnceBody final : public QIODevice
{
public:
    explicit ReadOnceBody(QByteArray data)
        : m_data(std::move(data))
    {
        open(QIODevice::ReadOnly);
    }
    bool isSequential() const override { return true; }
    bool reset() override { return false; }
    qint64 bytesAvailable() const override { return m_data.size() - m_pos + QIODevice::bytesAvailable(); }
    bool atEnd() const override { return bytesAvailable() == 0; }

protected:
    qint64 readData(char *out, qint64 max) override
    {
        const qint64 n = std::min(max, m_data.size() - m_pos);
        if (n <= 0)
            return m_pos >= m_data.size() ? -1 : 0;
        std::memcpy(out, m_data.constData() + m_pos, static_cast<size_t>(n));
        m_pos += n;
        return n;
    }
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    QByteArray m_data;
    qint64 m_pos = 0;
};

} // namespace detail

namespace {

// Held by every perform() frame: counts it from its start until its body is left, which is
// before the coroutines awaiting it resume.
class LiveRequest
{
public:
    explicit LiveRequest(std::shared_ptr<detail::ClientRequests> requests)
        : m_requests(std::move(requests))
    {
        ++g_liveRequests;
        ++m_requests->live;
    }
    ~LiveRequest()
    {
        --g_liveRequests;
        m_requests->ended();
    }
    LiveRequest(const LiveRequest &) = delete;
    LiveRequest &operator=(const LiveRequest &) = delete;

private:
    std::shared_ptr<detail::ClientRequests> m_requests;
};

// shutdown()'s task. A free coroutine holding the shared count, so that it neither touches nor
// needs the client after its first suspension.
QCoro::Task<> whenDrained(std::shared_ptr<detail::ClientRequests> requests)
{
    // A request that completes without suspending (refused after shutdown) may come and go
    // meanwhile; what counts is the moment none is left.
    while (requests->live > 0) {
        detail::DrainWait wait(*requests);
        co_await wait.done();
    }
}

} // namespace

HttpClient::HttpClient(QObject *parent)
    : QObject(parent)
    , m_nam(new QNetworkAccessManager(this))
    , m_requests(std::make_shared<detail::ClientRequests>())
{
    // We follow same-origin redirects ourselves, so that a refused one becomes a clear error.
    m_nam->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
}

HttpClient::~HttpClient()
{
    // Attempts and retry sleeps resume their coroutines from the event loop, which then see this
    // object gone and finish with Cancelled: the loop must turn once more for them to unwind (a
    // shutdown() task taken before completes then). Replies die with the manager.
    stop();
    delete m_nam;
    m_nam = nullptr;
}

bool isEventStream(const HttpResponse &response)
{
    return response.header("content-type").trimmed().toLower().startsWith("text/event-stream");
}

QCoro::Task<HttpResponse> HttpClient::send(HttpRequest request)
{
    OpenedStream result = co_await authorized(std::move(request), false, {});
    co_return std::move(result.response);
}

QCoro::Task<OpenedStream> HttpClient::openStream(HttpRequest request, StreamDecoderFactory makeDecoder)
{
    if (!findHeader(request.headers, "accept"))
        request.headers.append({QByteArrayLiteral("Accept"), QByteArrayLiteral("text/event-stream")});
    co_return co_await authorized(std::move(request), true, std::move(makeDecoder));
}

QCoro::Task<OpenedStream> HttpClient::authorized(HttpRequest request, bool stream,
                                                 StreamDecoderFactory makeDecoder)
{
    QPointer<HttpClient> self(this);
    for (int attempt = 0;; ++attempt) {
        HttpRequest current = request;
        QList<QByteArray> secrets;
        const QPointer<HttpAuthorizer> authorizer
            = request.withCredentials ? m_authorizer : QPointer<HttpAuthorizer>();
        if (authorizer && !m_shutDown) {
            HttpAuthorizer::Authorized credential;
            {
                // A token command may run meanwhile: shutdown() waits for it like for a request.
                const LiveRequest live(m_requests);
                credential = co_await authorizer->authorize(request, attempt > 0);
            }
            if (!self || credential.error.isError()) {
                OpenedStream refused;
                refused.response.error = self ? credential.error : RunError::cancelled();
                co_return refused;
            }
            current = std::move(credential.request);
            secrets = std::move(credential.secrets);
        }
        secrets += credentialsOf(current.headers);
        // A copy per attempt: the factory makes each attempt's body a decoder of its own.
        OpenedStream result = co_await perform(std::move(current), stream, makeDecoder);
        redactCredentials(result.response, secrets);
        // A 401 with a renewable credential: the token expired early or was revoked; renew it once.
        if (!self || result.response.status != 401 || attempt > 0 || !authorizer || !authorizer->canRenew())
            co_return result;
    }
}

void HttpClient::abortAll()
{
    ++m_abortGeneration;
    const auto attempts = m_inFlight;
    for (detail::HttpAttempt *attempt : attempts)
        attempt->cancel();
    const auto sleeping = m_sleeping;
    for (detail::RetrySleep *sleep : sleeping)
        sleep->wake();
}

void HttpClient::stop()
{
    m_shutDown = true;
    abortAll();
    if (m_authorizer)
        m_authorizer->stop();
}

QCoro::Task<> HttpClient::shutdown()
{
    stop();
    return whenDrained(m_requests);
}

int HttpClient::liveRequests()
{
    return g_liveRequests.load();
}

namespace {
// RUNWATCH_STREAM_TRANSPORT=qnam sends event streams through QNAM like every other request
// (for comparison in benchmarks, and as a way out should the stream reader misbehave somewhere).
bool useStreamPump()
{
    static const bool use
        = qEnvironmentVariable("RUNWATCH_STREAM_TRANSPORT").compare(u"qnam"_s, Qt::CaseInsensitive) != 0;
    return use;
}

// An opened stream's body goes through its decoder from here on, on the thread that reads it.
void decodeBody(OpenedStream &opened, detail::StreamReply *pumped, std::unique_ptr<StreamDecoder> decoder)
{
    if (!decoder || !opened.reply)
        return;
    if (pumped) {
        pumped->attachDecoder(std::move(decoder));
        opened.decoded = pumped;
    } else {
        opened.decoded = new detail::QnamDecodedStream(opened.reply, std::move(decoder));
    }
}

// For the log: where a request goes, without what may be a secret (user info, query).
QString logged(const QUrl &url)
{
    return url.toDisplayString(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment);
}
} // namespace

void HttpClient::setProxy(const QNetworkProxy &proxy)
{
    m_nam->setProxy(proxy);
}

QNetworkReply *HttpClient::issue(const HttpRequest &request, const RetryPolicy &policy, bool stream,
                                 QPointer<detail::StreamReply> &pumped)
{
    pumped = nullptr;
    if (stream && useStreamPump() && m_caCertificates.isEmpty()
        && detail::StreamReply::usable(request.url, m_nam)) {
        // Event streams are read on the pump's thread and handed over once per frame (see
        // StreamPump). A child of the manager like QNAM's own replies, so it dies with it.
        qCDebug(lcNet) << "stream" << request.method << logged(request.url) << "through the stream pump";
        auto *reply = new detail::StreamReply(request, policy.inactivityTimeout.count(), m_nam);
        pumped = reply;
        return reply;
    }
    if (stream) {
        qCDebug(lcNet) << "stream" << request.method << logged(request.url)
                       << "through QNetworkAccessManager (proxy, CA bundle, credentials in the URL or"
                       << "RUNWATCH_STREAM_TRANSPORT=qnam)";
    }
    QNetworkRequest req(request.url);
    for (const auto &h : request.headers)
        req.setRawHeader(h.first, h.second);
    if (const QByteArray contentType = request.impliedContentType(); !contentType.isEmpty())
        req.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
    req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    if (!m_caCertificates.isEmpty()) {
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.addCaCertificates(m_caCertificates);
        req.setSslConfiguration(tls);
    }
    req.setTransferTimeout(static_cast<int>(
        std::clamp<qint64>(policy.inactivityTimeout.count(), 0, std::numeric_limits<int>::max())));
    if (request.method == "HEAD")
        return m_nam->head(req);
    if (!request.idempotent) {
        // QNAM 6.4 silently re-sends any request, POST included, when the connection closes
        // before the first response byte. For a request that must not run twice, hand it a body
        // that cannot be rewound: the re-send then fails with ContentReSendError instead of
        // reaching the server a second time.
        req.setAttribute(QNetworkRequest::DoNotBufferUploadDataAttribute, true);
        req.setHeader(QNetworkRequest::ContentLengthHeader, request.body.size());
        auto *body = new detail::ReadOnceBody(request.body);
        QNetworkReply *reply = m_nam->sendCustomRequest(req, request.method, body);
        body->setParent(reply); // QNAM reads it until the reply finishes
        return reply;
    }
    if (request.method == "GET" && request.body.isEmpty())
        return m_nam->get(req);
    return m_nam->sendCustomRequest(req, request.method, request.body);
}

QCoro::Task<OpenedStream> HttpClient::perform(HttpRequest request, bool stream,
                                              StreamDecoderFactory makeDecoder)
{
    const LiveRequest live(m_requests);
    QPointer<HttpClient> self(this);
    // Snapshot: a policy change must not affect requests already under way.
    const RetryPolicy policy = m_policy;
    const quint64 generation = m_abortGeneration;
    OpenedStream out;
    request.method = request.method.trimmed().toUpper();
    if (request.method.isEmpty())
        request.method = QByteArrayLiteral("GET");

    if (const QString unsafe = request.unsafeField(); !unsafe.isEmpty()) {
        // Before anything is sent, on both transports: QNAM would put it on the wire as given.
        out.response.error = RunError::client(
            u"invalid_request"_s,
            u"request not sent: a line break (CR, LF or NUL) in %1; check the connection's key, token command and headers"_s
                .arg(unsafe));
        co_return out;
    }
    if (RunError insecure = checkTransportSecurity(request.url, m_allowInsecureHttp); insecure.isError()) {
        out.response.error = std::move(insecure);
        co_return out;
    }
    if (m_shutDown) {
        out.response.error = RunError::cancelled();
        co_return out;
    }

    // Retries used (the policy's maxRetries bounds them) and waits for a busy server
    // (HttpRequest::busy: bounded by its patience instead); `attempt` counts both.
    int retries = 0;
    int busyWaits = 0;
    QElapsedTimer busySince;
    for (int attempt = 0;; ++attempt) {
        HttpRequest current = request;
        detail::HttpAttempt::Result r;
        QPointer<QNetworkReply> reply;
        QPointer<detail::StreamReply> pumped; // the same reply, when the stream pump reads it
        for (int redirects = 0;; ++redirects) {
            if (m_abortGeneration != generation) {
                r = {};
                r.response.error = RunError::cancelled();
                break;
            }
            reply = issue(current, policy, stream, pumped);
            auto watcher = std::make_unique<detail::HttpAttempt>(this, reply, stream, policy);
            co_await watcher->done();
            if (!self) {
                out.response.error = RunError::cancelled();
                out.response.attempts = attempt + 1;
                co_return out;
            }
            r = watcher->result();
            watcher.reset();
            if (!r.streamReady && reply)
                reply->deleteLater();
            if (!r.redirect)
                break;
            if (!sameOrigin(current.url, r.redirectTo)) {
                // Never even connect there: the request carries our credentials.
                qCDebug(lcNet) << "redirect from" << logged(current.url) << "to" << logged(r.redirectTo)
                               << "refused: another origin";
                const int status = r.response.status;
                r.response.error
                    = RunError::protocol(u"cross_origin_redirect"_s, u"redirect to another host refused: "_s
                                                                         + r.redirectTo.toDisplayString());
                r.response.error.httpStatus = status;
                r.response.error.requestId = QString::fromLatin1(r.response.header("x-request-id"));
                break;
            }
            if (redirects + 1 > kMaxRedirects) {
                r.response.error
                    = RunError::protocol(u"too_many_redirects"_s,
                                         u"more than %1 redirects, last to %2"_s.arg(
                                             QString::number(kMaxRedirects), r.redirectTo.toDisplayString()));
                r.response.error.httpStatus = r.response.status;
                break;
            }
            // Browsers' and QNAM's rule: 303 always becomes GET, 301/302 turn POST into GET;
            // 307/308 repeat the request as it was.
            const int status = r.response.status;
            if ((status == 303 && current.method != "HEAD")
                || ((status == 301 || status == 302) && current.method == "POST")) {
                current.method = QByteArrayLiteral("GET");
                current.body.clear();
            }
            current.url = r.redirectTo;
        }

        r.response.attempts = attempt + 1;
        if (r.response.ok()) {
            out.response = std::move(r.response);
            if (r.streamReady) {
                out.reply = reply;
                out.inFrames = pumped != nullptr;
                if (makeDecoder && isEventStream(out.response))
                    decodeBody(out, pumped, makeDecoder());
            }
            co_return out;
        }

        RunError &error = r.response.error;
        std::optional<bool> serverSays;
        const QByteArray shouldRetry = r.response.header("x-should-retry").trimmed().toLower();
        if (shouldRetry == "true") {
            serverSays = true;
        } else if (shouldRetry == "false") {
            serverSays = false;
        }
        if (error.kind != ErrorKind::Cancelled)
            error.retryable = serverSays.value_or(isRetryable(error));
        const std::optional<qint64> serverDelay = r.response.retryAfterMs;
        const bool busy = request.busy && r.response.status == request.busy->status
                          && error.code == request.busy->code && serverSays != std::optional<bool>(false);
        std::chrono::milliseconds delay{0};
        if (busy) {
            // Refused before it was processed: safe to send again, however often, once the
            // state has passed. Bounded by time, not by the policy's retries.
            if (!busySince.isValid())
                busySince.start();
            delay = retryDelay(policy, busyWaits, serverDelay);
            const qint64 waited = busySince.elapsed();
            if (waited + delay.count() > request.busy->patience.count()) {
                const QString why = u"still refused after waiting %1 s"_s.arg(formatSeconds(waited));
                error.message = error.message.isEmpty() ? why : error.message + u" — "_s + why;
                out.response = std::move(r.response);
                co_return out;
            }
            ++busyWaits;
        } else {
            const bool safeToRepeat = request.idempotent || serverSays == std::optional<bool>(true)
                                      || cannotHaveBeenProcessed(error);
            if (error.kind == ErrorKind::Cancelled || !error.retryable || !safeToRepeat
                || retries >= policy.maxRetries) {
                out.response = std::move(r.response);
                co_return out;
            }
            delay = retryDelay(policy, retries, serverDelay);
            ++retries;
        }
        if (serverDelay && *serverDelay > policy.maxRetryAfter.count()) {
            const QString why = u"server asked to retry after %1 s, more than the %2 s limit"_s.arg(
                formatSeconds(*serverDelay), formatSeconds(policy.maxRetryAfter.count()));
            error.message = error.message.isEmpty() ? why : error.message + u" — "_s + why;
            out.response = std::move(r.response);
            co_return out;
        }

        // Not the error's message: a server may quote the request's key back in it, and the log
        // comes before the redaction.
        qCDebug(lcNet) << request.method << logged(request.url) << "failed, HTTP status" << r.response.status
                       << (busy ? "- busy, again" : "- retry") << attempt + 1 << "in" << delay.count()
                       << "ms";
        if (m_sleepObserver)
            m_sleepObserver(delay);
        // The server asked for "not sooner": top up should the timer fire a little early. No
        // sleep at all once aborted (the observer may have called abortAll()).
        QElapsedTimer slept;
        slept.start();
        while (m_abortGeneration == generation) {
            const auto remaining = delay - std::chrono::milliseconds(slept.elapsed());
            if (remaining <= 0ms)
                break;
            auto sleep = std::make_unique<detail::RetrySleep>(this, remaining);
            co_await sleep->done();
            if (!self) {
                out.response = std::move(r.response);
                out.response.error = RunError::cancelled();
                co_return out;
            }
        }
        if (m_abortGeneration != generation) {
            out.response = std::move(r.response);
            out.response.error = RunError::cancelled();
            co_return out;
        }
    }
}

} // namespace Runwatch
