// SPDX-License-Identifier: GPL-3.0-or-later
// The jobs simulator's endpoints (docs/protocols/jobs-api.md): kickoff, listing, status, the event
// stream, cancel, answers, results and webhooks. Connection handling, routing and the request log
// are in jobssim.cpp.
#include "jobssim.h"

#include "jobssimrun.h"
#include "jobssimstream.h"
#include "jobssimwire.h"
#include "server/httpconnection.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QLocale>
#include <QTimeZone>
#include <QTimer>

#include <cmath>
#include <utility>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

QByteArray httpDate(qint64 epochMs)
{
    const QDateTime when = QDateTime::fromMSecsSinceEpoch(epochMs, QTimeZone::utc());
    return QLocale::c().toString(when, u"ddd, dd MMM yyyy hh:mm:ss 'GMT'"_s).toLatin1();
}

} // namespace

HeaderList JobsSimulator::retryAfterHeaders(const JobsSimRun *job, JobsRequestRecord *record) const
{
    const QByteArray ra = job ? job->options().retryAfter : m_config.pollRetryAfter;
    if (ra.isEmpty())
        return {};
    if (ra.startsWith("date:")) {
        // An HTTP date has whole seconds: round up so that the client never gets less than N s.
        const qint64 seconds = ra.mid(5).toLongLong();
        const qint64 target = ((QDateTime::currentMSecsSinceEpoch() + seconds * 1000 + 999) / 1000) * 1000;
        if (record)
            record->retryAfterUntilEpochMs = target;
        return {{QByteArrayLiteral("Retry-After"), httpDate(target)}};
    }
    return {{QByteArrayLiteral("Retry-After"), ra}};
}

void JobsSimulator::handleKickoff(const Exchange &exchange, const HttpRequest &request)
{
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        sendError(exchange, 400, u"invalid_json"_s, u"The body must be a JSON object."_s);
        return;
    }
    const QJsonObject body = doc.object();
    const bool alternate = m_config.shape == JobsShape::Alternate;
    const QJsonValue input = body.value(alternate ? u"prompt"_s : u"input"_s);
    const QJsonValue metadataValue = body.value(alternate ? u"meta"_s : u"metadata"_s);
    // Structured input (an object) is taken as the job's arguments: its scalar members choose
    // the scenario and options like metadata does.
    if (!input.isString() && !input.isObject()) {
        sendError(exchange, 400, u"invalid_input"_s,
                  alternate ? u"\"prompt\" must be a string or an object."_s
                            : u"\"input\" must be a string or an object."_s);
        return;
    }
    if (!metadataValue.isUndefined() && !metadataValue.isObject()) {
        sendError(exchange, 400, u"invalid_metadata"_s, u"\"metadata\" must be an object."_s);
        return;
    }
    const QString key = QString::fromUtf8(request.header("idempotency-key"));
    if (!key.isEmpty()) {
        if (const auto it = m_byKey.constFind(key); it != m_byKey.constEnd()) {
            if (m_keyBodies.value(key) != request.body) {
                sendError(exchange, 422, u"idempotency_key_reused"_s,
                          u"This Idempotency-Key was used with a different request body."_s);
                return;
            }
            // The same logical kickoff again: the original job, never a second one.
            JobsSimRun *original = m_jobs.value(*it);
            if (original) {
                if (JobsRequestRecord *r = m_log.find(exchange.serial))
                    r->jobId = original->id();
                const int status = original->options().scenario == JobsScenario::Quick
                                       ? original->options().syncStatus
                                       : 202;
                HeaderList headers;
                if (!alternate)
                    headers.append({QByteArrayLiteral("Location"), original->statusPath().toUtf8()});
                sendJson(exchange, status, original->shapedObject(), headers);
                return;
            }
        }
    }
    QString optionsError;
    QJsonObject optionValues = input.toObject();
    const QJsonObject metadata = metadataValue.toObject();
    for (auto it = metadata.constBegin(); it != metadata.constEnd(); ++it)
        optionValues.insert(it.key(), it.value());
    const auto options = resolveRunOptions(m_config, input.toString(), optionValues, &optionsError);
    if (!options) {
        sendError(exchange, 400, u"invalid_option"_s, optionsError);
        return;
    }

    JobsRunSetup setup;
    setup.id = u"job_%1"_s.arg(m_nextJob++, 4, 10, QChar(u'0'));
    setup.basePath = m_config.basePath;
    setup.publicBase = baseUrl().toString();
    setup.shape = m_config.shape;
    setup.opaqueUrls = m_config.opaqueUrls && !alternate;
    setup.idempotencyKey = key;
    setup.input = input.isString() ? input.toString() : QString::fromUtf8(compactJson(input.toObject()));
    setup.metadata = metadataValue.toObject();
    setup.webhookToken = QString::fromLatin1(randomHex(8));
    setup.inlineResultLimit = m_config.inlineResultLimit;
    auto *job = new JobsSimRun(setup, *options, this);
    connect(job, &JobsSimRun::eventAdded, this, &JobsSimulator::onJobEvent);
    connect(job, &JobsSimRun::statusChanged, this, &JobsSimulator::jobStatusChanged);
    m_jobs.insert(setup.id, job);
    m_order.append(setup.id);
    ++m_jobsCreated;
    if (!key.isEmpty()) {
        m_byKey.insert(key, setup.id);
        m_keyBodies.insert(key, request.body);
    }
    if (JobsRequestRecord *r = m_log.find(exchange.serial))
        r->jobId = setup.id;
    Q_EMIT jobCreated(setup.id);
    job->start();
    forgetOldJobs();

    if (options->scenario == JobsScenario::Quick) {
        sendJson(exchange, options->syncStatus, job->shapedObject());
        return;
    }
    QJsonObject reply = job->object();
    reply.insert(u"estimated_duration_seconds"_s,
                 std::ceil(double(options->deltas) * options->intervalMs / 1000.0));
    HeaderList headers;
    if (!alternate)
        headers.append({QByteArrayLiteral("Location"), job->statusPath().toUtf8()});
    headers << retryAfterHeaders(job, m_log.find(exchange.serial));
    sendJson(exchange, 202, shapeJobObject(reply, m_config.shape), headers);
}

