// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The HTTP/1.1 vocabulary every simulator shares: a parsed request, the limits a connection and a
// server enforce, status reason phrases and request ids.

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QUrlQuery>

namespace RunwatchSim {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

// First value of header `name` (any case) in `headers`, empty when absent.
QByteArray headerValue(const HeaderList &headers, QByteArrayView name);

struct HttpRequest
{
    QByteArray method;
    QByteArray target;  // as sent: path and query, percent-encoded
    QByteArray version; // "HTTP/1.1"
    QString path;       // decoded path without the query
    QUrlQuery query;
    HeaderList headers; // names lower-cased, in arrival order
    QByteArray body;

    // First value of a header, empty when absent.
    QByteArray header(QByteArrayView name) const { return headerValue(headers, name); }
    bool hasHeader(QByteArrayView name) const;
    // "Authorization: Bearer <key>" (scheme in any case, token trimmed).
    bool hasBearerToken(const QByteArray &key) const;
};

struct HttpLimits
{
    int maxHeaderBytes = 64 * 1024;     // → 431
    qint64 maxBodyBytes = 16 << 20;     // → 413
    int requestTimeoutMs = 30000;       // a started request must be complete within this (→ 408)
    bool keepAlive = true;              // keep the connection after a complete response
    int keepAliveIdleMs = 15000;        // then close it after this long without a request
    bool closeDelimitedStreams = false; // SSE bodies end with the connection, not a 0 chunk
};

// Hostile-input limits of a server: those of each connection, and how many may be open at once.
struct ServerLimits : HttpLimits
{
    int maxConnections = 512; // further connections are closed at once; < 0 = no limit
};

// Lower-case hex of `bytes` random bytes.
QByteArray randomHex(int bytes);
// "req_" + 32 hex digits.
QByteArray newRequestId();
QByteArray reasonPhrase(int status);

} // namespace RunwatchSim
