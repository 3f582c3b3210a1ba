// SPDX-License-Identifier: GPL-3.0-or-later
// No input turns a client quadratic (issue 25): a long A2A answer sent as many artifact chunks, and
// an A2A task with many distinct status messages (one secondary item each), through the path a
// stream takes — SSE decoder (parser, JSON-RPC envelope, A2aMapper), the backend's repeat filter,
// applyEvent into a Run — against the OpenAI path (its decoder, applyEvent) fed the same number
// of bytes as text deltas, in the same round. Thread CPU time, median of the rounds, with a
// calibration figure (a fixed CPU-bound loop) before every round: a calibration that grows says
// the machine slowed down, not the code. Compare the ratios, which are measured side by side.
//
//   bench_linear_ingest [chunks=160000] [items=80000] [rounds=5]
//
// Also the CPU per event against a quarter of the same stream: about 1 for a linear path, about 4
// for a quadratic one. Exits 1 when a median ratio or growth exceeds 2 (the bound), or
// when any path's text or items come out wrong. Last, the process's peak RSS (the streams, about
// 130 MB of SSE held in memory, included).
//
// The items case is the whole cost of a new item: each status update is mapped to a progress item
// and a status event, passes the repeat filter, and the reducer looks the item up and appends it
// to the run's 80,000 items; the OpenAI baseline only appends text to one string.
#include "backends/a2a/a2abackend.h"
#include "backends/a2a/a2arunstream.h"
#include "backends/openai/openaimapper.h"
#include "backends/openai/openairunstream.h"
#include "backends/ssedecoder.h"
#include "calibration.h"
#include "domain/runreducer.h"

#include <QCoreApplication>

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <optional>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

constexpr qsizetype kReadSize = 16 * 1024; // what one socket read hands the decoder
constexpr double kMaxRatio = 2.0;
const QByteArray kTask = "7d680f84-9fd9-47a8-9e24-9165f9ab1fdc";
const QByteArray kContext = "c36f6a6d-b772-455e-9543-32b88cfaa0ad";

double threadCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// Short words, a little varied, a line end every 40: the text a model streams.
QByteArray piece(qsizetype i)
{
    QByteArray p = "tok" + QByteArray::number(i % 40) + ' ';
    if (i % 40 == 39)
        p += "\\n";
    return p;
}

QString pieceText(qsizetype i)
{
    return QString::fromLatin1(piece(i)).replace(u"\\n"_s, u"\n"_s);
}

struct Stream
{
    QByteArray sse;
    qsizetype events = 0;
    QString text;        // the primary text it must give
    qsizetype items = 0; // the distinct secondary items it must give
};

// A2A JSON-RPC (1.0): the task, `chunks` appends to one artifact, completed.
Stream a2aChunks(qsizetype chunks)
{
    Stream s;
    s.sse = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"" + kTask
            + "\",\"contextId\":\"" + kContext + "\",\"status\":{\"state\":\"TASK_STATE_SUBMITTED\"}}}}\n\n";
    for (qsizetype i = 0; i < chunks; ++i) {
        s.sse += "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"artifactUpdate\":{\"taskId\":\"" + kTask
                 + "\",\"contextId\":\"" + kContext
                 + "\",\"artifact\":{\"artifactId\":\"result-1\",\"parts\":[{\"text\":\"" + piece(i)
                 + "\"}]},\"append\":true}}}\n\n";
        s.text += pieceText(i);
    }
    s.sse += "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"" + kTask
             + "\",\"contextId\":\"" + kContext + "\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}}}\n\n";
    s.events = chunks + 2;
    return s;
}

// A2A JSON-RPC (1.0): `items` working-state updates, each with a status message of its own id.
Stream a2aItems(qsizetype items)
{
    Stream s;
    for (qsizetype i = 0; i < items; ++i) {
        s.sse += "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"" + kTask
                 + "\",\"contextId\":\"" + kContext
                 + "\",\"status\":{\"state\":\"TASK_STATE_WORKING\",\"message\":{\"messageId\":\"m-"
                 + QByteArray::number(i) + "\",\"role\":\"ROLE_AGENT\",\"parts\":[{\"text\":\"step "
                 + piece(i) + "\"}]}}}}}\n\n";
    }
    s.events = s.items = items;
    return s;
}

// OpenAI Responses text deltas (the docs/performance-targets.md test event) until `bytes`.
Stream openAiDeltas(qsizetype bytes)
{
    Stream s;
    for (qsizetype i = 0; s.sse.size() < bytes; ++i) {
        s.sse += "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
                 "\"sequence_number\":"
                 + QByteArray::number(i) + ",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,"
                 + "\"delta\":\"" + piece(i) + "\"}\n\n";
        s.text += pieceText(i);
        ++s.events;
    }
    return s;
}

struct Result
{
    double cpu = 0;
    bool ok = false;
};

