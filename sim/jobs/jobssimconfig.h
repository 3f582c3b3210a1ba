// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Configuration of the generic HTTP job service simulator (JobsSimulator): base path, shape,
// pace, polling and streaming behaviour, auth, injected HTTP and stream faults, limits.
// Scenarios and per-job options: jobssimoptions.h.

#include "server/httpmessage.h"
#include "server/simfaults.h"

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringView>

#include <optional>

namespace RunwatchSim {

// How the served JSON looks. Alternate renames every path, field and status string, for tests
// of client connection profiles (see JobsSimulator and jobssimwire.h).
enum class JobsShape {
    Standard,
    Alternate,
};

enum class JobsEndpoint { Kickoff, List, Status, Events, Cancel, Input, Result, Webhook, Unknown };

// "kickoff", "list", "status", "events", "cancel", "input", "result", "webhook", "unknown".
QString jobsEndpointName(JobsEndpoint endpoint);
std::optional<JobsEndpoint> jobsEndpointFromName(QStringView name);

// Answer the first `count` requests to `endpoints` (empty: all) with `status` instead of
// serving them. status 0: serve the request (a kickoff creates its job), then close the
// connection without an answer — a reply lost on the way.
struct JobsHttpFault
{
    QSet<JobsEndpoint> endpoints;
    int count = 1; // -1: every matching request
    int status = 503;
    QByteArray retryAfter = "1"; // Retry-After header as sent; empty: none
    bool htmlBody = false;       // a proxy's HTML page instead of the JSON error body

    bool aimsAt(JobsEndpoint endpoint) const { return endpoints.isEmpty() || endpoints.contains(endpoint); }
};

// "status=503,count=2,on=kickoff+status,retry-after=1,body=html"; every key optional.
std::optional<JobsHttpFault> jobsHttpFaultFromSpec(QStringView spec, QString *error = nullptr);

// The limits of ServerLimits (→ 431, 413, 408, keep-alive, open connections) apply to the HTTP
// layer.
struct JobsSimConfig : ServerLimits
{
    QString apiKey; // empty: no auth; else "Authorization: Bearer K" or "api-key: K"
    QString basePath = QStringLiteral("/api");
    JobsShape shape = JobsShape::Standard;
    bool opaqueUrls = false; // status/events only under /operations/{id}
    int intervalMs = 20;     // pace of output deltas
    int queuedMs = -1;       // -1: intervalMs
    int deltas = 8;
    int longDeltas = 100000;
    bool offerEvents = true;         // jobs name an events_url
    QByteArray pollRetryAfter = "1"; // Retry-After of status replies (seconds, "date:N", "" none)
    int retryMs = -1;                // "retry:" at the start of each event stream; -1: none
    int commentIntervalMs = 0;       // > 0: ": keep-alive" comments on open event streams
    int cancelDelayMs = 0;           // > 0: cancelling a running job answers 202, done after this long
    double timeoutSeconds = 900;
    qint64 inlineResultLimit = 1 << 20; // larger results are only at /result
    QList<JobsHttpFault> httpFaults;
    // connections, dropAfterEvents, dropMode, malformedAt (an event id), dripIntervalMs
    StreamFaults streamFaults;
    int maxStoredJobs = 1000;
};

} // namespace RunwatchSim