void JobsSimulator::handleList(const Exchange &exchange, const HttpRequest &request)
{
    const QString status = request.query.queryItemValue(u"status"_s, QUrl::FullyDecoded);
    const QString key = request.query.queryItemValue(u"idempotency_key"_s, QUrl::FullyDecoded);
    int limit = 20;
    qsizetype offset = 0;
    if (request.query.hasQueryItem(u"limit"_s)) {
        bool ok = false;
        limit = request.query.queryItemValue(u"limit"_s).toInt(&ok);
        if (!ok || limit < 1 || limit > 100) {
            sendError(exchange, 400, u"invalid_limit"_s, u"limit must be an integer from 1 to 100."_s);
            return;
        }
    }
    if (request.query.hasQueryItem(u"cursor"_s)) {
        bool ok = false;
        offset = request.query.queryItemValue(u"cursor"_s).toLongLong(&ok);
        if (!ok || offset < 0) {
            sendError(exchange, 400, u"invalid_cursor"_s, u"Unknown cursor."_s);
            return;
        }
    }
    QList<const JobsSimRun *> matching;
    for (const QString &id : std::as_const(m_order)) {
        const JobsSimRun *job = m_jobs.value(id);
        if (!job)
            continue;
        if (!status.isEmpty() && status != job->status()
            && status != shapeStatus(job->status(), m_config.shape))
            continue;
        if (!key.isEmpty() && key != job->setup().idempotencyKey)
            continue;
        matching << job;
    }
    QJsonArray items;
    for (qsizetype i = offset; i < matching.size() && i < offset + limit; ++i)
        items.append(matching.at(i)->shapedObject());
    const bool more = offset + limit < matching.size();
    const QJsonValue next = more ? QJsonValue(QString::number(offset + limit)) : QJsonValue(QJsonValue::Null);
    const bool alternate = m_config.shape == JobsShape::Alternate;
    sendJson(exchange, 200,
             QJsonObject{{alternate ? u"items"_s : u"jobs"_s, items},
                         {alternate ? u"next"_s : u"next_cursor"_s, next}});
}

