// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/gemini/geminimapper.h"
#include "backends/sserunstream.h"

#include <QPointer>

#include <optional>

namespace Runwatch {

class GeminiBackend;

// One exchange with the Interactions API that yields events: a create (streamed, or not: one
// interaction object) or a resume (GET /interactions/{id}?stream=true&last_event_id=E). Ends with:
//   Terminal       interaction.completed: the interaction ended or waits for function results
//   Eof            the stream ended before that (a drop, or the service cut it with a
//                  gateway_timeout error event): the engine resumes from the last event id
//   ResumeRefused  not streamed (--no-stream), or the service will not stream it: the engine polls
//   Error          a request failed; an `error` event without the interaction's end is a Run
//                  error, after which the engine reads the interaction's status
class GeminiRunStream final : public SseRunStream
{
    Q_OBJECT
public:
    enum class Mode {
        CreateStreaming, // POST /interactions with stream:true: SSE body
        CreateJson,      // POST /interactions with stream:false: the interaction object
        Resume,          // GET /interactions/{id}?stream=true[&last_event_id=E]
    };

    // `extra`: what the run's token keeps of it (the agent), put on its identity events.
    GeminiRunStream(GeminiBackend *backend, HttpRequest request, Mode mode, Gemini::GeminiMapper mapper,
                    QJsonObject extra, QObject *parent);

    // Nothing is sent: the stream ends with `error` (a request the connector found wrong).
    void refuse(RunError error) { m_refusal = std::move(error); }

    // The SSE decoder of an interaction's stream: parses and maps with `mapper` (which drops an
    // event id it applied already), on whichever thread reads the body.
    static std::unique_ptr<SseDecoder> decoderFor(Gemini::GeminiMapper mapper);

private:
    static Options readOptions(std::chrono::milliseconds stallTimeout);
    QCoro::Task<> run(HttpRequest request);
    // A 2xx answer that is the interaction object rather than a stream.
    void deliverInteraction(const HttpResponse &response);
    std::unique_ptr<SseDecoder> makeDecoder() override;
    void decoderState(const std::any &state) override;
    void prepareBatch(QList<RunEvent> &batch) override;
    void replyGone() override;

    QPointer<GeminiBackend> m_backend;
    Mode m_mode;
    Gemini::GeminiMapper m_mapper;
    QJsonObject m_extra;
    QString m_notedIn; // the interaction and output step last noted in the token
    qint64 m_notedStep = -1;
    std::optional<RunError> m_refusal;
};

} // namespace Runwatch
