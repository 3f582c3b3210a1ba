// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for Runwatch::SseParser.
//
// Input layout: byte 0 picks the maximum event size (0xFF: the 32 MiB default, otherwise
// 1 + 4 * byte, so 1..1017 bytes and the limit is really reached), bytes 1-2 seed the chunking,
// the rest is the stream. The stream is parsed whole, in random chunks (empty ones included),
// one byte at a time, and again after reset(); all must agree, and every result must respect the
// parser's documented bounds. Any violation aborts with a description.
//
//   fuzz_sse -dict=tests/fuzz/sse.dict tests/fuzz/corpus/sse
#include "fuzzsupport.h"
#include "net/sseparser.h"

#include <QByteArray>
#include <QList>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>

using Runwatch::SseEvent;
using Runwatch::SseParser;

const char *const RunwatchFuzz::kTarget = "SseParser";
using RunwatchFuzz::check;
using RunwatchFuzz::Rng;
using RunwatchFuzz::violation;

namespace {

struct Event
{
    QByteArray type;
    QByteArray data;
    QByteArray id;
    bool operator==(const Event &) const = default;
};

struct Outcome
{
    QList<Event> events;
    QByteArray lastEventId;
    std::optional<qint64> retryMs;
    bool failed = false;
    QString error;
    bool operator==(const Outcome &) const = default;
};

class Run
{
public:
    explicit Run(SseParser &parser)
        : m_parser(parser)
    {}

    void feed(QByteArrayView bytes)
    {
        const bool wasFailed = m_parser.hasError();
        const qsizetype before = m_out.events.size();
        const bool ok = m_parser.feed(bytes, [this](const SseEvent &e) { onEvent(e); });
        check(ok == !m_parser.hasError(), "feed() result disagrees with hasError()");
        check(!wasFailed || (!ok && m_out.events.size() == before),
              "a failed parser accepted input or dispatched an event");
        check(ok || !m_parser.errorString().isEmpty(), "failure without an errorString");
        const qsizetype max = m_parser.maxEventSize();
        // A partial line, the joined data and the type are each bounded by the limit.
        check(m_parser.bufferedBytes() <= 3 * max, "bufferedBytes() beyond the limit");
        check(ok || m_parser.bufferedBytes() == 0, "a failed parser still holds memory");
    }

    Outcome finish()
    {
        m_out.lastEventId = m_parser.lastEventId();
        m_out.retryMs = m_parser.retryMs();
        m_out.failed = m_parser.hasError();
        m_out.error = m_parser.errorString();
        check(!m_out.retryMs || *m_out.retryMs >= 0, "negative retry");
        check(!m_out.lastEventId.contains('\0'), "last event ID with NUL");
        return m_out;
    }

private:
    void onEvent(const SseEvent &e)
    {
        const qsizetype max = m_parser.maxEventSize();
        check(!e.type.isEmpty(), "empty event type");
        // "message" is the parser's own default, not buffered input.
        check(e.data.size() <= max && e.id.size() <= max
                  && (e.type.size() <= max || e.type == QByteArrayView("message")),
              "event field beyond the limit");
        check(!e.type.contains('\n') && !e.type.contains('\r'), "line break in type");
        check(!e.id.contains('\n') && !e.id.contains('\r') && !e.id.contains('\0'),
              "line break or NUL in id");
        check(!e.data.contains('\r'), "CR in data");
        check(e.id == QByteArrayView(m_parser.lastEventId()), "event id is not the committed ID");
        m_out.events.append({e.type.toByteArray(), e.data.toByteArray(), e.id.toByteArray()});
    }

    SseParser &m_parser;
    Outcome m_out;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    if (size < 3)
        return 0;
    const qsizetype maxEventSize
        = bytes[0] == 0xFF ? SseParser::DefaultMaxEventSize : 1 + 4 * qsizetype(bytes[0]);
    Rng rng{quint32(bytes[1]) << 8 | bytes[2] | 0x10000u};
    const QByteArrayView stream(reinterpret_cast<const char *>(bytes) + 3, qsizetype(size) - 3);

    SseParser wholeParser(maxEventSize);
    Run whole(wholeParser);
    whole.feed(stream);
    const Outcome expected = whole.finish();

    {
        SseParser parser(maxEventSize);
        Run chunked(parser);
        // Mostly short chunks so boundaries land inside BOMs, CR LF pairs and field names.
        for (qsizetype at = 0; at < stream.size();) {
            const quint32 r = rng.next();
            const qsizetype length
                = qMin<qsizetype>(stream.size() - at, (r & 3) == 0 ? r >> 24 : (r >> 8) % 9);
            chunked.feed(stream.sliced(at, length));
            at += length;
        }
        check(chunked.finish() == expected, "random chunking changed the outcome");
    }

    if (stream.size() <= 4096) {
        SseParser parser(maxEventSize);
        Run bytewise(parser);
        for (qsizetype at = 0; at < stream.size(); ++at)
            bytewise.feed(stream.sliced(at, 1));
        check(bytewise.finish() == expected, "one byte at a time changed the outcome");
    }

    // A reset parser is a fresh one, except that the committed ID and retry carry over: compare
    // what does not depend on them.
    wholeParser.reset();
    check(!wholeParser.hasError() && wholeParser.bufferedBytes() == 0, "reset() left state");
    Run again(wholeParser);
    again.feed(stream);
    const Outcome second = again.finish();
    check(second.failed == expected.failed && second.error == expected.error, "reset() changed the failure");
    check(second.events.size() == expected.events.size(), "reset() changed the event count");
    for (qsizetype i = 0; i < second.events.size(); ++i) {
        check(second.events[i].type == expected.events[i].type
                  && second.events[i].data == expected.events[i].data,
              "reset() changed an event");
    }
    check(!expected.retryMs || second.retryMs == expected.retryMs, "reset() changed retry");
    return 0;
}
