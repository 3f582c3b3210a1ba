// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for Runwatch::Http1ResponseParser, the HTTP/1.1 framing of event streams read
// by the stream pump (bytes straight from a server we do not control).
//
// Input layout: bytes 0-1 seed the chunking, byte 2 bit 0 says the request was HEAD, the rest is
// what the server sent. The response is parsed whole, in random chunks (empty ones included) and
// one byte at a time; all must agree on state, status, headers, body and error, before and after
// the connection closes. Bounds: the body never holds more than the input, the headers never more
// than the header limit. Any violation aborts with a description.
//
//   fuzz_http1 -dict=tests/fuzz/http1.dict tests/fuzz/corpus/http1
#include "fuzzsupport.h"
#include "net/http1response.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using Runwatch::Http1ResponseParser;

const char *const RunwatchFuzz::kTarget = "Http1ResponseParser";
using RunwatchFuzz::check;
using RunwatchFuzz::Rng;
using RunwatchFuzz::violation;

namespace {

struct Outcome
{
    Http1ResponseParser::State state = Http1ResponseParser::State::StatusLine;
    int status = 0;
    QByteArray reason;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    QString error;
    bool operator==(const Outcome &) const = default;
};

Outcome outcomeOf(const Http1ResponseParser &parser, QByteArray body)
{
    Outcome o;
    o.state = parser.state();
    o.status = parser.status();
    o.reason = parser.reasonPhrase();
    o.headers = parser.headers();
    o.body = std::move(body);
    o.error = parser.errorString();
    return o;
}

void checkBounds(const Outcome &o, qsizetype inputSize)
{
    check(o.body.size() <= inputSize, "body larger than the input");
    qsizetype headerBytes = 0;
    for (const auto &h : o.headers)
        headerBytes += h.first.size() + h.second.size();
    check(headerBytes <= Http1ResponseParser::MaxHeaderBytes, "headers beyond the limit");
    check((o.state == Http1ResponseParser::State::Failed) == !o.error.isEmpty(),
          "an error string without failure, or a failure without one");
    if (o.state == Http1ResponseParser::State::Body || o.state == Http1ResponseParser::State::Done)
        check(o.status >= 200 && o.status <= 999, "a final response with a non-final status");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    if (size < 3)
        return 0;
    Rng rng{quint32(bytes[0]) << 8 | bytes[1] | 0x10000u};
    const bool head = bytes[2] & 1;
    const QByteArrayView input(reinterpret_cast<const char *>(bytes) + 3, qsizetype(size) - 3);

    Http1ResponseParser whole(head);
    QByteArray wholeBody;
    const bool wholeOk = whole.feed(input, wholeBody);
    const Outcome expected = outcomeOf(whole, wholeBody);
    check(wholeOk == !whole.hasFailed(), "feed() result disagrees with the state");
    checkBounds(expected, input.size());
    const bool wholeClosed = whole.closed();
    const Outcome expectedClosed = outcomeOf(whole, wholeBody);
    check(wholeClosed == whole.isDone(), "closed() result disagrees with the state");
    check(whole.isDone() || whole.hasFailed(), "closed() left the parser in between");

    {
        Http1ResponseParser parser(head);
        QByteArray body;
        // Mostly short chunks so boundaries land inside CR LF pairs, sizes and field names.
        for (qsizetype at = 0; at < input.size();) {
            const quint32 r = rng.next();
            const qsizetype length
                = qMin<qsizetype>(input.size() - at, (r & 3) == 0 ? r >> 24 : (r >> 8) % 9);
            parser.feed(input.sliced(at, length), body);
            at += length;
        }
        check(outcomeOf(parser, body) == expected, "random chunking changed the outcome");
        parser.closed();
        check(outcomeOf(parser, body) == expectedClosed, "random chunking changed the outcome at close");
    }

    if (input.size() <= 4096) {
        Http1ResponseParser parser(head);
        QByteArray body;
        for (qsizetype at = 0; at < input.size(); ++at)
            parser.feed(input.sliced(at, 1), body);
        check(outcomeOf(parser, body) == expected, "one byte at a time changed the outcome");
    }
    return 0;
}
