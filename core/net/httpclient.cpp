// SPDX-License-Identifier: GPL-3.0-or-later
#include "httpclient.h"

#include "streamreply.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QHostAddress>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTimeZone>
#include <QTimer>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <coroutine>
#include <cstring>
#include <limits>
#include <utility>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace Runwatch {

namespace {

// Error bodies only need to be long enough to carry a message; a hostile or broken server
// must not make us hold more than this for one.
constexpr qint64 kMaxErrorBodyBytes = 1024 * 1024;
constexpr int kMaxRedirects = 5;
constexpr qsizetype kMaxMessageChars = 2000;
constexpr qsizetype kMaxExcerptChars = 200;

bool isSuccess(int status)
{
    return status >= 200 && status < 300;
}

bool isFollowableRedirect(int status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

std::optional<QByteArray> findHeader(const QList<QPair<QByteArray, QByteArray>> &headers, QByteArrayView name)
{
    for (const auto &h : headers) {
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return std::nullopt;
}

struct Reason
{
    int status;
    QLatin1StringView phrase;
};
constexpr std::array kReasons{
    Reason{400, "Bad Request"_L1},
    Reason{401, "Unauthorized"_L1},
    Reason{403, "Forbidden"_L1},
    Reason{404, "Not Found"_L1},
    Reason{408, "Request Timeout"_L1},
    Reason{409, "Conflict"_L1},
    Reason{410, "Gone"_L1},
    Reason{413, "Content Too Large"_L1},
    Reason{415, "Unsupported Media Type"_L1},
    Reason{422, "Unprocessable Content"_L1},
    Reason{429, "Too Many Requests"_L1},
    Reason{500, "Internal Server Error"_L1},
    Reason{501, "Not Implemented"_L1},
    Reason{502, "Bad Gateway"_L1},
    Reason{503, "Service Unavailable"_L1},
    Reason{504, "Gateway Timeout"_L1},
};

QString reasonPhrase(int status)
{
    for (const auto &r : kReasons) {
        if (r.status == status)
            return r.phrase;
    }
    return {};
}

QString statusLine(int status)
{
    const QString reason = reasonPhrase(status);
    return reason.isEmpty() ? u"HTTP %1"_s.arg(status) : u"HTTP %1 %2"_s.arg(status).arg(reason);
}

QString truncated(QString text, qsizetype max)
{
    if (text.size() > max) {
        text.truncate(max);
        text += u'…';
    }
    return text;
}

// A one-line, tag-free excerpt of a non-JSON body: an HTML error page's <title> when it has
// one (proxies and CDNs put the useful words there), else its text.
QString plainExcerpt(const QByteArray &body)
{
    if (body.isEmpty())
        return {};
    QString text = QString::fromUtf8(body.left(64 * 1024));
    static const QRegularExpression title(u"<title[^>]*>(.*?)</title>"_s,
                                          QRegularExpression::CaseInsensitiveOption
                                              | QRegularExpression::DotMatchesEverythingOption);
    if (const auto m = title.match(text); m.hasMatch() && !m.captured(1).trimmed().isEmpty()) {
        text = m.captured(1);
    } else {
        static const QRegularExpression invisible(u"<(script|style)[^>]*>.*?</\\1>"_s,
                                                  QRegularExpression::CaseInsensitiveOption
                                                      | QRegularExpression::DotMatchesEverythingOption);
        static const QRegularExpression tag(u"<[^>]*>"_s);
        text.remove(invisible);
        text.replace(tag, u" "_s);
    }
    text = text.simplified();
    // Keep control characters out of log lines and tooltips.
    text.removeIf([](QChar c) { return c.category() == QChar::Other_Control; });
    return truncated(text, kMaxExcerptChars);
}

QString jsonScalarText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toDouble());
    return {};
}

QString formatSeconds(qint64 ms)
{
    return QString::number(static_cast<double>(ms) / 1000.0);
}

QString hostForMessage(const QUrl &url)
{
    const int port = url.port();
    return port < 0 ? url.host() : url.host() + u':' + QString::number(port);
}

bool sameOrigin(const QUrl &a, const QUrl &b)
{
    const auto defaultPort = [](const QUrl &u) { return u.scheme() == u"https"_s ? 443 : 80; };
    return a.scheme().compare(b.scheme(), Qt::CaseInsensitive) == 0
           && a.host().compare(b.host(), Qt::CaseInsensitive) == 0
           && a.port(defaultPort(a)) == b.port(defaultPort(b));
}

bool isLoopbackHost(const QString &host)
{
    if (host.compare(u"localhost"_s, Qt::CaseInsensitive) == 0
        || host.compare(u"localhost."_s, Qt::CaseInsensitive) == 0)
        return true;
    QHostAddress address;
    if (!address.setAddress(host))
        return false;
    if (address.isLoopback())
        return true;
    // ::ffff:127.x.y.z is loopback too; QHostAddress 6.4 does not say so for the mapped form.
    bool isV4 = false;
    const quint32 v4 = address.toIPv4Address(&isV4);
    return isV4 && (v4 >> 24) == 127;
}

// Transport failures (no HTTP status, or the body broke off) in our taxonomy. The code tells
// the retry logic whether the request can have reached the server.
RunError classifyTransportError(QNetworkReply::NetworkError error, const QString &errorString,
                                const QUrl &url, const RetryPolicy &policy)
{
    RunError e;
    const QString where = hostForMessage(url);
    switch (error) {
    case QNetworkReply::OperationCanceledError:
        // Only QNAM's transfer timeout aborts without one of our own flags being set.
        e.kind = ErrorKind::Timeout;
        e.code = u"inactivity_timeout"_s;
        e.message = u"%1: no data for %2 s"_s.arg(where, formatSeconds(policy.inactivityTimeout.count()));
        break;
    case QNetworkReply::TimeoutError:
        e.kind = ErrorKind::Timeout;
        e.code = u"timeout"_s;
        break;
    case QNetworkReply::ConnectionRefusedError:
        e.kind = ErrorKind::Network;
        e.code = u"connection_refused"_s;
        break;
    case QNetworkReply::HostNotFoundError:
        e.kind = ErrorKind::Network;
        e.code = u"host_not_found"_s;
        break;
    case QNetworkReply::RemoteHostClosedError:
        e.kind = ErrorKind::Network;
        e.code = u"connection_closed"_s;
        break;
    case QNetworkReply::ContentReSendError:
        // Our ReadOnceBody refused QNAM's transparent re-send of a non-idempotent request.
        e.kind = ErrorKind::Network;
        e.code = u"connection_closed"_s;
        e.message = where
                    + u": connection closed before a response; not re-sent because the "
                      u"request may already have been processed"_s;
        break;
    case QNetworkReply::SslHandshakeFailedError:
        e.kind = ErrorKind::Network;
        e.code = u"tls_error"_s;
        break;
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::ProxyNotFoundError:
    case QNetworkReply::ProxyTimeoutError:
        e.kind = ErrorKind::Network;
        e.code = u"proxy_error"_s;
        break;
    case QNetworkReply::ProxyAuthenticationRequiredError:
        e.kind = ErrorKind::Auth;
        e.code = u"proxy_auth"_s;
        break;
    case QNetworkReply::ProtocolUnknownError:
    case QNetworkReply::ProtocolInvalidOperationError:
    case QNetworkReply::ProtocolFailure:
    case QNetworkReply::InsecureRedirectError:
    case QNetworkReply::TooManyRedirectsError:
        e.kind = ErrorKind::Protocol;
        e.code = u"protocol_failure"_s;
        break;
    default:
        e.kind = ErrorKind::Network;
        e.code = u"network_error"_s;
        break;
    }
    if (e.message.isEmpty())
        e.message = where + u": "_s + errorString;
    e.retryable = isRetryable(e);
    return e;
}

// May a non-idempotent request be repeated after this error? Only when the server cannot
// have started processing it.
bool cannotHaveBeenProcessed(const RunError &error)
{
    if (error.kind == ErrorKind::Network)
        return error.code == u"connection_refused"_s || error.code == u"host_not_found"_s;
    return error.httpStatus == 408 || error.httpStatus == 429 || error.httpStatus == 503;
}

QList<QPair<QByteArray, QByteArray>> lowerCaseHeaders(const QNetworkReply *reply)
{
    QList<QPair<QByteArray, QByteArray>> out;
    const auto &pairs = reply->rawHeaderPairs();
    out.reserve(pairs.size());
    for (const auto &p : pairs)
        out.append({p.first.toLower(), p.second});
    return out;
}

RunError cancelledError()
{
    RunError e;
    e.kind = ErrorKind::Cancelled;
    e.code = u"aborted"_s;
    e.message = u"request aborted"_s;
    return e;
}

// perform() frames that have not completed, across all clients (HttpClient::liveRequests),
// and those of them whose client was shut down or destroyed (HttpClient::stoppedRequests).
std::atomic<int> g_liveRequests{0};
std::atomic<int> g_stoppedRequests{0};

} // namespace

