// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backend/runbackend.h"
#include "net/httpclient.h"
#include "net/sseparser.h"
#include "openaimapping.h"

#include <QPointer>
#include <QTimer>

class QNetworkReply;

namespace Runwatch::OpenAi {

// One exchange with /responses that yields events: a create (streaming or not) or a
// GET ?stream=true resume. Reads the SSE body as it arrives and emits one batch per read.
class ResponseStream final : public RunStream
{
    Q_OBJECT
public:
    enum class Mode {
        CreateStreaming, // POST /responses with stream:true: SSE body
        CreateJson,      // POST /responses without stream: one Response object
        Resume,          // GET /responses/{id}?stream=true[&starting_after=N]
    };

    ResponseStream(HttpClient *http, HttpRequest request, Mode mode, StreamMapper mapper,
                   std::chrono::milliseconds stallTimeout, QObject *parent);
    ~ResponseStream() override;

    void abort() override;
    // Largest SSE line or event accepted (SseParser::setMaxEventSize); a larger one ends the
    // stream with a Protocol error "event_too_large". Call before the first bytes arrive.
    void setMaxEventSize(qsizetype bytes) { m_parser.setMaxEventSize(bytes); }

private:
    QCoro::Task<> run(HttpRequest request);
    void onReadyRead();
    void drain();
    void onReplyFinished();
    void onStalled();
    void endWith(StreamEnd end);
    // Feeds bytes through parser and mapper; returns false when the stream must end.
    bool consume(QByteArrayView bytes);

    QPointer<HttpClient> m_http;
    Mode m_mode;
    StreamMapper m_mapper;
    SseParser m_parser;
    QPointer<QNetworkReply> m_reply;
    QTimer m_stallTimer;
    QList<RunEvent> m_batch;
    bool m_aborted = false;
    bool m_drainScheduled = false;
    std::optional<StreamEnd> m_pendingEnd; // decided while consuming; emitted after the batch
};

} // namespace Runwatch::OpenAi
