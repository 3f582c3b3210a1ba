// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2astream.h"

#include <QJsonObject>
#include <QNetworkReply>

using namespace Qt::StringLiterals;

namespace Runwatch::A2a {

namespace {

// A plain-JSON answer to a stream request is one reply, not a stream: bounded like one event.
constexpr qsizetype kMaxPlainBody = 4 * 1024 * 1024;

bool isEventStream(const HttpResponse &response)
{
    return response.header("content-type").trimmed().toLower().startsWith("text/event-stream");
}

RunError protocolError(const QString &code, const QString &message, bool retryable)
{
    RunError e;
    e.kind = ErrorKind::Protocol;
    e.code = code;
    e.message = message;
    e.retryable = retryable;
    return e;
}

} // namespace

TaskStream::TaskStream(A2aBackend *backend, Mode mode, StartRequest request, ContinuationToken token,
                       QObject *parent)
    : RunStream(parent)
    , m_backend(backend)
    , m_mode(mode)
    , m_request(std::move(request))
    , m_token(std::move(token))
    , m_sequence(mode == Mode::Follow ? std::max<qint64>(m_token.sequence, -1) : -1)
{
    m_stallTimer.setSingleShot(true);
    m_stallTimer.setInterval(backend ? backend->stallTimeout() : std::chrono::milliseconds(120000));
    connect(&m_stallTimer, &QTimer::timeout, this, &TaskStream::onStalled);
    // Start on the next event-loop turn so the owner can connect to our signals first.
    QTimer::singleShot(0, this, [this] { run(); });
}

TaskStream::~TaskStream()
{
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
    }
}

void TaskStream::abort()
{
    if (isFinished())
        return;
    m_aborted = true;
    m_stallTimer.stop();
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    finish({StreamEnd::Reason::Aborted, {}, std::nullopt});
}

QCoro::Task<> TaskStream::run()
{
    QPointer<TaskStream> self = this;
    if (!m_backend || m_aborted)
        co_return;
    const Discovery discovery = co_await m_backend->discover();
    if (!self || m_aborted || !m_backend)
        co_return;
    if (!discovery.ok()) {
        endWith({StreamEnd::Reason::Error, discovery.error, std::nullopt});
        co_return;
    }
    m_iface = *discovery.interface;
    const AgentCard &card = *discovery.card;

    if (m_mode == Mode::Start) {
        const bool streaming = card.streaming && m_request.stream;
        m_tracker = TaskTracker(card.name, streaming);
        if (!streaming) {
            co_await runOneShot(m_iface);
            co_return;
        }
        const QJsonObject params = m_backend->messageParams(m_iface.version, m_request.prompt, {}, {},
                                                            kPromptIdPrefix, false, m_request.clientRunId);
        co_await openStream(m_iface, Operation::SendStreamingMessage, params, false);
        co_return;
    }

    m_tracker = TaskTracker(card.name, card.streaming);
    if (!card.streaming) {
        // Nothing to subscribe to: the engine polls GetTask instead.
        endWith({StreamEnd::Reason::ResumeRefused,
                 protocolError(u"not_streaming"_s, u"The agent does not stream; polling."_s, false),
                 std::nullopt});
        co_return;
    }
    // Built outside the co_await: GCC 12 cannot keep an initializer_list across a suspension.
    QJsonObject params;
    params.insert(u"id"_s, m_token.remoteId);
    co_await openStream(m_iface, Operation::SubscribeToTask, params, false);
}

QCoro::Task<> TaskStream::runOneShot(AgentInterface iface)
{
    QPointer<TaskStream> self = this;
    if (!m_backend) {
        endWith({StreamEnd::Reason::Aborted, {}, std::nullopt});
        co_return;
    }
    // returnImmediately (0.3: blocking:false): a monitoring client polls rather than holding a
    // request open for the whole task (§5.4).
    const QJsonObject params = m_backend->messageParams(iface.version, m_request.prompt, {}, {},
                                                        kPromptIdPrefix, true, m_request.clientRunId);
    const CallResult result = co_await m_backend->call(Operation::SendMessage, params);
    if (!self || m_aborted)
        co_return;
    if (!result.ok()) {
        endWith({StreamEnd::Reason::Error, result.error, result.retryAfterMs});
        co_return;
    }
    const StreamItem item = classify(result.result);
    if (item.kind != StreamItem::Kind::Task && item.kind != StreamItem::Kind::Message) {
        endWith({StreamEnd::Reason::Error,
                 protocolError(u"unexpected_reply"_s,
                               u"The agent answered SendMessage with neither a Task nor a Message."_s, false),
                 std::nullopt});
        co_return;
    }
    m_tracker.apply(item, m_batch);
    emitBatch();
    if (!self || isFinished())
        co_return;
    if (m_tracker.isEndState()) {
        endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
        co_return;
    }
    // The task runs on: the engine follows it by polling GetTask.
    endWith({StreamEnd::Reason::ResumeRefused, {}, std::nullopt});
}