namespace detail {

// One client's requests in flight. Shared with their frames: a frame outlives its client when
// the client is destroyed under it, and must still be counted until it completes.
struct ClientRequests
{
    int live = 0;
    bool stopped = false;

    void stop()
    {
        if (stopped)
            return;
        stopped = true;
        g_stoppedRequests += live;
    }
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
        if (m_requests->stopped)
            ++g_stoppedRequests;
    }
    ~LiveRequest()
    {
        --g_liveRequests;
        --m_requests->live;
        if (m_requests->stopped)
            --g_stoppedRequests;
    }
    LiveRequest(const LiveRequest &) = delete;
    LiveRequest &operator=(const LiveRequest &) = delete;

private:
    std::shared_ptr<detail::ClientRequests> m_requests;
};

} // namespace

namespace detail {

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

// Watches one QNetworkReply until it is done for our purposes: finished (buffered), headers of a
// 2xx arrived (stream), a redirect, a timeout, an overflow or an abort. Owned by the coroutine
// frame that awaits it, so it outlives every resumption it schedules.
class HttpAttempt final : public QObject
{
public:
    struct Result
    {
        HttpResponse response;
        bool streamReady = false;
        bool redirect = false;
        QUrl redirectTo;
    };

    HttpAttempt(HttpClient *client, QNetworkReply *reply, bool stream, const RetryPolicy &policy)
        : m_client(client)
        , m_reply(reply)
        , m_policy(policy)
        , m_stream(stream)
    {
        m_client->m_inFlight.insert(this);
        connect(reply, &QNetworkReply::metaDataChanged, this, &HttpAttempt::onMetaData);
        connect(reply, &QIODevice::readyRead, this, &HttpAttempt::onReadyRead);
        connect(reply, &QNetworkReply::finished, this, &HttpAttempt::onFinished);
        connect(reply, &QObject::destroyed, this, &HttpAttempt::onReplyDestroyed);
        m_connectTimer.setSingleShot(true);
        connect(&m_connectTimer, &QTimer::timeout, this, &HttpAttempt::onConnectTimeout);
        if (policy.connectTimeout > 0ms)
            m_connectTimer.start(policy.connectTimeout);
        if (reply->isFinished())
            onFinished();
    }

