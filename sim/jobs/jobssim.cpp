// SPDX-License-Identifier: GPL-3.0-or-later
// The jobs simulator's server side: configuration, counters and the request log, routing, replies
// and injected faults. The endpoints themselves are in jobssimendpoints.cpp.
#include "jobssim.h"

#include "jobssimrun.h"
#include "jobssimstream.h"
#include "server/httpconnection.h"

#include <QDateTime>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

JobsSimulator::JobsSimulator(QObject *parent)
    : JobsSimulator(JobsSimConfig(), parent)
{}

JobsSimulator::JobsSimulator(const JobsSimConfig &config, QObject *parent)
    : SimServer(parent)
{
    m_clock.start();
    setConfig(config);
}

JobsSimulator::~JobsSimulator() = default;

void JobsSimulator::setConfig(const JobsSimConfig &config)
{
    m_config = config;
    while (m_config.basePath.endsWith(u'/'))
        m_config.basePath.chop(1);
    setLimits(m_config);
    setBasePath(m_config.basePath);
    m_faults.reset(config.httpFaults);
}

void JobsSimulator::addHttpFault(const JobsHttpFault &fault)
{
    m_config.httpFaults.append(fault);
    m_faults.append(fault);
}

void JobsSimulator::clearFaults()
{
    m_config.httpFaults.clear();
    m_faults.clear();
}

int JobsSimulator::requestCount(JobsEndpoint endpoint) const
{
    int n = 0;
    for (const JobsRequestRecord &r : m_log.records())
        n += r.endpoint == endpoint ? 1 : 0;
    return n;
}

QList<JobsRequestRecord> JobsSimulator::requests(JobsEndpoint endpoint) const
{
    QList<JobsRequestRecord> out;
    for (const JobsRequestRecord &r : m_log.records()) {
        if (r.endpoint == endpoint)
            out << r;
    }
    return out;
}

int JobsSimulator::activeStreamCount() const
{
    int n = 0;
    for (const QPointer<JobsSimStream> &s : m_streams)
        n += (s && s->isOpen()) ? 1 : 0;
    return n;
}

void JobsSimulator::resetCounters()
{
    m_log.clear();
    m_jobsCreated = 0;
}

std::optional<JobsJobInfo> JobsSimulator::job(const QString &id) const
{
    const JobsSimRun *job = m_jobs.value(id);
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
    JobsSimRun *job = m_jobs.value(id);
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
    return jobsOptionsHelpText();
}

void JobsSimulator::recordAnswer(const Exchange &exchange, int status, bool faulted)
{
    if (JobsRequestRecord *record = m_log.find(exchange.serial)) {
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

bool JobsSimulator::replyLost(const Exchange &exchange)
{
    if (!exchange.dropReply)
        return false;
    // The request was served; its answer is lost on the way.
    if (exchange.connection)
        exchange.connection->drop(false);
    recordAnswer(exchange, 0, true);
    return true;
}

void JobsSimulator::sendJson(const Exchange &exchange, int status, const QJsonObject &body,
                             HeaderList headers)
{
    if (!exchange.connection || replyLost(exchange))
        return;
    headers.append({QByteArrayLiteral("x-request-id"), newRequestId()});
    RunwatchSim::sendJson(exchange.connection, status, body, headers);
    recordAnswer(exchange, status);
}

void JobsSimulator::sendError(const Exchange &exchange, int status, const QString &code,
                              const QString &message, bool retryable, const QJsonObject &extra,
                              const HeaderList &headers)
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
    HeaderList headers;
    if (!fault.retryAfter.isEmpty())
        headers.append({QByteArrayLiteral("Retry-After"), fault.retryAfter});
    headers.append({QByteArrayLiteral("x-request-id"), newRequestId()});
    if (fault.htmlBody) {
        sendBody(exchange.connection, fault.status, QByteArrayLiteral("text/html"),
                 "<html><head><title>" + QByteArray::number(fault.status) + ' ' + reasonPhrase(fault.status)
                     + "</title></head><body>upstream proxy</body></html>",
                 headers);
    } else {
        const bool retryable = fault.status == 408 || fault.status == 429 || fault.status >= 500;
        RunwatchSim::sendJson(
            exchange.connection, fault.status,
            QJsonObject{{u"error"_s,
                         QJsonObject{{u"code"_s, fault.status == 429 ? u"rate_limited"_s : u"unavailable"_s},
                                     {u"message"_s, u"Injected fault: HTTP %1."_s.arg(fault.status)},
                                     {u"retryable"_s, retryable}}}},
            headers);
    }
    recordAnswer(exchange, fault.status, true);
}

void JobsSimulator::route(HttpConnection *connection, const HttpRequest &request)
{
    JobsRequestRecord record;
    record.setRequest(request);
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
                if (method == "DELETE") {
                    route(JobsEndpoint::Cancel, "DELETE");
                } else if (!m_config.opaqueUrls) {
                    route(JobsEndpoint::Status, "GET");
                }
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
                if (s[3] == u"stream") {
                    route(JobsEndpoint::Events, "GET");
                } else if (s[3] == u"abort") {
                    route(JobsEndpoint::Cancel, "POST");
                } else if (s[3] == u"reply") {
                    route(JobsEndpoint::Input, "POST");
                } else if (s[3] == u"output") {
                    route(JobsEndpoint::Result, "GET");
                } else {
                    id.clear();
                }
            }
        }
    }
    record.endpoint = endpoint;
    record.jobId = id;
    Exchange exchange{connection, m_log.append(record), false};
    const JobsRequestRecord received = *m_log.find(exchange.serial); // a slot may log more
    Q_EMIT requestReceived(received);

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
    if (const JobsHttpFault *fault
        = m_faults.take([endpoint](const JobsHttpFault &f) { return f.aimsAt(endpoint); })) {
        if (fault->status != 0) {
            sendFault(exchange, *fault);
            return;
        }
        exchange.dropReply = true;
        if (JobsRequestRecord *r = m_log.find(exchange.serial))
            r->faulted = true;
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
    JobsSimRun *job = m_jobs.value(id);
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