QCoro::Task<> TaskStream::openStream(AgentInterface iface, Operation operation, QJsonObject params,
                                     bool useGet)
{
    QPointer<TaskStream> self = this;
    if (!m_backend) {
        endWith({StreamEnd::Reason::Aborted, {}, std::nullopt});
        co_return;
    }
    HttpRequest request = m_backend->buildRequest(iface, operation, params, useGet);
    // A second SendStreamingMessage would start a second task; subscribing twice is harmless.
    request.idempotent = operation != Operation::SendStreamingMessage;
    HttpClient *http = m_backend->httpClient();
    OpenedStream opened = co_await http->openStream(std::move(request));
    if (!self || m_aborted) {
        if (opened.reply) {
            opened.reply->abort();
            opened.reply->deleteLater();
        }
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
            if (m_refused) {
                m_refused = false;
                co_await settleFromGetTask(StreamEnd::Reason::ResumeRefused, toRunError(*a2aError));
                co_return;
            }
            emitBatch();
            if (!self)
                co_return;
            endWith(m_pendingEnd.value_or(
                StreamEnd{StreamEnd::Reason::Error, toRunError(*a2aError), std::nullopt}));
            co_return;
        }
        endWith({StreamEnd::Reason::Error, response.error, response.retryAfterMs});
        co_return;
    }
    // The reply stays a child of the connection's QNetworkAccessManager: if the backend (and
    // with it the manager) goes first, e.g. when the engine is torn down, the reply goes with it
    // and our QPointer clears, instead of an abort() into a manager that no longer exists.
    m_reply = opened.reply;
    // The JS SDK answers SubscribeToTask on a terminal task with plain JSON, not SSE (§6).
    m_plainJson = !isEventStream(opened.response);
    connect(m_reply, &QNetworkReply::readyRead, this, &TaskStream::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &TaskStream::onReplyFinished);
    m_stallTimer.start();
    if (m_reply->bytesAvailable() > 0)
        onReadyRead();
    if (m_reply && m_reply->isFinished())
        onReplyFinished();
}

QCoro::Task<> TaskStream::settleFromGetTask(StreamEnd::Reason otherwise, RunError why)
{
    QPointer<TaskStream> self = this;
    m_stallTimer.stop();
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    if (!m_backend) {
        endWith({StreamEnd::Reason::Error, why, std::nullopt});
        co_return;
    }
    QJsonObject params{{u"id"_s, m_token.remoteId}};
    const CallResult result = co_await m_backend->call(Operation::GetTask, params);
    if (!self || m_aborted || isFinished())
        co_return;
    if (!result.ok()) {
        endWith({StreamEnd::Reason::Error, result.error, result.retryAfterMs});
        co_return;
    }
    const StreamItem item = classify(result.result);
    if (item.kind != StreamItem::Kind::Task) {
        endWith({StreamEnd::Reason::Error,
                 protocolError(u"unexpected_reply"_s,
                               u"The agent answered GetTask with something that is not a Task."_s, false),
                 std::nullopt});
        co_return;
    }
    m_tracker.apply(item, m_batch);
    emitBatch();
    if (!self || isFinished())
        co_return;
    if (m_tracker.isEndState())
        endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
    else
        endWith({otherwise, why, std::nullopt});
}

bool TaskStream::handleError(const ProtocolError &error)
{
    RunError e = toRunError(error);
    if (!m_tracker.sawTask()) {
        // SubscribeToTask on a terminal task (or on an agent that cannot stream it): the task's
        // end state is one GetTask away.
        if (m_mode == Mode::Follow && error.code == -32004) {
            m_refused = true;
            return false;
        }
        // Nothing exists yet (a refused start) or the task is gone: the request's own error.
        m_pendingEnd = StreamEnd{StreamEnd::Reason::Error, e, std::nullopt};
        return false;
    }
    // Mid-stream: the task has an error. It becomes the run's error; the engine then asks
    // GetTask for the authoritative state (ErrorKind::Run).
    e.kind = ErrorKind::Run;
    m_batch << RunEvent::failure(e);
    m_pendingEnd = StreamEnd{StreamEnd::Reason::Error, e, std::nullopt};
    return false;
}

bool TaskStream::handlePayload(QByteArrayView type, QByteArrayView data)
{
    if (data.trimmed().isEmpty())
        return true;
    if (!m_backend)
        return false;
    const Reply reply = m_backend->decode(m_iface, data.toByteArray(), 200);
    if (reply.error)
        return handleError(*reply.error);
    if (!reply.malformed.isEmpty() || type == "error") {
        // A broken event loses at most what it carried: a new subscription's snapshot repairs
        // the text, so the engine may reconnect.
        QString message = reply.malformed.isEmpty()
                              ? u"The agent sent an error event the connector does not understand."_s
                              : reply.malformed;
        m_pendingEnd = StreamEnd{StreamEnd::Reason::Error, protocolError(u"malformed_event"_s, message, true),
                                 std::nullopt};
        return false;
    }
    const StreamItem item = classify(reply.result);
    if (item.kind == StreamItem::Kind::Unknown)
        return true; // a newer event kind: skip it
    ++m_items;
    m_tracker.apply(item, m_batch);
    if (m_tracker.isEndState()) {
        m_pendingEnd = StreamEnd{StreamEnd::Reason::Terminal, {}, std::nullopt};
        return false;
    }
    return true;
}