    ~HttpAttempt() override
    {
        if (m_client)
            m_client->m_inFlight.remove(this);
    }

    struct Awaiter
    {
        HttpAttempt *attempt;
        bool await_ready() const noexcept { return attempt->m_done; }
        void await_suspend(std::coroutine_handle<> handle) noexcept { attempt->m_waiter = handle; }
        void await_resume() const noexcept {}
    };
    Awaiter done() { return Awaiter{this}; }

    void cancel()
    {
        if (m_done)
            return;
        m_cancelled = true;
        finishAndAbort();
    }

    Result result() const;

private:
    qint64 bodyLimit() const
    {
        return isSuccess(m_status) ? m_policy.maxBodyBytes
                                   : std::min(m_policy.maxBodyBytes, kMaxErrorBodyBytes);
    }

    void onMetaData()
    {
        if (m_done || m_headers)
            return;
        const QVariant status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
        if (!status.isValid())
            return; // not an HTTP response header yet
        m_headers = true;
        m_connectTimer.stop();
        m_status = status.toInt();
        if (isFollowableRedirect(m_status) && m_reply->hasRawHeader("location")) {
            // We follow (or refuse) it ourselves; its body is of no interest.
            m_redirect = true;
            finishAndAbort();
            return;
        }
        if (isSuccess(m_status) && m_stream) {
            finish(); // the live reply goes to the caller untouched
            return;
        }
        const QVariant length = m_reply->header(QNetworkRequest::ContentLengthHeader);
        if (isSuccess(m_status) && length.isValid() && length.toLongLong() > bodyLimit()) {
            m_tooLarge = true; // refuse before receiving a single byte of it
            finishAndAbort();
        }
    }

    void onReadyRead()
    {
        if (m_done)
            return;
        if (!m_headers)
            onMetaData();
        if (m_done)
            return;
        drain();
    }

    // Reads what is buffered, enforcing the body cap as we go so that memory stays bounded.
    void drain()
    {
        const qint64 room = bodyLimit() - m_body.size();
        const qint64 available = m_reply->bytesAvailable();
        if (available <= room) {
            m_body += m_reply->read(available);
            return;
        }
        if (isSuccess(m_status)) {
            m_tooLarge = true;
            finishAndAbort();
            return;
        }
        // Enough to report the error; the rest is dropped with the reply, which the coroutine
        // deletes on its next turn. No abort() here: QNAM may already have queued its own error
        // for this status, and a second one only earns an "Internal problem" warning.
        m_body += m_reply->read(room);
        finish();
    }

