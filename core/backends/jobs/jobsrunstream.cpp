// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobsrunstream.h"

#include "jobsbackend.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "JobsConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(JobsConnector)
};
} // namespace

using namespace Jobs;

namespace {

// The job id at the end of a Location such as /v1/jobs/job_01HZX7Q.
QString idFromLocation(const QUrl &location)
{
    const QString path = location.path(QUrl::FullyDecoded);
    return path.section(u'/', -1, -1, QString::SectionSkipEmpty);
}

} // namespace

SseRunStream::Options JobsRunStream::readOptions(std::chrono::milliseconds stallTimeout)
{
    return {
        .stallTimeout = stallTimeout,
        // Keep-alive comments count: they are what tells a quiet job from a dead connection.
        .stallOnBytes = true,
        // Reconnect with Last-Event-ID no sooner than the retry: field says.
        .retryFromStream = true,
        .stalledMessage = Text::tr("Nothing arrived on the job's event stream for %1 s; reconnecting."),
        .timedOutMessage = Text::tr("The job's event stream went silent and timed out."),
        .interruptedMessage = Text::tr("The job's event stream was interrupted: %1"),
    };
}

JobsRunStream::JobsRunStream(JobsBackend *backend, Kickoff kickoff, std::chrono::milliseconds stallTimeout,
                             QObject *parent)
    : SseRunStream(readOptions(stallTimeout), parent)
    , m_backend(backend)
    , m_mapper(backend->profile(), -1)
{
    // Start on the next event-loop turn so the owner can connect to our signals first.
    QTimer::singleShot(0, this, [this, kickoff] { runKickoff(kickoff); });
}

JobsRunStream::JobsRunStream(JobsBackend *backend, ContinuationToken token,
                             std::chrono::milliseconds stallTimeout, QObject *parent)
    : SseRunStream(readOptions(stallTimeout), parent)
    , m_backend(backend)
    , m_mapper(backend->profile(), token.sequence)
    , m_jobId(token.remoteId)
{
    const QUrl url = backend->eventsUrl(token);
    const QString lastEventId = token.eventId;
    QTimer::singleShot(0, this, [this, url, lastEventId] { runEvents(url, lastEventId); });
}