void JobsSimulator::handleStatus(const Exchange &exchange, JobsSimRun *job)
{
    const HeaderList headers
        = job->isTerminal() ? HeaderList{} : retryAfterHeaders(job, m_log.find(exchange.serial));
    sendJson(exchange, 200, job->shapedObject(), headers);
}

void JobsSimulator::handleEvents(const Exchange &exchange, const HttpRequest &request, JobsSimRun *job)
{
    if (!job->options().events) {
        sendError(exchange, 404, u"no_events"_s,
                  u"Job %1 has no event stream; poll its status."_s.arg(job->id()));
        return;
    }
    if (!exchange.connection || replyLost(exchange))
        return;
    const int index = m_streamCounts.value(job->id());
    m_streamCounts.insert(job->id(), index + 1);
    const StreamFaults &faults = job->options().streamFaults;
    beginEventStream(exchange.connection, {{QByteArrayLiteral("x-request-id"), newRequestId()}});
    recordAnswer(exchange, 200);
    auto *stream
        = new JobsSimStream(exchange.connection, job->id(), faults, faults.hitConnection(index + 1), this);
    connect(stream, &JobsSimStream::dropped, this, &JobsSimulator::streamDropped);
    stream->applyDrip();
    if (m_config.retryMs >= 0)
        stream->writeRaw("retry: " + QByteArray::number(m_config.retryMs) + "\n\n");
    stream->startComments(m_config.commentIntervalMs, QByteArrayLiteral(": keep-alive\n\n"));
    Q_EMIT streamOpened(job->id(), index);

    // Replay what followed Last-Event-ID (everything when absent or not one of ours).
    bool ok = false;
    const qint64 after = request.header("last-event-id").trimmed().toLongLong(&ok);
    const qint64 from = ok && after > 0 ? after : 0;
    const QList<JobsSimEvent> &events = job->events();
    for (qsizetype i = from; i < events.size() && stream->isOpen(); ++i)
        stream->send(events.at(i));
    // Resumed after the last event of a finished job: nothing follows.
    if (stream->isOpen() && job->isTerminal() && !events.isEmpty() && events.last().type == "done")
        stream->end();
    // Dead slots are dropped here rather than on close: QPointer tells which are gone.
    m_streams.removeIf([](const QPointer<JobsSimStream> &s) { return !s || !s->isOpen(); });
    if (stream->isOpen())
        m_streams.append(stream);
}

void JobsSimulator::onJobEvent(const QString &jobId, qint64 eventId)
{
    const JobsSimRun *job = m_jobs.value(jobId);
    if (!job || eventId < 1 || eventId > job->events().size())
        return;
    const JobsSimEvent event = job->events().at(eventId - 1);
    for (const QPointer<JobsSimStream> &stream : std::as_const(m_streams)) {
        if (stream && stream->jobId() == jobId)
            stream->send(event);
    }
    m_streams.removeIf([](const QPointer<JobsSimStream> &s) { return !s || !s->isOpen(); });
}

void JobsSimulator::handleCancel(const Exchange &exchange, JobsSimRun *job)
{
    switch (job->cancel()) {
    case JobsSimRun::CancelResult::Cancelled:
        sendJson(exchange, 200, job->shapedObject());
        return;
    case JobsSimRun::CancelResult::Initiated:
        sendJson(exchange, 202, job->shapedObject());
        return;
    case JobsSimRun::CancelResult::AlreadyTerminal: {
        // The error body, plus the job's own fields so a client can show the final state.
        QJsonObject extra = job->shapedObject();
        extra.remove(u"error"_s);
        sendError(exchange, 409, u"already_terminal"_s,
                  u"Job %1 already %2; nothing to cancel."_s.arg(job->id(), job->status()), false, extra);
        return;
    }
    }
}

