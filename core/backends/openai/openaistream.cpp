// SPDX-License-Identifier: GPL-3.0-or-later
#include "openaistream.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>

using namespace Qt::StringLiterals;

namespace Runwatch::OpenAi {

namespace {

bool isEventStream(const HttpResponse &response)
{
    return response.header("content-type").trimmed().toLower().startsWith("text/event-stream");
}

// A 4xx on a resume means the server will not replay this response (too old, not created with
// stream:true, …). Polling the JSON object still works then (protocol reference §1.4).
bool isResumeRefusal(const RunError &error)
{
    return error.kind == ErrorKind::Client || error.kind == ErrorKind::Conflict;
}

} // namespace

ResponseStream::ResponseStream(HttpClient *http, HttpRequest request, Mode mode, StreamMapper mapper,
                               std::chrono::milliseconds stallTimeout, QObject *parent)
    : RunStream(parent)
    , m_http(http)
    , m_mode(mode)
    , m_mapper(std::move(mapper))
{
    m_stallTimer.setSingleShot(true);
    m_stallTimer.setInterval(stallTimeout);
    connect(&m_stallTimer, &QTimer::timeout, this, &ResponseStream::onStalled);
    // Start on the next event-loop turn so the owner can connect to our signals first.
    QTimer::singleShot(0, this, [this, request] { run(request); });
}

ResponseStream::~ResponseStream()
{
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
    }
}

void ResponseStream::abort()
{
    if (isFinished())
        return;
    m_aborted = true;
    m_stallTimer.stop();
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    finish({StreamEnd::Reason::Aborted, {}, std::nullopt});
}

QCoro::Task<> ResponseStream::run(HttpRequest request)
{
    QPointer<ResponseStream> self = this;
    if (!m_http || m_aborted)
        co_return;

    if (m_mode == Mode::CreateJson) {
        const HttpResponse response = co_await m_http->send(std::move(request));
        if (!self || m_aborted)
            co_return;
        if (!response.ok()) {
            endWith({StreamEnd::Reason::Error, response.error, response.retryAfterMs});
            co_return;
        }
        const QJsonDocument doc = QJsonDocument::fromJson(response.body);
        if (!doc.isObject()) {
            RunError e;
            e.kind = ErrorKind::Protocol;
            e.message = u"The server answered the create request with something that is not a Response object."_s;
            e.httpStatus = response.status;
            e.requestId = QString::fromUtf8(response.header("x-request-id"));
            endWith({StreamEnd::Reason::Error, e, std::nullopt});
            co_return;
        }
        const QList<RunEvent> events = mapResponseObject(doc.object());
        Q_EMIT eventsReceived(events);
        if (!self)
            co_return;
        RunStatus status = RunStatus::Unknown;
        for (const RunEvent &e : events) {
            if (e.type == RunEvent::Type::Status)
                status = e.status;
        }
        endWith({isTerminal(status) ? StreamEnd::Reason::Terminal : StreamEnd::Reason::Eof, {}, std::nullopt});
        co_return;
    }

    OpenedStream opened = co_await m_http->openStream(std::move(request));
    if (!self || m_aborted) {
        if (opened.reply) {
            opened.reply->abort();
            opened.reply->deleteLater();
        }
        co_return;
    }
    if (!opened.response.ok() || !opened.reply) {
        const RunError &error = opened.response.error;
        const bool refused = m_mode == Mode::Resume && isResumeRefusal(error);
        endWith({refused ? StreamEnd::Reason::ResumeRefused : StreamEnd::Reason::Error, error,
                 opened.response.retryAfterMs});
        co_return;
    }
    // The reply stays a child of the connection's QNetworkAccessManager (never reparented): if
    // the backend and its manager go first, the reply goes with them and our QPointer clears,
    // instead of an abort() into a manager that no longer exists. We only ever abort() and
    // deleteLater() it, never delete it while a slot of QNAM's may still be delivering to it.
    m_reply = opened.reply;
    if (!isEventStream(opened.response)) {
        RunError e;
        e.kind = ErrorKind::Protocol;
        e.code = u"unexpected_content_type"_s;
        e.httpStatus = opened.response.status;
        e.requestId = QString::fromUtf8(opened.response.header("x-request-id"));
        const QByteArray contentType = opened.response.header("content-type");
        e.message = u"Expected an event stream but the server sent %1."_s.arg(
            contentType.isEmpty() ? u"no content type"_s : QString::fromLatin1(contentType));
        endWith({StreamEnd::Reason::Error, e, std::nullopt});
        co_return;
    }
    connect(m_reply, &QNetworkReply::readyRead, this, &ResponseStream::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &ResponseStream::onReplyFinished);
    m_stallTimer.start();
    // Bytes (or the end) may already be there.
    if (m_reply->bytesAvailable() > 0)
        drain();
    if (m_reply && m_reply->isFinished())
        onReplyFinished();
}