QCoro::Task<> JobsRunStream::runKickoff(Kickoff kickoff)
{
    QPointer<JobsRunStream> self = this;
    if (!m_backend || isAborted())
        co_return;
    if (!m_backend->profileError().isEmpty()) {
        endWith({StreamEnd::Reason::Error, m_backend->profileProblem(), std::nullopt});
        co_return;
    }
    const QUrl kickoffUrl = kickoff.request.url;
    const HttpResponse response = co_await m_backend->httpClient()->send(kickoff.request);
    if (!self || isAborted() || !m_backend)
        co_return;

    QJsonObject object;
    QString location;
    if (!response.ok()) {
        RunError error = response.error;
        applyErrorBody(error, response.body);
        // No answer at all (or one that says nothing about the request): the job may exist
        // anyway. The listing finds it by the key we sent (docs/protocols/jobs-api.md "recovery").
        const bool mayExist = error.kind == ErrorKind::Network || error.kind == ErrorKind::Timeout
                              || error.kind == ErrorKind::Server;
        std::optional<QJsonObject> found;
        if (mayExist) {
            found = co_await m_backend->rediscover(kickoff.idempotencyKey, kickoff.clientRunId);
        }
        if (!self || isAborted() || !m_backend)
            co_return;
        if (!found) {
            endWith({StreamEnd::Reason::Error, error, response.retryAfterMs});
            co_return;
        }
        object = *found;
    } else {
        const QJsonDocument doc = QJsonDocument::fromJson(response.body);
        location = QString::fromLatin1(response.header("location").trimmed());
        if (doc.isObject()) {
            object = doc.object();
        } else if (location.isEmpty() || !response.body.trimmed().isEmpty()) {
            const RunError e = response.protocolError(
                u"unexpected_kickoff_reply"_s,
                Text::tr("The kickoff reply (HTTP %1) is not a job object.").arg(response.status));
            endWith({StreamEnd::Reason::Error, e, std::nullopt});
            co_return;
        }
    }

    const JobsProfile &profile = m_backend->profile();
    const JobView job = readJob(object, profile);
    const QUrl locationUrl = m_backend->acceptServerUrl(location, kickoffUrl);
    QString id = job.id;
    if (id.isEmpty() && locationUrl.isValid())
        id = idFromLocation(locationUrl);
    if (id.isEmpty()) {
        RunError e = RunError::protocol(
            u"no_job_id"_s,
            Text::tr("The kickoff reply names no job id (looked at %1 and the Location header).")
                .arg(profile.id.toString()));
        e.httpStatus = response.status;
        endWith({StreamEnd::Reason::Error, e, std::nullopt});
        co_return;
    }
    m_jobId = id;

    QUrl statusUrl = m_backend->acceptServerUrl(job.statusUrl, kickoffUrl);
    if (!statusUrl.isValid())
        statusUrl = locationUrl;
    if (!statusUrl.isValid())
        statusUrl = profile.statusPath.resolve(m_backend->connection().baseUrl, id);
    QUrl eventsUrl;
    if (kickoff.stream && profile.events != JobsProfile::EventsMode::Never) {
        eventsUrl = m_backend->acceptServerUrl(job.eventsUrl, kickoffUrl);
        if (!eventsUrl.isValid() && profile.events == JobsProfile::EventsMode::Always)
            eventsUrl = profile.eventsPath.resolve(m_backend->connection().baseUrl, id);
    }
    m_resultUrl = m_backend->acceptServerUrl(job.resultUrl, kickoffUrl);
    m_backend->rememberUrls(id, statusUrl, eventsUrl);

    RunEvent identity = RunEvent::identity(id, QString(), eventsUrl.isValid());
    QJsonObject extra{{u"status_url"_s, statusUrl.toString()},
                      {u"idempotency_key"_s, kickoff.idempotencyKey}};
    if (eventsUrl.isValid())
        extra.insert(u"events_url"_s, eventsUrl.toString());
    // The service's own estimate (jobs API kickoff reply) drives the ETA and the stuck-run rule
    // (runProgress(), estimatedDurationMs() in core/models); a value that is not a number is ignored.
    if (const QJsonValue estimate = object.value(u"estimated_duration_seconds"_s); estimate.isDouble())
        extra.insert(u"estimated_duration_seconds"_s, estimate.toDouble());
    identity.tokenExtra = extra; // persisted: a restarted app follows the service's own URLs
    QList<RunEvent> events{identity};
    if (job.needsResultFetch()) {
        // A quick job answered synchronously (or one found finished by rediscovery) whose result
        // is too large to be inline: the run turns terminal together with its result.
        const JobsBackend::ResultFetch fetch = co_await m_backend->fetchResult(id, m_resultUrl);
        if (!self || isAborted() || !m_backend)
            co_return;
        events << JobsBackend::resultEvents(fetch);
    }
    events << eventsForJob(job);
    deliver(events);
    if (!self || isAborted() || !m_backend)
        co_return;

    if (isTerminalState(job.state)) {
        endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
        co_return;
    }
    if (!eventsUrl.isValid()) {
        // The job has no event stream: the engine polls the status URL. A Retry-After on the 202
        // is the service's first poll interval.
        endWith({StreamEnd::Reason::ResumeRefused,
                 {},
                 parseRetryAfter(response.headers, QDateTime::currentDateTimeUtc())});
        co_return;
    }
    co_await runEvents(eventsUrl, QString());
}

