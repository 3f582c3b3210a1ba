// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "jobsprofile.h"

#include "backends/runbackend.h"
#include "domain/connection.h"
#include "net/httpclient.h"

#include <QHash>
#include <QStringList>

namespace Runwatch {

// Generic HTTP job APIs (docs/protocols/jobs-api.md): kickoff with an Idempotency-Key and
// Prefer: respond-async, follow by SSE with Last-Event-ID or poll the status URL honouring
// Retry-After, cancel 202/200/409, suspended jobs answered through POST …/input, large results
// from …/result, rediscovery through the listing. A connection profile
// (Connection::options["profile"] or the file options["profile_file"]) fits services with other
// paths, field names and status strings; see docs/jobs-profile.md.
//
// Continuation token: remoteId = job id, eventId = Last-Event-ID (numeric ids also in sequence),
// streamable = the job offers events, extra = {status_url, events_url, idempotency_key} as the
// service named them.
class JobsBackend final : public RunBackend
{
    Q_OBJECT
public:
    explicit JobsBackend(Connection connection, QObject *parent = nullptr);

    QString kind() const override;
    Capabilities capabilities() const override;

    RunStream *start(StartRequest request, QObject *parent) override;
    RunStream *follow(ContinuationToken token, QObject *parent) override;

    QCoro::Task<ActionResult> get(ContinuationToken token) override;
    QCoro::Task<ActionResult> cancel(ContinuationToken token) override;
    QCoro::Task<ActionResult> remove(ContinuationToken token) override;
    QCoro::Task<ActionResult> respond(ContinuationToken token, InputAnswer answer) override;
    QCoro::Task<ListResult> list() override;
    QCoro::Task<> shutdown() override;

    // The connection's profile: options["profile"] (an object) or the JSON file named by
    // options["profile_file"], over the contract's defaults. nullopt and *error when invalid.
    static std::optional<Jobs::JobsProfile> profileFor(const Connection &connection,
                                                       QString *error = nullptr);

    const Connection &connection() const { return m_connection; }
    const Jobs::JobsProfile &profile() const { return m_profile; }
    // Non-empty when the connection's profile is invalid; every operation then fails with it.
    const QString &profileError() const { return m_profileError; }
    HttpClient *httpClient() const { return m_http; }

    // --- used by the connector's streams ----------------------------------------------------

    // A request to `url` with auth and standard headers.
    HttpRequest request(const QByteArray &method, const QUrl &url) const;
    // A URL the service named (Location, status_url, events_url, result_url), resolved against
    // the URL of the request that returned it. Empty when it is empty, invalid or on another
    // origin: our credentials go only where the connection points.
    QUrl acceptServerUrl(const QString &reference, const QUrl &requestUrl) const;
    QUrl statusUrl(const ContinuationToken &token) const;
    QUrl eventsUrl(const ContinuationToken &token) const;
    // Keeps the service's own URLs of a job for this process (the token carries them across
    // processes once RunEvent can deliver token extras; see JobsRunStream).
    void rememberUrls(const QString &jobId, const QUrl &status, const QUrl &events);

    // Finds a job by the idempotency key (or our client run id) of a kickoff whose reply never
    // arrived. The job object, or nullopt when the listing does not have it (or fails).
    QCoro::Task<std::optional<QJsonObject>> rediscover(QString idempotencyKey, QString clientRunId);

    struct ResultFetch
    {
        bool ok = false;
        QString text;
        RunError error;
    };
    // GET the job's result (`url`, else the profile's result path).
    QCoro::Task<ResultFetch> fetchResult(QString jobId, QUrl url);
    // The events of a finished job's result fetch: the result as the answer, or a note why not.
    static QList<RunEvent> resultEvents(const ResultFetch &fetch);

    // RunError of a profile problem (Client, code "invalid_profile").
    RunError profileProblem() const;

private:
    // One page of the listing (list(), rediscover()), filtered by idempotency key when given.
    HttpRequest listPage(const QString &cursor, const QString &idempotencyKey) const;

    struct JobUrls
    {
        QUrl status;
        QUrl events;
    };
    // statusUrl() / eventsUrl(): the token's URL (under `tokenKey`), else the one remembered for
    // the job, else the profile's `path`.
    QUrl jobUrl(const ContinuationToken &token, const QString &tokenKey, QUrl JobUrls::*remembered,
                const Jobs::UriTemplate &path) const;
    Connection m_connection;
    Jobs::JobsProfile m_profile;
    QString m_profileError;
    HttpClient *m_http;
    QHash<QString, JobUrls> m_urls;
    QStringList m_urlOrder; // insertion order, to bound m_urls
};

} // namespace Runwatch
