// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2arunstream.h"

#include "a2ascan.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QNetworkReply>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "A2aConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(A2aConnector)
};
} // namespace

using namespace A2a;

namespace {

// A plain-JSON answer to a stream request is one reply, not a stream: bounded like one event.
constexpr qsizetype kMaxPlainBody = 4 * 1024 * 1024;

} // namespace

A2aRunStream::A2aRunStream(A2aBackend *backend, Mode mode, StartRequest request, ContinuationToken token,
                           QObject *parent)
    : SseRunStream(
        Options{
            .stallTimeout = backend ? stallTimeoutFor(backend->connection()) : kDefaultStallTimeout,
            // Through QNetworkAccessManager (a proxy) the decoder runs on this thread: every read
            // is one batch, numbered as it goes out.
            .deferDrain = false,
            // A resubscription's snapshot repairs whatever the oversized event carried.
            .oversizeRetryable = true,
            .stalledMessage = Text::tr("No event arrived for %1 s; resubscribing."),
        },
        parent)
    , m_backend(backend)
    , m_mode(mode)
    , m_request(std::move(request))
    , m_token(std::move(token))
    , m_sequence(mode == Mode::Follow ? std::max<qint64>(m_token.sequence, -1) : -1)
{
    // Start on the next event-loop turn so the owner can connect to our signals first.
    QTimer::singleShot(0, this, [this] { run(); });
}

QCoro::Task<> A2aRunStream::run()
{
    QPointer<A2aRunStream> self = this;
    if (!m_backend || isAborted())
        co_return;
    const Discovery discovery = co_await m_backend->discover();
    if (!self || isAborted() || !m_backend)
        co_return;
    if (!discovery.ok()) {
        endWith({StreamEnd::Reason::Error, discovery.error, std::nullopt});
        co_return;
    }
    m_iface = *discovery.interface;
    const AgentCard &card = *discovery.card;

    if (m_mode == Mode::Start) {
        const bool streaming = card.streaming && m_request.stream;
        m_tracker = A2aMapper(card.name, streaming);
        if (!streaming) {
            co_await runOneShot(m_iface);
            co_return;
        }
        const QJsonObject params
            = m_backend->messageParams(m_iface.version, m_request.prompt, {}, m_contextId, kPromptIdPrefix,
                                       false, m_request.clientRunId, m_request.input);
        co_await openStream(m_iface, Operation::SendStreamingMessage, params, false);
        co_return;
    }

    m_tracker = A2aMapper(card.name, card.streaming);
    if (!card.streaming) {
        // Nothing to subscribe to: the engine polls GetTask instead.
        endWith({StreamEnd::Reason::ResumeRefused,
                 RunError::protocol(u"not_streaming"_s, Text::tr("The agent does not stream; polling.")),
                 std::nullopt});
        co_return;
    }
    // Built outside the co_await: GCC 12 cannot keep an initializer_list across a suspension.
    QJsonObject params;
    params.insert(u"id"_s, m_token.remoteId);
    co_await openStream(m_iface, Operation::SubscribeToTask, params, false);
}

QCoro::Task<> A2aRunStream::runOneShot(AgentInterface iface)
{
    QPointer<A2aRunStream> self = this;
    if (!m_backend) {
        endWith({StreamEnd::Reason::Aborted, {}, std::nullopt});
        co_return;
    }
    // returnImmediately (0.3: blocking:false): a monitoring client polls rather than holding a
    // request open for the whole task (§5.4).
    const QJsonObject params
        = m_backend->messageParams(iface.version, m_request.prompt, {}, m_contextId, kPromptIdPrefix, true,
                                   m_request.clientRunId, m_request.input);
    const CallResult result = co_await m_backend->call(Operation::SendMessage, params);
    if (!self || isAborted())
        co_return;
    // A task that runs on is followed by polling GetTask.
    endWithReply(result, true, Text::tr("The agent answered SendMessage with neither a Task nor a Message."),
                 {StreamEnd::Reason::ResumeRefused, {}, std::nullopt});
}

