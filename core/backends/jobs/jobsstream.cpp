// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobsstream.h"

#include "jobsbackend.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>

using namespace Qt::StringLiterals;

namespace Runwatch::Jobs {

namespace {

bool isEventStream(const HttpResponse &response)
{
    return response.header("content-type").trimmed().toLower().startsWith("text/event-stream");
}


// The job id at the end of a Location such as /v1/jobs/job_01HZX7Q.
QString idFromLocation(const QUrl &location)
{
    const QString path = location.path(QUrl::FullyDecoded);
    return path.section(u'/', -1, -1, QString::SectionSkipEmpty);
}

} // namespace

JobsStream::JobsStream(JobsBackend *backend, Kickoff kickoff, std::chrono::milliseconds stallTimeout,
                       QObject *parent)
    : RunStream(parent)
    , m_backend(backend)
    , m_mapper(backend->profile(), -1)
{
    m_stallTimer.setSingleShot(true);
    m_stallTimer.setInterval(stallTimeout);
    connect(&m_stallTimer, &QTimer::timeout, this, &JobsStream::onStalled);
    // Start on the next event-loop turn so the owner can connect to our signals first.
    QTimer::singleShot(0, this, [this, kickoff] { runKickoff(kickoff); });
}

JobsStream::JobsStream(JobsBackend *backend, ContinuationToken token, std::chrono::milliseconds stallTimeout,
                       QObject *parent)
    : RunStream(parent)
    , m_backend(backend)
    , m_mapper(backend->profile(), token.sequence)
    , m_jobId(token.remoteId)
{
    m_stallTimer.setSingleShot(true);
    m_stallTimer.setInterval(stallTimeout);
    connect(&m_stallTimer, &QTimer::timeout, this, &JobsStream::onStalled);
    const QUrl url = backend->eventsUrl(token);
    const QString lastEventId = token.eventId;
    QTimer::singleShot(0, this, [this, url, lastEventId] { runEvents(url, lastEventId); });
}

JobsStream::~JobsStream()
{
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
    }
}

void JobsStream::abort()
{
    if (isFinished())
        return;
    m_aborted = true;
    m_stallTimer.stop();
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    finish({StreamEnd::Reason::Aborted, {}, std::nullopt});
}

void JobsStream::emitBatch(QList<RunEvent> events)
{
    if (!events.isEmpty())
        Q_EMIT eventsReceived(events);
}

