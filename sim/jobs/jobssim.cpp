// SPDX-License-Identifier: GPL-3.0-or-later
// The jobs simulator's server side: configuration, counters and the request log, connections,
// routing, replies and injected faults. The endpoints themselves are in jobssimendpoints.cpp.
#include "jobssim.h"

#include "simhttp.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <array>
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

} // namespace RunwatchSim
