// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobsbackend.h"
#include "jobslog.h"

#include "backends/jobs/jobsconnector.h"
#include "jobsmapper.h"
#include "jobsrunstream.h"
#include "net/transportoptions.h"

#include "backends/requestauth.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUrlQuery>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "JobsConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(JobsConnector)
};
} // namespace

Q_LOGGING_CATEGORY(lcJobs, "runwatch.backend.jobs", QtInfoMsg)

namespace {

// Bounds of the listing walk: rediscovery and list() must end even against a server whose
// cursor never runs out.
constexpr int kMaxListPages = 20;
constexpr qsizetype kMaxRememberedJobs = 1000;
// A profile file is a few KB; anything much bigger is the wrong file.
constexpr qint64 kMaxProfileFileBytes = 1024 * 1024;

RunError httpError(const HttpResponse &response)
{
    RunError e = response.error;
    Jobs::applyErrorBody(e, response.body);
    return e;
}

std::optional<QJsonObject> jsonObject(const QByteArray &body)
{
    const QJsonDocument doc = QJsonDocument::fromJson(body);
    if (!doc.isObject())
        return std::nullopt;
    return doc.object();
}

} // namespace

JobsBackend::JobsBackend(Connection connection, QObject *parent)
    : RunBackend(parent)
    , m_connection(std::move(connection))
    , m_http(new HttpClient(this))
{
    applyTransportOptions(m_http, m_connection);
    (new RequestAuth(m_connection, this))->attach(m_http);
    if (auto profile = profileFor(m_connection, &m_profileError)) {
        m_profile = std::move(*profile);
    } else {
        m_profile = Jobs::JobsProfile::defaults();
    }
}

std::optional<Jobs::JobsProfile> JobsBackend::profileFor(const Connection &connection, QString *error)
{
    const QJsonValue inline_ = connection.options.value(JobsOption::Profile);
    const QJsonValue file = connection.options.value(JobsOption::ProfileFile);
    if (!inline_.isUndefined() && !file.isUndefined()) {
        if (error)
            *error = Text::tr("profile: give options.profile or options.profile_file, not both");
        return std::nullopt;
    }
    if (!inline_.isUndefined()) {
        if (!inline_.isObject()) {
            if (error)
                *error = Text::tr("profile: options.profile must be a JSON object");
            return std::nullopt;
        }
        return Jobs::JobsProfile::fromJson(inline_.toObject(), error);
    }
    if (!file.isUndefined()) {
        QFile f(file.toString());
        if (!file.isString() || !f.open(QIODevice::ReadOnly)) {
            if (error) {
                *error = u"profile: cannot read the profile file \"%1\"%2"_s.arg(
                    file.toString(), f.errorString().isEmpty() ? QString() : u": "_s + f.errorString());
            }
            return std::nullopt;
        }
        if (f.size() > kMaxProfileFileBytes) {
            if (error)
                *error = u"profile: the file \"%1\" is larger than 1 MiB"_s.arg(file.toString());
            return std::nullopt;
        }
        auto profile = Jobs::JobsProfile::fromJsonText(f.read(kMaxProfileFileBytes), error);
        if (!profile && error)
            *error = *error + u" (in "_s + file.toString() + u')';
        return profile;
    }
    return Jobs::JobsProfile::defaults();
}

QString JobsBackend::kind() const
{
    return u"jobs"_s;
}

Capabilities JobsBackend::capabilities() const
{
    // No Delete: in this contract DELETE /jobs/{id} is cancellation, not removal.
    return Capability::Start | Capability::Get | Capability::Stream | Capability::ResumeStream
           | Capability::Cancel | Capability::Respond | Capability::List | Capability::StructuredInput;
}

QCoro::Task<> JobsBackend::shutdown()
{
    return m_http->shutdown();
}

RunError JobsBackend::profileProblem() const
{
    return RunError::client(u"invalid_profile"_s, m_profileError);
}

HttpRequest JobsBackend::request(const QByteArray &method, const QUrl &url) const
{
    HttpRequest r;
    r.method = method;
    r.url = url;
    r.headers.emplaceBack("User-Agent", "Runwatch/" RUNWATCH_VERSION_STRING);
    return r;
}

HttpRequest JobsBackend::listPage(const QString &cursor, const QString &idempotencyKey) const
{
    QUrl url = m_profile.listPath.resolve(m_connection.baseUrl);
    QUrlQuery q(url);
    if (!idempotencyKey.isEmpty())
        q.addQueryItem(u"idempotency_key"_s, idempotencyKey);
    q.addQueryItem(u"limit"_s, u"100"_s);
    if (!cursor.isEmpty())
        q.addQueryItem(u"cursor"_s, cursor);
    url.setQuery(q);
    HttpRequest r = request("GET", url);
    r.headers.emplaceBack("Accept", "application/json");
    return r;
}