QCoro::Task<> JobsRunStream::runEvents(QUrl url, QString lastEventId)
{
    QPointer<JobsRunStream> self = this;
    if (!m_backend || isAborted() || isFinished())
        co_return;
    if (!m_backend->profileError().isEmpty()) {
        endWith({StreamEnd::Reason::Error, m_backend->profileProblem(), std::nullopt});
        co_return;
    }
    if (!url.isValid()) {
        endWith({StreamEnd::Reason::ResumeRefused, {}, std::nullopt});
        co_return;
    }
    HttpRequest request = m_backend->request("GET", url);
    request.headers.emplaceBack("Accept", "text/event-stream");
    request.headers.emplaceBack("Cache-Control", "no-cache");
    if (!lastEventId.isEmpty())
        request.headers.emplaceBack("Last-Event-ID", lastEventId.toUtf8());
    OpenedStream opened = co_await m_backend->httpClient()->openStream(std::move(request), decoderFactory());
    if (!self || isAborted()) {
        discardReply(opened.reply);
        co_return;
    }
    if (!opened.response.ok() || !opened.reply) {
        RunError error = opened.response.error;
        applyErrorBody(error, opened.response.body);
        // 404/405/406/410 and friends: this job has no (more) event stream. Polling still works.
        const bool refused = error.kind == ErrorKind::Client || error.kind == ErrorKind::NotFound;
        endWith({refused ? StreamEnd::Reason::ResumeRefused : StreamEnd::Reason::Error, error,
                 opened.response.retryAfterMs});
        co_return;
    }
    if (!isEventStream(opened.response)) {
        discardReply(opened.reply);
        const RunError e = unexpectedContentType(
            opened.response,
            Text::tr("The events URL answered with %1 instead of an event stream; polling instead.")
                .arg(QString::fromLatin1(opened.response.header("content-type"))));
        endWith({StreamEnd::Reason::ResumeRefused, e, std::nullopt});
        co_return;
    }
    startReading(opened);
}

std::unique_ptr<SseDecoder> JobsRunStream::makeDecoder()
{
    // Called when a connection's event stream starts: the ids it will send are new.
    m_mapper.startConnection();
    class Decoder final : public SseDecoder
    {
    public:
        explicit Decoder(JobsMapper mapper)
            : m_mapper(std::move(mapper))
        {}

    private:
        std::any readerState() const override { return m_mapper; }

        bool handleEvent(const SseEvent &event, QList<RunEvent> &out) override
        {
            switch (m_mapper.map(event.type, event.data, event.id, out)) {
            case JobsMapper::Outcome::Continue:
                return true;
            case JobsMapper::Outcome::Done:
                settleAfterBatch();
                return false;
            case JobsMapper::Outcome::Malformed:
                endAfterBatch({StreamEnd::Reason::Error, m_mapper.error(), std::nullopt});
                return false;
            }
            return true;
        }

        JobsMapper m_mapper;
    };
    return std::make_unique<Decoder>(m_mapper);
}

void JobsRunStream::decoderState(const std::any &state)
{
    if (const auto *mapper = std::any_cast<JobsMapper>(&state))
        m_mapper = *mapper;
}

QCoro::Task<> JobsRunStream::finishDone()
{
    QPointer<JobsRunStream> self = this;
    detachReply();
    if (m_mapper.resultFetchNeeded() && m_backend) {
        ContinuationToken token;
        token.remoteId = m_jobId;
        const QUrl resultUrl
            = m_backend->acceptServerUrl(m_mapper.doneResultUrl(), m_backend->statusUrl(token));
        const JobsBackend::ResultFetch fetch = co_await m_backend->fetchResult(m_jobId, resultUrl);
        if (!self || isAborted())
            co_return;
        // The result first, then the held-back `done` events: a follower that stops at the
        // terminal status has the whole answer by then.
        deliver(JobsBackend::resultEvents(fetch) + m_mapper.takeHeldBack());
        if (!self || isAborted())
            co_return;
    }
    endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
}

} // namespace Runwatch
