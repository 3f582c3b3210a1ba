// SPDX-License-Identifier: GPL-3.0-or-later
// The jobs simulator's endpoints (protocols/jobs-api.md): per-job options, kickoff, listing,
// status, the event stream, cancel, answers, results and webhooks. Connection handling, routing
// and the request log are in jobssim.cpp.
#include "jobssim.h"

#include "simhttp.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTimeZone>
#include <QTimer>

#include <cmath>
#include <utility>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

using Headers = QList<QPair<QByteArray, QByteArray>>;

QByteArray randomHex(int bytes)
{
    QByteArray raw(bytes, Qt::Uninitialized);
    for (char &c : raw)
        c = char(QRandomGenerator::global()->bounded(256));
    return raw.toHex();
}

QByteArray httpDate(qint64 epochMs)
{
    const QDateTime when = QDateTime::fromMSecsSinceEpoch(epochMs, QTimeZone::utc());
    return QLocale::c().toString(when, u"ddd, dd MMM yyyy hh:mm:ss 'GMT'"_s).toLatin1();
}

QString metadataText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 15);
    if (v.isBool())
        return v.toBool() ? u"1"_s : u"0"_s;
    return {};
}

} // namespace

std::optional<JobsJobOptions> JobsSimulator::optionsFor(const QString &input, const QJsonObject &metadata,
                                                        QString *error) const
{
    JobsJobOptions o;
    o.deltas = m_config.deltas;
    o.intervalMs = m_config.intervalMs;
    o.queuedMs = m_config.queuedMs;
    o.timeoutSeconds = m_config.timeoutSeconds;
    o.events = m_config.offerEvents;
    o.retryAfter = m_config.pollRetryAfter;
    o.cancelDelayMs = m_config.cancelDelayMs;
    o.streamFaults = m_config.streamFaults;

    // key=value words of the input, then metadata over them.
    QHash<QString, QString> values;
    const QStringList words = input.split(QRegularExpression(u"\\s+"_s), Qt::SkipEmptyParts);
    for (const QString &word : words) {
        const qsizetype eq = word.indexOf(u'=');
        if (eq > 0)
            values.insert(word.left(eq), word.mid(eq + 1));
    }
    for (auto it = metadata.constBegin(); it != metadata.constEnd(); ++it) {
        const QString text = metadataText(it.value());
        if (!text.isEmpty() || it.value().isString())
            values.insert(it.key(), text);
    }

    QString scenario = values.value(u"scenario"_s);
    if (scenario.isEmpty() && !words.isEmpty() && !words.first().contains(u'=')) {
        QString first = words.first();
        while (!first.isEmpty() && (first.endsWith(u':') || first.endsWith(u',') || first.endsWith(u'.')))
            first.chop(1);
        if (jobsScenarioFromName(first))
            scenario = first;
    }
    if (!scenario.isEmpty()) {
        const auto s = jobsScenarioFromName(scenario);
        if (!s) {
            *error = u"metadata.scenario: unknown scenario \"%1\" (known: %2)"_s.arg(
                scenario, jobsScenarioNames().join(u", "_s));
            return std::nullopt;
        }
        o.scenario = *s;
    }
    if (o.scenario == JobsScenario::Long)
        o.deltas = m_config.longDeltas;

    bool ok = true;
    const auto integer = [&](const char *key, qint64 min, qint64 max, auto *target) {
        const QString name = QString::fromLatin1(key);
        if (!ok || !values.contains(name))
            return;
        bool parsed = false;
        const qint64 v = values.value(name).toLongLong(&parsed);
        if (!parsed || v < min || v > max) {
            ok = false;
            *error = u"metadata.%1: expected an integer from %2 to %3"_s.arg(name).arg(min).arg(max);
            return;
        }
        *target = static_cast<std::remove_pointer_t<decltype(target)>>(v);
    };
    int retryable = o.retryable ? 1 : 0;
    int events = o.events ? 1 : 0;
    qint64 timeoutSeconds = qint64(o.timeoutSeconds);
    integer("deltas", 0, 10000000, &o.deltas);
    integer("interval_ms", 0, 3600000, &o.intervalMs);
    integer("queued_ms", 0, 3600000, &o.queuedMs);
    integer("fail_after", 0, 10000000, &o.failAfter);
    integer("retryable", 0, 1, &retryable);
    integer("timeout_ms", 0, 86400000, &o.timeoutMs);
    integer("timeout_seconds", 0, 86400 * 365, &timeoutSeconds);
    integer("timer_ms", 0, 86400000, &o.timerMs);
    integer("webhook_ms", 0, 86400000, &o.webhookMs);
    integer("cancel_delay_ms", 0, 3600000, &o.cancelDelayMs);
    integer("events", 0, 1, &events);
    integer("large_bytes", 0, qint64(256) << 20, &o.largeBytes);
    integer("unknown_ms", 0, 3600000, &o.unknownMs);
    integer("sync_status", 200, 201, &o.syncStatus);
    integer("drop_after", -1, 10000000, &o.streamFaults.dropAfterEvents);
    integer("fault_connections", -1, 1000000, &o.streamFaults.connections);
    integer("malformed_at", -1, 10000000, &o.streamFaults.malformedAt);
    integer("drip_ms", 0, 60000, &o.streamFaults.dripIntervalMs);
    if (!ok)
        return std::nullopt;
    o.retryable = retryable != 0;
    o.events = events != 0;
    o.timeoutSeconds = double(timeoutSeconds);
    if (values.contains(u"drop_mode"_s)) {
        const auto mode = dropModeFromName(values.value(u"drop_mode"_s));
        if (!mode) {
            *error = u"metadata.drop_mode: expected close, reset or mid"_s;
            return std::nullopt;
        }
        o.streamFaults.dropMode = *mode;
    }
    if (values.contains(u"retry_after"_s)) {
        const QString ra = values.value(u"retry_after"_s);
        static const QRegularExpression valid(u"^(none|\\d+(\\.\\d+)?|date:\\d+)$"_s);
        if (!valid.match(ra).hasMatch()) {
            *error = u"metadata.retry_after: expected seconds, date:N or none"_s;
            return std::nullopt;
        }
        o.retryAfter = ra == u"none" ? QByteArray() : ra.toLatin1();
    }
    o.reply = values.value(u"reply"_s);
    return o;
}