QCoro::Task<> A2aRunStream::openStream(AgentInterface iface, Operation operation, QJsonObject params,
                                       bool useGet)
{
    QPointer<A2aRunStream> self = this;
    if (!m_backend) {
        endWith({StreamEnd::Reason::Aborted, {}, std::nullopt});
        co_return;
    }
    HttpRequest request = m_backend->buildRequest(iface, operation, params, useGet);
    // A second SendStreamingMessage would start a second task; subscribing twice is harmless.
    request.idempotent = operation != Operation::SendStreamingMessage;
    HttpClient *http = m_backend->httpClient();
    OpenedStream opened = co_await http->openStream(std::move(request), decoderFactory());
    if (!self || isAborted()) {
        discardReply(opened.reply);
        co_return;
    }
    if (!opened.response.ok() || !opened.reply) {
        const HttpResponse &response = opened.response;
        const int status = response.status;
        std::optional<ProtocolError> a2aError;
        if (status != 401 && status != 403 && !response.body.isEmpty())
            a2aError = parseErrorBody(response.body, status);
        // HTTP+JSON subscribe: the spec says POST, the proto says GET (§4 [flag]). A router
        // that does not know the verb answers a bare 404/405 without an A2A reason.
        if (operation == Operation::SubscribeToTask && iface.binding == Binding::HttpJson && !useGet
            && (status == 404 || status == 405) && (!a2aError || a2aError->reason.isEmpty())) {
            co_await openStream(iface, operation, params, true);
            co_return;
        }
        if (a2aError && status > 0) {
            handleError(*a2aError);
            if (isSettling()) {
                co_await settleFromGetTask(StreamEnd::Reason::ResumeRefused, toRunError(*a2aError));
                co_return;
            }
            flushBatch();
            if (!self)
                co_return;
            endWith(takePendingEnd().value_or(
                StreamEnd{StreamEnd::Reason::Error, toRunError(*a2aError), std::nullopt}));
            co_return;
        }
        endWith({StreamEnd::Reason::Error, response.error, response.retryAfterMs});
        co_return;
    }
    // The JS SDK answers SubscribeToTask on a terminal task with plain JSON, not SSE (§6).
    m_plainJson = !isEventStream(opened.response);
    startReading(opened);
}

QCoro::Task<> A2aRunStream::settleFromGetTask(StreamEnd::Reason otherwise, RunError why)
{
    QPointer<A2aRunStream> self = this;
    detachReply();
    if (!m_backend) {
        endWith({StreamEnd::Reason::Error, why, std::nullopt});
        co_return;
    }
    QJsonObject params{{u"id"_s, m_token.remoteId}};
    const CallResult result = co_await m_backend->call(Operation::GetTask, params);
    if (!self || isAborted() || isFinished())
        co_return;
    endWithReply(result, false, Text::tr("The agent answered GetTask with something that is not a Task."),
                 {otherwise, why, std::nullopt});
}

void A2aRunStream::endWithReply(const CallResult &result, bool messageAllowed, const QString &unexpected,
                                StreamEnd otherwise)
{
    if (!result.ok()) {
        endWith({StreamEnd::Reason::Error, result.error, result.retryAfterMs});
        return;
    }
    const StreamItem item = classify(result.result);
    if (item.kind != StreamItem::Kind::Task && !(messageAllowed && item.kind == StreamItem::Kind::Message)) {
        endWith(
            {StreamEnd::Reason::Error, RunError::protocol(u"unexpected_reply"_s, unexpected), std::nullopt});
        return;
    }
    QPointer<A2aRunStream> self = this;
    m_tracker.apply(item, batch());
    m_state = stateOf(m_tracker);
    flushBatch();
    if (!self || isFinished())
        return;
    endWith(m_state.endState ? StreamEnd{StreamEnd::Reason::Terminal, {}, std::nullopt}
                             : std::move(otherwise));
}

