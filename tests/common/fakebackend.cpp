// SPDX-License-Identifier: GPL-3.0-or-later
#include "fakebackend.h"

#include <QTest>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace Runwatch;

namespace RunwatchTest {

namespace {
int g_liveRequests = 0; // GUI thread only, as the engine
} // namespace

FakeStreamScript FakeStreamScript::ending(QList<QList<RunEvent>> batches, StreamEnd::Reason reason,
                                          RunError error, std::optional<qint64> retryAfterMs)
{
    FakeStreamScript script;
    script.batches = std::move(batches);
    script.end = StreamEnd{reason, std::move(error), retryAfterMs};
    return script;
}

FakeStreamScript FakeStreamScript::open(QList<QList<RunEvent>> batches)
{
    FakeStreamScript script;
    script.batches = std::move(batches);
    script.end.reset();
    return script;
}

FakeAnswer FakeAnswer::ok(QList<RunEvent> events, std::optional<qint64> retryAfterMs)
{
    FakeAnswer a;
    a.result.events = std::move(events);
    a.result.retryAfterMs = retryAfterMs;
    return a;
}

FakeAnswer FakeAnswer::failed(RunError error)
{
    FakeAnswer a;
    a.result.error = std::move(error);
    return a;
}

FakeAnswer FakeAnswer::holding(ActionResult result)
{
    FakeAnswer a;
    a.result = std::move(result);
    a.held = true;
    return a;
}

// ---------------------------------------------------------------------------------------------

FakeBackend::FakeBackend(QObject *parent)
    : RunBackend(parent)
    , m_capabilities(Capability::Start | Capability::Get | Capability::Stream | Capability::ResumeStream
                     | Capability::Cancel | Capability::Delete | Capability::Respond)
{
    m_clock.start();
}

FakeBackend::~FakeBackend()
{
    // No caller may stay suspended on a backend that is gone (it would never be resumed).
    cutShort();
}

int FakeBackend::liveRequests()
{
    return g_liveRequests;
}

QString FakeBackend::kind() const
{
    return u"fake"_s;
}

RunError FakeBackend::cancelledError()
{
    RunError error;
    error.kind = ErrorKind::Cancelled;
    error.message = u"The fake backend was shut down."_s;
    return error;
}

void FakeBackend::queueAnswer(Op op, FakeAnswer answer)
{
    m_answers.at(index(op)).append(std::move(answer));
}

void FakeBackend::setDefaultAnswer(Op op, FakeAnswer answer)
{
    m_defaults.at(index(op)) = std::move(answer);
}

void FakeBackend::releaseHeld()
{
    const QList<detail::PendingAnswer *> pending = m_pending;
    for (detail::PendingAnswer *p : pending) {
        if (p->isHeld())
            p->settle(p->scripted().result);
    }
}

QList<FakeBackend::Call> FakeBackend::calls(Op op) const
{
    QList<Call> out;
    std::copy_if(m_calls.cbegin(), m_calls.cend(), std::back_inserter(out),
                 [op](const Call &c) { return c.op == op; });
    return out;
}

int FakeBackend::count(Op op) const
{
    return int(std::count_if(m_calls.cbegin(), m_calls.cend(), [op](const Call &c) { return c.op == op; }));
}

int FakeBackend::openStreams() const
{
    return int(std::count_if(m_openStreams.cbegin(), m_openStreams.cend(),
                             [](const QPointer<detail::FakeRunStream> &s) { return s && !s->isFinished(); }));
}

qsizetype FakeBackend::record(Call call)
{
    call.atMs = elapsedMs();
    const Op op = call.op;
    m_calls.append(std::move(call));
    Q_EMIT called(op);
    return m_calls.size() - 1;
}

RunStream *FakeBackend::start(StartRequest request, QObject *parent)
{
    Call call;
    call.op = Op::Start;
    call.request = std::move(request);
    record(std::move(call));
    return openStream(
        Op::Start, m_startScripts.isEmpty() ? FakeStreamScript::open() : m_startScripts.takeFirst(), parent);
}

RunStream *FakeBackend::follow(ContinuationToken token, QObject *parent)
{
    Call call;
    call.op = Op::Follow;
    call.token = std::move(token);
    record(std::move(call));
    return openStream(Op::Follow,
                      m_followScripts.isEmpty() ? FakeStreamScript::open() : m_followScripts.takeFirst(),
                      parent);
}

RunStream *FakeBackend::openStream(Op op, FakeStreamScript script, QObject *parent)
{
    StreamRecord rec;
    rec.op = op;
    rec.openedMs = elapsedMs();
    m_streams.append(rec);
    if (m_shutDown)
        script = FakeStreamScript::ending({}, StreamEnd::Reason::Error, cancelledError());
    auto *stream = new detail::FakeRunStream(this, m_streams.size() - 1, std::move(script), parent);
    m_openStreams.append(stream);
    return stream;
}

void FakeBackend::streamEnded(qsizetype record, StreamEnd::Reason reason)
{
    StreamRecord &rec = m_streams[record];
    rec.endedMs = elapsedMs();
    rec.reason = reason;
}

FakeAnswer FakeBackend::takeAnswer(Op op)
{
    if (m_shutDown)
        return FakeAnswer::failed(cancelledError());
    QList<FakeAnswer> &queue = m_answers.at(index(op));
    return queue.isEmpty() ? m_defaults.at(index(op)) : queue.takeFirst();
}

QCoro::Task<ActionResult> FakeBackend::get(ContinuationToken token)
{
    return answer(Op::Get, std::move(token), std::nullopt);
}

QCoro::Task<ActionResult> FakeBackend::cancel(ContinuationToken token)
{
    return answer(Op::Cancel, std::move(token), std::nullopt);
}

QCoro::Task<ActionResult> FakeBackend::forceCancel(ContinuationToken token)
{
    return answer(Op::ForceCancel, std::move(token), std::nullopt);
}

QCoro::Task<ActionResult> FakeBackend::remove(ContinuationToken token)
{
    return answer(Op::Remove, std::move(token), std::nullopt);
}

QCoro::Task<ActionResult> FakeBackend::respond(ContinuationToken token, InputAnswer answer)
{
    return this->answer(Op::Respond, std::move(token), std::move(answer));
}

QCoro::Task<ListResult> FakeBackend::list()
{
    Call call;
    call.op = Op::List;
    record(std::move(call));
    co_return m_listResult;
}

QCoro::Task<ActionResult> FakeBackend::answer(Op op, ContinuationToken token,
                                              std::optional<InputAnswer> input)
{
    const QPointer<FakeBackend> self = this;
    Call call;
    call.op = op;
    call.token = std::move(token);
    call.answer = std::move(input);
    const qsizetype at = record(std::move(call));
    detail::PendingAnswer pending(this, op, takeAnswer(op));
    ActionResult result = co_await pending.done();
    // The backend may have been destroyed while the request was held.
    if (self)
        self->m_calls[at].answeredMs = self->elapsedMs();
    co_return result;
}

void FakeBackend::cutShort()
{
    m_shutDown = true;
    for (const QPointer<detail::FakeRunStream> &stream : std::as_const(m_openStreams)) {
        if (stream && !stream->isFinished())
            stream->endSoon(StreamEnd{StreamEnd::Reason::Error, cancelledError(), std::nullopt});
    }
    const QList<detail::PendingAnswer *> pending = m_pending;
    ActionResult cancelled;
    cancelled.error = cancelledError();
    for (detail::PendingAnswer *p : pending)
        p->settle(cancelled);
}

// ---------------------------------------------------------------------------------------------

namespace detail {

FakeRunStream::FakeRunStream(FakeBackend *backend, qsizetype record, FakeStreamScript script, QObject *parent)
    : RunStream(parent)
    , m_backend(backend)
    , m_record(record)
    , m_script(std::move(script))
{
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &FakeRunStream::deliverNext);
    // Never from inside start()/follow(): the engine connects to the stream after they return.
    if (!m_script.batches.isEmpty() || m_script.end)
        m_timer.start(m_script.interval);
}

void FakeRunStream::abort()
{
    end(StreamEnd{StreamEnd::Reason::Aborted, {}, std::nullopt});
}

void FakeRunStream::endSoon(StreamEnd end)
{
    m_timer.stop();
    QTimer::singleShot(0, this, [this, end] { this->end(end); });
}

void FakeRunStream::deliverNext()
{
    if (isFinished())
        return;
    if (m_next < m_script.batches.size()) {
        const QPointer<FakeRunStream> self = this;
        const QList<RunEvent> batch = m_script.batches.at(m_next++);
        if (m_backend)
            ++m_backend->m_streams[m_record].batchesDelivered;
        Q_EMIT eventsReceived(batch);
        // A receiver may have aborted (or deleted) the stream.
        if (!self || isFinished())
            return;
    }
    if (m_next < m_script.batches.size()) {
        m_timer.start(m_script.interval);
        return;
    }
    if (m_script.end)
        end(*m_script.end);
}

void FakeRunStream::end(StreamEnd end)
{
    if (isFinished())
        return;
    m_timer.stop();
    if (m_backend)
        m_backend->streamEnded(m_record, end.reason);
    finish(std::move(end));
}

PendingAnswer::PendingAnswer(FakeBackend *backend, FakeBackend::Op op, FakeAnswer answer)
    : m_backend(backend)
    , m_op(op)
    , m_answer(std::move(answer))
{
    ++g_liveRequests;
    backend->m_pending.append(this);
    const auto same = std::count_if(backend->m_pending.cbegin(), backend->m_pending.cend(),
                                    [op](const PendingAnswer *p) { return p->m_op == op; });
    int &most = backend->m_maxInFlight.at(FakeBackend::index(op));
    most = std::max(most, int(same));
    if (m_answer.held)
        return;
    m_timer.setSingleShot(true);
    // A coarse timer may fire up to 5 % early; tests measure the engine's pace against these.
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, [this] { settle(m_answer.result); });
    m_timer.start(m_answer.delay);
}

