// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runerror.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QUrl>

#include <chrono>
#include <optional>

namespace Runwatch {

using HttpHeaders = QList<QPair<QByteArray, QByteArray>>;

// Value of the first header with that name (compared case-insensitively); nullopt when absent.
std::optional<QByteArray> findHeader(const HttpHeaders &headers, QByteArrayView name);

// A header a server-chosen name must not take: those that frame the request or the connection
// (the transport sets them), and those that carry other state (cookies, proxy credentials).
bool isReservedHeader(QByteArrayView name);

struct HttpRequest
{
    QByteArray method = "GET"; // upper-cased by the client
    QUrl url;
    HttpHeaders headers; // sent as given; Content-Type defaults to JSON (impliedContentType)
    QByteArray body;
    // false: never repeated once the request may have reached the application (e.g. POST
    // /responses without an idempotency key would start a second run). Such a request is only
    // retried when it cannot have been processed: connection refused, host not found, 408
    // (the server did not get the whole request), 429 and 503 (rejected before processing),
    // or when the server itself says `x-should-retry: true`. Timeouts, resets, 409, 500,
    // 502 and 504 are not repeated: the caller must reconcile (e.g. by metadata.client_run_id);
    // the error keeps `retryable` = true because the condition itself is transient.
    // QNAM's own silent re-send after a connection closed without an answer is suppressed
    // too (the body is handed over as a read-once device, sent with Content-Length).
    bool idempotent = true;
    // false: the client's authorizer (HttpClient::setAuthorizer) leaves this request alone, e.g.
    // a public A2A agent card fetched before the agent says how it wants credentials.
    bool withCredentials = true;
    // A refusal that only means "not now": the server turned the request away before doing
    // anything with it, for a state that passes by itself (OpenAI's 409 conversation_locked while
    // a conversation's last response runs). An answer with that status and error code is waited
    // out and the request sent again, idempotent or not (it was refused, not processed), until it
    // is taken or `patience` has gone by since the first such answer: backoff as between retries
    // (RetryPolicy's delays), a server's Retry-After honoured up to the policy's maxRetryAfter.
    // These waits do not use up the policy's retries, and abortAll() / shutdown() end them.
    struct BusyRefusal
    {
        int status = 0;
        QString code;
        std::chrono::milliseconds patience{0};
    };
    std::optional<BusyRefusal> busy;

    // The Content-Type sent on top of `headers`: application/json for a body whose headers name
    // none, else empty. Both transports (QNAM and the stream pump) apply it.
    QByteArray impliedContentType() const;
    // What would break the request's framing on the wire, or empty: a CR, LF or NUL in the
    // method, the URL's target or a header (name or value), an empty header name or one with a
    // colon. A key, a token command's output or a server-chosen header name may carry one, and
    // "\r\nX-Injected: 1" would become a header of its own. Names the field, never its value
    // (the value may be a secret). Both transports refuse such a request before it is sent.
    QString unsafeField() const;
};

struct HttpResponse
{
    int status = 0;      // HTTP status; 0 when none arrived
    HttpHeaders headers; // names lower-cased
    QByteArray body;
    RunError error;                     // set for transport errors and non-2xx
    std::optional<qint64> retryAfterMs; // parsed retry-after-ms / Retry-After of the last reply
    // Attempts made by the retry loop (0 when refused before sending, e.g. insecure http).
    // Same-origin redirects followed within one attempt are not counted.
    int attempts = 0;

    bool ok() const { return !error.isError(); }
    // Value of the first header with that (lower-case) name; empty when absent.
    QByteArray header(QByteArrayView lowerName) const;
    // A Protocol error about this response (RunError::protocol) carrying its status and
    // x-request-id, for a 2xx whose body is not what the operation expects.
    RunError protocolError(QString code, QString message) const;
};

} // namespace Runwatch
