// SPDX-License-Identifier: GPL-3.0-or-later
#include "sserunstream.h"

#include "stallwatch.h"

#include <QNetworkReply>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// QNetworkReply may hold megabytes after a stall: read it in slices so one huge read does not
// double the memory, and so a stop decided mid-body leaves the rest unread.
constexpr qint64 kReadSlice = 256 * 1024;

} // namespace

std::chrono::milliseconds SseRunStream::stallTimeoutFor(const Connection &connection)
{
    const int ms = connection.options.value(ConnectionOption::StallTimeoutMs).toInt();
    return ms > 0 ? std::chrono::milliseconds(ms) : kDefaultStallTimeout;
}

SseRunStream::SseRunStream(Options options, QObject *parent)
    : RunStream(parent)
    , m_options(std::move(options))
{}

SseRunStream::~SseRunStream()
{
    detachReply();
}

void SseRunStream::abort()
{
    if (isFinished())
        return;
    m_aborted = true;
    endWith({StreamEnd::Reason::Aborted, {}, std::nullopt});
}

RunError SseRunStream::unexpectedContentType(const HttpResponse &response, const QString &message)
{
    RunError e = RunError::protocol(u"unexpected_content_type"_s, message);
    e.httpStatus = response.status;
    return e;
}

void SseRunStream::discardReply(QNetworkReply *reply)
{
    if (!reply)
        return;
    reply->abort();
    reply->deleteLater();
}

