// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "a2abackend.h"
#include "a2amapper.h"
#include "backends/sserunstream.h"

#include <QPointer>

namespace Runwatch {

namespace A2a {
class ScanMemo; // a2ascan.h
}

// One exchange that yields a task's events: a start (SendStreamingMessage, or SendMessage when
// the agent does not stream) or a follow (SubscribeToTask).
//
// A2A streams carry no sequence numbers and are not replayed (§0.4). Continuity is kept here:
// SubscribeToTask begins with the Task as the agent has it, which the A2aMapper turns into a
// PrimarySnapshot of the whole text so far; later artifact chunks go out as deltas against it.
// The reducer takes a snapshot that extends the run's text without counting a reconciliation,
// so a run that dropped at any event boundary ends with the same text as one that did not.
//
// Events are numbered from the token's sequence + 1 (a connector-local counter, not a server
// position): it keeps the run's cursor moving, which the engine and the CLI read as progress,
// and makes each stream's events distinct for the reducer's duplicate check.
class A2aRunStream final : public SseRunStream
{
    Q_OBJECT
public:
    enum class Mode {
        Start,
        Follow,
    };

    // What this thread needs of the mapping that the decoder does on the stream pump's thread.
    // Not the mapper itself: it holds the whole text, and a copy handed over per read would make
    // the decoder's next append copy all of it again.
    struct TrackerState
    {
        QString taskId;
        QString contextId;
        bool messageReply = false;
        bool endState = false;
    };

    A2aRunStream(A2aBackend *backend, Mode mode, StartRequest request, ContinuationToken token,
                 QObject *parent);
    // Start mode: the prompt opens a new task in this existing conversation (a follow-up), so the
    // agent sees the earlier turns. Set before the event loop turns (the stream starts then).
    void joinContext(const QString &contextId) { m_contextId = contextId; }

    // The SSE decoder of an A2A event stream: parses, decodes the binding's envelope and maps
    // with `tracker`, on whichever thread reads the body (the stream pump's, or this one's behind
    // a proxy). Its readerState() is a TrackerState.
    static std::unique_ptr<SseDecoder> decoderFor(A2aMapper tracker, A2a::Binding binding, Mode mode);

private:
    QCoro::Task<> run();
    QCoro::Task<> runOneShot(A2a::AgentInterface iface);
    QCoro::Task<> openStream(A2a::AgentInterface iface, A2a::Operation operation, QJsonObject params,
                             bool useGet);
    // After SubscribeToTask was refused (-32004 for a terminal task): GetTask tells the end.
    QCoro::Task<> settleFromGetTask(StreamEnd::Reason otherwise, RunError why);
    // The end of a one-reply exchange (SendMessage, GetTask): applies the Task (or, when
    // messageAllowed, the Message) and ends Terminal when the task is done, else `otherwise`.
    void endWithReply(const A2a::CallResult &result, bool messageAllowed, const QString &unexpected,
                      StreamEnd otherwise);

    // How one payload leaves the stream: reading on, or ending it (settling first when `settle`).
    struct Verdict
    {
        bool keepGoing = true;
        bool settle = false;
        std::optional<StreamEnd> end;
    };
    // The mapping rules, shared by the decoder (SSE events, on the stream pump's thread) and this
    // thread (a refused request's error, a plain-JSON answer): one SSE event's data or one JSON
    // body into `out`, and an A2A error in place of the next item.
    // `memo`: the decoder's, for a stream of events (nullptr: one reply).
    static Verdict mapPayload(A2aMapper &tracker, A2a::Binding binding, Mode mode, QByteArrayView type,
                              QByteArrayView data, QList<RunEvent> &out, A2a::ScanMemo *memo = nullptr);
    static Verdict mapError(const A2aMapper &tracker, Mode mode, const A2a::ProtocolError &error,
                            QList<RunEvent> &out);
    static TrackerState stateOf(const A2aMapper &tracker);
    // Reading on, or the end after an end state (terminal, or waiting for a person).
    static Verdict endStateVerdict(const A2aMapper &tracker);

    std::unique_ptr<SseDecoder> makeDecoder() override;
    void decoderState(const std::any &state) override;
    bool consumeBytes(QByteArrayView bytes) override;
    // Drops items the agent repeats, numbers the events and remembers the task for the backend.
    void prepareBatch(QList<RunEvent> &events) override;
    // SubscribeToTask was refused mid-read: GetTask tells the end.
    void settle() override;
    void bodyEnded() override;
    void follow(const Verdict &verdict);
    void handleError(const A2a::ProtocolError &error);
    void handlePlainJson();
    StreamEnd endOfStream() const;

    QPointer<A2aBackend> m_backend;
    Mode m_mode;
    StartRequest m_request;
    ContinuationToken m_token;
    QString m_contextId;
    A2a::AgentInterface m_iface;
    // Maps here what is not an event stream (SendMessage, GetTask, a plain-JSON answer); the
    // decoder maps the events with its own copy, made when reading starts.
    A2aMapper m_tracker;
    TrackerState m_state;  // of whichever mapped last
    QByteArray m_jsonBody; // a stream request answered with plain JSON (e.g. an error)
    qint64 m_sequence = -1;
    bool m_plainJson = false;
};

} // namespace Runwatch
