// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/agentsessions/sessiongate.h"
#include "backends/sserunstream.h"

#include <QPointer>

#include <memory>

namespace Runwatch {

class OpenAiAgentsBackend;

// One follow of a session's turn (agent-sessions.md §1.6). A new session is created with its
// stream (POST /agents/sessions, stream: true): the session's events from its first, the run's turn
// the first it starts. A follow-up opens the session's stream first and holds it, reads the saved
// turns and items, sends the message, and its turn is the next the stream starts
// (AgentSessions::SessionTurn::followNextTurn()). A reattach opens the stream, reads the history,
// and applies the history, then what the stream brought meanwhile, each id once
// (AgentSessions::SessionGate). Ends with:
//   Terminal       the turn ended (completed, failed, cancelled), or waits for a person
//   Eof            the stream closed before that: the engine follows again (same catch-up)
//   ResumeRefused  not streamed (--no-stream): the engine reads the turn (get()) until it ends
//   Error          a request failed (retryable or not)
class OpenAiAgentsRunStream final : public SseRunStream
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

    OpenAiAgentsRunStream(OpenAiAgentsBackend *backend, Kickoff kickoff, QObject *parent);
    OpenAiAgentsRunStream(OpenAiAgentsBackend *backend, ContinuationToken token, QObject *parent);

    // The SSE decoder of a session's stream: hands each event to `gate`, announces the session a
    // create stream made, ends the stream once the turn is over. Runs on whichever thread reads
    // the body.
    static std::unique_ptr<SseDecoder> decoderFor(std::shared_ptr<AgentSessions::SessionGate> gate);

private:
    static Options readOptions(std::chrono::milliseconds stallTimeout);

    QCoro::Task<> runCreate(Kickoff kickoff);
    QCoro::Task<> runFollowUp(Kickoff kickoff);
    QCoro::Task<> runFollow();
    // The turn a message just sent started, found in the session's turns (for a follow-up that
    // is not streamed, or whose stream failed): the newest root turn that is not `previous`.
    QCoro::Task<QString> newTurn(QString previous);
    std::unique_ptr<SseDecoder> makeDecoder() override;
    void replyGone() override;

    QPointer<OpenAiAgentsBackend> m_backend;
    QString m_sessionId;
    std::shared_ptr<AgentSessions::SessionGate> m_gate;
};

} // namespace Runwatch
