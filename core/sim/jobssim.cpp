// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobssim.h"

#include "simhttp.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimeZone>
#include <QTimer>

#include <array>
#include <cmath>
#include <utility>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

using Headers = QList<QPair<QByteArray, QByteArray>>;

const std::array kEndpoints{
    std::pair{JobsEndpoint::Kickoff, "kickoff"_L1}, std::pair{JobsEndpoint::List, "list"_L1},
    std::pair{JobsEndpoint::Status, "status"_L1},   std::pair{JobsEndpoint::Events, "events"_L1},
    std::pair{JobsEndpoint::Cancel, "cancel"_L1},   std::pair{JobsEndpoint::Input, "input"_L1},
    std::pair{JobsEndpoint::Result, "result"_L1},   std::pair{JobsEndpoint::Webhook, "webhook"_L1},
    std::pair{JobsEndpoint::Unknown, "unknown"_L1},
};

// Records kept for assertions; a long-running standalone simulator must not grow without end.
constexpr qsizetype kMaxRecords = 20000;

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

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

QString jobsEndpointName(JobsEndpoint endpoint)
{
    for (const auto &[value, name] : kEndpoints) {
        if (value == endpoint)
            return name;
    }
    return u"unknown"_s;
}

std::optional<JobsEndpoint> jobsEndpointFromName(QStringView name)
{
    for (const auto &[value, text] : kEndpoints) {
        if (name == text)
            return value;
    }
    return std::nullopt;
}

std::optional<JobsHttpFault> jobsHttpFaultFromSpec(QStringView spec, QString *error)
{
    JobsHttpFault fault;
    const auto fail = [&](const QString &why) -> std::optional<JobsHttpFault> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    for (const QStringView part : spec.split(u',', Qt::SkipEmptyParts)) {
        const qsizetype eq = part.indexOf(u'=');
        if (eq <= 0)
            return fail(u"fault \"%1\": expected key=value"_s.arg(part));
        const QStringView key = part.left(eq).trimmed();
        const QStringView value = part.mid(eq + 1).trimmed();
        bool ok = true;
        if (key == u"status") {
            fault.status = value.toInt(&ok);
            ok = ok && (fault.status == 0 || (fault.status >= 100 && fault.status <= 599));
        } else if (key == u"count") {
            fault.count = value.toInt(&ok);
            ok = ok && fault.count >= -1;
        } else if (key == u"on") {
            fault.endpoints.clear();
            if (value != u"any") {
                for (const QStringView name : value.split(u'+', Qt::SkipEmptyParts)) {
                    const auto endpoint = jobsEndpointFromName(name);
                    if (!endpoint)
                        return fail(u"fault: unknown endpoint \"%1\""_s.arg(name));
                    fault.endpoints.insert(*endpoint);
                }
            }
        } else if (key == u"retry-after") {
            fault.retryAfter = value == u"none" ? QByteArray() : value.toLatin1();
        } else if (key == u"body") {
            ok = value == u"html" || value == u"error";
            fault.htmlBody = value == u"html";
        } else {
            return fail(u"fault: unknown key \"%1\""_s.arg(key));
        }
        if (!ok)
            return fail(u"fault: bad value for %1: \"%2\""_s.arg(key, value));
    }
    return fault;
}

QByteArray JobsRequestRecord::header(QByteArrayView name) const
{
    for (const auto &h : headers) {
        if (h.first == name)
            return h.second;
    }
    return {};
}

// ---------------------------------------------------------------------------------------------

JobsSimulator::JobsSimulator(QObject *parent)
    : JobsSimulator(JobsSimConfig(), parent)
{}

JobsSimulator::JobsSimulator(const JobsSimConfig &config, QObject *parent)
    : QObject(parent)
    , m_server(new QTcpServer(this))
    , m_commentTimer(new QTimer(this))
{
    m_clock.start();
    connect(m_server, &QTcpServer::newConnection, this, &JobsSimulator::onNewConnection);
    connect(m_commentTimer, &QTimer::timeout, this, &JobsSimulator::onCommentTick);
    setConfig(config);
}