QUrl JobsBackend::acceptServerUrl(const QString &reference, const QUrl &requestUrl) const
{
    if (reference.isEmpty())
        return {};
    QUrl resolved = requestUrl.resolved(QUrl(reference, QUrl::TolerantMode));
    if (!resolved.isValid() || resolved.host().isEmpty() || !sameOrigin(resolved, m_connection.baseUrl))
        return {};
    return resolved;
}

QUrl JobsBackend::jobUrl(const ContinuationToken &token, const QString &tokenKey, QUrl JobUrls::*remembered,
                         const Jobs::UriTemplate &path) const
{
    QUrl fromToken = acceptServerUrl(token.extra.value(tokenKey).toString(), m_connection.baseUrl);
    if (fromToken.isValid())
        return fromToken;
    if (const auto it = m_urls.constFind(token.remoteId);
        it != m_urls.constEnd() && ((*it).*remembered).isValid())
        return (*it).*remembered;
    return path.resolve(m_connection.baseUrl, token.remoteId);
}

QUrl JobsBackend::statusUrl(const ContinuationToken &token) const
{
    return jobUrl(token, u"status_url"_s, &JobUrls::status, m_profile.statusPath);
}

QUrl JobsBackend::eventsUrl(const ContinuationToken &token) const
{
    return jobUrl(token, u"events_url"_s, &JobUrls::events, m_profile.eventsPath);
}

void JobsBackend::rememberUrls(const QString &jobId, const QUrl &status, const QUrl &events)
{
    if (jobId.isEmpty())
        return;
    if (!m_urls.contains(jobId)) {
        m_urlOrder.append(jobId);
        if (m_urlOrder.size() > kMaxRememberedJobs)
            m_urls.remove(m_urlOrder.takeFirst());
    }
    m_urls.insert(jobId, JobUrls{status, events});
}

RunStream *JobsBackend::start(StartRequest request, QObject *parent)
{
    Jobs::Kickoff kickoff;
    kickoff.stream = request.stream;
    kickoff.clientRunId = request.clientRunId;
    // One key per logical kickoff: every retry of this request (HttpClient's, on 429/503 or a
    // lost reply) repeats it, so the service returns the original job instead of a second one.
    kickoff.idempotencyKey = QUuid::createUuid().toString(QUuid::WithoutBraces);

    QJsonObject body = m_profile.requestBody;
    // Structured input is the job's input as given; the prompt then only titles the run.
    m_profile.requestInput.set(body,
                               request.input.isUndefined() ? QJsonValue(request.prompt) : request.input);
    if (!m_profile.requestMetadata.isRoot()) {
        QJsonObject metadata = m_profile.requestMetadata.evaluate(body).toObject();
        if (!request.clientRunId.isEmpty())
            metadata.insert(u"client_run_id"_s, request.clientRunId);
        m_profile.requestMetadata.set(body, metadata);
    }
    HttpRequest r = this->request("POST", m_profile.kickoffPath.resolve(m_connection.baseUrl));
    r.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    r.headers.emplaceBack("Content-Type", "application/json");
    r.headers.emplaceBack("Accept", "application/json");
    r.headers.emplaceBack("Prefer", "respond-async");
    r.headers.emplaceBack("Idempotency-Key", kickoff.idempotencyKey.toLatin1());
    // Safe to repeat: the Idempotency-Key makes a repeated kickoff return the same job.
    r.idempotent = true;
    kickoff.request = std::move(r);
    return new JobsRunStream(this, std::move(kickoff), SseRunStream::stallTimeoutFor(m_connection), parent);
}

RunStream *JobsBackend::follow(ContinuationToken token, QObject *parent)
{
    qCDebug(lcJobs) << "follow" << token.remoteId << "after sequence" << token.sequence << "event id"
                    << token.eventId;
    return new JobsRunStream(this, std::move(token), SseRunStream::stallTimeoutFor(m_connection), parent);
}

QCoro::Task<ActionResult> JobsBackend::get(ContinuationToken token)
{
    QPointer<JobsBackend> self = this;
    ActionResult result;
    if (!m_profileError.isEmpty()) {
        result.error = profileProblem();
        co_return result;
    }
    HttpRequest r = request("GET", statusUrl(token));
    r.headers.emplaceBack("Accept", "application/json");
    const QUrl url = r.url;
    const HttpResponse response = co_await m_http->send(std::move(r));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    // The suggested poll interval comes on successful replies too (HttpClient only reads it from
    // errors, where it governs its own retries).
    result.retryAfterMs = response.ok() ? parseRetryAfter(response.headers, QDateTime::currentDateTimeUtc())
                                        : response.retryAfterMs;
    if (!response.ok()) {
        result.error = httpError(response);
        co_return result;
    }
    const auto object = jsonObject(response.body);
    const Jobs::JobView job = object ? Jobs::readJob(*object, m_profile) : Jobs::JobView{};
    if (!job.hasStatus) {
        result.error = response.protocolError(
            {}, Text::tr("The status reply has no job status at %1.").arg(m_profile.status.toString()));
        co_return result;
    }
    result.events = Jobs::eventsForJob(job);
    if (job.needsResultFetch()) {
        const ResultFetch fetch = co_await fetchResult(token.remoteId, acceptServerUrl(job.resultUrl, url));
        if (!self)
            co_return result;
        // The result first: the terminal status closes the run.
        const QList<RunEvent> resultEvents = JobsBackend::resultEvents(fetch);
        for (qsizetype i = 0; i < resultEvents.size(); ++i)
            result.events.insert(i, resultEvents.at(i));
    }
    co_return result;
}

