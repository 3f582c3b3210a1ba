// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <memory>
#include <optional>
#include <type_traits>

namespace Runwatch {

// One dispatched Server-Sent Event. The views are valid only during the callback that receives
// them: they point either straight into the chunk being fed (no copy) or into the parser's
// buffers, which the next line overwrites. Copy what you keep.
struct SseEvent
{
    QByteArrayView type; // "message" when the event had no (or an empty) event: field
    QByteArrayView data; // data: lines joined with \n
    QByteArrayView id;   // the committed last-event-ID at dispatch time (may be empty)
};

// Incremental "text/event-stream" parser following WHATWG HTML "Parsing an event stream" and
// "Interpreting an event stream", byte for byte. Pure: bytes in, events out; no QObject, no I/O.
//
// Chunking never changes the result: the same bytes fed whole, in two pieces or one byte at a
// time give the same events, last-event-ID, retry and error. Fields stay raw bytes (the spec
// decodes the stream as UTF-8 first; doing it per field gives the same text because every
// delimiter is ASCII).
//
// Memory is bounded by maxEventSize: a line (including its field name) or the joined data of one
// event that grows past it fails the stream with a clear errorString instead of buffering
// without end. Real OpenAI events can exceed 8 MiB, hence the generous default.
class SseParser final
{
public:
    static constexpr qsizetype DefaultMaxEventSize = 32 * 1024 * 1024;

    explicit SseParser(qsizetype maxEventSize = DefaultMaxEventSize);
    ~SseParser();
    Q_DISABLE_COPY_MOVE(SseParser)

    // Feeds bytes; calls onEvent(const SseEvent &) for every dispatched event, in order.
    // Returns false once the parser has failed; it then ignores further input until reset().
    // onEvent must not call back into this parser.
    template<typename F>
    bool feed(QByteArrayView bytes, F &&onEvent)
    {
        using Callable = std::remove_reference_t<F>;
        // A function_ref: the parsing core is compiled once, the callback costs one indirect call.
        const EventSink sink{
            const_cast<void *>(static_cast<const void *>(std::addressof(onEvent))),
            [](void *context, const SseEvent &event) { (*static_cast<Callable *>(context))(event); }};
        return feedImpl(bytes, sink);
    }

    // Forgets everything about the current stream (new connection) but keeps the committed
    // last-event-ID and retry: the new stream starts with them, as a reconnecting EventSource
    // does. Also clears a failure.
    void reset();

    QByteArray lastEventId() const;        // committed last-event-ID (what a reconnect sends)
    std::optional<qint64> retryMs() const; // last valid retry: field
    bool hasError() const;
    QString errorString() const;
    qsizetype bufferedBytes() const; // bytes held for an incomplete line/event

    qsizetype maxEventSize() const;
    // Applies to what arrives next; values below 1 are treated as 1.
    void setMaxEventSize(qsizetype maxEventSize);

private:
    struct EventSink
    {
        void *context;
        void (*invoke)(void *context, const SseEvent &event);
    };

    bool feedImpl(QByteArrayView bytes, EventSink sink);
    bool consumeBom(const char *&p, const char *end);
    // `stable`: the bytes stay valid until feedImpl returns (they are in the caller's chunk), so
    // values may be kept as views; otherwise they are copied at once.
    void processLine(QByteArrayView line, bool stable, EventSink sink);
    void processField(QByteArrayView name, QByteArrayView value, bool stable);
    void appendData(QByteArrayView value, bool stable);
    void dispatch(EventSink sink);
    void keepPendingEvent();
    bool appendPartialLine(QByteArrayView bytes);
    void fail(const char *what);
    // Forgets the line and event being read and gives their memory back.
    void dropEvent();

    // Partial line carried over from earlier chunks.
    QByteArray m_line;
    // Event being built. m_dataView/m_typeView point into the current chunk while the event lies
    // in it; otherwise the value lives in m_data/m_type.
    QByteArrayView m_dataView;
    QByteArray m_data;
    QByteArrayView m_typeView;
    QByteArray m_type;
    qsizetype m_dataLines = 0;
    bool m_dataOwned = false;
    bool m_typeOwned = false;

    QByteArray m_idBuffer;    // set by id: fields
    QByteArray m_lastEventId; // committed at each blank line
    bool m_idPending = false; // an id: field since the last blank line
    std::optional<qint64> m_retryMs;

    qsizetype m_maxEventSize;
    QString m_error;
    int m_bomMatched = 0;   // bytes of a leading BOM seen so far at stream start
    bool m_bomDone = false; // the stream start is behind us
    bool m_skipLf = false;  // the last chunk ended in \r: a \n opening the next one is its pair
    bool m_failed = false;
};

} // namespace Runwatch
