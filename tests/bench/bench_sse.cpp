// SPDX-License-Identifier: GPL-3.0-or-later
// SSE framing throughput (bytes -> events, no JSON) on the docs/performance-targets.md test stream, next to
// the memcpy and memchr line-scan floors measured in the same run: absolute figures move between
// runs and machines, the ratios are what the targets are written against. Last, the calibration
// figure (calibration.h), which the other benchmarks print too.
//
//   bench_sse [megabytes=100]
#include "calibration.h"
#include "net/sseparser.h"

#include <QByteArray>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

using Runwatch::SseEvent;
using Runwatch::SseParser;

namespace {

constexpr qsizetype ChunkSize = 16 * 1024;
constexpr int Rounds = 5;

// The docs/performance-targets.md test event, ~171 bytes with a realistic sequence number.
QByteArray makeStream(qsizetype targetBytes, bool crlf, qsizetype *eventCount)
{
    QByteArray out;
    out.reserve(targetBytes + 256);
    const char *const nl = crlf ? "\r\n" : "\n";
    qsizetype n = 0;
    while (out.size() < targetBytes) {
        out += "event: response.output_text.delta";
        out += nl;
        out += R"(data: {"type":"response.output_text.delta","sequence_number":)";
        out += QByteArray::number(n++);
        out += R"(,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"tok "})";
        out += nl;
        out += nl;
    }
    *eventCount = n;
    return out;
}

struct Result
{
    double seconds = std::numeric_limits<double>::max(); // best round
    qsizetype bytes = 0;
    qsizetype events = 0;
};

// Best of `Rounds`; `body` returns how many events (or lines) it saw, which is checked so the
// work cannot be optimised away or silently wrong.
Result measure(const QByteArray &input, qsizetype expected, const std::function<qsizetype()> &body)
{
    Result r;
    r.bytes = input.size();
    for (int round = 0; round < Rounds; ++round) {
        const auto start = std::chrono::steady_clock::now();
        const qsizetype seen = body();
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        if (seen != expected) {
            std::fprintf(stderr, "wrong count: %lld, expected %lld\n", static_cast<long long>(seen),
                         static_cast<long long>(expected));
            std::exit(1);
        }
        r.seconds = std::min(r.seconds, elapsed.count());
        r.events = seen;
    }
    return r;
}

qsizetype parseChunked(const QByteArray &input, qsizetype chunk)
{
    SseParser parser;
    qsizetype events = 0;
    qsizetype dataBytes = 0;
    const auto onEvent = [&](const SseEvent &e) {
        ++events;
        dataBytes += e.data.size() + e.type.size();
    };
    const QByteArrayView all(input);
    for (qsizetype at = 0; at < all.size(); at += chunk) {
        if (!parser.feed(all.sliced(at, std::min(chunk, all.size() - at)), onEvent)) {
            std::fprintf(stderr, "parser failed: %s\n", qPrintable(parser.errorString()));
            std::exit(1);
        }
    }
    if (dataBytes == 0)
        std::exit(1);
    return events;
}

// What a framer cannot beat: finding every line end, nothing else.
qsizetype memchrLines(const QByteArray &input)
{
    qsizetype lines = 0;
    const char *p = input.constData();
    const char *const end = p + input.size();
    while (p < end) {
        const char *const chunkEnd = std::min(p + ChunkSize, end);
        while (const void *hit = std::memchr(p, '\n', size_t(chunkEnd - p))) {
            ++lines;
            p = static_cast<const char *>(hit) + 1;
        }
        p = chunkEnd;
    }
    return lines;
}

qsizetype memcpyChunks(const QByteArray &input)
{
    static char sink[ChunkSize]; // cache-resident destination
    qsizetype copies = 0;
    for (qsizetype at = 0; at < input.size(); at += ChunkSize) {
        const qsizetype n = std::min(ChunkSize, input.size() - at);
        std::memcpy(sink, input.constData() + at, size_t(n));
        ++copies;
    }
    // Keep the copy observable.
    volatile char keep = sink[0];
    (void)keep;
    return copies;
}

void row(const char *what, const Result &r, bool hasEvents, double floorMBps)
{
    const double mbps = double(r.bytes) / r.seconds / 1e6;
    std::printf("| %-44s | %9.1f | %9lld | %10.1f |", what, mbps, static_cast<long long>(r.bytes),
                r.seconds * 1e3);
    if (hasEvents) {
        std::printf(" %11.2f | %8.1f |", double(r.events) / r.seconds / 1e6,
                    r.seconds * 1e9 / double(r.events));
    } else {
        std::printf(" %11s | %8s |", "", "");
    }
    if (floorMBps > 0) {
        std::printf(" %10.2f |\n", mbps / floorMBps);
    } else {
        std::printf(" %10s |\n", "1.00");
    }
}

} // namespace

