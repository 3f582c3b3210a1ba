// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/runbackend.h"
#include "backends/ssedecoder.h"
#include "domain/connection.h"
#include "domain/deletionwatch.h"
#include "net/httpclient.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QTimer>

#include <chrono>
#include <memory>
#include <optional>

class QNetworkReply;

namespace Runwatch {

// The plumbing every connector needs to turn a live text/event-stream reply into RunEvents:
// owning the reply, the stall timer, taking the decoded batches (one eventsReceived per batch),
// the event-size limit, finishing once, and what a closed or broken body means. The protocol is in
// the hooks: makeDecoder() gives the stream's SseDecoder (parser + mapper), which HttpClient runs
// on the thread that reads the body (decoderFactory(), passed to HttpClient::openStream), so this
// thread only takes ready events; settle() and bodyEnded() decide how the stream ends.
// Subclasses open the request themselves (a coroutine started from their constructor) and hand
// the opened stream to startReading(). A body that is not an event stream (an A2A agent's plain
// JSON answer) has no decoder: its bytes go to consumeBytes().
//
// It lives in backends/ beside the connectors rather than in the seam (runbackend.h knows no
// transport) or net/ (which knows nothing of runs).
class SseRunStream : public RunStream, private StreamDecodedReader
{
    Q_OBJECT
public:
    ~SseRunStream() override;

    void abort() override;
    void setRelaxed(bool relaxed) override;
    // Largest SSE line or event accepted (SseParser::setMaxEventSize); a larger one ends the
    // stream with a Protocol error "event_too_large". Call before the stream is opened.
    void setMaxEventSize(qsizetype bytes) { m_maxEventSize = bytes; }

    // How long a connection's streams may stay silent before they count as stalled: its
    // stall_timeout_ms, or two minutes (a deep research run can think that long between events).
    static std::chrono::milliseconds stallTimeoutFor(const Connection &connection);

protected:
    static constexpr std::chrono::milliseconds kDefaultStallTimeout{120000};
    // How the connectors differ in reading, not in protocol. The messages are operator-facing.
    struct Options
    {
        std::chrono::milliseconds stallTimeout = kDefaultStallTimeout;
        // Read on the next event-loop turn after a QNAM reply's readyRead, so chunks already
        // queued arrive first and become one batch. Off: every readyRead is read (and emitted) at
        // once. (The stream pump hands over once per frame anyway.)
        bool deferDrain = true;
        // Any bytes, keep-alive comments included, restart the stall timer. Off: only events do.
        bool stallOnBytes = false;
        // Eof and transport/stall Error ends carry the stream's retry: field as retryAfterMs.
        bool retryFromStream = false;
        // Whether an "event_too_large" error is worth a reconnect.
        bool oversizeRetryable = false;
        // %1: the stall timeout in seconds.
        QString stalledMessage = QStringLiteral("No event arrived for %1 s; reconnecting.");
        // The reply's own inactivity timeout fired.
        QString timedOutMessage = QStringLiteral("The stream went silent and timed out.");
        // %1: the reply's error string.
        QString interruptedMessage = QStringLiteral("The stream was interrupted: %1");
    };

    SseRunStream(Options options, QObject *parent);

    // The stream's parser + mapper, made when an event-stream body starts (with the mapper's
    // state as values); through decoderFactory(), HttpClient calls it.
    virtual std::unique_ptr<SseDecoder> makeDecoder() = 0;
    // The decoder's latest readerState(), on this thread, after each batch it made. Default:
    // nothing.
    virtual void decoderState(const std::any &state);
    // Takes one slice of a body that is not an event stream (no decoder). False when the stream
    // must stop reading. Default: ignores it (a connector that reads such a body overrides this).
    virtual bool consumeBytes(QByteArrayView bytes);
    // Last look at a batch before it is emitted (it may be empty). Default: nothing.
    virtual void prepareBatch(QList<RunEvent> &batch);
    // Called once the batch went out after settleAfterBatch(). Default: Terminal.
    virtual void settle();
    // The body ended cleanly without a terminal event. Default: Eof (reconnect from the cursor).
    virtual void bodyEnded();
    // The reply vanished with its network manager while a batch was being delivered. Default:
    // nothing; the stall timer still ends the stream.
    virtual void replyGone();
    // The body broke off (a transport error; `end` is that Error). Default: end with it. A
    // connector that must learn something first (the run a dropped create started) overrides it.
    virtual void bodyBroken(StreamEnd end);