    void onFinished()
    {
        if (m_done)
            return;
        if (!m_headers)
            onMetaData();
        if (m_done)
            return;
        drain();
        finish();
    }

    void onConnectTimeout()
    {
        if (m_done || m_headers)
            return;
        m_timedOut = true;
        finishAndAbort();
    }

    void onReplyDestroyed()
    {
        m_replyGone = true;
        finish();
    }

    void finish()
    {
        if (m_done)
            return;
        m_done = true;
        m_connectTimer.stop();
        // From here on the reply is either discarded or the caller's: no more signals to us.
        if (m_reply)
            disconnect(m_reply, nullptr, this, nullptr);
        if (m_waiter) {
            // Resume from the event loop, not from inside QNAM's signal emission: the coroutine
            // goes on to delete this reply, this watcher, and to start the next request. No
            // context object on purpose: Qt then uses one of this thread that outlives us all.
            const auto handle = std::exchange(m_waiter, {});
            QTimer::singleShot(0, [handle] { handle.resume(); });
        }
    }

    void finishAndAbort()
    {
        finish();
        if (m_reply)
            m_reply->abort();
    }

    QPointer<HttpClient> m_client;
    QPointer<QNetworkReply> m_reply;
    RetryPolicy m_policy;
    QTimer m_connectTimer;
    QByteArray m_body;
    std::coroutine_handle<> m_waiter;
    int m_status = 0;
    bool m_stream = false;
    bool m_headers = false;
    bool m_done = false;
    bool m_timedOut = false;
    bool m_cancelled = false;
    bool m_tooLarge = false;
    bool m_redirect = false;
    bool m_replyGone = false;
};

HttpAttempt::Result HttpAttempt::result() const
{
    Result r;
    if (m_cancelled || m_replyGone || !m_reply) {
        r.response.error = cancelledError();
        return r;
    }
    const QUrl url = m_reply->url();
    HttpResponse &resp = r.response;
    if (m_headers) {
        resp.status = m_status;
        resp.headers = lowerCaseHeaders(m_reply);
    }
    const QString requestId = QString::fromLatin1(resp.header("x-request-id"));

    if (m_timedOut) {
        resp.error.kind = ErrorKind::Timeout;
        resp.error.code = u"connect_timeout"_s;
        resp.error.message = u"%1: no response within %2 s"_s.arg(
            hostForMessage(url), formatSeconds(m_policy.connectTimeout.count()));
    } else if (m_tooLarge) {
        resp.error.kind = ErrorKind::Protocol;
        resp.error.code = u"body_too_large"_s;
        resp.error.httpStatus = m_status;
        resp.error.message = u"%1: response body larger than the %2-byte limit"_s.arg(
            hostForMessage(url), QString::number(m_policy.maxBodyBytes));
    } else if (m_redirect) {
        r.redirect = true;
        r.redirectTo = url.resolved(QUrl::fromEncoded(m_reply->rawHeader("location").trimmed()));
        return r;
    } else if (m_headers && isSuccess(m_status)) {
        if (m_stream) {
            r.streamReady = true;
        } else if (m_reply->error() != QNetworkReply::NoError) {
            // The body broke off after a good start.
            resp.error = classifyTransportError(m_reply->error(), m_reply->errorString(), url, m_policy);
            resp.error.httpStatus = m_status;
        } else {
            resp.body = m_body;
        }
    } else if (m_headers) {
        resp.body = m_body;
        resp.error = classifyHttpError(m_status, m_body, resp.header("x-request-id"));
        resp.retryAfterMs = parseRetryAfter(resp.headers, QDateTime::currentDateTimeUtc());
    } else {
        resp.error = classifyTransportError(m_reply->error(), m_reply->errorString(), url, m_policy);
    }
    if (resp.error.isError() && resp.error.requestId.isEmpty())
        resp.error.requestId = requestId;
    return r;
}

// The wait between two attempts. Unlike QCoro::sleepFor it can be cut short: abortAll(),
// shutdown() and the client's destructor wake every sleeper, so that no coroutine stays
// suspended for up to maxRetryAfter after the client was told to stop. Owned by the coroutine
// frame that awaits it, like HttpAttempt.
class RetrySleep final : public QObject
{
public:
    RetrySleep(HttpClient *client, std::chrono::milliseconds delay)
        : m_client(client)
    {
        m_client->m_sleeping.insert(this);
        m_timer.setSingleShot(true);
        // A coarse timer may fire up to 5 % early; the server asked for "not sooner".
        m_timer.setTimerType(Qt::PreciseTimer);
        connect(&m_timer, &QTimer::timeout, this, &RetrySleep::wake);
        m_timer.start(delay);
    }

