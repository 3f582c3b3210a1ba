// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A deliberately small HTTP/1.1 server connection. QHttpServer is not used because fault injection
// needs byte-level control (drip, truncated events, resets, never-ending lines).
//
// Persistent connections are the default: a Content-Length response, or an SSE body in chunked
// transfer coding, ends without closing the socket. That is what real servers do, and it matters
// for tests: QNetworkAccessManager silently re-sends a request when the server's FIN overtakes
// the client's own bookkeeping of having written it, which happens on loopback when the server
// closes right after an instant answer. Server-initiated closes (faults, errors, "Connection:
// close", close-delimited streams) therefore also wait a few milliseconds after the last byte.

#include "httpmessage.h"

#include <QByteArray>
#include <QObject>

class QTcpSocket;
class QTimer;

namespace RunwatchSim {

class HttpConnection final : public QObject
{
    Q_OBJECT

public:
    HttpConnection(QTcpSocket *socket, const HttpLimits &limits, QObject *parent = nullptr);
    ~HttpConnection() override;

    // Complete response with Content-Length.
    void sendResponse(int status, const HeaderList &headers, const QByteArray &body);
    // Status line and headers of a streamed body (chunked, or delimited by the close).
    void beginStream(int status, const HeaderList &headers);
    // Body bytes of a stream (framed as one chunk when chunked).
    void write(const QByteArray &bytes);
    // The stream body is complete: terminating chunk (or close, when close-delimited).
    void endStream();
    // Cut the connection after what was queued: FIN, or RST when `reset`. A chunked body is left
    // without its terminating chunk, as on a real network failure.
    void drop(bool reset);
    // > 0: queued body bytes leave one per interval (until the response ends).
    void setDripInterval(int ms);

    bool isOpen() const;
    // Bytes not yet handed to the kernel (drip queue + socket buffer).
    qint64 pendingBytes() const;

Q_SIGNALS:
    void requestReceived(RunwatchSim::HttpConnection *connection, const RunwatchSim::HttpRequest &request);
    // The connection itself answered a request it could not parse (400/408/411/413/431).
    void requestRejected(int status, const QByteArray &reason);
    // The current response has been handed over completely; the connection may carry another.
    void responseCompleted();
    // Everything queued so far reached the kernel.
    void drained();
    void closed();

private:
    enum class State { ReadingHead, ReadingBody, Dispatched, Closing, Closed };
    enum class Body { None, Fixed, Chunked, CloseDelimited };

    void onReadyRead();
    void processBuffer();
    bool parseHead(const QByteArray &head);
    void reject(int status, const QByteArray &reason);
    QByteArray head(int status, const HeaderList &headers, const QByteArray &framing) const;
    void enqueue(const QByteArray &bytes);
    void onDripTick();
    void onBytesWritten();
    void onRequestTimer();
    void completeResponse();
    void tryComplete();
    void requestClose(bool reset);
    void closeIfFlushed();
    void closeNow();
    void markClosed();

    QTcpSocket *m_socket = nullptr;
    HttpLimits m_limits;
    State m_state = State::ReadingHead;
    Body m_body = Body::None;
    QByteArray m_buffer;
    HttpRequest m_request;
    qint64 m_contentLength = 0;
    bool m_keepAlive = false;
    bool m_completePending = false;
    bool m_closeRequested = false;
    bool m_closeScheduled = false;
    bool m_reset = false;
    QTimer *m_requestTimer = nullptr;
    QTimer *m_dripTimer = nullptr;
    QByteArray m_dripQueue;
    qsizetype m_dripPos = 0;
    int m_dripIntervalMs = 0;
};

} // namespace RunwatchSim
