// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/sserunstream.h"
#include "openaimapper.h"

#include <QPointer>

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

    // The SSE decoder of a Responses stream: parses and maps with `mapper` (its cursor drops
    // replayed events), on whichever thread reads the body.
    static std::unique_ptr<SseDecoder> decoderFor(OpenAiMapper mapper);

private:
    QCoro::Task<> run(HttpRequest request);
    std::unique_ptr<SseDecoder> makeDecoder() override;
    void replyGone() override;

    QPointer<HttpClient> m_http;
    Mode m_mode;
    OpenAiMapper m_mapper;
};

} // namespace Runwatch
