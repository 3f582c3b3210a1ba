// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// HTTP outcomes in Runwatch's error taxonomy (RunError / ErrorKind), and what an error may show.

#include "httpmessage.h"
#include "httppolicy.h"

#include <QNetworkReply>

namespace Runwatch {

// Maps a finished HTTP exchange to the error taxonomy: 401/403 Auth, 404/410 NotFound,
// 408 Timeout, 409 Conflict, 429 RateLimited, 5xx Server, other 4xx Client, anything else
// (3xx, 1xx, nonsense) Protocol. Understands the OpenAI error body
// {"error":{"message","type","code"}} (code falls back to type when null), and otherwise
// quotes a short plain-text excerpt (an HTML page's <title>). Keeps x-request-id.
// `retryable` is set from isRetryable().
RunError classifyHttpError(int status, const QByteArray &body, const QByteArray &requestId);

// Transport failures (no HTTP status, or the body broke off) in the taxonomy. The code tells
// the retry logic whether the request can have reached the server (cannotHaveBeenProcessed).
// OperationCanceledError is taken as QNAM's inactivity timeout: our own aborts never get here.
RunError classifyTransportError(QNetworkReply::NetworkError error, const QString &errorString,
                                const QUrl &url, const RetryPolicy &policy);

// Whether a transport error or HTTP status is worth retrying: Network (except TLS failures),
// Timeout (including 408), Conflict (409), RateLimited (429), Server (5xx).
bool isRetryable(const RunError &error);

// "host:port" as error messages name a server.
QString hostForMessage(const QUrl &url);
// Milliseconds as seconds for messages: 1500 → "1.5".
QString formatSeconds(qint64 ms);

// The secrets a request carries: the value of each credential header (Authorization,
// Proxy-Authorization, api-key, x-api-key; "Bearer " and the like stripped).
QList<QByteArray> credentialsOf(const HttpHeaders &headers);
// Servers quote keys back ("Incorrect API key provided: sk-…"); error messages are shown,
// logged and stored, so a failed response's message, code and body get "[redacted]" instead.
void redactCredentials(HttpResponse &response, const QList<QByteArray> &secrets);

} // namespace Runwatch