void JobsSimulator::handleInput(const Exchange &exchange, const HttpRequest &request, JobsSimRun *job)
{
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        sendError(exchange, 400, u"invalid_json"_s, u"The answer must be a JSON object."_s);
        return;
    }
    if (const int status = job->options().inputFaultStatus; status > 0) {
        sendError(exchange, status, u"injected_fault"_s,
                  u"The approval service refused the answer to job %1 (injected)."_s.arg(job->id()), false);
        return;
    }
    QString why;
    switch (job->answer(doc.object(), &why)) {
    case JobsSimRun::AnswerResult::Accepted:
        if (const int delay = job->options().inputReplyDelayMs; delay > 0) {
            // The reply a slow network delivers late: the job as it was when the answer was
            // taken, while the job has gone on meanwhile.
            QTimer::singleShot(delay, this, [this, exchange, reply = job->shapedObject()] {
                sendJson(exchange, 202, reply);
            });
            return;
        }
        sendJson(exchange, 202, job->shapedObject());
        return;
    case JobsSimRun::AnswerResult::NotSuspended:
        sendError(exchange, 409, u"not_suspended"_s, why);
        return;
    case JobsSimRun::AnswerResult::NoOperatorInput:
        sendError(exchange, 409, u"no_operator_input"_s, why);
        return;
    case JobsSimRun::AnswerResult::BadShape:
        sendError(exchange, 400, u"invalid_answer"_s, why);
        return;
    }
}

void JobsSimulator::handleResult(const Exchange &exchange, JobsSimRun *job)
{
    if (!job->isTerminal()) {
        sendError(exchange, 409, u"not_finished"_s, u"Job %1 is still %2."_s.arg(job->id(), job->status()),
                  true);
        return;
    }
    if (job->status() != u"succeeded") {
        sendError(exchange, 404, u"no_result"_s,
                  u"Job %1 %2 without a result."_s.arg(job->id(), job->status()));
        return;
    }
    sendJson(exchange, 200,
             shapeJobObject(QJsonObject{{u"job_id"_s, job->id()}, {u"result"_s, job->resultText()}},
                            m_config.shape));
}

void JobsSimulator::handleWebhook(const Exchange &exchange, const HttpRequest &request, const QString &id,
                                  const QString &token)
{
    JobsSimRun *job = m_jobs.value(id);
    if (!job || job->setup().webhookToken != token) {
        sendError(exchange, 404, u"not_found"_s, u"No such webhook."_s);
        return;
    }
    QJsonObject body;
    if (!request.body.trimmed().isEmpty()) {
        const QJsonDocument doc = QJsonDocument::fromJson(request.body);
        if (!doc.isObject()) {
            sendError(exchange, 400, u"invalid_json"_s, u"The callback body must be a JSON object."_s);
            return;
        }
        body = doc.object();
    }
    if (!job->callback(body)) {
        sendError(exchange, 409, u"not_waiting"_s, u"Job %1 is not waiting for a callback."_s.arg(id));
        return;
    }
    sendJson(exchange, 202, QJsonObject{{u"accepted"_s, true}});
}

void JobsSimulator::forgetOldJobs()
{
    qsizetype excess = m_order.size() - m_config.maxStoredJobs;
    for (qsizetype i = 0; i < m_order.size() && excess > 0;) {
        JobsSimRun *job = m_jobs.value(m_order.at(i));
        if (job && !job->isTerminal()) {
            ++i;
            continue;
        }
        const QString id = m_order.takeAt(i);
        if (job) {
            m_byKey.remove(job->setup().idempotencyKey);
            m_keyBodies.remove(job->setup().idempotencyKey);
            job->deleteLater();
        }
        m_jobs.remove(id);
        m_streamCounts.remove(id);
        --excess;
    }
}

} // namespace RunwatchSim
