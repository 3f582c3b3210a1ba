// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the OpenAI connector's mapping: OpenAiMapper (wire events → run
// events), OpenAi::mapResponseObject / aggregateOutputText (Response objects → run events) and the
// reducer that consumes what they produce (applyEvent).
//
// Input layout: byte 0 configures the mapper (bit 0: streamable; bits 1-7: the starting cursor,
// value - 1, so -1..126), the rest is an SSE stream (`event:` / `data:` lines) that SseParser
// splits into (type, data) pairs exactly as the connector does. Every data payload that is a JSON
// object also goes through mapResponseObject, as do its "response" member and the elements of
// its "output". Any violated invariant aborts with a description.
//
//   fuzz_openai_mapping -dict=tests/fuzz/openai_mapping.dict tests/fuzz/corpus/openai_mapping
#include "backends/openai/openaimapper.h"
#include "domain/runevent.h"
#include "domain/runreducer.h"
#include "fuzzsupport.h"
#include "net/sseparser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace Runwatch;
using namespace Qt::StringLiterals;

const char *const RunwatchFuzz::kTarget = "OpenAI mapping";
using RunwatchFuzz::check;
using RunwatchFuzz::violation;

namespace {

// What every RunEvent from a connector must satisfy, whatever the input.
void checkEvent(const RunEvent &e)
{
    if (e.usage) {
        // A reported usage has a count, and a count is never negative (malformed = not reported).
        check(e.usage->isKnown(), "a usage without any count");
        check(e.usage->inputTokens >= -1 && e.usage->outputTokens >= -1 && e.usage->reasoningTokens >= -1,
              "a negative token count");
    }
    switch (e.type) {
    case RunEvent::Type::Status:
        check(!e.rawStatus.isEmpty(), "status event without the raw label");
        check(e.status == OpenAi::mapStatus(e.rawStatus), "status does not match its raw label");
        break;
    case RunEvent::Type::Error:
        check(e.error.isError(), "error event without an error kind");
        check(!e.error.message.isEmpty(), "error event without a message");
        break;
    case RunEvent::Type::InputRequired:
        check(e.input.has_value(), "input event without a request");
        break;
    default:
        break;
    }
}

// mapResponseObject's contract: one primary snapshot equal to aggregateOutputText, at most one
// status, no sequence numbers (a Response object is not a stream position).
void checkResponseObject(const QJsonObject &response, Run &run)
{
    for (const bool verify : {false, true}) {
        const QList<RunEvent> events = OpenAi::mapResponseObject(response, verify);
        int snapshots = 0;
        int statuses = 0;
        for (const RunEvent &e : events) {
            checkEvent(e);
            check(e.sequence == -1, "a Response object produced a sequence number");
            if (e.type == RunEvent::Type::PrimarySnapshot) {
                ++snapshots;
                check(e.verify == verify, "verify flag lost");
                check(e.text == OpenAi::aggregateOutputText(response), "snapshot is not output_text");
            }
            if (e.type == RunEvent::Type::Status)
                ++statuses;
        }
        check(snapshots == 1, "not exactly one primary snapshot");
        check(statuses <= 1, "more than one status from one Response object");
        const QString raw = response.value(u"status"_s).toString();
        check(statuses == (raw.isEmpty() ? 0 : 1), "status present/absent disagrees with the object");
        for (const RunEvent &e : events)
            applyEvent(run, e);
    }
}

void checkJsonPayload(QByteArrayView data, Run &run)
{
    const QJsonDocument doc = QJsonDocument::fromJson(data.toByteArray());
    if (!doc.isObject())
        return;
    const QJsonObject o = doc.object();
    checkResponseObject(o, run);
    if (o.value(u"response"_s).isObject())
        checkResponseObject(o.value(u"response"_s).toObject(), run);
    const QJsonArray output = o.value(u"output"_s).toArray();
    for (const QJsonValue &v : output) {
        if (v.isObject())
            checkResponseObject(v.toObject(), run);
    }
    const RunError error = OpenAi::mapErrorObject(o, ErrorKind::Run);
    check(error.kind == ErrorKind::Run && !error.message.isEmpty(), "mapErrorObject lost kind or message");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    if (size < 1)
        return 0;
    const bool streamable = bytes[0] & 1;
    const qint64 cursor = qint64(bytes[0] >> 1) - 1;
    const QByteArrayView stream(reinterpret_cast<const char *>(bytes) + 1, qsizetype(size) - 1);

    OpenAiMapper mapper(streamable, cursor);
    Run streamed; // what the engine would build from the stream
    streamed.token.sequence = cursor;
    Run snapshots; // a scratch run for the Response-object checks
    qint64 lastEmitted = cursor;
    qint64 lastDropped = 0;
    bool ended = false;

    SseParser parser(64 * 1024);
    parser.feed(stream, [&](const SseEvent &event) {
        QList<RunEvent> out;
        const qint64 before = mapper.lastSequence();
        const OpenAiMapper::Outcome outcome = mapper.map(event.type, event.data, out);

        check(mapper.lastSequence() >= before, "lastSequence went backwards");
        check(mapper.droppedDuplicates() >= lastDropped, "droppedDuplicates went backwards");
        lastDropped = mapper.droppedDuplicates();
        for (const RunEvent &e : out) {
            checkEvent(e);
            if (e.sequence >= 0) {
                // Sequences in the output rise strictly, above the cursor we started from.
                check(e.sequence > lastEmitted, "output sequence not strictly increasing");
                check(e.sequence <= mapper.lastSequence(), "output sequence beyond lastSequence");
                lastEmitted = e.sequence;
            }
            // Lifecycle events carry the stream's flag; the snapshot inside a terminal event
            // is a plain Response object (streamable = false, which the reducer never unsets).
            if (e.type == RunEvent::Type::Identity && e.sequence >= 0)
                check(e.streamable == streamable, "identity lost the streamable flag");
        }

        switch (outcome) {
        case OpenAiMapper::Outcome::Continue:
            break;
        case OpenAiMapper::Outcome::Terminal:
            check(!out.isEmpty(), "terminal outcome without events");
            break;
        case OpenAiMapper::Outcome::StreamError:
            check(mapper.error().kind == ErrorKind::Run, "stream error is not a run error");
            check(!mapper.error().message.isEmpty(), "stream error without a message");
            break;
        case OpenAiMapper::Outcome::Malformed:
            check(mapper.error().kind == ErrorKind::Protocol, "malformed is not a protocol error");
            check(!mapper.error().message.isEmpty(), "malformed without a message");
            if (mapper.error().code == u"unknown_status"_s) {
                // A terminal event with a status nobody knows: its snapshot is kept.
                check(!out.isEmpty(), "unknown terminal status without its snapshot");
            } else {
                check(mapper.error().code == u"malformed_event"_s, "malformed without its code");
                check(out.isEmpty(), "a malformed event produced events");
                // Not consumed, so the error names the last good position.
                check(mapper.lastSequence() == before, "a malformed event moved lastSequence");
            }
            break;
        }

        // The engine applies events only until the stream ends; keep mapping afterwards anyway
        // (more coverage: the mapper must cope with anything in any state).
        if (!ended) {
            const bool wasTerminal = streamed.isTerminal();
            const qint64 cursorBefore = streamed.token.sequence;
            const QString textBefore = streamed.primaryText.toString();
            for (const RunEvent &e : std::as_const(out))
                applyEvent(streamed, e);
            check(streamed.token.sequence >= cursorBefore, "the run's cursor went backwards");
            check(!wasTerminal || streamed.isTerminal(), "a terminal run was reopened");
            // Text received is never dropped: deltas append, and a snapshot may correct the text
            // but an empty one never clears it.
            check(textBefore.isEmpty() || !streamed.primaryText.isEmpty(), "received text was cleared");
        }
        ended = ended || outcome != OpenAiMapper::Outcome::Continue;

        checkJsonPayload(event.data, snapshots);
    });
    return 0;
}