JobsSimulator::~JobsSimulator()
{
    m_server->close();
}

bool JobsSimulator::listen(const QHostAddress &address, quint16 port)
{
    return m_server->listen(address, port);
}

void JobsSimulator::close()
{
    m_server->close();
}

bool JobsSimulator::isListening() const
{
    return m_server->isListening();
}

QString JobsSimulator::errorString() const
{
    return m_server->errorString();
}

quint16 JobsSimulator::port() const
{
    return m_server->serverPort();
}

QUrl JobsSimulator::baseUrl() const
{
    QHostAddress host = m_server->serverAddress();
    if (host == QHostAddress::Any || host == QHostAddress::AnyIPv4 || host.isNull())
        host = QHostAddress(QHostAddress::LocalHost);
    else if (host == QHostAddress::AnyIPv6)
        host = QHostAddress(QHostAddress::LocalHostIPv6);
    QUrl url;
    url.setScheme(u"http"_s);
    url.setHost(host.toString());
    url.setPort(port());
    url.setPath(m_config.basePath);
    return url;
}

void JobsSimulator::setConfig(const JobsSimConfig &config)
{
    m_config = config;
    while (m_config.basePath.endsWith(u'/'))
        m_config.basePath.chop(1);
    m_faults.clear();
    for (const JobsHttpFault &fault : config.httpFaults)
        m_faults.append(FaultState{fault, 0});
    if (m_config.commentIntervalMs > 0)
        m_commentTimer->start(m_config.commentIntervalMs);
    else
        m_commentTimer->stop();
}

void JobsSimulator::addHttpFault(const JobsHttpFault &fault)
{
    m_config.httpFaults.append(fault);
    m_faults.append(FaultState{fault, 0});
}

void JobsSimulator::clearFaults()
{
    m_config.httpFaults.clear();
    m_faults.clear();
}

int JobsSimulator::requestCount(JobsEndpoint endpoint) const
{
    int n = 0;
    for (const JobsRequestRecord &r : m_records)
        n += r.endpoint == endpoint ? 1 : 0;
    return n;
}

QList<JobsRequestRecord> JobsSimulator::requests(JobsEndpoint endpoint) const
{
    QList<JobsRequestRecord> out;
    for (const JobsRequestRecord &r : m_records) {
        if (r.endpoint == endpoint)
            out << r;
    }
    return out;
}

int JobsSimulator::activeStreamCount() const
{
    int n = 0;
    for (const Session &s : m_sessions)
        n += (!s.ended && s.connection && s.connection->isOpen()) ? 1 : 0;
    return n;
}

void JobsSimulator::resetCounters()
{
    m_firstSerial = m_nextSerial;
    m_records.clear();
    m_jobsCreated = 0;
}

std::optional<JobsJobInfo> JobsSimulator::job(const QString &id) const
{
    const JobsSimJob *job = m_jobs.value(id);
    if (!job)
        return std::nullopt;
    JobsJobInfo info;
    info.id = id;
    info.status = job->status();
    info.scenario = job->options().scenario;
    info.idempotencyKey = job->setup().idempotencyKey;
    info.metadata = job->setup().metadata;
    info.input = job->setup().input;
    info.text = job->text();
    info.result = job->resultText();
    info.inputRequest = job->inputRequest();
    info.answers = job->answers();
    info.eventCount = job->events().size();
    info.streamConnections = m_streamCounts.value(id);
    info.cancelPending = job->isCancelPending();
    return info;
}

bool JobsSimulator::fireWebhook(const QString &id, const QJsonObject &body)
{
    JobsSimJob *job = m_jobs.value(id);
    return job && job->callback(body);
}

QString JobsSimulator::tokenText(int from, int to)
{
    QString out;
    for (int i = from; i < to; ++i)
        out += u"tok%1 "_s.arg(i);
    return out;
}