PendingAnswer::~PendingAnswer()
{
    --g_liveRequests;
    if (m_backend)
        m_backend->m_pending.removeOne(this);
}

void PendingAnswer::Awaiter::await_suspend(std::coroutine_handle<> handle) noexcept
{
    pending->m_waiter = handle;
    if (pending->m_result)
        pending->resumeSoon();
}

void PendingAnswer::settle(ActionResult result)
{
    if (m_result)
        return;
    m_timer.stop();
    m_result = std::move(result);
    if (m_waiter)
        resumeSoon();
}

void PendingAnswer::resumeSoon()
{
    // From the event loop, as a reply's signal would: the caller's frame owns this object, and
    // we may be inside this object's timer or inside the backend's loop over its requests.
    const auto handle = std::exchange(m_waiter, {});
    QTimer::singleShot(0, [handle] { handle.resume(); });
}

} // namespace detail

FakeRig::FakeRig(Runwatch::Capabilities capabilities, const Runwatch::FollowPolicy &policy)
{
    manager.setBackendFactory([](const Runwatch::Connection &, QObject *parent) -> Runwatch::RunBackend * {
        return new FakeBackend(parent);
    });
    manager.setFollowPolicy(policy);
    QVERIFY(addConnection(plainConnection(QStringLiteral("fake"), QStringLiteral("fake"), QUrl())));
    backend = qobject_cast<FakeBackend *>(manager.backend(QStringLiteral("fake")));
    QVERIFY(backend);
    backend->setCapabilities(capabilities);
}

RunEvent identity(const QString &remoteId, qint64 seq, bool streamable)
{
    return RunEvent::identity(remoteId, u"fake-model"_s, streamable, seq);
}

RunEvent status(RunStatus s, qint64 seq)
{
    return RunEvent::statusChange(s, statusName(s), seq);
}

RunError error(ErrorKind kind, const QString &message, bool retryable)
{
    RunError e;
    e.kind = kind;
    e.message = message;
    e.retryable = retryable;
    return e;
}

} // namespace RunwatchTest