A2aRunStream::Verdict A2aRunStream::mapError(const A2aMapper &tracker, Mode mode, const ProtocolError &error,
                                             QList<RunEvent> &out)
{
    RunError e = toRunError(error);
    if (!tracker.sawTask()) {
        // SubscribeToTask on a terminal task (or on an agent that cannot stream it): the task's
        // end state is one GetTask away.
        if (mode == Mode::Follow && error.code == -32004)
            return {.keepGoing = false, .settle = true, .end = std::nullopt};
        // Nothing exists yet (a refused start) or the task is gone: the request's own error.
        return {
            .keepGoing = false, .settle = false, .end = StreamEnd{StreamEnd::Reason::Error, e, std::nullopt}};
    }
    // Mid-stream: the task has an error. It becomes the run's error; the engine then asks
    // GetTask for the authoritative state (ErrorKind::Run).
    e.kind = ErrorKind::Run;
    out << RunEvent::failure(e);
    return {.keepGoing = false, .settle = false, .end = StreamEnd{StreamEnd::Reason::Error, e, std::nullopt}};
}

A2aRunStream::Verdict A2aRunStream::mapPayload(A2aMapper &tracker, Binding binding, Mode mode,
                                               QByteArrayView type, QByteArrayView data, QList<RunEvent> &out,
                                               ScanMemo *memo)
{
    if (data.trimmed().isEmpty())
        return {};
    // The usual events (a chunk of the answer, a status update) are read without building a
    // QJsonDocument.
    const auto scan = [&] {
        return scanStreamEvent(
            binding, data, ScanHints{tracker.needsIds(), tracker.lastWireState(), tracker.lastArtifactId()},
            memo);
    };
    if (std::optional<ScannedEvent> scanned = type == "error" ? std::nullopt : scan()) {
        if (scanned->kind == ScannedEvent::Kind::ArtifactUpdate) {
            tracker.applyArtifactChunk(scanned->chunk, out);
        } else {
            tracker.applyStatusUpdate(std::move(scanned->status), out);
        }
        return endStateVerdict(tracker);
    }
    const Reply reply = decodeReply(binding, data);
    if (reply.error)
        return mapError(tracker, mode, *reply.error, out);
    if (!reply.malformed.isEmpty() || type == "error") {
        // A broken event loses at most what it carried: a new subscription's snapshot repairs
        // the text, so the engine may reconnect.
        const QString message
            = reply.malformed.isEmpty()
                  ? Text::tr("The agent sent an error event the connector does not understand.")
                  : reply.malformed;
        return {.keepGoing = false,
                .settle = false,
                .end = StreamEnd{StreamEnd::Reason::Error,
                                 RunError::protocol(u"malformed_event"_s, message, true), std::nullopt}};
    }
    const StreamItem item = classify(reply.result);
    if (item.kind == StreamItem::Kind::Unknown)
        return {}; // a newer event kind: skip it
    tracker.apply(item, out);
    return endStateVerdict(tracker);
}

A2aRunStream::Verdict A2aRunStream::endStateVerdict(const A2aMapper &tracker)
{
    if (tracker.isEndState()) {
        return {.keepGoing = false,
                .settle = false,
                .end = StreamEnd{StreamEnd::Reason::Terminal, {}, std::nullopt}};
    }
    return {};
}

A2aRunStream::TrackerState A2aRunStream::stateOf(const A2aMapper &tracker)
{
    return {tracker.taskId(), tracker.contextId(), tracker.isMessageReply(), tracker.isEndState()};
}

void A2aRunStream::follow(const Verdict &verdict)
{
    if (verdict.settle) {
        settleAfterBatch();
    } else if (verdict.end) {
        endAfterBatch(*verdict.end);
    }
}

void A2aRunStream::handleError(const ProtocolError &error)
{
    follow(mapError(m_tracker, m_mode, error, batch()));
}