Headers JobsSimulator::retryAfterHeaders(const JobsSimJob *job, JobsRequestRecord *record) const
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
    if (!input.isString()) {
        sendError(exchange, 400, u"invalid_input"_s,
                  alternate ? u"\"prompt\" must be a string."_s : u"\"input\" must be a string."_s);
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
            JobsSimJob *original = m_jobs.value(*it);
            if (original) {
                if (JobsRequestRecord *r = recordFor(exchange.serial))
                    r->jobId = original->id();
                const int status = original->options().scenario == JobsScenario::Quick
                                       ? original->options().syncStatus
                                       : 202;
                Headers headers;
                if (!alternate)
                    headers.append({QByteArrayLiteral("Location"), original->statusPath().toUtf8()});
                sendJson(exchange, status, original->shapedObject(), headers);
                return;
            }
        }
    }
    QString optionsError;
    const auto options = optionsFor(input.toString(), metadataValue.toObject(), &optionsError);
    if (!options) {
        sendError(exchange, 400, u"invalid_option"_s, optionsError);
        return;
    }

    JobsJobSetup setup;
    setup.id = u"job_%1"_s.arg(m_nextJob++, 4, 10, QChar(u'0'));
    setup.basePath = m_config.basePath;
    setup.publicBase = baseUrl().toString();
    setup.shape = m_config.shape;
    setup.opaqueUrls = m_config.opaqueUrls && !alternate;
    setup.idempotencyKey = key;
    setup.input = input.toString();
    setup.metadata = metadataValue.toObject();
    setup.webhookToken = QString::fromLatin1(randomHex(8));
    setup.inlineResultLimit = m_config.inlineResultLimit;
    auto *job = new JobsSimJob(setup, *options, this);
    connect(job, &JobsSimJob::eventAdded, this, &JobsSimulator::onJobEvent);
    connect(job, &JobsSimJob::statusChanged, this, &JobsSimulator::jobStatusChanged);
    m_jobs.insert(setup.id, job);
    m_order.append(setup.id);
    ++m_jobsCreated;
    if (!key.isEmpty()) {
        m_byKey.insert(key, setup.id);
        m_keyBodies.insert(key, request.body);
    }
    if (JobsRequestRecord *r = recordFor(exchange.serial))
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
    Headers headers;
    if (!alternate)
        headers.append({QByteArrayLiteral("Location"), job->statusPath().toUtf8()});
    headers << retryAfterHeaders(job, recordFor(exchange.serial));
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
    QList<const JobsSimJob *> matching;
    for (const QString &id : std::as_const(m_order)) {
        const JobsSimJob *job = m_jobs.value(id);
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

void JobsSimulator::handleStatus(const Exchange &exchange, JobsSimJob *job)
{
    const Headers headers
        = job->isTerminal() ? Headers{} : retryAfterHeaders(job, recordFor(exchange.serial));
    sendJson(exchange, 200, job->shapedObject(), headers);
}

void JobsSimulator::handleEvents(const Exchange &exchange, const HttpRequest &request, JobsSimJob *job)
{
    if (!job->options().events) {
        sendError(exchange, 404, u"no_events"_s,
                  u"Job %1 has no event stream; poll its status."_s.arg(job->id()));
        return;
    }
    if (!exchange.connection)
        return;
    if (exchange.dropReply) {
        exchange.connection->drop(false);
        recordAnswer(exchange, 0, true);
        return;
    }
    const int index = m_streamCounts.value(job->id());
    m_streamCounts.insert(job->id(), index + 1);
    const JobsStreamFaults &faults = job->options().streamFaults;
    Session session;
    session.connection = exchange.connection;
    session.jobId = job->id();
    session.faulty = faults.connections < 0 || index < faults.connections;
    exchange.connection->beginStream(
        200, {{QByteArrayLiteral("Content-Type"), QByteArrayLiteral("text/event-stream")},
              {QByteArrayLiteral("Cache-Control"), QByteArrayLiteral("no-cache")},
              {QByteArrayLiteral("x-request-id"), newRequestId()}});
    recordAnswer(exchange, 200);
    if (session.faulty && faults.dripIntervalMs > 0)
        exchange.connection->setDripInterval(faults.dripIntervalMs);
    if (m_config.retryMs >= 0)
        exchange.connection->write("retry: " + QByteArray::number(m_config.retryMs) + "\n\n");
    Q_EMIT streamOpened(job->id(), index);

    // Replay what followed Last-Event-ID (everything when absent or not one of ours).
    bool ok = false;
    const qint64 after = request.header("last-event-id").trimmed().toLongLong(&ok);
    const qint64 from = ok && after > 0 ? after : 0;
    m_sessions.append(session);
    Session &live = m_sessions.last();
    const QList<JobsSimEvent> &events = job->events();
    for (qsizetype i = from; i < events.size() && !live.ended; ++i)
        writeEvent(live, events.at(i));
    if (!live.ended && job->isTerminal() && !events.isEmpty() && events.last().type == "done")
        endSession(live);
    // Session slots are compacted here rather than on close: QPointer tells us which are dead.
    m_sessions.removeIf([](const Session &s) { return s.ended || !s.connection; });
}

void JobsSimulator::writeEvent(Session &session, const JobsSimEvent &event)
{
    if (session.ended || !session.connection || !session.connection->isOpen()) {
        session.ended = true;
        return;
    }
    const JobsSimJob *job = m_jobs.value(session.jobId);
    const JobsStreamFaults faults = job ? job->options().streamFaults : m_config.streamFaults;
    QByteArray data = event.data;
    if (session.faulty && faults.malformedAt == event.id)
        data.truncate(data.size() / 2);
    const QByteArray frame
        = "id: " + QByteArray::number(event.id) + "\nevent: " + event.type + "\ndata: " + data + "\n\n";
    if (session.faulty && faults.dropAfterEvents >= 0 && session.written >= faults.dropAfterEvents) {
        switch (faults.dropMode) {
        case DropMode::Close:
            session.connection->drop(false);
            break;
        case DropMode::Reset:
            session.connection->drop(true);
            break;
        case DropMode::MidEvent:
            session.connection->write(frame.left(frame.size() / 2));
            session.connection->drop(false);
            break;
        }
        session.ended = true;
        Q_EMIT streamDropped(session.jobId);
        return;
    }
    session.connection->write(frame);
    ++session.written;
    if (event.type == "done")
        endSession(session);
}

void JobsSimulator::endSession(Session &session)
{
    if (session.ended)
        return;
    session.ended = true;
    if (session.connection)
        session.connection->endStream();
}

void JobsSimulator::onJobEvent(const QString &jobId, qint64 eventId)
{
    const JobsSimJob *job = m_jobs.value(jobId);
    if (!job || eventId < 1 || eventId > job->events().size())
        return;
    const JobsSimEvent event = job->events().at(eventId - 1);
    for (Session &session : m_sessions) {
        if (session.jobId == jobId && !session.ended)
            writeEvent(session, event);
    }
    m_sessions.removeIf([](const Session &s) { return s.ended || !s.connection; });
}

void JobsSimulator::onCommentTick()
{
    for (Session &session : m_sessions) {
        if (!session.ended && session.connection && session.connection->isOpen())
            session.connection->write(QByteArrayLiteral(": keep-alive\n\n"));
    }
}

void JobsSimulator::handleCancel(const Exchange &exchange, JobsSimJob *job)
{
    switch (job->cancel()) {
    case JobsSimJob::CancelResult::Cancelled:
        sendJson(exchange, 200, job->shapedObject());
        return;
    case JobsSimJob::CancelResult::Initiated:
        sendJson(exchange, 202, job->shapedObject());
        return;
    case JobsSimJob::CancelResult::AlreadyTerminal: {
        // The error body, plus the job's own fields so a client can show the final state.
        QJsonObject extra = job->shapedObject();
        extra.remove(u"error"_s);
        sendError(exchange, 409, u"already_terminal"_s,
                  u"Job %1 already %2; nothing to cancel."_s.arg(job->id(), job->status()), false, extra);
        return;
    }
    }
}

void JobsSimulator::handleInput(const Exchange &exchange, const HttpRequest &request, JobsSimJob *job)
{
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        sendError(exchange, 400, u"invalid_json"_s, u"The answer must be a JSON object."_s);
        return;
    }
    QString why;
    switch (job->answer(doc.object(), &why)) {
    case JobsSimJob::AnswerResult::Accepted:
        sendJson(exchange, 202, job->shapedObject());
        return;
    case JobsSimJob::AnswerResult::NotSuspended:
        sendError(exchange, 409, u"not_suspended"_s, why);
        return;
    case JobsSimJob::AnswerResult::NoOperatorInput:
        sendError(exchange, 409, u"no_operator_input"_s, why);
        return;
    case JobsSimJob::AnswerResult::BadShape:
        sendError(exchange, 400, u"invalid_answer"_s, why);
        return;
    }
}

void JobsSimulator::handleResult(const Exchange &exchange, JobsSimJob *job)
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
    JobsSimJob *job = m_jobs.value(id);
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
        JobsSimJob *job = m_jobs.value(m_order.at(i));
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