bool TaskStream::consume(QByteArrayView bytes)
{
    bool keepGoing = true;
    const bool parsed = m_parser.feed(bytes, [this, &keepGoing](const SseEvent &event) {
        if (keepGoing)
            keepGoing = handlePayload(event.type, event.data);
    });
    if (!parsed && keepGoing) {
        m_pendingEnd
            = StreamEnd{StreamEnd::Reason::Error,
                        protocolError(u"event_too_large"_s, m_parser.errorString(), true), std::nullopt};
        keepGoing = false;
    }
    return keepGoing;
}

void TaskStream::onReadyRead()
{
    if (!m_reply || isFinished())
        return;
    bool keepGoing = true;
    while (keepGoing && m_reply && m_reply->bytesAvailable() > 0) {
        const QByteArray chunk = m_reply->read(256 * 1024);
        if (chunk.isEmpty())
            break;
        if (m_plainJson) {
            m_jsonBody += chunk;
            if (m_jsonBody.size() > kMaxPlainBody) {
                m_pendingEnd = StreamEnd{
                    StreamEnd::Reason::Error,
                    protocolError(u"body_too_large"_s, u"The agent's reply is larger than 4 MiB."_s, false),
                    std::nullopt};
                keepGoing = false;
            }
            continue;
        }
        keepGoing = consume(chunk);
    }
    QPointer<TaskStream> self = this;
    emitBatch();
    if (!self || isFinished())
        return;
    if (m_refused) {
        m_refused = false;
        settleFromGetTask(StreamEnd::Reason::ResumeRefused, {});
        return;
    }
    if (m_pendingEnd)
        endWith(*std::exchange(m_pendingEnd, std::nullopt));
}

void TaskStream::onReplyFinished()
{
    if (!m_reply || isFinished())
        return;
    QPointer<TaskStream> self = this;
    if (m_reply->isOpen() && m_reply->bytesAvailable() > 0)
        onReadyRead();
    if (!self || isFinished() || !m_reply)
        return;
    if (m_reply->error() != QNetworkReply::NoError) {
        RunError e;
        e.kind = m_reply->error() == QNetworkReply::OperationCanceledError ? ErrorKind::Timeout
                                                                           : ErrorKind::Network;
        e.message = e.kind == ErrorKind::Timeout
                        ? u"The stream went silent and timed out."_s
                        : u"The stream was interrupted: %1"_s.arg(m_reply->errorString());
        e.retryable = true;
        endWith({StreamEnd::Reason::Error, e, std::nullopt});
        return;
    }
    if (m_plainJson) {
        handlePayload("message", m_jsonBody);
        emitBatch();
        if (!self || isFinished())
            return;
        if (m_refused) {
            m_refused = false;
            settleFromGetTask(StreamEnd::Reason::ResumeRefused, {});
            return;
        }
        if (m_pendingEnd) {
            endWith(*std::exchange(m_pendingEnd, std::nullopt));
            return;
        }
    }
    endWith(endOfStream());
}

StreamEnd TaskStream::endOfStream() const
{
    // The agent closes after a terminal or interrupted state (§0.5); a close anywhere else is a
    // drop: the engine resubscribes and the snapshot fills the gap.
    if (m_tracker.isEndState())
        return {StreamEnd::Reason::Terminal, {}, std::nullopt};
    return {StreamEnd::Reason::Eof, {}, std::nullopt};
}

void TaskStream::onStalled()
{
    if (isFinished())
        return;
    RunError e;
    e.kind = ErrorKind::Timeout;
    e.code = u"stalled"_s;
    e.message
        = u"No event arrived for %1 s; resubscribing."_s.arg(m_stallTimer.interval() / 1000.0, 0, 'f', 1);
    e.retryable = true;
    endWith({StreamEnd::Reason::Error, e, std::nullopt});
}

void TaskStream::emitBatch()
{
    if (m_backend)
        m_backend->dropRepeatedItems(m_batch);
    if (m_batch.isEmpty())
        return;
    QString messageReply;
    for (RunEvent &e : m_batch) {
        e.sequence = ++m_sequence;
        if (e.type == RunEvent::Type::Identity && m_tracker.isMessageReply())
            messageReply = e.remoteId;
    }
    if (m_backend) {
        if (m_tracker.sawTask())
            m_backend->rememberTask(m_tracker.taskId(), m_tracker.contextId());
        if (!messageReply.isEmpty())
            m_backend->rememberMessageReply(messageReply);
    }
    m_stallTimer.start();
    const QList<RunEvent> batch = std::exchange(m_batch, {});
    Q_EMIT eventsReceived(batch);
}

void TaskStream::endWith(StreamEnd end)
{
    m_stallTimer.stop();
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    finish(std::move(end));
}

} // namespace Runwatch::A2a