// The stream through `decoder` and the reducer, one read at a time, as SseRunStream applies it;
// an A2A stream also through its backend's filter of repeated items (A2aRunStream::prepareBatch),
// a fresh one: the same message ids in the next round are not repeats of this task's.
Result ingest(const Stream &stream, std::unique_ptr<SseDecoder> decoder, const Connection *a2a)
{
    std::optional<A2aBackend> repeats;
    if (a2a)
        repeats.emplace(*a2a);
    Run run;
    qsizetype events = 0;
    const double t0 = threadCpuSeconds();
    std::unique_ptr<StreamDecoded> decoded;
    const QByteArrayView all(stream.sse);
    for (qsizetype at = 0; at < all.size(); at += kReadSize) {
        decodeInto(*decoder, all.sliced(at, std::min(kReadSize, all.size() - at)), decoded);
        if (!decoded)
            continue;
        auto &batch = static_cast<SseBatch &>(*decoded);
        if (repeats)
            repeats->dropRepeatedItems(batch.events);
        const QDateTime now = QDateTime::currentDateTimeUtc();
        for (const RunEvent &e : std::as_const(batch.events))
            applyEvent(run, e, now);
        events += batch.events.size();
        decoded.reset();
    }
    Result r;
    r.cpu = threadCpuSeconds() - t0;
    const auto items = std::count_if(run.secondary.cbegin(), run.secondary.cend(),
                                     [](const SecondaryItem &i) { return !i.id.isEmpty(); });
    r.ok = events > 0 && run.primaryText == stream.text && items == stream.items;
    if (!r.ok) {
        std::fprintf(stderr, "wrong result: %lld events, text %lld/%lld chars, %lld/%lld items\n",
                     static_cast<long long>(events), static_cast<long long>(run.primaryText.size()),
                     static_cast<long long>(stream.text.size()), static_cast<long long>(items),
                     static_cast<long long>(stream.items));
    }
    return r;
}

std::unique_ptr<SseDecoder> a2aDecoder()
{
    return A2aRunStream::decoderFor(A2aMapper(u"Agent"_s, true), A2a::Binding::JsonRpc,
                                    A2aRunStream::Mode::Start);
}

double median(QList<double> values)
{
    std::sort(values.begin(), values.end());
    return values.at(values.size() / 2);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments().mid(1);
    const qsizetype chunks = args.value(0, u"160000"_s).toLongLong();
    const qsizetype itemCount = args.value(1, u"80000"_s).toLongLong();
    const int rounds = std::max(1, args.value(2, u"5"_s).toInt());

    Connection connection;
    connection.name = u"bench"_s;
    connection.backend = u"a2a"_s;
    connection.baseUrl = QUrl(u"http://127.0.0.1:9/"_s);

    const Stream chunked = a2aChunks(chunks);
    const Stream chunkedBase = openAiDeltas(chunked.sse.size());
    const Stream items = a2aItems(itemCount);
    const Stream itemsBase = openAiDeltas(items.sse.size());
    std::printf("bench_linear_ingest: %lld A2A chunks (%.1f MB of SSE), %lld A2A items (%.1f MB); each "
                "against OpenAI deltas of the same size (%lld and %lld deltas); %d rounds\n",
                static_cast<long long>(chunks), double(chunked.sse.size()) / 1e6,
                static_cast<long long>(itemCount), double(items.sse.size()) / 1e6,
                static_cast<long long>(chunkedBase.events), static_cast<long long>(itemsBase.events), rounds);

    // A quarter of each, for the growth: CPU per event that grows with the stream is what a
    // quadratic path looks like (the old A2A assembly: ~4x per event at 4x the chunks).
    const Stream chunkedQuarter = a2aChunks(chunks / 4);
    const Stream itemsQuarter = a2aItems(itemCount / 4);

    struct Row
    {
        const char *name;
        const Stream *stream;
        const Stream *base;
        const Stream *quarter;
        QList<double> cpu, baseCpu, ratio, growth;
    };
    QList<Row> rows{{"A2A artifact chunks", &chunked, &chunkedBase, &chunkedQuarter, {}, {}, {}, {}},
                    {"A2A distinct items", &items, &itemsBase, &itemsQuarter, {}, {}, {}, {}}};
    bool ok = true;
    for (int round = 1; round <= rounds; ++round) {
        const double calibration = RunwatchBench::calibrationMs();
        for (Row &row : rows) {
            // The baseline first in odd rounds, second in even ones: drift falls on both.
            Result base, measured;
            if (round % 2) {
                base = ingest(*row.base, OpenAiRunStream::decoderFor(OpenAiMapper(true, -1)), nullptr);
                measured = ingest(*row.stream, a2aDecoder(), &connection);
            } else {
                measured = ingest(*row.stream, a2aDecoder(), &connection);
                base = ingest(*row.base, OpenAiRunStream::decoderFor(OpenAiMapper(true, -1)), nullptr);
            }
            const Result quarter = ingest(*row.quarter, a2aDecoder(), &connection);
            ok = ok && base.ok && measured.ok && quarter.ok;
            const double growth
                = (measured.cpu / double(row.stream->events)) / (quarter.cpu / double(row.quarter->events));
            row.cpu << measured.cpu;
            row.baseCpu << base.cpu;
            row.ratio << measured.cpu / base.cpu;
            row.growth << growth;
            std::printf("round %d (calibration %.0f ms): %-20s %.3f s CPU, OpenAI same bytes %.3f s: %.2fx; "
                        "a quarter of it %.3f s: per event %.2fx\n",
                        round, calibration, row.name, measured.cpu, base.cpu, measured.cpu / base.cpu,
                        quarter.cpu, growth);
        }
    }
    std::printf("\nmedians of %d rounds (thread CPU):\n", rounds);
    for (const Row &row : rows) {
        const double ratio = median(row.ratio);
        const double growth = median(row.growth);
        const bool within = ratio <= kMaxRatio && growth <= kMaxRatio;
        ok = ok && within;
        std::printf("%-20s %8.3f s (%6.2f us/event), OpenAI same bytes %8.3f s (%6.2f us/delta): "
                    "%.2fx; per event against a quarter of the stream %.2fx %s\n",
                    row.name, median(row.cpu), median(row.cpu) * 1e6 / double(row.stream->events),
                    median(row.baseCpu), median(row.baseCpu) * 1e6 / double(row.base->events), ratio, growth,
                    within ? "(both <= 2x: ok)" : "(> 2x: FAIL)");
    }
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("peak RSS %.0f MB (streams included)\n", double(usage.ru_maxrss) / 1024);
    return ok ? 0 : 1;
}