QCoro::Task<ActionResult> JobsBackend::cancel(ContinuationToken token)
{
    qCDebug(lcJobs) << "cancel" << token.remoteId;
    QPointer<JobsBackend> self = this;
    ActionResult result;
    if (!m_profileError.isEmpty()) {
        result.error = profileProblem();
        co_return result;
    }
    HttpRequest r
        = request(m_profile.cancelMethod, m_profile.cancelPath.resolve(m_connection.baseUrl, token.remoteId));
    r.headers.emplaceBack("Accept", "application/json");
    // 409 is this contract's final answer ("already finished"), not a transient conflict to
    // retry; as non-idempotent the request is still repeated when it cannot have arrived.
    r.idempotent = false;
    const HttpResponse response = co_await m_http->send(std::move(r));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    const auto object = jsonObject(response.body);
    const Jobs::JobView job = object ? Jobs::readJob(*object, m_profile) : Jobs::JobView{};
    if (response.status == 202) {
        // Initiated, not done: the job stays non-terminal (usually still "running") until it
        // reports canceled. The run shows "cancelling" and is followed until then.
        result.note = Text::tr("cancellation requested; waiting for the job to stop");
        result.events << RunEvent::statusChange(RunStatus::Cancelling, u"cancelling"_s);
        co_return result;
    }
    if (response.ok()) {
        if (job.hasStatus) {
            result.events = Jobs::eventsForJob(job);
        } else {
            result.events << RunEvent::statusChange(RunStatus::Cancelled, u"canceled"_s);
        }
        co_return result;
    }
    if (response.status == 409) {
        // Already terminal: nothing changes. When the reply names the state, show it at once;
        // otherwise the engine's next poll does.
        result.note = job.hasStatus && isTerminalState(job.state) ? Text::tr("already ") + job.rawStatus
                                                                  : Text::tr("already finished");
        if (job.hasStatus && isTerminalState(job.state))
            result.events << RunEvent::statusChange(Jobs::toRunStatus(job.state), job.rawStatus);
        co_return result;
    }
    result.error = httpError(response);
    co_return result;
}

QCoro::Task<ActionResult> JobsBackend::remove(ContinuationToken token)
{
    Q_UNUSED(token)
    ActionResult result;
    result.error = RunError::unsupported(
        Text::tr("Job services have no server-side delete (DELETE cancels); remove the run locally."));
    co_return result;
}

QCoro::Task<ActionResult> JobsBackend::respond(ContinuationToken token, InputAnswer answer)
{
    QPointer<JobsBackend> self = this;
    ActionResult result;
    if (!m_profileError.isEmpty()) {
        result.error = profileProblem();
        co_return result;
    }
    HttpRequest r = request("POST", m_profile.inputPath.resolve(m_connection.baseUrl, token.remoteId));
    r.body = QJsonDocument(Jobs::answerBody(answer)).toJson(QJsonDocument::Compact);
    r.headers.emplaceBack("Content-Type", "application/json");
    r.headers.emplaceBack("Accept", "application/json");
    // Never repeated once it may have arrived: in a multi-step approval a repeated "approve"
    // could answer the next step (the director's) with the manager's answer.
    r.idempotent = false;
    const HttpResponse response = co_await m_http->send(std::move(r));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (!response.ok()) {
        result.error = httpError(response);
        if (response.status == 409 && !result.error.message.contains(u"input"_s, Qt::CaseInsensitive))
            result.error.message = Text::tr("The job is not waiting for input: ") + result.error.message;
        co_return result;
    }
    const auto object = jsonObject(response.body);
    const Jobs::JobView job = object ? Jobs::readJob(*object, m_profile) : Jobs::JobView{};
    if (job.hasStatus) {
        result.events = Jobs::eventsForJob(job);
    } else {
        result.events << RunEvent::statusChange(RunStatus::InProgress,
                                                Text::tr("running")); // 202: it resumes
    }
    co_return result;
}