    ~RetrySleep() override
    {
        if (m_client)
            m_client->m_sleeping.remove(this);
    }

    struct Awaiter
    {
        RetrySleep *sleep;
        bool await_ready() const noexcept { return sleep->m_woken; }
        void await_suspend(std::coroutine_handle<> handle) noexcept { sleep->m_waiter = handle; }
        void await_resume() const noexcept {}
    };
    Awaiter done() { return Awaiter{this}; }

    void wake()
    {
        if (m_woken)
            return;
        m_woken = true;
        m_timer.stop();
        if (m_waiter) {
            // From the event loop, as HttpAttempt::finish does: the coroutine deletes this
            // object, and we may be inside its timer's signal or abortAll()'s loop.
            const auto handle = std::exchange(m_waiter, {});
            QTimer::singleShot(0, [handle] { handle.resume(); });
        }
    }

private:
    QPointer<HttpClient> m_client;
    QTimer m_timer;
    std::coroutine_handle<> m_waiter;
    bool m_woken = false;
};

} // namespace detail

// ---------------------------------------------------------------------------------------------

QByteArray HttpResponse::header(QByteArrayView lowerName) const
{
    return findHeader(headers, lowerName).value_or(QByteArray());
}

namespace {

// Seconds as in RFC 9110's delay-seconds, but SDKs also send fractions; reject nonsense.
std::optional<double> parseNonNegativeNumber(const QByteArray &raw)
{
    const QByteArray text = raw.trimmed();
    if (text.isEmpty())
        return std::nullopt;
    for (char c : text) {
        if (!(c >= '0' && c <= '9') && c != '.')
            return std::nullopt; // no signs, exponents, "inf" or "nan"
    }
    bool ok = false;
    const double value = text.toDouble(&ok);
    if (!ok || !std::isfinite(value) || value < 0)
        return std::nullopt;
    return value;
}

qint64 clampedMs(double ms)
{
    // A year is plenty; beyond that only overflow would happen.
    constexpr double kMax = 365.0 * 24 * 3600 * 1000;
    return static_cast<qint64>(std::ceil(std::min(ms, kMax)));
}

int monthFromName(QStringView name)
{
    static constexpr std::array<QLatin1StringView, 12> kMonths{"Jan"_L1, "Feb"_L1, "Mar"_L1, "Apr"_L1,
                                                               "May"_L1, "Jun"_L1, "Jul"_L1, "Aug"_L1,
                                                               "Sep"_L1, "Oct"_L1, "Nov"_L1, "Dec"_L1};
    for (size_t i = 0; i < kMonths.size(); ++i) {
        if (name.compare(kMonths[i], Qt::CaseInsensitive) == 0)
            return static_cast<int>(i) + 1;
    }
    return 0;
}

// HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms that
// recipients must still accept.
std::optional<QDateTime> parseHttpDate(const QByteArray &raw)
{
    const QString text = QString::fromLatin1(raw.trimmed());
    static const QRegularExpression imf(
        u"^[A-Za-z]{3}, (\\d{2}) ([A-Za-z]{3}) (\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$"_s);
    static const QRegularExpression rfc850(
        u"^[A-Za-z]{6,9}, (\\d{2})-([A-Za-z]{3})-(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$"_s);
    static const QRegularExpression asctime(
        u"^[A-Za-z]{3} ([A-Za-z]{3}) {1,2}(\\d{1,2}) (\\d{2}):(\\d{2}):(\\d{2}) (\\d{4})$"_s);
    int day = 0;
    int month = 0;
    int year = 0;
    int h = 0;
    int m = 0;
    int s = 0;
    if (const auto mt = imf.match(text); mt.hasMatch()) {
        day = mt.capturedView(1).toInt();
        month = monthFromName(mt.capturedView(2));
        year = mt.capturedView(3).toInt();
        h = mt.capturedView(4).toInt();
        m = mt.capturedView(5).toInt();
        s = mt.capturedView(6).toInt();
    } else if (const auto mt = rfc850.match(text); mt.hasMatch()) {
        day = mt.capturedView(1).toInt();
        month = monthFromName(mt.capturedView(2));
        year = mt.capturedView(3).toInt();
        year += year < 70 ? 2000 : 1900;
        h = mt.capturedView(4).toInt();
        m = mt.capturedView(5).toInt();
        s = mt.capturedView(6).toInt();
    } else if (const auto mt = asctime.match(text); mt.hasMatch()) {
        month = monthFromName(mt.capturedView(1));
        day = mt.capturedView(2).toInt();
        h = mt.capturedView(3).toInt();
        m = mt.capturedView(4).toInt();
        s = mt.capturedView(5).toInt();
        year = mt.capturedView(6).toInt();
    } else {
        return std::nullopt;
    }
    const QDate date(year, month, day);
    const QTime time(h, m, s);
    if (!date.isValid() || !time.isValid())
        return std::nullopt;
    return QDateTime(date, time, QTimeZone::utc());
}

} // namespace

