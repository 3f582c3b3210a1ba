// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/sserunstream.h"
#include "openaimapper.h"

#include <QPointer>

#include <optional>

namespace Runwatch {

// One exchange with /responses that yields events: a create (streaming or not) or a
// GET ?stream=true resume. Reads the SSE body as it arrives and emits one batch per read.
class OpenAiRunStream final : public SseRunStream
{
    Q_OBJECT
public:
    enum class Mode {
        CreateStreaming, // POST /responses with stream:true: SSE body
        CreateJson,      // POST /responses without stream: one Response object
        Resume,          // GET /responses/{id}?stream=true[&starting_after=N]
    };

    OpenAiRunStream(HttpClient *http, HttpRequest request, Mode mode, OpenAiMapper mapper,
                    std::chrono::milliseconds stallTimeout, QObject *parent);

    // A Foundry agent's first turn: `request` (POST /conversations) runs first, and the create
    // request goes out with the new conversation's id as its `conversation`. Before the stream
    // starts (the next event-loop turn).
    void createConversationFirst(HttpRequest request) { m_conversation = std::move(request); }
    // Nothing is sent: the stream ends with `error` (a request the connector found wrong).
    void refuse(RunError error) { m_refusal = std::move(error); }

    // The SSE decoder of a Responses stream: parses and maps with `mapper` (its cursor drops
    // replayed events), on whichever thread reads the body.
    static std::unique_ptr<SseDecoder> decoderFor(OpenAiMapper mapper);

private:
    QCoro::Task<> run(HttpRequest request);
    // The create was refused because the agent does not take `background` or `stream` (a 400
    // naming the parameter, foundry-agents-and-gemini.md §1.4): drops it from `request`, notes
    // why, and says whether to send again. Each parameter once, and never both (then `refusal`'s
    // message says why not).
    bool dropRefusedParameter(HttpRequest &request, HttpResponse &refusal);
    void prepareBatch(QList<RunEvent> &batch) override;
    // Creates the conversation and names it in `request`'s body; false when the stream ended.
    QCoro::Task<bool> withNewConversation(HttpRequest &request);
    std::unique_ptr<SseDecoder> makeDecoder() override;
    void replyGone() override;

    QPointer<HttpClient> m_http;
    Mode m_mode;
    OpenAiMapper m_mapper;
    std::optional<HttpRequest> m_conversation;
    std::optional<RunError> m_refusal;
    // Why the run is followed otherwise than asked (dropRefusedParameter()): shown once on the
    // run, with its first events.
    QList<RunEvent> m_notes;
};

} // namespace Runwatch