QString JobsSimulator::helpText()
{
    return u"Jobs simulator (--jobs): base URL http://HOST:PORT/api\n"
           u"  POST /api/jobs, GET /api/jobs[?status=&idempotency_key=&limit=&cursor=],\n"
           u"  GET /api/jobs/{id}, GET /api/jobs/{id}/events, DELETE /api/jobs/{id} or\n"
           u"  POST /api/jobs/{id}:cancel, POST /api/jobs/{id}/input, GET /api/jobs/{id}/result,\n"
           u"  POST /api/hooks/{id}/{token}.\n"
           u"Scenarios (metadata \"scenario\" or the first word of the input): "_s
           + jobsScenarioNames().join(u", "_s)
           + u".\nPer-job options (metadata strings or key=value words in the input): deltas, interval_ms,\n"
             u"  queued_ms, fail_after, retryable, timeout_ms, timeout_seconds, timer_ms, webhook_ms,\n"
             u"  cancel_delay_ms, events, retry_after (N | date:N | none), large_bytes, unknown_ms,\n"
             u"  sync_status, reply, drop_after, drop_mode, fault_connections, malformed_at, drip_ms.\n"_s;
}

// ---------------------------------------------------------------------------------------------

void JobsSimulator::onNewConnection()
{
    while (m_server->hasPendingConnections()) {
        QTcpSocket *socket = m_server->nextPendingConnection();
        if (m_openConnections >= m_config.maxConnections) {
            socket->abort();
            socket->deleteLater();
            continue;
        }
        HttpLimits limits;
        limits.maxHeaderBytes = m_config.maxHeaderBytes;
        limits.maxBodyBytes = m_config.maxBodyBytes;
        limits.requestTimeoutMs = m_config.requestTimeoutMs;
        limits.keepAlive = m_config.keepAlive;
        limits.keepAliveIdleMs = m_config.keepAliveIdleMs;
        auto *connection = new HttpConnection(socket, limits, this);
        ++m_openConnections;
        connect(connection, &HttpConnection::closed, this, [this] { --m_openConnections; });
        connect(connection, &HttpConnection::requestReceived, this, &JobsSimulator::handleRequest);
    }
}

JobsRequestRecord *JobsSimulator::recordFor(qint64 serial)
{
    const qint64 index = serial - m_firstSerial;
    if (index < 0 || index >= m_records.size())
        return nullptr;
    return &m_records[index];
}

void JobsSimulator::recordAnswer(const Exchange &exchange, int status, bool faulted)
{
    if (JobsRequestRecord *record = recordFor(exchange.serial)) {
        record->status = status;
        record->faulted = record->faulted || faulted;
        record->answeredMs = m_clock.elapsed();
        Q_EMIT requestAnswered(*record);
    }
}

bool JobsSimulator::authorised(const HttpRequest &request) const
{
    if (m_config.apiKey.isEmpty())
        return true;
    const QByteArray key = m_config.apiKey.toUtf8();
    return request.header("authorization") == "Bearer " + key || request.header("api-key") == key;
}

