// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/agentsessions/sessiongate.h"
#include "backends/sserunstream.h"

#include <QPointer>

#include <memory>

namespace Runwatch {

class ClaudeAgentsBackend;

// One follow of a session's turn (agent-sessions.md §2.6, the SDK's SessionToolRunner): the live
// stream is opened first and held, then — for a new turn — the user.message is sent, then the
// event log is read whole; the turn's state from the log and what the stream brought meanwhile
// are applied in that order, each event id once (AgentSessions::SessionGate), and the stream goes
// on live. Ends with:
//   Terminal       the turn ended (completed, failed, cancelled), waits for a person, or the
//                  session was deleted
//   Eof            the stream closed before that: the engine follows again (same catch-up)
//   ResumeRefused  not streamed (--no-stream): the engine reads the turn (get()) until it ends
//   Error          a request failed (retryable or not)
class ClaudeAgentsRunStream final : public SseRunStream
{
    Q_OBJECT
public:
    // What a new turn needs: its session (empty: create one on `agent`), its message.
    struct Kickoff
    {
        QString sessionId;
        QString agent;
        QString prompt;
        QString clientRunId;
        bool stream = true;
    };

    ClaudeAgentsRunStream(ClaudeAgentsBackend *backend, Kickoff kickoff, QObject *parent);
    ClaudeAgentsRunStream(ClaudeAgentsBackend *backend, ContinuationToken token, QObject *parent);

    // The SSE decoder of a session's stream: hands each event to `gate`, ends the stream once the
    // turn is over. Runs on whichever thread reads the body.
    static std::unique_ptr<SseDecoder> decoderFor(std::shared_ptr<AgentSessions::SessionGate> gate);

private:
    static Options readOptions(std::chrono::milliseconds stallTimeout);

    QCoro::Task<> runKickoff(Kickoff kickoff);
    QCoro::Task<> runFollow();
    // Reads the event log, opens the gate with it, delivers the turn, and reads the stream on
    // (or ends, when the turn is over already).
    QCoro::Task<> catchUp(OpenedStream opened);
    std::unique_ptr<SseDecoder> makeDecoder() override;
    void replyGone() override;

    QPointer<ClaudeAgentsBackend> m_backend;
    QString m_sessionId;
    std::shared_ptr<AgentSessions::SessionGate> m_gate;
};

} // namespace Runwatch
