// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "a2abackend.h"
#include "a2amapper.h"
#include "backends/sserunstream.h"

#include <QPointer>

namespace Runwatch {

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

    A2aRunStream(A2aBackend *backend, Mode mode, StartRequest request, ContinuationToken token,
                 QObject *parent);
    // Start mode: the prompt opens a new task in this existing conversation (a follow-up), so the
    // agent sees the earlier turns. Set before the event loop turns (the stream starts then).
    void joinContext(const QString &contextId) { m_contextId = contextId; }

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

    bool handleEvent(const SseEvent &event) override { return handlePayload(event.type, event.data); }
    bool consumeBytes(QByteArrayView bytes) override;
    // Drops items the agent repeats, numbers the events and remembers the task for the backend.
    void prepareBatch(QList<RunEvent> &events) override;
    // SubscribeToTask was refused mid-read: GetTask tells the end.
    void settle() override;
    void bodyEnded() override;
    // One SSE event or one plain JSON body; false when the stream must end.
    bool handlePayload(QByteArrayView type, QByteArrayView data);
    bool handleError(const A2a::ProtocolError &error);
    StreamEnd endOfStream() const;

    QPointer<A2aBackend> m_backend;
    Mode m_mode;
    StartRequest m_request;
    ContinuationToken m_token;
    QString m_contextId;
    A2a::AgentInterface m_iface;
    A2aMapper m_tracker;
    QByteArray m_jsonBody; // a stream request answered with plain JSON (e.g. an error)
    qint64 m_sequence = -1;
    int m_items = 0;
    bool m_plainJson = false;
};

} // namespace Runwatch
