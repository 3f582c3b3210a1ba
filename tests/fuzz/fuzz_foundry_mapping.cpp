// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the Foundry connector's mapping: FoundryMapper (SSE events dispatched on
// their name → run events), Foundry::mapRunObject / inputRequestOf / mapRunStep / assistantText /
// submitBody, and the reducer that consumes what they produce (applyEvent).
//
// Input layout: an SSE stream (`event:` / `data:` lines) that SseParser splits into (type, data)
// pairs exactly as the connector does. Every data payload that is a JSON object also goes through
// the object mappers. Any violated invariant aborts with a description.
//
//   fuzz_foundry_mapping tests/fuzz/corpus/foundry_mapping
#include "backends/foundry/foundrymapper.h"
#include "domain/runevent.h"
#include "domain/runreducer.h"
#include "fuzzsupport.h"
#include "net/sseparser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdint>

using namespace Runwatch;
using namespace Qt::StringLiterals;

const char *const RunwatchFuzz::kTarget = "Foundry mapping";
using RunwatchFuzz::check;

namespace {

void checkEvent(const RunEvent &e)
{
    check(e.sequence == -1, "Foundry has no sequence numbers, yet one appeared");
    if (e.usage) {
        // A reported usage has a count, and a count is never negative (malformed = not reported).
        check(e.usage->isKnown(), "a usage without any count");
        check(e.usage->inputTokens >= -1 && e.usage->outputTokens >= -1 && e.usage->reasoningTokens >= -1,
              "a negative token count");
    }
    switch (e.type) {
    case RunEvent::Type::Status:
        check(e.status == Foundry::mapStatus(e.rawStatus), "status does not match its raw label");
        break;
    case RunEvent::Type::Error:
        check(e.error.isError(), "error event without an error kind");
        check(!e.error.message.isEmpty(), "error event without a message");
        break;
    case RunEvent::Type::InputRequired:
        check(e.input.has_value(), "input event without a request");
        for (const ToolCallRequest &call : e.input->toolCalls)
            check(!call.id.isEmpty(), "a tool call without the id its answer must name");
        break;
    case RunEvent::Type::Identity:
        check(!e.remoteId.isEmpty(), "identity without a run id");
        check(!e.streamable, "a Foundry run claimed to be re-streamable");
        break;
    default:
        break;
    }
}

void checkObject(const QJsonObject &object, Run &run)
{
    for (const RunEvent &e : Foundry::mapRunObject(object)) {
        checkEvent(e);
        applyEvent(run, e);
    }
    for (const RunEvent &e : Foundry::mapRunStep(object)) {
        check(e.type == RunEvent::Type::SecondarySnapshot, "a step gave something else than secondary items");
        check(!e.itemId.isEmpty(), "a secondary item without its call id");
    }
    if (const auto request = Foundry::inputRequestOf(object)) {
        // Answering every call (outputs or decisions) is always a valid submit.
        InputAnswer answer;
        for (const ToolCallRequest &call : request->toolCalls)
            answer.toolAnswers.append({call.id, u"out"_s, true});
        QString why;
        const QJsonObject body = Foundry::submitBody(*request, answer, &why);
        QSet<QString> ids;
        for (const ToolCallRequest &call : request->toolCalls)
            ids.insert(call.id);
        if (ids.size() == request->toolCalls.size() && !ids.isEmpty()) {
            check(!body.isEmpty(), "a complete answer was refused");
        } else {
            check(body.isEmpty() && !why.isEmpty(), "a bad answer was accepted or refused silently");
        }
    }
    Foundry::assistantText(object.value(u"data"_s).toArray());
    const RunError error = Foundry::mapErrorObject(object, ErrorKind::Run);
    check(error.kind == ErrorKind::Run && !error.message.isEmpty(), "mapErrorObject lost kind or message");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    const QByteArrayView stream(reinterpret_cast<const char *>(bytes), qsizetype(size));
    FoundryMapper mapper;
    Run streamed;
    Run objects;
    bool ended = false;
    qint64 deltas = 0;
    SseParser parser(64 * 1024);
    parser.feed(stream, [&](const SseEvent &event) {
        QList<RunEvent> out;
        const FoundryMapper::Outcome outcome = mapper.map(event.type, event.data, out);
        check(mapper.deltaCount() >= deltas, "delta count went backwards");
        deltas = mapper.deltaCount();
        for (const RunEvent &e : out)
            checkEvent(e);
        switch (outcome) {
        case FoundryMapper::Outcome::Malformed:
            check(mapper.error().kind == ErrorKind::Protocol, "malformed is not a protocol error");
            check(out.isEmpty(), "a malformed event produced events");
            break;
        case FoundryMapper::Outcome::StreamError:
            check(!mapper.error().message.isEmpty(), "stream error without a message");
            break;
        case FoundryMapper::Outcome::Terminal:
        case FoundryMapper::Outcome::NeedsInput:
            check(!mapper.runId().isEmpty(), "a run outcome without the run's id");
            break;
        default:
            break;
        }
        if (!ended) {
            const bool wasTerminal = streamed.isTerminal();
            const RunText before = streamed.primaryText;
            for (const RunEvent &e : std::as_const(out))
                applyEvent(streamed, e);
            check(!wasTerminal || streamed.isTerminal(), "a terminal run was reopened");
            check(streamed.primaryText.startsWith(before), "streamed text was not appended to");
        }
        ended = ended || outcome != FoundryMapper::Outcome::Continue;
        const QJsonDocument doc = QJsonDocument::fromJson(event.data.toByteArray());
        if (doc.isObject())
            checkObject(doc.object(), objects);
    });
    return 0;
}
