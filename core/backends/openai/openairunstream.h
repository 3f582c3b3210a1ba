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

private:
    QCoro::Task<> run(HttpRequest request);
    bool handleEvent(const SseEvent &event) override;
    void replyGone() override;

    QPointer<HttpClient> m_http;
    Mode m_mode;
    OpenAiMapper m_mapper;
};

} // namespace Runwatch
