// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/sserunstream.h"
#include "foundrymapper.h"

#include <QPointer>

#include <optional>

namespace Runwatch {

class FoundryBackend;

// One exchange with the Foundry service that yields events: creating a thread + run (streamed or
// not), or one poll. A stream is read as it arrives and dispatched on the SSE event name; when
// the run ends on it, the run's messages are read once more and sent as a verifying snapshot, so
// the final text is the service's own. A stream that ends early (`done` without a terminal
// event, a drop) ends with Eof: the protocol cannot resume, the engine polls.
class FoundryRunStream final : public SseRunStream
{
    Q_OBJECT
public:
    enum class Mode {
        CreateStreaming, // POST /threads/runs with stream:true: SSE body
        CreateJson,      // POST /threads/runs without stream: one ThreadRun
        Poll,            // GET …/runs/{r} and the messages (FoundryBackend::get); the token constructor
    };

    // `refused`: fail at once with this error without sending anything.
    FoundryRunStream(FoundryBackend *backend, HttpRequest request, Mode mode,
                     std::chrono::milliseconds stallTimeout, QObject *parent, RunError refused = {});
    // Sent before the create request, which goes out only when this one succeeded: a follow-up's
    // POST /threads/{t}/messages. Set before the event loop turns (the stream starts then).
    void sendFirst(HttpRequest prelude) { m_prelude = std::move(prelude); }
    // Mode::Poll for `token`.
    FoundryRunStream(FoundryBackend *backend, ContinuationToken token, std::chrono::milliseconds stallTimeout,
                     QObject *parent);

private:
    QCoro::Task<> run(HttpRequest request, RunError refused);
    QCoro::Task<> poll(ContinuationToken token);
    QCoro::Task<> reconcile(QString threadId, QString runId);
    // Parses and maps on the stream pump's thread; the mapper's copy comes back after each batch
    // (the run and thread ids settle() and identify() need).
    std::unique_ptr<SseDecoder> makeDecoder() override;
    void decoderState(const std::any &state) override;
    void settle() override;
    void bodyEnded() override;
    void bodyBroken(StreamEnd end) override;
    void replyGone() override;
    // The stream ended before the run's own events: find the run the create started in its
    // thread, so that it is followed instead of failing to start.
    QCoro::Task<> identify(QString threadId, StreamEnd end);

    QPointer<FoundryBackend> m_backend;
    Mode m_mode;
    FoundryMapper m_mapper;
    std::optional<HttpRequest> m_prelude;
};

} // namespace Runwatch
