// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QString>

namespace Runwatch {

// Incremental parser for one HTTP/1.1 response (RFC 9112): status line, header fields, then the
// body framed by Transfer-Encoding: chunked, Content-Length or the connection's close. Pure:
// bytes in, body bytes out; no QObject, no I/O. Used by the stream reader (streamconnection.*),
// which reads event streams itself instead of through QNetworkAccessManager.
//
// Chunking never changes the result: the same bytes fed whole or one at a time give the same
// status, headers, body and error. Interim 1xx responses are skipped. Memory is bounded: the
// header section, a chunk-size line and the trailer section have limits, and the body is handed
// out as it is decoded, never accumulated here.
class Http1ResponseParser final
{
public:
    enum class State {
        StatusLine,
        Headers,
        Body,
        Done,  // the body is complete; later bytes are ignored
        Failed // see errorString(); later bytes are ignored
    };

    static constexpr qsizetype MaxHeaderBytes = 64 * 1024;

    // A response to HEAD has no body whatever its headers say.
    explicit Http1ResponseParser(bool headRequest = false);

    // Appends the decoded body bytes to `body`. Returns false once the parser has failed.
    bool feed(QByteArrayView bytes, QByteArray &body);
    // The connection closed. For a close-delimited body that is its end (state Done); anywhere
    // else before Done it is a truncated response (state Failed). Returns whether it was Done.
    bool closed();

    State state() const { return m_state; }
    // The final response's header section was accepted; stays true when the body fails later,
    // also within the same feed(), so that the headers are reported whatever the chunking.
    bool headersComplete() const { return m_headersDone; }
    bool isDone() const { return m_state == State::Done; }
    bool hasFailed() const { return m_state == State::Failed; }
    QString errorString() const { return m_error; }

    int status() const { return m_status; }
    const QByteArray &reasonPhrase() const { return m_reason; }
    // Field names as received; repeated fields stay separate, in order.
    const QList<QPair<QByteArray, QByteArray>> &headers() const { return m_headers; }

private:
    enum class Framing { None, Length, Chunked, Close };
    enum class ChunkState { Size, Data, DataEnd, Trailers };

    bool takeLine(QByteArrayView &bytes, qsizetype limit, QByteArray &line, bool &complete);
    bool parseStatusLine(const QByteArray &line);
    bool parseHeaderLine(const QByteArray &line);
    bool headersEnded();
    bool feedChunked(QByteArrayView &bytes, QByteArray &body);
    bool fail(const QString &why);

    State m_state = State::StatusLine;
    Framing m_framing = Framing::None;
    ChunkState m_chunkState = ChunkState::Size;
    bool m_headRequest = false;
    bool m_headersDone = false;
    int m_status = 0;
    QByteArray m_reason;
    QList<QPair<QByteArray, QByteArray>> m_headers;
    QByteArray m_line;           // the line being assembled across feeds
    qsizetype m_headerBytes = 0; // of the current response's header section (or trailers)
    qint64 m_remaining = 0;      // body bytes left (Length) or bytes left in the chunk (Chunked)
    QString m_error;
};

} // namespace Runwatch