QCoro::Task<ListResult> JobsBackend::list()
{
    QPointer<JobsBackend> self = this;
    ListResult result;
    if (!m_profileError.isEmpty()) {
        result.error = profileProblem();
        co_return result;
    }
    QString cursor;
    for (int page = 0; page < kMaxListPages; ++page) {
        const HttpResponse response = co_await m_http->send(listPage(cursor, {}));
        if (!self) {
            result.error = RunError::cancelled();
            co_return result;
        }
        if (!response.ok()) {
            result.error = httpError(response);
            co_return result;
        }
        const auto object = jsonObject(response.body);
        const QJsonValue items = object ? m_profile.listItems.evaluate(*object) : QJsonValue();
        if (!items.isArray()) {
            result.error = response.protocolError(
                {}, Text::tr("The listing has no array of jobs at %1.").arg(m_profile.listItems.toString()));
            co_return result;
        }
        for (const QJsonValue &item : items.toArray()) {
            const Jobs::JobView job = Jobs::readJob(item.toObject(), m_profile);
            if (job.id.isEmpty())
                continue;
            RemoteRunInfo info;
            info.remoteId = job.id;
            info.status = Jobs::toRunStatus(job.state);
            info.rawStatus = job.rawStatus;
            info.title = job.title;
            info.createdAt = job.createdAt;
            result.runs << info;
        }
        const QString next = m_profile.nextCursor.evaluate(*object).toString();
        if (next.isEmpty() || next == cursor)
            break;
        cursor = next;
    }
    co_return result;
}

QCoro::Task<std::optional<QJsonObject>> JobsBackend::rediscover(QString idempotencyKey, QString clientRunId)
{
    QPointer<JobsBackend> self = this;
    QString cursor;
    for (int page = 0; page < kMaxListPages; ++page) {
        const HttpResponse response = co_await m_http->send(listPage(cursor, idempotencyKey));
        if (!self || !response.ok())
            co_return std::nullopt;
        const auto object = jsonObject(response.body);
        const QJsonValue items = object ? m_profile.listItems.evaluate(*object) : QJsonValue();
        if (!items.isArray())
            co_return std::nullopt;
        // A service may ignore the filter: only a job that carries our key (or our client run
        // id) is ours.
        for (const QJsonValue &item : items.toArray()) {
            const Jobs::JobView job = Jobs::readJob(item.toObject(), m_profile);
            const bool keyMatches = !job.idempotencyKey.isEmpty() && job.idempotencyKey == idempotencyKey;
            const bool runMatches = !clientRunId.isEmpty() && job.clientRunId == clientRunId;
            if (!job.id.isEmpty() && (keyMatches || runMatches))
                co_return item.toObject();
        }
        const QString next = m_profile.nextCursor.evaluate(*object).toString();
        if (next.isEmpty() || next == cursor)
            break;
        cursor = next;
    }
    co_return std::nullopt;
}

QCoro::Task<JobsBackend::ResultFetch> JobsBackend::fetchResult(QString jobId, QUrl url)
{
    QPointer<JobsBackend> self = this;
    ResultFetch fetch;
    if (!url.isValid())
        url = m_profile.resultPath.resolve(m_connection.baseUrl, jobId);
    HttpRequest r = request("GET", url);
    r.headers.emplaceBack("Accept", "application/json, text/plain;q=0.9, */*;q=0.5");
    const HttpResponse response = co_await m_http->send(std::move(r));
    if (!self) {
        fetch.error = RunError::cancelled();
        co_return fetch;
    }
    if (!response.ok()) {
        fetch.error = httpError(response);
        co_return fetch;
    }
    const QByteArray contentType = response.header("content-type").trimmed().toLower();
    if (contentType.startsWith("application/json") || contentType.contains("+json")) {
        const QJsonDocument doc = QJsonDocument::fromJson(response.body);
        if (doc.isObject()) {
            // {"result": …} (or the profile's result pointer) — else the object is the result.
            const QJsonValue inner = m_profile.result.evaluate(doc.object());
            fetch.text = Jobs::resultText(inner.isUndefined() ? QJsonValue(doc.object()) : inner);
        } else if (doc.isArray()) {
            fetch.text = Jobs::resultText(doc.array());
        } else {
            fetch.error = response.protocolError({}, Text::tr("The result is not valid JSON."));
            co_return fetch;
        }
    } else {
        fetch.text = QString::fromUtf8(response.body);
    }
    fetch.ok = true;
    co_return fetch;
}

QList<RunEvent> JobsBackend::resultEvents(const ResultFetch &fetch)
{
    if (fetch.ok)
        return {RunEvent::primarySnapshot(fetch.text)};
    return {RunEvent::secondarySnapshot(SecondaryKind::Log, u"result"_s, u"result"_s,
                                        Text::tr("The job succeeded but its result could not be fetched: ")
                                            + fetch.error.toString())};
}

} // namespace Runwatch
