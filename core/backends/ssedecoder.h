// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/runbackend.h"
#include "net/sseparser.h"
#include "net/streamdecoder.h"

#include <any>
#include <optional>

namespace Runwatch {

// What an SseDecoder made of a slice of the body: the mapped events and, once decided, how the
// stream ends. SseRunStream applies it on its own thread.
class SseBatch final : public StreamDecoded
{
public:
    void append(StreamDecoded &&later) override;

    QList<RunEvent> events;
    std::optional<StreamEnd> end;  // decided while reading: end the stream after the events
    bool settle = false;           // the stream ends but needs more requests: SseRunStream::settle()
    bool gotBytes = false;         // any bytes arrived (keep-alive comments included)
    std::optional<qint64> retryMs; // the stream's last retry: field
    // A copy of what the stream's reader reads of the mapper afterwards (SseDecoder::readerState),
    // as of the end of this batch; empty when the connector needs none.
    std::any readerState;
};

// A stream's SSE parsing and mapping, apart from the RunStream that owns the request, so that it
// can run on the stream pump's thread (StreamDecoder). Each connector derives one from its
// mapper: created on the RunStream's thread with everything it needs as values (the mapper with
// its cursor), then used only by the thread that reads the body — the pump's, or the RunStream's
// own when the reply comes from QNetworkAccessManager. Nothing in it points back at the RunStream.
class SseDecoder : public StreamDecoder
{
public:
    struct Limits
    {
        std::optional<qsizetype> maxEventSize; // SseParser's default when unset
        bool oversizeRetryable = false;        // whether "event_too_large" is worth a reconnect
    };

    void setLimits(Limits limits);

    bool decode(QByteArrayView bytes) override;
    void handOver(std::unique_ptr<StreamDecoded> &out) override;

protected:
    SseDecoder() = default;

    // Maps one event into `out`. Returns false when the stream must stop reading, after calling
    // endAfterBatch() or settleAfterBatch().
    virtual bool handleEvent(const SseEvent &event, QList<RunEvent> &out) = 0;

    // What the reader needs to know of the mapping state besides the events (a copy of the
    // mapper, say), taken after every decoded slice. Default: nothing.
    virtual std::any readerState() const;

    void endAfterBatch(StreamEnd end) { m_pending.end = std::move(end); }
    void settleAfterBatch() { m_pending.settle = true; }

private:
    SseParser m_parser;
    SseBatch m_pending;
    bool m_oversizeRetryable = false;
    bool m_stopped = false;
    bool m_fresh = false; // m_pending holds something to hand over
};

} // namespace Runwatch
