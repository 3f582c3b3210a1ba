// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/runbackend.h"
#include "enginerig.h"

#include <QElapsedTimer>
#include <QList>
#include <QPointer>
#include <QTimer>

#include <array>
#include <chrono>
#include <coroutine>
#include <optional>

namespace RunwatchTest {

// One stream the fake hands out: the batches it delivers (one eventsReceived each, `interval`
// apart, the first `interval` after it was opened), then how it ends.
struct FakeStreamScript
{
    QList<QList<Runwatch::RunEvent>> batches;
    std::chrono::milliseconds interval{0};
    // After the last batch; nullopt: the stream stays open, silent, until it is aborted.
    std::optional<Runwatch::StreamEnd> end
        = Runwatch::StreamEnd{Runwatch::StreamEnd::Reason::Terminal, {}, {}};

    // A stream that delivers `batches` and then ends for `reason` (with `error` for Error ends).
    static FakeStreamScript ending(QList<QList<Runwatch::RunEvent>> batches,
                                   Runwatch::StreamEnd::Reason reason, Runwatch::RunError error = {},
                                   std::optional<qint64> retryAfterMs = {});
    // A stream that delivers `batches` and then stays open until aborted.
    static FakeStreamScript open(QList<QList<Runwatch::RunEvent>> batches = {});
};

// One answer to get/cancel/remove/respond. Every answer arrives from the event loop, never
// inside the call, as a network reply would.
struct FakeAnswer
{
    Runwatch::ActionResult result;
    std::chrono::milliseconds delay{0};
    bool held = false; // answered only by FakeBackend::releaseHeld(), or as Cancelled by shutdown

    static FakeAnswer ok(QList<Runwatch::RunEvent> events = {}, std::optional<qint64> retryAfterMs = {});
    static FakeAnswer failed(Runwatch::RunError error);
    static FakeAnswer holding(Runwatch::ActionResult result = {});
};

namespace detail {
class PendingAnswer;
class FakeRunStream;
} // namespace detail

// A RunBackend whose every answer a test scripts, and that records every call with its time.
// It gives the engine (RunManager) unit tests that need no network and no simulator: streams
// that deliver scripted RunEvents and then end, drop or stay open; one-shot requests answered
// after a delay or held until the test (or shutdown) releases them.
//
// Unscripted calls get the default: a stream that stays open, an ok answer without events.
class FakeBackend : public Runwatch::RunBackend
{
    Q_OBJECT
public:
    enum class Op { Start, Follow, Get, Cancel, Remove, Respond, List, ForceCancel };
    Q_ENUM(Op)

    struct Call
    {
        Op op = Op::Get;
        qint64 atMs = 0;        // since the backend was made
        qint64 answeredMs = -1; // one-shot requests: when the caller was resumed with the answer
        Runwatch::ContinuationToken token;
        Runwatch::StartRequest request;              // Start
        std::optional<Runwatch::InputAnswer> answer; // Respond
    };

    struct StreamRecord
    {
        Op op = Op::Start; // Start or Follow
        qint64 openedMs = 0;
        qint64 endedMs = -1;
        std::optional<Runwatch::StreamEnd::Reason> reason; // how it ended, once it has
        int batchesDelivered = 0;
    };

    explicit FakeBackend(QObject *parent = nullptr);
    ~FakeBackend() override;

    // --- the script
    void setCapabilities(Runwatch::Capabilities capabilities) { m_capabilities = capabilities; }
    void queueStart(FakeStreamScript script) { m_startScripts.append(std::move(script)); }
    void queueFollow(FakeStreamScript script) { m_followScripts.append(std::move(script)); }
    // For Get, Cancel, ForceCancel, Remove and Respond: the next answers, in order.
    void queueAnswer(Op op, FakeAnswer answer);
    // For Get, Cancel, Remove and Respond: the answer once the queue is empty.
    void setDefaultAnswer(Op op, FakeAnswer answer);
    void setListResult(Runwatch::ListResult result) { m_listResult = std::move(result); }
    // Answers every held request, oldest first, with its scripted result.
    void releaseHeld();

    // --- what happened
    QList<Call> calls() const { return m_calls; }
    QList<Call> calls(Op op) const;
    int count(Op op) const;
    QList<StreamRecord> streams() const { return m_streams; }
    int openStreams() const;
    // One-shot requests whose caller has not yet been resumed with an answer.
    int inFlight() const { return int(m_pending.size()); }
    // The most one-shot requests of one kind that were in flight at once.
    int maxInFlight(Op op) const { return m_maxInFlight.at(index(op)); }
    bool isShutDown() const { return m_shutDown; }
    qint64 elapsedMs() const { return m_clock.elapsed(); }
    // Requests of every fake, live or destroyed, whose caller's frame has not yet unwound: 0
    // once every coroutine that awaited a fake has run to its end (what LeakSanitizer wants).
    static int liveRequests();

