// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the A2A connector's mapping: the agent card parser, JSON-RPC / HTTP+JSON
// reply decoding, discriminator classification and the A2aMapper (stream → run events), plus
// the reducer that consumes what they produce (applyEvent).
//
// Input layout: byte 0 picks the binding (bit 0: HTTP+JSON instead of JSON-RPC); the rest is both
// an agent card candidate (parsed whole) and an SSE stream that SseParser splits into events
// exactly as the connector's stream does. Any violated invariant aborts with a description.
//
//   fuzz_a2a_mapping -dict=tests/fuzz/a2a_mapping.dict tests/fuzz/corpus/a2a_mapping
#include "backends/a2a/a2acard.h"
#include "backends/a2a/a2amapper.h"
#include "backends/a2a/a2areply.h"
#include "backends/a2a/a2ascan.h"
#include "domain/runevent.h"
#include "domain/runreducer.h"
#include "fuzzsupport.h"
#include "net/sseparser.h"

#include <QUrl>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace Runwatch;
using namespace Runwatch::A2a;
using namespace Qt::StringLiterals;

const char *const RunwatchFuzz::kTarget = "A2A mapping";
using RunwatchFuzz::check;
using RunwatchFuzz::violation;

namespace {

void checkEvent(const RunEvent &e)
{
    switch (e.type) {
    case RunEvent::Type::Status:
        check(!e.rawStatus.isEmpty(), "status event without the raw label");
        if (e.rawStatus.endsWith(u" (answered)"_s)) {
            check(e.status == RunStatus::InProgress, "an answered question is not in progress");
        } else if (e.rawStatus != u"message"_s) {
            check(e.status == mapState(e.rawStatus), "status does not match its raw label");
        }
        break;
    case RunEvent::Type::PrimaryDelta:
        check(!e.text.isEmpty(), "empty primary delta");
        break;
    case RunEvent::Type::Error:
        check(e.error.isError(), "error event without an error kind");
        check(!e.error.message.isEmpty(), "error event without a message");
        break;
    case RunEvent::Type::InputRequired:
        check(e.input.has_value(), "input event without a request");
        check(!e.input->prompt.isEmpty(), "input request without a prompt");
        break;
    case RunEvent::Type::Identity:
        check(!e.remoteId.isEmpty(), "identity without an id");
        break;
    default:
        break;
    }
    check(e.sequence == -1, "the mapping assigned a sequence number");
}

void fuzzCard(const QByteArray &bytes)
{
    const CardParse p = parseAgentCard(bytes, QUrl(u"http://127.0.0.1:1/.well-known/agent-card.json"_s));
    check(p.card.has_value() != !p.error.isEmpty(), "a card parse must give a card or an error");
    if (!p.card)
        return;
    check(!p.card->name.isEmpty(), "a card without a name was accepted");
    check(!p.card->interfaces.isEmpty(), "a card without an interface was accepted");
    check(selectInterface(*p.card).has_value(), "no interface selected from a valid card");
    (void)p.card->summary();
    (void)p.card->toJson();
}

// Two scans of one event read the same (a ScanMemo's against one without).
bool sameScan(const std::optional<ScannedEvent> &a, const std::optional<ScannedEvent> &b)
{
    if (a.has_value() != b.has_value())
        return false;
    if (!a)
        return true;
    if (a->kind != b->kind)
        return false;
    if (a->kind == ScannedEvent::Kind::ArtifactUpdate) {
        const ArtifactChunk &x = a->chunk;
        const ArtifactChunk &y = b->chunk;
        return x.taskId == y.taskId && x.contextId == y.contextId && x.artifactId == y.artifactId
               && x.name == y.name && x.text == y.text && x.append == y.append && x.lastChunk == y.lastChunk;
    }
    const StatusUpdate &x = a->status;
    const StatusUpdate &y = b->status;
    if (x.taskId != y.taskId || x.contextId != y.contextId || x.status.has_value() != y.status.has_value())
        return false;
    if (!x.status)
        return true;
    const std::optional<MessageInfo> &m = x.status->message;
    const std::optional<MessageInfo> &n = y.status->message;
    return x.status->state == y.status->state && m.has_value() == n.has_value()
           && (!m
               || (m->messageId == n->messageId && m->taskId == n->taskId && m->contextId == n->contextId
                   && m->fromUser == n->fromUser && m->text == n->text));
}

void fuzzReply(const QByteArray &bytes)
{
    for (const Reply &r : {decodeJsonRpc(bytes), decodeRest(bytes, 400)}) {
        const int outcomes = int(r.error.has_value()) + int(!r.malformed.isEmpty());
        check(outcomes <= 1, "a reply is both an error and malformed");
        if (r.error)
            check(!toRunError(*r.error).message.isEmpty(), "error without a message");
    }
    if (const auto e = parseErrorBody(bytes, 500))
        check(toRunError(*e).isError(), "parsed error body is not an error");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const Binding binding = (data[0] & 1) ? Binding::HttpJson : Binding::JsonRpc;
    const QByteArray rest(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));

