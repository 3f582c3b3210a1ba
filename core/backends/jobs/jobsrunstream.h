// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/sserunstream.h"
#include "jobsmapper.h"

#include <QPointer>

namespace Runwatch {

class JobsBackend;

namespace Jobs {

// What a kickoff needs: the prepared POST (its Idempotency-Key is fixed for every retry) and what
// rediscovery looks for when no reply arrives.
struct Kickoff
{
    HttpRequest request;
    QString idempotencyKey;
    QString clientRunId;
    bool stream = true; // follow events when the job offers them; false: poll
};

} // namespace Jobs

// One exchange that yields a job's events: a kickoff (then, when the job offers events, its event
// stream), or the event stream alone from a Last-Event-ID. Events are emitted one batch per
// network read. Ends with:
//   Terminal       the job finished (done event, terminal kickoff reply)
//   ResumeRefused  the job has no event stream (or refused it): the engine polls instead
//   Eof            the stream closed before `done`: reconnect (retryAfterMs = the retry: field)
//   Error          kickoff or stream failed, or a malformed event
class JobsRunStream final : public SseRunStream
{
    Q_OBJECT
public:
    // Kickoff, then events.
    JobsRunStream(JobsBackend *backend, Jobs::Kickoff kickoff, std::chrono::milliseconds stallTimeout,
                  QObject *parent);
    // Events of a known job from `token`'s position.
    JobsRunStream(JobsBackend *backend, ContinuationToken token, std::chrono::milliseconds stallTimeout,
                  QObject *parent);

private:
    static Options readOptions(std::chrono::milliseconds stallTimeout);

    QCoro::Task<> runKickoff(Jobs::Kickoff kickoff);
    QCoro::Task<> runEvents(QUrl url, QString lastEventId);
    QCoro::Task<> finishDone();
    // Parses and maps on the stream pump's thread; the mapper's copy comes back after each batch
    // (the held-back `done` events and result URL finishDone() needs).
    std::unique_ptr<SseDecoder> makeDecoder() override;
    void decoderState(const std::any &state) override;
    // The `done` event arrived (the rest of the body is irrelevant): fetch a result that did not
    // fit in it, then Terminal.
    void settle() override { finishDone(); }

    QPointer<JobsBackend> m_backend;
    JobsMapper m_mapper;
    QString m_jobId;
    QUrl m_resultUrl;
};

} // namespace Runwatch