void SseRunStream::detachReply()
{
    if (std::exchange(m_stallWatched, false))
        StallWatch::local().unwatch(this);
    if (m_reply) {
        // Disconnect first: abort() emits finished() synchronously. deleteLater, not delete:
        // QNAM may still be delivering to the reply from a slot further up the stack.
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    m_decoded = nullptr;
}

void SseRunStream::endWith(StreamEnd end)
{
    detachReply();
    finish(std::move(end));
}

std::optional<qint64> SseRunStream::streamRetry() const
{
    if (!m_options.retryFromStream)
        return std::nullopt;
    return m_retryMs;
}

StreamDecoderFactory SseRunStream::decoderFactory()
{
    // Called back by HttpClient when the body turns out to be an event stream, which is when the
    // decoder takes its copy of the mapping state, as the connector has it then.
    return [stream = QPointer<SseRunStream>(this)]() -> std::unique_ptr<StreamDecoder> {
        if (!stream || stream->isAborted() || stream->isFinished())
            return nullptr;
        std::unique_ptr<SseDecoder> decoder = stream->makeDecoder();
        if (decoder)
            decoder->setLimits({stream->m_maxEventSize, stream->m_options.oversizeRetryable});
        return decoder;
    };
}

void SseRunStream::startReading(const OpenedStream &opened)
{
    m_reply = opened.reply;
    m_decoded = opened.decoded;
    m_decoding = m_decoded != nullptr;
    // A reply read by the stream pump already brings a whole frame's data at once.
    m_deferDrain = m_options.deferDrain && !opened.inFrames;
    if (m_decoded) {
        m_decoded->setReader(this);
        m_decoded->setRelaxed(m_relaxed);
    }
    connect(m_reply, &QNetworkReply::readyRead, this, &SseRunStream::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &SseRunStream::onReplyFinished);
    m_sinceActivity.start();
    m_stallWatched = true;
    StallWatch::local().watch(this, m_sinceActivity.msecsSinceReference() + m_options.stallTimeout.count());
    // Results, bytes or the end may already be there: openStream hands over a live reply.
    if (m_decoding || m_reply->bytesAvailable() > 0)
        drain();
    if (m_reply && m_reply->isFinished())
        onReplyFinished();
}

void SseRunStream::setRelaxed(bool relaxed)
{
    m_relaxed = relaxed;
    if (m_reply && m_decoded)
        m_decoded->setRelaxed(relaxed);
}

bool SseRunStream::consumeBytes(QByteArrayView)
{
    return true;
}

void SseRunStream::decoderState(const std::any &)
{}

void SseRunStream::prepareBatch(QList<RunEvent> &)
{}

bool SseRunStream::drainDecoded(bool &gotBytes)
{
    std::unique_ptr<StreamDecoded> decoded = m_reply && m_decoded ? m_decoded->take() : nullptr;
    if (!decoded)
        return true;
    // This stream made the decoder, so it knows what it hands over.
    auto &batch = static_cast<SseBatch &>(*decoded);
    // Usually the frame's only batch: take its list whole instead of moving event by event.
    if (m_batch.isEmpty()) {
        m_batch = std::move(batch.events);
    } else {
        m_batch.append(std::move(batch.events));
    }
    // Kept to carry the events back to the decoder's thread once they went out (flushBatch).
    m_spent = std::move(decoded);
    gotBytes = batch.gotBytes;
    if (batch.retryMs)
        m_retryMs = batch.retryMs;
    if (batch.readerState.has_value())
        decoderState(batch.readerState);
    if (batch.settle) {
        settleAfterBatch();
    } else if (batch.end) {
        endAfterBatch(std::move(*batch.end));
    }
    return !batch.settle && !batch.end;
}

void SseRunStream::flushBatch()
{
    prepareBatch(m_batch);
    if (m_batch.isEmpty())
        return;
    if (!m_options.stallOnBytes)
        m_sinceActivity.start();
    QList<RunEvent> batch = std::exchange(m_batch, {});
    if (!m_watch.survives([this, &batch] { Q_EMIT eventsReceived(batch); }))
        return;
    // Made on the stream pump's thread: freed there (DecodedStream::recycle).
    if (m_spent && m_decoded) {
        static_cast<SseBatch &>(*m_spent).events = std::move(batch);
        m_decoded->recycle(std::move(m_spent));
    }
}

void SseRunStream::deliver(const QList<RunEvent> &events)
{
    if (!events.isEmpty())
        Q_EMIT eventsReceived(events);
}

void SseRunStream::decodedReady()
{
    drain();
}

void SseRunStream::onReadyRead()
{
    if (!m_deferDrain) {
        drain();
        return;
    }
    // QNetworkAccessManager delivers an HTTP/1.1 chunked body one chunk per readyRead (one queued
    // signal per chunk from its HTTP thread), and servers send one chunk per event. Draining on
    // the next event-loop turn lets every chunk already queued arrive first, so a catch-up of
    // thousands of events is parsed, mapped and emitted as one batch instead of one by one.
    if (m_drainScheduled || !m_reply || isFinished())
        return;
    m_drainScheduled = true;
    QMetaObject::invokeMethod(this, &SseRunStream::drain, Qt::QueuedConnection);
}

void SseRunStream::drain()
{
    m_drainScheduled = false;
    if (!m_reply || isFinished() || m_settling)
        return;
    bool keepGoing = true;
    bool gotBytes = false;
    if (m_decoding)
        keepGoing = drainDecoded(gotBytes);
    while (!m_decoding && keepGoing && m_reply && m_reply->bytesAvailable() > 0) {
        const QByteArray chunk = m_reply->read(kReadSlice);
        if (chunk.isEmpty())
            break;
        gotBytes = true;
        keepGoing = consumeBytes(chunk);
    }
    // Keep-alive comments count where the service sends them: they are what tells a quiet run
    // from a dead connection.
    if (gotBytes && keepGoing && m_options.stallOnBytes)
        m_sinceActivity.start();
    if (!m_watch.survives([this] { flushBatch(); }))
        return;
    if (m_settling) {
        settle();
        return;
    }
    if (m_pendingEnd)
        endWith(*takePendingEnd());
}

void SseRunStream::onReplyFinished()
{
    if (!m_reply || isFinished() || m_settling)
        return;
    if (m_reply->isOpen() && (m_decoding || m_reply->bytesAvailable() > 0)
        && !m_watch.survives([this] { drain(); }))
        return;
    if (isFinished() || m_settling)
        return;
    if (!m_reply) {
        replyGone();
        return;
    }
    if (m_reply->error() != QNetworkReply::NoError) {
        // OperationCanceledError here is the reply's own inactivity timeout: our abort()
        // disconnects before it aborts, so it never gets here.
        RunError e;
        e.kind = m_reply->error() == QNetworkReply::OperationCanceledError ? ErrorKind::Timeout
                                                                           : ErrorKind::Network;
        e.message = e.kind == ErrorKind::Timeout ? m_options.timedOutMessage
                                                 : m_options.interruptedMessage.arg(m_reply->errorString());
        e.retryable = true;
        bodyBroken({StreamEnd::Reason::Error, e, streamRetry()});
        return;
    }
    bodyEnded();
}

void SseRunStream::bodyBroken(StreamEnd end)
{
    endWith(std::move(end));
}

void SseRunStream::settle()
{
    endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
}

void SseRunStream::bodyEnded()
{
    // A clean close before a terminal event: the caller reconnects from the cursor.
    endWith({StreamEnd::Reason::Eof, {}, streamRetry()});
}

void SseRunStream::replyGone()
{}

qint64 SseRunStream::checkStall()
{
    if (isFinished() || m_settling) {
        m_stallWatched = false;
        return -1;
    }
    // Activity only stamps the time (restarting a timer per stream per frame cost the GUI thread
    // more than the events did); the watch looks again at the end of the rest of the interval.
    const qint64 idleMs
        = m_sinceActivity.isValid() ? m_sinceActivity.elapsed() : m_options.stallTimeout.count();
    if (idleMs < m_options.stallTimeout.count())
        return m_sinceActivity.msecsSinceReference() + m_options.stallTimeout.count();
    m_stallWatched = false; // ending it lets go of the watch's entry here
    RunError e;
    e.kind = ErrorKind::Timeout;
    e.code = u"stalled"_s;
    e.message = m_options.stalledMessage.arg(double(m_options.stallTimeout.count()) / 1000.0, 0, 'f', 1);
    e.retryable = true;
    endWith({StreamEnd::Reason::Error, e, streamRetry()});
    return -1;
}

} // namespace Runwatch