    fuzzCard(rest);
    fuzzReply(rest);

    A2aMapper tracker(u"agent"_s, true);
    Run run;
    QList<RunEvent> all;
    SseParser parser(1 << 20);
    ScanMemo memo; // the stream's, as the decoder keeps one
    parser.feed(rest, [&](const SseEvent &event) {
        const Reply reply = binding == Binding::JsonRpc ? decodeJsonRpc(event.data) : decodeRest(event.data);
        const std::optional<ScannedEvent> alone = scanStreamEvent(binding, event.data);
        // An event that begins as one read before reads the same from where that one was.
        check(sameScan(scanStreamEvent(binding, event.data, {}, &memo), alone),
              "the scan with the stream's memo differs from the scan without it");
        // What the scanner reads, the general path reads the same (a2ascan.h).
        if (const std::optional<ScannedEvent> &scanned = alone) {
            check(reply.ok(), "scanned an event the general path refuses");
            const StreamItem item = classify(reply.result);
            if (scanned->kind == ScannedEvent::Kind::ArtifactUpdate) {
                const ArtifactChunk &a = scanned->chunk;
                const ArtifactChunk b = artifactChunkOf(item.object);
                check(item.kind == StreamItem::Kind::ArtifactUpdate && a.taskId == b.taskId
                          && a.contextId == b.contextId && a.artifactId == b.artifactId && a.name == b.name
                          && a.text == b.text && a.append == b.append && a.lastChunk == b.lastChunk,
                      "scanned chunk differs from the general path's");
            } else {
                const StatusUpdate &a = scanned->status;
                const StatusUpdate b = statusUpdateOf(item.object);
                const auto sameMessage
                    = [](const std::optional<MessageInfo> &x, const std::optional<MessageInfo> &y) {
                          return x.has_value() == y.has_value()
                                 && (!x
                                     || (x->messageId == y->messageId && x->taskId == y->taskId
                                         && x->contextId == y->contextId && x->fromUser == y->fromUser
                                         && x->text == y->text));
                      };
                check(item.kind == StreamItem::Kind::StatusUpdate && a.taskId == b.taskId
                          && a.contextId == b.contextId && a.status.has_value() == b.status.has_value()
                          && (!a.status
                              || (a.status->state == b.status->state
                                  && sameMessage(a.status->message, b.status->message))),
                      "scanned status update differs from the general path's");
            }
        }
        if (!reply.ok())
            return;
        QList<RunEvent> events;
        tracker.apply(classify(reply.result), events);
        for (const RunEvent &e : std::as_const(events)) {
            checkEvent(e);
            const RunChanges changes = applyEvent(run, e);
            check(!changes.testFlag(RunChange::Dropped), "an unsequenced event was dropped");
        }
        all += events;
        // The run shows what the tracker built, unless the agent shrank an artifact (then the
        // reducer keeps the longer text on purpose).
        if (!tracker.shrank())
            check(run.primaryText == tracker.primaryText(), "run text differs from the tracker's");
        check(run.reconciliations == 0 || tracker.shrank() || tracker.artifactCount() > 0,
              "a reconciliation without artifacts");
    });
    check(tracker.isEndState()
              == (tracker.isMessageReply() || isTerminal(tracker.status())
                  || (tracker.status() == RunStatus::InputRequired && !isAuthState(tracker.rawState()))),
          "isEndState is inconsistent");
    return 0;
}
