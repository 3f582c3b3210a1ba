// SPDX-License-Identifier: GPL-3.0-or-later
#include "httpattempt.h"

#include "httpclient.h"
#include "httperrors.h"

#include "domain/boundedwait.h"

#include <QNetworkReply>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace Runwatch::detail {

namespace {

// Error bodies only need to be long enough to carry a message; a hostile or broken server
// must not make us hold more than this for one.
constexpr qint64 kMaxErrorBodyBytes = 1024 * 1024;

bool isSuccess(int status)
{
    return status >= 200 && status < 300;
}

bool isFollowableRedirect(int status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

HttpHeaders lowerCaseHeaders(const QNetworkReply *reply)
{
    HttpHeaders out;
    const auto &pairs = reply->rawHeaderPairs();
    out.reserve(pairs.size());
    for (const auto &p : pairs)
        out.append({p.first.toLower(), p.second});
    return out;
}

} // namespace

HttpAttempt::HttpAttempt(HttpClient *client, QNetworkReply *reply, bool stream, const RetryPolicy &policy)
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

HttpAttempt::~HttpAttempt()
{
    if (m_client)
        m_client->m_inFlight.remove(this);
}

void HttpAttempt::cancel()
{
    if (isDone())
        return;
    m_cancelled = true;
    finishAndAbort();
}

qint64 HttpAttempt::bodyLimit() const
{
    return isSuccess(m_status) ? m_policy.maxBodyBytes : std::min(m_policy.maxBodyBytes, kMaxErrorBodyBytes);
}

void HttpAttempt::onMetaData()
{
    if (isDone() || m_headers)
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

void HttpAttempt::onReadyRead()
{
    if (isDone())
        return;
    if (!m_headers)
        onMetaData();
    if (isDone())
        return;
    drain();
}

// Reads what is buffered, enforcing the body cap as we go so that memory stays bounded.
void HttpAttempt::drain()
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

void HttpAttempt::onFinished()
{
    onReadyRead(); // what is still buffered, and the headers should they come only now
    finish();
}

void HttpAttempt::onConnectTimeout()
{
    if (isDone() || m_headers)
        return;
    m_timedOut = true;
    finishAndAbort();
}

void HttpAttempt::onReplyDestroyed()
{
    m_replyGone = true;
    finish();
}

void HttpAttempt::finish()
{
    // The coroutine goes on to delete this reply, this watcher, and to start the next request:
    // complete() resumes it from the event loop, not from inside QNAM's signal emission.
    if (!complete())
        return;
    m_connectTimer.stop();
    // From here on the reply is either discarded or the caller's: no more signals to us.
    if (m_reply)
        disconnect(m_reply, nullptr, this, nullptr);
}

void HttpAttempt::finishAndAbort()
{
    finish();
    if (m_reply)
        m_reply->abort();
}

HttpAttempt::Result HttpAttempt::result() const
{
    Result r;
    if (m_cancelled || m_replyGone || !m_reply) {
        r.response.error = RunError::cancelled();
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

// ---------------------------------------------------------------------------------------------

RetrySleep::RetrySleep(HttpClient *client, std::chrono::milliseconds delay)
    : m_client(client)
{
    m_client->m_sleeping.insert(this);
    m_timer.setSingleShot(true);
    // A coarse timer may fire up to 5 % early; the server asked for "not sooner".
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &RetrySleep::wake);
    m_timer.start(boundedWait(delay));
}

RetrySleep::~RetrySleep()
{
    if (m_client)
        m_client->m_sleeping.remove(this);
}

void RetrySleep::wake()
{
    // Resumed from the event loop (complete()): the coroutine deletes this object, and we may be
    // inside its timer's signal or abortAll()'s loop.
    if (complete())
        m_timer.stop();
}

} // namespace Runwatch::detail