std::optional<qint64> parseRetryAfter(const QList<QPair<QByteArray, QByteArray>> &lowerCaseHeaders,
                                      const QDateTime &now)
{
    if (const auto ms = findHeader(lowerCaseHeaders, "retry-after-ms")) {
        if (const auto value = parseNonNegativeNumber(*ms))
            return clampedMs(*value);
    }
    const auto raw = findHeader(lowerCaseHeaders, "retry-after");
    if (!raw)
        return std::nullopt;
    if (const auto seconds = parseNonNegativeNumber(*raw))
        return clampedMs(*seconds * 1000.0);
    if (const auto when = parseHttpDate(*raw))
        return std::max<qint64>(0, now.msecsTo(*when));
    return std::nullopt;
}

RunError classifyHttpError(int status, const QByteArray &body, const QByteArray &requestId)
{
    RunError e;
    e.httpStatus = status;
    e.requestId = QString::fromLatin1(requestId);
    if (status == 401 || status == 403)
        e.kind = ErrorKind::Auth;
    else if (status == 404 || status == 410)
        e.kind = ErrorKind::NotFound;
    else if (status == 408)
        e.kind = ErrorKind::Timeout;
    else if (status == 409)
        e.kind = ErrorKind::Conflict;
    else if (status == 429)
        e.kind = ErrorKind::RateLimited;
    else if (status >= 500 && status <= 599)
        e.kind = ErrorKind::Server;
    else if (status >= 400 && status <= 499)
        e.kind = ErrorKind::Client;
    else
        e.kind = ErrorKind::Protocol;

    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error == QJsonParseError::NoError && doc.isObject()) {
        const QJsonObject root = doc.object();
        const QJsonValue error = root.value(u"error"_s);
        if (error.isObject()) {
            // OpenAI / Azure: {"error":{"message","type","param","code"}}; code may be null,
            // a string, or (Azure) a number-like string.
            const QJsonObject o = error.toObject();
            e.message = o.value(u"message"_s).toString();
            e.code = jsonScalarText(o.value(u"code"_s));
            if (e.code.isEmpty())
                e.code = o.value(u"type"_s).toString();
        } else if (error.isString()) {
            e.message = error.toString();
        }
        if (e.message.isEmpty())
            e.message = root.value(u"message"_s).toString();
    }
    if (e.message.isEmpty()) {
        const QString excerpt = plainExcerpt(body);
        e.message = excerpt.isEmpty() ? statusLine(status) : statusLine(status) + u": "_s + excerpt;
    }
    if (e.kind == ErrorKind::Protocol && status >= 300 && status <= 399)
        e.message = u"unexpected redirect not followed ("_s + statusLine(status) + u"): "_s + e.message;
    e.message = truncated(e.message, kMaxMessageChars);
    e.retryable = isRetryable(e);
    return e;
}

bool isRetryable(const RunError &error)
{
    switch (error.kind) {
    case ErrorKind::Network:
        // A certificate problem will not fix itself between attempts.
        return error.code != u"tls_error"_s;
    case ErrorKind::Timeout:
    case ErrorKind::Conflict:
    case ErrorKind::RateLimited:
    case ErrorKind::Server:
        return true;
    default:
        return false;
    }
}