bool ResponseStream::consume(QByteArrayView bytes)
{
    bool keepGoing = true;
    const bool parsed = m_parser.feed(bytes, [this, &keepGoing](const SseEvent &event) {
        if (!keepGoing)
            return;
        switch (m_mapper.map(event.type, event.data, m_batch)) {
        case StreamMapper::Outcome::Continue:
            break;
        case StreamMapper::Outcome::Terminal:
            m_pendingEnd = StreamEnd{StreamEnd::Reason::Terminal, {}, std::nullopt};
            keepGoing = false;
            break;
        case StreamMapper::Outcome::StreamError:
            m_pendingEnd = StreamEnd{StreamEnd::Reason::Error, m_mapper.error(), std::nullopt};
            keepGoing = false;
            break;
        case StreamMapper::Outcome::Malformed:
            m_pendingEnd = StreamEnd{StreamEnd::Reason::Error, m_mapper.error(), std::nullopt};
            keepGoing = false;
            break;
        }
    });
    if (!parsed && keepGoing) {
        RunError e;
        e.kind = ErrorKind::Protocol;
        e.code = u"event_too_large"_s;
        e.message = m_parser.errorString();
        m_pendingEnd = StreamEnd{StreamEnd::Reason::Error, e, std::nullopt};
        keepGoing = false;
    }
    return keepGoing;
}

void ResponseStream::onReadyRead()
{
    // QNetworkAccessManager delivers an HTTP/1.1 chunked body one chunk per readyRead (one queued
    // signal per chunk from its HTTP thread), and servers send one chunk per event. Draining on
    // the next event-loop turn lets every chunk already queued arrive first, so a catch-up of
    // thousands of events is parsed, mapped and emitted as one batch instead of one by one.
    if (m_drainScheduled || !m_reply || isFinished())
        return;
    m_drainScheduled = true;
    QMetaObject::invokeMethod(this, &ResponseStream::drain, Qt::QueuedConnection);
}

void ResponseStream::drain()
{
    m_drainScheduled = false;
    if (!m_reply || isFinished())
        return;
    bool keepGoing = true;
    // Read in bounded slices: QNetworkReply may hold megabytes after a stall.
    while (keepGoing && m_reply && m_reply->bytesAvailable() > 0) {
        const QByteArray chunk = m_reply->read(256 * 1024);
        if (chunk.isEmpty())
            break;
        keepGoing = consume(chunk);
    }
    if (!m_batch.isEmpty()) {
        m_stallTimer.start();
        const QList<RunEvent> batch = std::exchange(m_batch, {});
        QPointer<ResponseStream> self = this;
        Q_EMIT eventsReceived(batch);
        if (!self)
            return;
    }
    if (m_pendingEnd)
        endWith(*std::exchange(m_pendingEnd, std::nullopt));
}

void ResponseStream::onReplyFinished()
{
    if (!m_reply || isFinished())
        return;
    QPointer<ResponseStream> self = this;
    if (m_reply->isOpen() && m_reply->bytesAvailable() > 0)
        drain();
    if (!self || isFinished())
        return;
    if (m_reply && m_reply->error() != QNetworkReply::NoError) {
        RunError e;
        e.kind = m_reply->error() == QNetworkReply::OperationCanceledError ? ErrorKind::Timeout : ErrorKind::Network;
        e.message = e.kind == ErrorKind::Timeout ? u"The stream went silent and timed out."_s
                                                 : u"The stream was interrupted: %1"_s.arg(m_reply->errorString());
        e.retryable = true;
        endWith({StreamEnd::Reason::Error, e, std::nullopt});
        return;
    }
    // A clean close before a terminal event: the caller reconnects from the cursor.
    endWith({StreamEnd::Reason::Eof, {}, std::nullopt});
}

void ResponseStream::onStalled()
{
    if (isFinished())
        return;
    RunError e;
    e.kind = ErrorKind::Timeout;
    e.code = u"stalled"_s;
    e.message = u"No event arrived for %1 s; reconnecting."_s.arg(m_stallTimer.interval() / 1000.0, 0, 'f', 1);
    e.retryable = true;
    endWith({StreamEnd::Reason::Error, e, std::nullopt});
}

void ResponseStream::endWith(StreamEnd end)
{
    m_stallTimer.stop();
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    finish(std::move(end));
}

} // namespace Runwatch::OpenAi