QCoro::Task<> JobsStream::runKickoff(Kickoff kickoff)
{
    QPointer<JobsStream> self = this;
    if (!m_backend || m_aborted)
        co_return;
    if (!m_backend->profileError().isEmpty()) {
        endWith({StreamEnd::Reason::Error, m_backend->profileProblem(), std::nullopt});
        co_return;
    }
    const QUrl kickoffUrl = kickoff.request.url;
    const HttpResponse response = co_await m_backend->httpClient()->send(kickoff.request);
    if (!self || m_aborted || !m_backend)
        co_return;

    QJsonObject object;
    QString location;
    if (!response.ok()) {
        RunError error = response.error;
        Jobs::applyErrorBody(error, response.body);
        // No answer at all (or one that says nothing about the request): the job may exist
        // anyway. The listing finds it by the key we sent (protocols/jobs-api.md "recovery").
        const bool mayExist = error.kind == ErrorKind::Network || error.kind == ErrorKind::Timeout
                              || error.kind == ErrorKind::Server;
        std::optional<QJsonObject> found;
        if (mayExist)
            found = co_await m_backend->rediscover(kickoff.idempotencyKey, kickoff.clientRunId);
        if (!self || m_aborted || !m_backend)
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
            RunError e;
            e.kind = ErrorKind::Protocol;
            e.code = u"unexpected_kickoff_reply"_s;
            e.httpStatus = response.status;
            e.requestId = QString::fromUtf8(response.header("x-request-id"));
            e.message = u"The kickoff reply (HTTP %1) is not a job object."_s.arg(response.status);
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
        RunError e;
        e.kind = ErrorKind::Protocol;
        e.code = u"no_job_id"_s;
        e.httpStatus = response.status;
        e.message = u"The kickoff reply names no job id (looked at %1 and the Location header)."_s.arg(
            profile.id.toString());
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
    identity.tokenExtra = extra; // persisted: a restarted app follows the service's own URLs
    QList<RunEvent> events{identity};
    if (job.needsResultFetch()) {
        // A quick job answered synchronously (or one found finished by rediscovery) whose result
        // is too large to be inline: the run turns terminal together with its result.
        const JobsBackend::ResultFetch fetch = co_await m_backend->fetchResult(id, m_resultUrl);
        if (!self || m_aborted || !m_backend)
            co_return;
        events << JobsBackend::resultEvents(fetch);
    }
    events << eventsForJob(job);
    emitBatch(events);
    if (!self || m_aborted || !m_backend)
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

QCoro::Task<> JobsStream::runEvents(QUrl url, QString lastEventId)
{
    QPointer<JobsStream> self = this;
    if (!m_backend || m_aborted || isFinished())
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
    OpenedStream opened = co_await m_backend->httpClient()->openStream(std::move(request));
    if (!self || m_aborted) {
        if (opened.reply) {
            opened.reply->abort();
            opened.reply->deleteLater();
        }
        co_return;
    }
    if (!opened.response.ok() || !opened.reply) {
        RunError error = opened.response.error;
        Jobs::applyErrorBody(error, opened.response.body);
        // 404/405/406/410 and friends: this job has no (more) event stream. Polling still works.
        const bool refused = error.kind == ErrorKind::Client || error.kind == ErrorKind::NotFound;
        endWith({refused ? StreamEnd::Reason::ResumeRefused : StreamEnd::Reason::Error, error,
                 opened.response.retryAfterMs});
        co_return;
    }
    // The reply stays the network manager's child (see OpenedStream): if the backend goes
    // first, the reply goes with it and m_reply turns null instead of dangling.
    m_reply = opened.reply;
    if (!isEventStream(opened.response)) {
        RunError e;
        e.kind = ErrorKind::Protocol;
        e.code = u"unexpected_content_type"_s;
        e.httpStatus = opened.response.status;
        e.message = u"The events URL answered with %1 instead of an event stream; polling instead."_s.arg(
            QString::fromLatin1(opened.response.header("content-type")));
        endWith({StreamEnd::Reason::ResumeRefused, e, std::nullopt});
        co_return;
    }
    m_mapper.startConnection();
    connect(m_reply, &QNetworkReply::readyRead, this, &JobsStream::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &JobsStream::onReplyFinished);
    m_stallTimer.start();
    if (m_reply->bytesAvailable() > 0)
        drain();
    if (m_reply && m_reply->isFinished())
        onReplyFinished();
}

bool JobsStream::consume(QByteArrayView bytes)
{
    bool keepGoing = true;
    const bool parsed = m_parser.feed(bytes, [this, &keepGoing](const SseEvent &event) {
        if (!keepGoing)
            return;
        switch (m_mapper.map(event.type, event.data, event.id, m_batch)) {
        case StreamMapper::Outcome::Continue:
            break;
        case StreamMapper::Outcome::Done:
            m_done = true;
            keepGoing = false;
            break;
        case StreamMapper::Outcome::Malformed:
            m_pendingEnd = StreamEnd{StreamEnd::Reason::Error, m_mapper.error(), std::nullopt};
            keepGoing = false;
            break;
        }
    });
    if (!parsed && keepGoing) {
        RunError e;
        e.kind = ErrorKind::Protocol;
        e.code = u"event_too_large"_s;
        e.message = m_parser.errorString();
        m_pendingEnd = StreamEnd{StreamEnd::Reason::Error, e, std::nullopt};
        keepGoing = false;
    }
    return keepGoing;
}

void JobsStream::onReadyRead()
{
    // Drain on the next turn: chunks already queued by the network thread then arrive together
    // and become one batch (see OpenAi::ResponseStream).
    if (m_drainScheduled || !m_reply || isFinished())
        return;
    m_drainScheduled = true;
    QMetaObject::invokeMethod(this, &JobsStream::drain, Qt::QueuedConnection);
}

void JobsStream::drain()
{
    m_drainScheduled = false;
    if (!m_reply || isFinished() || m_done)
        return;
    bool keepGoing = true;
    bool gotBytes = false;
    while (keepGoing && m_reply && m_reply->bytesAvailable() > 0) {
        const QByteArray chunk = m_reply->read(256 * 1024);
        if (chunk.isEmpty())
            break;
        gotBytes = true;
        keepGoing = consume(chunk);
    }
    // Keep-alive comments count: they are what tells a quiet job from a dead connection.
    if (gotBytes && !m_done && !m_pendingEnd)
        m_stallTimer.start();
    if (!m_batch.isEmpty()) {
        QPointer<JobsStream> self = this;
        emitBatch(std::exchange(m_batch, {}));
        if (!self)
            return;
    }
    if (m_done) {
        finishDone();
        return;
    }
    if (m_pendingEnd)
        endWith(*std::exchange(m_pendingEnd, std::nullopt));
}

QCoro::Task<> JobsStream::finishDone()
{
    QPointer<JobsStream> self = this;
    m_stallTimer.stop();
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    if (m_mapper.resultFetchNeeded() && m_backend) {
        ContinuationToken token;
        token.remoteId = m_jobId;
        const QUrl resultUrl
            = m_backend->acceptServerUrl(m_mapper.doneResultUrl(), m_backend->statusUrl(token));
        const JobsBackend::ResultFetch fetch = co_await m_backend->fetchResult(m_jobId, resultUrl);
        if (!self || m_aborted)
            co_return;
        // The result first, then the held-back `done` events: a follower that stops at the
        // terminal status has the whole answer by then.
        emitBatch(JobsBackend::resultEvents(fetch) + m_mapper.takeHeldBack());
        if (!self || m_aborted)
            co_return;
    }
    endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
}

void JobsStream::onReplyFinished()
{
    if (!m_reply || isFinished() || m_done)
        return;
    QPointer<JobsStream> self = this;
    if (m_reply->isOpen() && m_reply->bytesAvailable() > 0)
        drain();
    if (!self || isFinished() || m_done || !m_reply)
        return;
    const std::optional<qint64> retry = m_parser.retryMs();
    if (m_reply->error() != QNetworkReply::NoError) {
        RunError e;
        e.kind = m_reply->error() == QNetworkReply::OperationCanceledError ? ErrorKind::Timeout
                                                                           : ErrorKind::Network;
        e.message = e.kind == ErrorKind::Timeout
                        ? u"The job's event stream went silent and timed out."_s
                        : u"The job's event stream was interrupted: %1"_s.arg(m_reply->errorString());
        e.retryable = true;
        endWith({StreamEnd::Reason::Error, e, retry});
        return;
    }
    // Closed before `done`: reconnect with Last-Event-ID, no sooner than the retry: field says.
    endWith({StreamEnd::Reason::Eof, {}, retry});
}

void JobsStream::onStalled()
{
    if (isFinished() || m_done)
        return;
    RunError e;
    e.kind = ErrorKind::Timeout;
    e.code = u"stalled"_s;
    e.message = u"Nothing arrived on the job's event stream for %1 s; reconnecting."_s.arg(
        m_stallTimer.interval() / 1000.0, 0, 'f', 1);
    e.retryable = true;
    endWith({StreamEnd::Reason::Error, e, m_parser.retryMs()});
}

void JobsStream::endWith(StreamEnd end)
{
    m_stallTimer.stop();
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    finish(std::move(end));
}

} // namespace Runwatch::Jobs