std::chrono::milliseconds retryDelay(const RetryPolicy &policy, int retryIndex,
                                     std::optional<qint64> serverDelayMs)
{
    if (serverDelayMs && *serverDelayMs > 0)
        return std::chrono::milliseconds(*serverDelayMs);
    const int n = std::clamp(retryIndex, 0, 30);
    const double initial = static_cast<double>(std::max<qint64>(0, policy.initialDelay.count()));
    const double cap = static_cast<double>(std::max<qint64>(0, policy.maxDelay.count()));
    const double base = std::min(initial * std::ldexp(1.0, n), cap);
    const double jitter = std::clamp(policy.jitter, 0.0, 1.0);
    const double factor = 1.0 - jitter * QRandomGenerator::global()->generateDouble();
    return std::chrono::milliseconds(static_cast<qint64>(std::floor(base * factor)));
}

RunError checkTransportSecurity(const QUrl &url, bool allowInsecureHttp)
{
    RunError e;
    if (!url.isValid() || url.host().isEmpty()) {
        e.kind = ErrorKind::Client;
        e.code = u"invalid_url"_s;
        e.message = u"invalid URL: "_s + url.toDisplayString();
        return e;
    }
    const QString scheme = url.scheme().toLower();
    if (scheme == u"https"_s)
        return e;
    if (scheme == u"http"_s) {
        if (allowInsecureHttp || isLoopbackHost(url.host()))
            return e;
        e.kind = ErrorKind::Client;
        e.code = u"insecure_transport"_s;
        e.message = u"refusing plain http:// to %1: credentials would travel unencrypted "
                    u"(use https:// or allow insecure HTTP for this connection)"_s.arg(url.host());
        return e;
    }
    e.kind = ErrorKind::Client;
    e.code = u"invalid_url"_s;
    e.message = u"unsupported URL scheme \"%1\" (only https:// and http://)"_s.arg(url.scheme());
    return e;
}

// ---------------------------------------------------------------------------------------------

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
    // object gone and finish with Cancelled: the loop must turn once more (waitForStoppedRequests)
    // for them to unwind. Replies die with the manager.
    shutdown();
    delete m_nam;
    m_nam = nullptr;
}

namespace {

// The secrets a request carries: the value of each credential header ("Bearer " stripped).
QList<QByteArray> credentialsOf(const QList<QPair<QByteArray, QByteArray>> &headers)
{
    QList<QByteArray> secrets;
    for (const auto &h : headers) {
        const QByteArray name = h.first.toLower();
        if (name != "authorization" && name != "proxy-authorization" && name != "api-key"
            && name != "x-api-key")
            continue;
        QByteArray value = h.second.trimmed();
        if (const qsizetype space = value.indexOf(' '); space > 0 && name.endsWith("authorization"))
            value = value.mid(space + 1).trimmed();
        // Short values would only blank out ordinary words.
        if (value.size() >= 8)
            secrets.append(value);
    }
    return secrets;
}

// Servers quote keys back ("Incorrect API key provided: sk-…"); error messages are shown, logged
// and stored, so the request's own credentials are blanked out of them (found by tst_security).
void redactCredentials(HttpResponse &response, const QList<QByteArray> &secrets)
{
    if (!response.error.isError())
        return;
    for (const QByteArray &secret : secrets) {
        const QString text = QString::fromUtf8(secret);
        response.error.message.replace(text, u"[redacted]"_s);
        response.error.code.replace(text, u"[redacted]"_s);
        response.body.replace(secret, QByteArrayLiteral("[redacted]"));
    }
}

} // namespace

QCoro::Task<HttpResponse> HttpClient::send(HttpRequest request)
{
    const QList<QByteArray> secrets = credentialsOf(request.headers);
    OpenedStream result = co_await perform(std::move(request), false);
    redactCredentials(result.response, secrets);
    co_return std::move(result.response);
}

