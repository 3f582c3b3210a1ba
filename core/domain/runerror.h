// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QMetaType>
#include <QString>

namespace Runwatch {

// Why something went wrong, in the terms an operator (and the retry policy) cares about.
enum class ErrorKind {
    None = 0,
    Network,     // connection refused/reset, DNS, TLS, dropped stream
    Timeout,     // connect or inactivity timeout
    Auth,        // 401 / 403
    NotFound,    // 404 / 410
    Conflict,    // 409
    RateLimited, // 429
    Server,      // 5xx
    Client,      // other 4xx: the request itself is wrong, retrying will not help
    Protocol,    // the peer spoke something we cannot understand (malformed event, HTML body…)
    Run,         // the run itself failed on the server (HTTP 200, status "failed")
    Cancelled,   // we aborted the request ourselves
};

QString errorKindName(ErrorKind kind);
ErrorKind errorKindFromName(QStringView name);

struct RunError
{
    ErrorKind kind = ErrorKind::None;
    QString code;    // backend's code, e.g. "server_error", "rate_limit_exceeded", "-32001"
    QString message; // human readable
    bool retryable = false;
    int httpStatus = 0; // 0 when no HTTP status applies
    QString requestId;  // x-request-id or equivalent, for support tickets

    // The errors Runwatch raises itself, one definition each (the HTTP client and the connectors
    // use them). A request Runwatch refuses before sending it (a bad URL, no such method, an
    // empty answer, …).
    static RunError client(QString code, QString message);
    // The peer said something we cannot understand (malformed reply, unexpected shape, …).
    static RunError protocol(QString code, QString message, bool retryable = false);
    // An operation the connector or its protocol does not have: client("unsupported", what).
    static RunError unsupported(QString what);
    // We stopped the request ourselves (abort, shutdown, or the backend went away).
    static RunError cancelled(QString message = QStringLiteral("request aborted"));

    bool isError() const { return kind != ErrorKind::None; }
    // One line for logs, the CLI and tooltips: "rate limited (429, rate_limit_exceeded): … [req_123]".
    QString toString() const;

    QJsonObject toJson() const;
    static RunError fromJson(const QJsonObject &object);

    friend bool operator==(const RunError &, const RunError &) = default;
};

} // namespace Runwatch

Q_DECLARE_METATYPE(Runwatch::RunError)