void JobsSimulator::sendJson(const Exchange &exchange, int status, const QJsonObject &body, Headers headers)
{
    if (!exchange.connection)
        return;
    if (exchange.dropReply) {
        // The request was served; its answer is lost on the way.
        exchange.connection->drop(false);
        recordAnswer(exchange, 0, true);
        return;
    }
    headers.prepend({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")});
    headers.append({QByteArrayLiteral("x-request-id"), newRequestId()});
    exchange.connection->sendResponse(status, headers, compact(body));
    recordAnswer(exchange, status);
}

void JobsSimulator::sendError(const Exchange &exchange, int status, const QString &code,
                              const QString &message, bool retryable, const QJsonObject &extra,
                              const Headers &headers)
{
    QJsonObject body = extra;
    body.insert(u"error"_s,
                QJsonObject{{u"code"_s, code}, {u"message"_s, message}, {u"retryable"_s, retryable}});
    sendJson(exchange, status, body, headers);
}

void JobsSimulator::sendFault(const Exchange &exchange, const JobsHttpFault &fault)
{
    if (!exchange.connection)
        return;
    Headers headers;
    if (!fault.retryAfter.isEmpty())
        headers.append({QByteArrayLiteral("Retry-After"), fault.retryAfter});
    headers.append({QByteArrayLiteral("x-request-id"), newRequestId()});
    QByteArray body;
    if (fault.htmlBody) {
        headers.prepend({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("text/html")});
        body = "<html><head><title>" + QByteArray::number(fault.status) + ' ' + reasonPhrase(fault.status)
               + "</title></head><body>upstream proxy</body></html>";
    } else {
        headers.prepend({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")});
        const bool retryable = fault.status == 408 || fault.status == 429 || fault.status >= 500;
        body = compact(QJsonObject{
            {u"error"_s, QJsonObject{{u"code"_s, fault.status == 429 ? u"rate_limited"_s : u"unavailable"_s},
                                     {u"message"_s, u"Injected fault: HTTP %1."_s.arg(fault.status)},
                                     {u"retryable"_s, retryable}}}});
    }
    exchange.connection->sendResponse(fault.status, headers, body);
    recordAnswer(exchange, fault.status, true);
}

void JobsSimulator::handleRequest(HttpConnection *connection, const HttpRequest &request)
{
    Exchange exchange{connection, m_nextSerial++, false};

    JobsRequestRecord record;
    record.serial = exchange.serial;
    record.method = request.method;
    record.path = request.path;
    record.query = request.query.toString(QUrl::FullyEncoded);
    record.headers = request.headers;
    record.body = request.body;
    record.receivedMs = m_clock.elapsed();
    record.receivedEpochMs = QDateTime::currentMSecsSinceEpoch();

    // Routing.
    QString path = request.path;
    while (path.size() > 1 && path.endsWith(u'/'))
        path.chop(1);
    JobsEndpoint endpoint = JobsEndpoint::Unknown;
    QString id;
    QString token;
    bool methodAllowed = true;
    const QByteArray &method = request.method;
    if (path == m_config.basePath || path.startsWith(m_config.basePath + u'/')) {
        const QStringList s = path.mid(m_config.basePath.size()).split(u'/', Qt::SkipEmptyParts);
        const bool alternate = m_config.shape == JobsShape::Alternate;
        const auto route = [&](JobsEndpoint e, QByteArrayView m) {
            endpoint = e;
            methodAllowed = method == m;
        };
        if (s.size() == 3 && s[0] == u"hooks") {
            id = s[1];
            token = s[2];
            route(JobsEndpoint::Webhook, "POST");
        } else if (!alternate) {
            if (s.size() == 1 && s[0] == u"jobs") {
                route(method == "GET" ? JobsEndpoint::List : JobsEndpoint::Kickoff,
                      method == "GET" ? "GET" : "POST");
            } else if (s.size() == 2 && s[0] == u"jobs" && s[1].endsWith(u":cancel"_s)) {
                id = s[1].chopped(7);
                route(JobsEndpoint::Cancel, "POST");
            } else if (s.size() == 2 && s[0] == u"jobs") {
                id = s[1];
                if (method == "DELETE")
                    route(JobsEndpoint::Cancel, "DELETE");
                else if (!m_config.opaqueUrls)
                    route(JobsEndpoint::Status, "GET");
            } else if (s.size() == 3 && s[0] == u"jobs" && s[2] == u"events" && !m_config.opaqueUrls) {
                id = s[1];
                route(JobsEndpoint::Events, "GET");
            } else if (s.size() == 3 && s[0] == u"jobs" && s[2] == u"input") {
                id = s[1];
                route(JobsEndpoint::Input, "POST");
            } else if (s.size() == 3 && s[0] == u"jobs" && s[2] == u"result") {
                id = s[1];
                route(JobsEndpoint::Result, "GET");
            } else if (m_config.opaqueUrls && s.size() == 2 && s[0] == u"operations") {
                id = s[1];
                route(JobsEndpoint::Status, "GET");
            } else if (m_config.opaqueUrls && s.size() == 3 && s[0] == u"operations" && s[2] == u"events") {
                id = s[1];
                route(JobsEndpoint::Events, "GET");
            }
        } else if (s.size() >= 2 && s[0] == u"v2" && s[1] == u"tasks") {
            if (s.size() == 2) {
                route(method == "GET" ? JobsEndpoint::List : JobsEndpoint::Kickoff,
                      method == "GET" ? "GET" : "POST");
            } else if (s.size() == 3) {
                id = s[2];
                route(JobsEndpoint::Status, "GET");
            } else if (s.size() == 4) {
                id = s[2];
                if (s[3] == u"stream")
                    route(JobsEndpoint::Events, "GET");
                else if (s[3] == u"abort")
                    route(JobsEndpoint::Cancel, "POST");
                else if (s[3] == u"reply")
                    route(JobsEndpoint::Input, "POST");
                else if (s[3] == u"output")
                    route(JobsEndpoint::Result, "GET");
                else
                    id.clear();
            }
        }
    }
    record.endpoint = endpoint;
    record.jobId = id;
    m_records.append(record);
    if (m_records.size() > kMaxRecords) {
        const qsizetype drop = m_records.size() / 2;
        m_records.remove(0, drop);
        m_firstSerial += drop;
    }
    Q_EMIT requestReceived(record);

    if (endpoint == JobsEndpoint::Unknown) {
        sendError(exchange, 404, u"not_found"_s,
                  u"No such endpoint: %1 %2"_s.arg(QString::fromLatin1(method), path));
        return;
    }
    if (!methodAllowed) {
        sendError(exchange, 405, u"method_not_allowed"_s,
                  u"Method %1 is not allowed here."_s.arg(QString::fromLatin1(method)));
        return;
    }
    // The external system calling a webhook has no API key of ours: its token is the secret.
    if (endpoint != JobsEndpoint::Webhook && !authorised(request)) {
        sendError(exchange, 401, u"unauthorized"_s, u"Missing or wrong API key."_s, false, {},
                  {{QByteArrayLiteral("WWW-Authenticate"), QByteArrayLiteral("Bearer")}});
        return;
    }
    for (FaultState &state : m_faults) {
        const JobsHttpFault &fault = state.fault;
        if ((fault.count >= 0 && state.served >= fault.count)
            || (!fault.endpoints.isEmpty() && !fault.endpoints.contains(endpoint))) {
            continue;
        }
        ++state.served;
        if (fault.status == 0) {
            exchange.dropReply = true;
            if (JobsRequestRecord *r = recordFor(exchange.serial))
                r->faulted = true;
            break;
        }
        sendFault(exchange, fault);
        return;
    }

    if (endpoint == JobsEndpoint::Kickoff) {
        handleKickoff(exchange, request);
        return;
    }
    if (endpoint == JobsEndpoint::List) {
        handleList(exchange, request);
        return;
    }
    if (endpoint == JobsEndpoint::Webhook) {
        handleWebhook(exchange, request, id, token);
        return;
    }
    JobsSimJob *job = m_jobs.value(id);
    if (!job) {
        sendError(exchange, 404, u"not_found"_s, u"No job %1."_s.arg(id));
        return;
    }
    switch (endpoint) {
    case JobsEndpoint::Status:
        handleStatus(exchange, job);
        break;
    case JobsEndpoint::Events:
        handleEvents(exchange, request, job);
        break;
    case JobsEndpoint::Cancel:
        handleCancel(exchange, job);
        break;
    case JobsEndpoint::Input:
        handleInput(exchange, request, job);
        break;
    case JobsEndpoint::Result:
        handleResult(exchange, job);
        break;
    case JobsEndpoint::Kickoff:
    case JobsEndpoint::List:
    case JobsEndpoint::Webhook:
    case JobsEndpoint::Unknown:
        break;
    }
}

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