void A2aRunStream::handlePlainJson()
{
    follow(mapPayload(m_tracker, m_iface.binding, m_mode, "message", m_jsonBody, batch()));
    m_state = stateOf(m_tracker);
}

std::unique_ptr<SseDecoder> A2aRunStream::decoderFor(A2aMapper tracker, Binding binding, Mode mode)
{
    // Everything the mapping needs travels by value: the pump's thread alone uses the decoder.
    class Decoder final : public SseDecoder
    {
    public:
        Decoder(A2aMapper tracker, Binding binding, Mode mode)
            : m_tracker(std::move(tracker))
            , m_binding(binding)
            , m_mode(mode)
        {}

    private:
        bool handleEvent(const SseEvent &event, QList<RunEvent> &out) override
        {
            const Verdict verdict
                = mapPayload(m_tracker, m_binding, m_mode, event.type, event.data, out, &m_memo);
            if (verdict.settle) {
                settleAfterBatch();
            } else if (verdict.end) {
                endAfterBatch(*verdict.end);
            }
            return verdict.keepGoing;
        }
        std::any readerState() const override { return stateOf(m_tracker); }

        A2aMapper m_tracker;
        Binding m_binding;
        Mode m_mode;
        ScanMemo m_memo;
    };
    return std::make_unique<Decoder>(std::move(tracker), binding, mode);
}

std::unique_ptr<SseDecoder> A2aRunStream::makeDecoder()
{
    // Only for an event stream: a plain-JSON reply is read whole by consumeBytes() and bodyEnded().
    return decoderFor(m_tracker, m_iface.binding, m_mode);
}

void A2aRunStream::decoderState(const std::any &state)
{
    if (const auto *tracked = std::any_cast<TrackerState>(&state))
        m_state = *tracked;
}

bool A2aRunStream::consumeBytes(QByteArrayView bytes)
{
    // Only a plain-JSON answer is read here: an event stream goes through the decoder.
    m_jsonBody.append(bytes);
    if (m_jsonBody.size() > kMaxPlainBody) {
        endAfterBatch(
            {StreamEnd::Reason::Error,
             RunError::protocol(u"body_too_large"_s, Text::tr("The agent's reply is larger than 4 MiB.")),
             std::nullopt});
        return false;
    }
    return true;
}

void A2aRunStream::settle()
{
    if (!isFinished())
        settleFromGetTask(StreamEnd::Reason::ResumeRefused, {});
}

void A2aRunStream::bodyEnded()
{
    if (m_plainJson) {
        QPointer<A2aRunStream> self = this;
        handlePlainJson();
        flushBatch();
        if (!self || isFinished())
            return;
        if (isSettling()) {
            settleFromGetTask(StreamEnd::Reason::ResumeRefused, {});
            return;
        }
        if (std::optional<StreamEnd> end = takePendingEnd()) {
            endWith(std::move(*end));
            return;
        }
    }
    endWith(endOfStream());
}

StreamEnd A2aRunStream::endOfStream() const
{
    // The agent closes after a terminal or interrupted state (§0.5); a close anywhere else is a
    // drop: the engine resubscribes and the snapshot fills the gap.
    if (m_state.endState)
        return {StreamEnd::Reason::Terminal, {}, std::nullopt};
    return {StreamEnd::Reason::Eof, {}, std::nullopt};
}

void A2aRunStream::prepareBatch(QList<RunEvent> &events)
{
    if (m_backend)
        m_backend->dropRepeatedItems(events);
    if (events.isEmpty())
        return;
    QString messageReply;
    for (RunEvent &e : events) {
        e.sequence = ++m_sequence;
        if (e.type == RunEvent::Type::Identity && m_state.messageReply)
            messageReply = e.remoteId;
    }
    if (m_backend) {
        if (!m_state.taskId.isEmpty())
            m_backend->rememberTask(m_state.taskId, m_state.contextId);
        if (!messageReply.isEmpty())
            m_backend->rememberMessageReply(messageReply);
    }
}

} // namespace Runwatch