int main(int argc, char **argv)
{
    const qsizetype megabytes = argc > 1 ? std::strtoll(argv[1], nullptr, 10) : 100;
    if (megabytes <= 0) {
        std::fprintf(stderr, "usage: %s [megabytes=100]\n", argv[0]);
        return 2;
    }

    qsizetype events = 0;
    const QByteArray lf = makeStream(megabytes * 1000 * 1000, false, &events);
    qsizetype crlfEvents = 0;
    const QByteArray crlf = makeStream(megabytes * 1000 * 1000, true, &crlfEvents);
    qsizetype smallEvents = 0;
    const QByteArray small = makeStream(4 * 1000 * 1000, false, &smallEvents);
    const qsizetype lines = lf.count('\n');

    std::printf("SSE framing benchmark: %lld events, %.1f bytes/event, best of %d rounds, "
                "MB = 10^6 bytes\n\n",
                static_cast<long long>(events), double(lf.size()) / double(events), Rounds);
    std::printf("| %-44s | %9s | %9s | %10s | %11s | %8s | %10s |\n", "what", "MB/s", "bytes", "best ms",
                "M events/s", "ns/event", "x memchr");
    std::printf("|%s|%s|%s|%s|%s|%s|%s|\n", std::string(46, '-').c_str(),
                std::string(10, '-').append(":").c_str(), std::string(10, '-').append(":").c_str(),
                std::string(11, '-').append(":").c_str(), std::string(12, '-').append(":").c_str(),
                std::string(9, '-').append(":").c_str(), std::string(11, '-').append(":").c_str());

    const Result floor = measure(lf, lines, [&] { return memchrLines(lf); });
    const double floorMBps = double(floor.bytes) / floor.seconds / 1e6;
    const Result copy
        = measure(lf, (lf.size() + ChunkSize - 1) / ChunkSize, [&] { return memcpyChunks(lf); });
    row("memcpy, 16 KiB chunks (cache-resident dest)", copy, false, floorMBps);
    row("memchr line scan, 16 KiB chunks (floor)", floor, false, 0);
    row("SseParser, LF, 16 KiB chunks", measure(lf, events, [&] { return parseChunked(lf, ChunkSize); }),
        true, floorMBps);
    row("SseParser, CRLF, 16 KiB chunks",
        measure(crlf, crlfEvents, [&] { return parseChunked(crlf, ChunkSize); }), true, floorMBps);
    row("SseParser, LF, 1460-byte chunks (TCP MSS)",
        measure(lf, events, [&] { return parseChunked(lf, 1460); }), true, floorMBps);
    row("SseParser, LF, whole input in one feed",
        measure(lf, events, [&] { return parseChunked(lf, lf.size()); }), true, floorMBps);
    row("SseParser, LF, 1-byte chunks (4 MB input)",
        measure(small, smallEvents, [&] { return parseChunked(small, 1); }), true, floorMBps);
    std::printf("\n(x memchr: MB/s relative to the memchr line scan of the same run)\n");
    RunwatchBench::printCalibration();
    return 0;
}