    // A 2xx whose body is not an event stream: Protocol error "unexpected_content_type".
    static RunError unexpectedContentType(const HttpResponse &response, const QString &message);
    // For a reply opened after the stream was aborted or destroyed: never delete an awaited reply.
    static void discardReply(QNetworkReply *reply);

    // For HttpClient::openStream: makes this stream's decoder (makeDecoder(), with the limits)
    // when the body starts; nothing once the stream is aborted or finished.
    StreamDecoderFactory decoderFactory();
    // Takes the opened reply (it stays a child of its QNetworkAccessManager: if that goes first,
    // the reply goes with it and our QPointer clears instead of dangling) and starts reading.
    // Results, or the whole body, may already be there.
    void startReading(const OpenedStream &opened);
    // Emits batch() (after prepareBatch()) when it is not empty.
    void flushBatch();
    // Emits a list of events made outside a read (a kickoff, a result fetch) when not empty.
    void deliver(const QList<RunEvent> &events);

    void endAfterBatch(StreamEnd end) { m_pendingEnd = std::move(end); }
    std::optional<StreamEnd> takePendingEnd() { return std::exchange(m_pendingEnd, std::nullopt); }
    // The stream is ending but needs more requests to say how: settle() runs after the batch.
    // From here on the reply and the stall timer are ignored.
    void settleAfterBatch() { m_settling = true; }
    bool isSettling() const { return m_settling; }

    // Stops the stall timer and lets the reply go (disconnect, abort, deleteLater).
    void detachReply();
    void endWith(StreamEnd end);

    bool isAborted() const { return m_aborted; }
    QList<RunEvent> &batch() { return m_batch; }
    // The retry: hint an Eof or Error end carries (see Options::retryFromStream).
    std::optional<qint64> streamRetry() const;

private:
    // StreamDecodedReader: the pump's reply has results from the decoder.
    void decodedReady() override;
    void onReadyRead();
    void drain();
    void onReplyFinished();
    friend class StallWatch;
    // The stall watch's look (StallWatch): ends the stream as stalled when it was quiet for the
    // whole timeout and gives -1, or gives when to look again; -1 too once it has ended.
    qint64 checkStall();
    // Takes what the decoder made (on the pump's thread, or now from a QNAM reply's bytes).
    bool drainDecoded(bool &gotBytes);

    Options m_options;
    DecodedStream *m_decoded = nullptr; // the reply's; valid while m_reply is
    bool m_decoding = false;            // a decoder reads the body
    bool m_relaxed = false;             // setRelaxed(), passed on to every reply
    std::optional<qsizetype> m_maxEventSize;
    std::optional<qint64> m_retryMs; // the decoder's last retry: field
    QPointer<QNetworkReply> m_reply;
    bool m_stallWatched = false;   // StallWatch::local() has it
    QElapsedTimer m_sinceActivity; // since the last event (or bytes, with stallOnBytes)
    QList<RunEvent> m_batch;
    std::unique_ptr<StreamDecoded> m_spent; // what m_batch came in, for DecodedStream::recycle
    DeletionWatch m_watch;                  // a batch's receivers may delete this stream
    std::optional<StreamEnd> m_pendingEnd;  // decided while reading; ends the stream after the batch
    bool m_aborted = false;
    bool m_drainScheduled = false;
    bool m_deferDrain = true; // Options::deferDrain, unless the reply already comes once per frame
    bool m_settling = false;
};

} // namespace Runwatch