    // --- RunBackend
    QString kind() const override;
    Runwatch::Capabilities capabilities() const override { return m_capabilities; }
    Runwatch::RunStream *start(Runwatch::StartRequest request, QObject *parent) override;
    Runwatch::RunStream *follow(Runwatch::ContinuationToken token, QObject *parent) override;
    QCoro::Task<Runwatch::ActionResult> get(Runwatch::ContinuationToken token) override;
    QCoro::Task<Runwatch::ActionResult> cancel(Runwatch::ContinuationToken token) override;
    QCoro::Task<Runwatch::ActionResult> forceCancel(Runwatch::ContinuationToken token) override;
    QCoro::Task<Runwatch::ActionResult> remove(Runwatch::ContinuationToken token) override;
    QCoro::Task<Runwatch::ActionResult> respond(Runwatch::ContinuationToken token,
                                                Runwatch::InputAnswer answer) override;
    QCoro::Task<Runwatch::ListResult> list() override;
    QCoro::Task<> shutdown() override
    {
        cutShort();
        co_return;
    }

    // What shutdown() does: refuses every later call, ends every open stream and answers every
    // request in flight with Cancelled, all on the next event-loop turn.
    void cutShort();
    static Runwatch::RunError cancelledError();

Q_SIGNALS:
    void called(RunwatchTest::FakeBackend::Op op);

private:
    friend class detail::PendingAnswer;
    friend class detail::FakeRunStream;

    static constexpr std::size_t kOps = 8;
    static std::size_t index(Op op) { return std::size_t(op); }

    qsizetype record(Call call);
    Runwatch::RunStream *openStream(Op op, FakeStreamScript script, QObject *parent);
    FakeAnswer takeAnswer(Op op);
    QCoro::Task<Runwatch::ActionResult> answer(Op op, Runwatch::ContinuationToken token,
                                               std::optional<Runwatch::InputAnswer> input);
    void streamEnded(qsizetype record, Runwatch::StreamEnd::Reason reason);

    Runwatch::Capabilities m_capabilities;
    QList<FakeStreamScript> m_startScripts;
    QList<FakeStreamScript> m_followScripts;
    std::array<QList<FakeAnswer>, kOps> m_answers;
    std::array<FakeAnswer, kOps> m_defaults;
    std::array<int, kOps> m_maxInFlight{};
    Runwatch::ListResult m_listResult;
    QList<Call> m_calls;
    QList<StreamRecord> m_streams;
    QList<QPointer<detail::FakeRunStream>> m_openStreams;
    QList<detail::PendingAnswer *> m_pending; // in the order the requests came
    QElapsedTimer m_clock;
    bool m_shutDown = false;
};

namespace detail {

// A scripted RunStream. abort() ends it at once, as SseRunStream does.
class FakeRunStream final : public Runwatch::RunStream
{
    Q_OBJECT
public:
    FakeRunStream(FakeBackend *backend, qsizetype record, FakeStreamScript script, QObject *parent);
    void abort() override;
    // Ends the stream with `end` on the next event-loop turn (unless it ends before).
    void endSoon(Runwatch::StreamEnd end);

private:
    void deliverNext();
    void end(Runwatch::StreamEnd end);

    QPointer<FakeBackend> m_backend;
    qsizetype m_record;
    FakeStreamScript m_script;
    qsizetype m_next = 0;
    QTimer m_timer;
};

// One request the fake has not answered yet. Lives in the frame of the coroutine that awaits
// it; the caller is resumed from the event loop, never inside settle().
class PendingAnswer final : public QObject
{
public:
    PendingAnswer(FakeBackend *backend, FakeBackend::Op op, FakeAnswer answer);
    ~PendingAnswer() override;

    struct Awaiter
    {
        PendingAnswer *pending;
        bool await_ready() const noexcept { return false; }
        void await_suspend(std::coroutine_handle<> handle) noexcept;
        Runwatch::ActionResult await_resume() const { return *pending->m_result; }
    };
    Awaiter done() { return Awaiter{this}; }

    bool isHeld() const { return m_answer.held && !m_result; }
    const FakeAnswer &scripted() const { return m_answer; }
    FakeBackend::Op op() const { return m_op; }
    // The answer the caller gets; later calls are ignored.
    void settle(Runwatch::ActionResult result);

private:
    void resumeSoon();

    QPointer<FakeBackend> m_backend;
    FakeBackend::Op m_op;
    FakeAnswer m_answer;
    QTimer m_timer;
    std::optional<Runwatch::ActionResult> m_result;
    std::coroutine_handle<> m_waiter;
};

} // namespace detail

// What a streaming FakeBackend can do unless a test says otherwise.
inline const Runwatch::Capabilities kFakeStreaming
    = Runwatch::Capability::Start | Runwatch::Capability::Get | Runwatch::Capability::Stream
      | Runwatch::Capability::ResumeStream | Runwatch::Capability::Cancel | Runwatch::Capability::Delete
      | Runwatch::Capability::Respond;

// What scripts for a FakeBackend send: the run's identity (model "fake-model"), a status change,
// an error.
Runwatch::RunEvent identity(const QString &remoteId, qint64 seq, bool streamable = true);
Runwatch::RunEvent status(Runwatch::RunStatus s, qint64 seq = -1);
Runwatch::RunError error(Runwatch::ErrorKind kind, const QString &message, bool retryable);

// The engine with one connection, "fake", to a FakeBackend (`backend`) with `capabilities`.
struct FakeRig : EngineRig
{
    explicit FakeRig(Runwatch::Capabilities capabilities = kFakeStreaming,
                     const Runwatch::FollowPolicy &policy = quickFollowPolicy());

    FakeBackend *backend = nullptr;
};

} // namespace RunwatchTest
