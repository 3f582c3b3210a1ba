// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/sserunstream.h"
#include "langgraphmapper.h"

#include <QPointer>

namespace Runwatch {

class LangGraphBackend;

namespace LangGraph {

// What a new run needs: its thread (empty: create one), what it runs on and with.
struct Kickoff
{
    QString threadId;
    QString assistant;
    QJsonObject input; // {"input": …}: a start or a follow-up
    QString clientRunId;
    QString title; // the thread's metadata, for the deployment's other clients
    bool stream = true;
};

} // namespace LangGraph

// One exchange that yields a LangGraph run's events: a kickoff (thread, background run, then its
// stream) or a join of a known run from the token's Last-Event-ID. The JS server sends no end
// event and no heartbeat, so a clean close says nothing (§4): after each one the run is read, and
// the stream is joined again until the run is over and a join brings nothing new; then the
// thread's status gives the run's end (an interrupt: input required). Ends with:
//   Terminal       the run is over (completed, failed, cancelled, timed out, or waits for a person)
//   Eof            the run is still going but its stream brought nothing: the engine rejoins later
//   ResumeRefused  not streamed (--no-stream): the engine polls
//   Error          a request failed (retryable or not)
class LangGraphRunStream final : public SseRunStream
{
    Q_OBJECT
public:
    LangGraphRunStream(LangGraphBackend *backend, LangGraph::Kickoff kickoff, QObject *parent);
    LangGraphRunStream(LangGraphBackend *backend, ContinuationToken token, QObject *parent);

private:
    static Options readOptions(std::chrono::milliseconds stallTimeout);

    QCoro::Task<> runKickoff(LangGraph::Kickoff kickoff);
    QCoro::Task<> runJoin();
    QCoro::Task<> afterClose();
    std::unique_ptr<SseDecoder> makeDecoder() override;
    void decoderState(const std::any &state) override;
    void bodyEnded() override;

    QPointer<LangGraphBackend> m_backend;
    ContinuationToken m_token; // thread, run and the last complete event id
    LangGraph::LangGraphMapper m_mapper;
};

} // namespace Runwatch