QCoro::Task<OpenedStream> HttpClient::openStream(HttpRequest request)
{
    if (!findHeader(request.headers, "accept"))
        request.headers.append({QByteArrayLiteral("Accept"), QByteArrayLiteral("text/event-stream")});
    const QList<QByteArray> secrets = credentialsOf(request.headers);
    OpenedStream result = co_await perform(std::move(request), true);
    redactCredentials(result.response, secrets);
    co_return result;
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

void HttpClient::shutdown()
{
    m_shutDown = true;
    m_requests->stop();
    abortAll();
}

int HttpClient::liveRequests()
{
    return g_liveRequests.load();
}

int HttpClient::stoppedRequests()
{
    return g_stoppedRequests.load();
}

bool HttpClient::waitForStoppedRequests(std::chrono::milliseconds timeout)
{
    if (g_stoppedRequests.load() == 0 || !QCoreApplication::instance())
        return g_stoppedRequests.load() == 0;
    const QDeadlineTimer deadline(timeout);
    // WaitForMoreEvents sleeps until something happens; this timer is what happens at the
    // deadline should nothing else.
    QTimer wakeUp;
    wakeUp.setSingleShot(true);
    wakeUp.start(timeout);
    while (g_stoppedRequests.load() > 0 && !deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    return g_stoppedRequests.load() == 0;
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
} // namespace

bool HttpClient::deliversInFrames(const QNetworkReply *reply)
{
    return dynamic_cast<const detail::StreamReply *>(reply) != nullptr;
}

QNetworkReply *HttpClient::issue(const HttpRequest &request, const RetryPolicy &policy, bool stream)
{
    if (stream && useStreamPump() && detail::StreamReply::usable(request.url, m_nam)) {
        // Event streams are read on the pump's thread and handed over once per frame (see
        // StreamPump). A child of the manager like QNAM's own replies, so it dies with it.
        return new detail::StreamReply(request, policy.inactivityTimeout.count(), m_nam);
    }
    QNetworkRequest req(request.url);
    for (const auto &h : request.headers)
        req.setRawHeader(h.first, h.second);
    if (!request.body.isEmpty() && !findHeader(request.headers, "content-type"))
        req.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
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

QCoro::Task<OpenedStream> HttpClient::perform(HttpRequest request, bool stream)
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

    if (RunError insecure = checkTransportSecurity(request.url, m_allowInsecureHttp); insecure.isError()) {
        out.response.error = std::move(insecure);
        co_return out;
    }
    if (m_shutDown) {
        out.response.error = cancelledError();
        co_return out;
    }

    for (int attempt = 0;; ++attempt) {
        HttpRequest current = request;
        detail::HttpAttempt::Result r;
        QPointer<QNetworkReply> reply;
        for (int redirects = 0;; ++redirects) {
            if (m_abortGeneration != generation) {
                r = {};
                r.response.error = cancelledError();
                break;
            }
            reply = issue(current, policy, stream);
            auto watcher = std::make_unique<detail::HttpAttempt>(this, reply, stream, policy);
            co_await watcher->done();
            if (!self) {
                out.response.error = cancelledError();
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
                const int status = r.response.status;
                r.response.error.kind = ErrorKind::Protocol;
                r.response.error.code = u"cross_origin_redirect"_s;
                r.response.error.httpStatus = status;
                r.response.error.message
                    = u"redirect to another host refused: "_s + r.redirectTo.toDisplayString();
                r.response.error.requestId = QString::fromLatin1(r.response.header("x-request-id"));
                break;
            }
            if (redirects + 1 > kMaxRedirects) {
                r.response.error.kind = ErrorKind::Protocol;
                r.response.error.code = u"too_many_redirects"_s;
                r.response.error.httpStatus = r.response.status;
                r.response.error.message = u"more than %1 redirects, last to %2"_s.arg(
                    QString::number(kMaxRedirects), r.redirectTo.toDisplayString());
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
            if (r.streamReady)
                out.reply = reply;
            co_return out;
        }

        RunError &error = r.response.error;
        std::optional<bool> serverSays;
        const QByteArray shouldRetry = r.response.header("x-should-retry").trimmed().toLower();
        if (shouldRetry == "true")
            serverSays = true;
        else if (shouldRetry == "false")
            serverSays = false;
        if (error.kind != ErrorKind::Cancelled)
            error.retryable = serverSays.value_or(isRetryable(error));
        const bool safeToRepeat
            = request.idempotent || serverSays == std::optional<bool>(true) || cannotHaveBeenProcessed(error);
        if (error.kind == ErrorKind::Cancelled || !error.retryable || !safeToRepeat
            || attempt >= policy.maxRetries) {
            out.response = std::move(r.response);
            co_return out;
        }
        const std::optional<qint64> serverDelay = r.response.retryAfterMs;
        if (serverDelay && *serverDelay > policy.maxRetryAfter.count()) {
            const QString why = u"server asked to retry after %1 s, more than the %2 s limit"_s.arg(
                formatSeconds(*serverDelay), formatSeconds(policy.maxRetryAfter.count()));
            error.message = error.message.isEmpty() ? why : error.message + u" — "_s + why;
            out.response = std::move(r.response);
            co_return out;
        }

        const std::chrono::milliseconds delay = retryDelay(policy, attempt, serverDelay);
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
                out.response.error = cancelledError();
                co_return out;
            }
        }
        if (m_abortGeneration != generation) {
            out.response = std::move(r.response);
            out.response.error = cancelledError();
            co_return out;
        }
    }
}

} // namespace Runwatch
