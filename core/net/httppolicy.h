// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// When HttpClient retries and how long it waits, and where it may send a request at all.

#include "httpmessage.h"

#include <QDateTime>
#include <QUrl>

#include <chrono>
#include <optional>

namespace Runwatch {

// Retry and timeout policy (OpenAI SDK semantics, protocol reference §3.3).
struct RetryPolicy
{
    int maxRetries = 2; // attempts = maxRetries + 1
    // Delay before retry n without a server delay: min(initial * 2^n, max) * (1 - jitter * rand).
    std::chrono::milliseconds initialDelay{500};
    std::chrono::milliseconds maxDelay{8000};
    double jitter = 0.25;
    // A server that asks us to wait longer than this gets a clear error instead of a retry.
    std::chrono::milliseconds maxRetryAfter{120000};
    // Until the response headers arrive (DNS, connect, TLS, and a server that never answers).
    // A time-to-headers limit: raise it for calls the server answers only when done
    // (e.g. a non-background POST /responses).
    std::chrono::milliseconds connectTimeout{10000};
    // No bytes for this long on an open reply (QNetworkRequest::setTransferTimeout); 0 = off.
    std::chrono::milliseconds inactivityTimeout{60000};
    // Largest 2xx body send() buffers; a larger one is a Protocol error. Error bodies (non-2xx)
    // are truncated at min(this, 1 MiB) instead, because their status is what matters.
    qint64 maxBodyBytes = 64 * 1024 * 1024;
};

// Parses `retry-after-ms` (float ms) first, then `Retry-After` (seconds, float, or HTTP date),
// in milliseconds (rounded up, a date in the past gives 0). Header names are matched
// case-insensitively. Returns nullopt when absent or unparseable. `now` is injectable for tests.
std::optional<qint64> parseRetryAfter(const HttpHeaders &lowerCaseHeaders, const QDateTime &now);

// The delay before retry number `retryIndex` (0-based): the server's delay when it gave a
// positive one (never sooner; the maxRetryAfter cap is applied by the caller, not here),
// else min(initial * 2^n, max) * (1 - jitter * rand) with rand in [0, 1).
std::chrono::milliseconds retryDelay(const RetryPolicy &policy, int retryIndex,
                                     std::optional<qint64> serverDelayMs);

// May a request that must not run twice (HttpRequest::idempotent false) be repeated after this
// error? Only when the server cannot have started processing it: connection refused, host not
// found, 408, 429, 503.
bool cannotHaveBeenProcessed(const RunError &error);

// https is always fine; plain http only to loopback (127.0.0.0/8, ::1, "localhost") unless
// allowInsecureHttp. Other schemes and invalid URLs are refused. Returns a Client error
// (code "insecure_transport" / "invalid_url") or a RunError with kind None.
RunError checkTransportSecurity(const QUrl &url, bool allowInsecureHttp);

// Same scheme, host and port (the scheme's default port when none is given): where a request's
// credentials may follow a redirect or a URL the server named.
bool sameOrigin(const QUrl &a, const QUrl &b);
// "scheme://host:port" of `url` (no user info, path, query or fragment), as messages name an
// origin.
QString originOf(const QUrl &url);

} // namespace Runwatch
