// SPDX-License-Identifier: GPL-3.0-or-later
// The Foundry simulator's server side: configuration, counters and inspection, routing (auth,
// api-version, injected HTTP faults), replies, and the table of runs. The endpoints are in
// foundrysimendpoints.cpp.
#include "foundrysim.h"

#include "foundrysimstream.h"
#include "foundrysimwire.h"
#include "server/httpconnection.h"

#include <QDateTime>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

FoundrySimulator::FoundrySimulator(QObject *parent)
    : FoundrySimulator(FoundrySimConfig(), parent)
{}

FoundrySimulator::FoundrySimulator(const FoundrySimConfig &config, QObject *parent)
    : SimServer(parent)
    , m_agentsCreatedAt(QDateTime::currentSecsSinceEpoch())
{
    setConfig(config);
}

FoundrySimulator::~FoundrySimulator() = default;

void FoundrySimulator::setConfig(const FoundrySimConfig &config)
{
    m_config = config;
    setLimits(config);
    setBasePath(u"/api/projects/"_s + config.project);
    m_faults.reset(config.httpFaults);
    m_agents = config.agents;
}

void FoundrySimulator::setToken(const QString &token)
{
    m_config.token = token;
}

void FoundrySimulator::setIntervalMs(int ms)
{
    m_config.intervalMs = ms;
}

void FoundrySimulator::setStreamFaults(const StreamFaults &faults)
{
    m_config.streamFaults = faults;
}

void FoundrySimulator::addHttpFault(const FoundryHttpFault &fault)
{
    m_config.httpFaults.append(fault);
    m_faults.append(fault);
}

void FoundrySimulator::clearFaults()
{
    m_config.httpFaults.clear();
    m_config.streamFaults = StreamFaults();
    m_faults.clear();
}

int FoundrySimulator::activeStreamCount() const
{
    int count = 0;
    for (const auto &stream : m_streams) {
        if (stream)
            ++count;
    }
    return count;
}

void FoundrySimulator::resetCounters()
{
    m_log.clear();
    m_endpointCounts.clear();
    m_requestTotal = 0;
    m_runsCreated = 0;
    resetRejectedRequestCount();
}

std::optional<FoundryRunInfo> FoundrySimulator::run(const QString &id) const
{
    const FoundrySimRun *run = m_runs.value(id);
    if (!run)
        return std::nullopt;
    FoundryRunInfo info;
    info.id = id;
    info.threadId = run->threadId();
    info.assistantId = run->params().assistantId;
    info.status = run->statusName();
    info.scenario = run->options().scenario;
    info.prompt = run->params().prompt;
    info.text = run->text();
    info.ended = run->hasEnded();
    info.expiresAt = run->expiresAt();
    info.pendingCalls = run->pendingCalls();
    for (const FoundrySimEvent &event : run->events())
        info.eventNames.append(event.name);
    info.streamConnections = run->streamConnections();
    info.messageCount = int(run->messages().size());
    return info;
}

QJsonObject FoundrySimulator::runJson(const QString &id) const
{
    const FoundrySimRun *run = m_runs.value(id);
    return run ? run->json() : QJsonObject();
}

QList<QByteArray> FoundrySimulator::eventPayloads(const QString &id) const
{
    QList<QByteArray> payloads;
    if (const FoundrySimRun *run = m_runs.value(id)) {
        for (const FoundrySimEvent &event : run->events())
            payloads.append(event.data);
    }
    return payloads;
}

QString FoundrySimulator::tokenText(int from, int to)
{
    QString text;
    for (int i = from; i < to; ++i)
        text += u"tok%1 "_s.arg(i);
    return text;
}

QString FoundrySimulator::helpText()
{
    return foundryOptionsHelpText();
}

void FoundrySimulator::recordStatus(const Exchange &exchange, int status, bool faulted)
{
    if (FoundryRequestRecord *record = m_log.find(exchange.serial)) {
        record->status = status;
        record->faulted = faulted;
        Q_EMIT requestAnswered(*record);
    }
}

void FoundrySimulator::route(HttpConnection *connection, const HttpRequest &request)
{
    // Any project name is served: the endpoint's last segment is the user's choice.
    QString path = request.path;
    while (path.size() > 1 && path.endsWith(u'/'))
        path.chop(1);
    QStringList segments = path.split(u'/', Qt::SkipEmptyParts);
    const bool inProject
        = segments.size() >= 3 && segments.at(0) == "api"_L1 && segments.at(1) == "projects"_L1;
    segments = inProject ? segments.mid(3) : QStringList();
    const QByteArray &method = request.method;
    const qsizetype n = segments.size();
    const QString resource = segments.value(0);
    FoundryEndpoint endpoint = FoundryEndpoint::Unknown;
    QString threadId;
    QString runId;
    QString agentId;
    if (resource == "assistants"_L1) {
        if (n == 1) {
            endpoint = method == "GET"    ? FoundryEndpoint::ListAgents
                       : method == "POST" ? FoundryEndpoint::CreateAgent
                                          : FoundryEndpoint::Unknown;
        } else if (n == 2 && method == "GET") {
            endpoint = FoundryEndpoint::GetAgent;
            agentId = segments.at(1);
        }
    } else if (resource == "threads"_L1) {
        if (n == 1 && method == "POST") {
            endpoint = FoundryEndpoint::CreateThread;
        } else if (n == 2 && segments.at(1) == "runs"_L1 && method == "POST") {
            endpoint = FoundryEndpoint::CreateThreadRun;
        } else if (n >= 2) {
            threadId = segments.at(1);
            const QString sub = segments.value(2);
            if (n == 2 && method == "GET") {
                endpoint = FoundryEndpoint::GetThread;
            } else if (n == 3 && sub == "messages"_L1) {
                endpoint = method == "GET"    ? FoundryEndpoint::ListMessages
                           : method == "POST" ? FoundryEndpoint::AddMessage
                                              : FoundryEndpoint::Unknown;
            } else if (n == 3 && sub == "runs"_L1) {
                endpoint = method == "GET"    ? FoundryEndpoint::ListRuns
                           : method == "POST" ? FoundryEndpoint::CreateRun
                                              : FoundryEndpoint::Unknown;
            } else if (n >= 4 && sub == "runs"_L1) {
                runId = segments.at(3);
                const QString action = segments.value(4);
                if (n == 4 && method == "GET") {
                    endpoint = FoundryEndpoint::GetRun;
                } else if (n == 5 && action == "submit_tool_outputs"_L1 && method == "POST") {
                    endpoint = FoundryEndpoint::SubmitToolOutputs;
                } else if (n == 5 && action == "cancel"_L1 && method == "POST") {
                    endpoint = FoundryEndpoint::Cancel;
                } else if (n == 5 && action == "steps"_L1 && method == "GET") {
                    endpoint = FoundryEndpoint::ListSteps;
                }
            }
        }
    }
    if (endpoint == FoundryEndpoint::Unknown) {
        threadId.clear();
        runId.clear();
    }

    FoundryRequestRecord record;
    record.setRequest(request);
    record.endpoint = endpoint;
    record.threadId = threadId;
    record.runId = runId;
    record.apiVersion = request.query.queryItemValue(u"api-version"_s);
    const Exchange exchange{connection, m_log.append(record)};
    ++m_requestTotal;
    ++m_endpointCounts[endpoint];
    const FoundryRequestRecord received = *m_log.find(exchange.serial); // a slot may log more
    Q_EMIT requestReceived(received);

    if (!authorised(request)) {
        sendError(exchange, 401, u"Unauthorized"_s,
                  request.hasHeader("authorization")
                      ? u"The bearer token is invalid or has expired."_s
                      : u"Missing credentials: send \"Authorization: Bearer <Entra token>\"."_s);
        return;
    }
    if (!request.query.hasQueryItem(u"api-version"_s)) {
        sendError(exchange, 400, u"BadRequest"_s, u"Missing required query parameter 'api-version'."_s);
        return;
    }
    if (!m_config.apiVersions.contains(received.apiVersion)) {
        sendError(exchange, 400, u"BadRequest"_s,
                  u"Unsupported api-version '%1'. The supported api-versions are '%2'."_s.arg(
                      received.apiVersion, m_config.apiVersions.join(u"', '"_s)));
        return;
    }
    if (const FoundryHttpFault *fault
        = m_faults.take([endpoint](const FoundryHttpFault &f) { return f.aimsAt(endpoint); })) {
        sendFault(exchange, *fault);
        return;
    }

    Thread *thread = nullptr;
    if (!threadId.isEmpty()) {
        auto it = m_threads.find(threadId);
        if (it == m_threads.end()) {
            sendError(exchange, 404, u"not_found"_s, u"No thread found with id '%1'."_s.arg(threadId));
            return;
        }
        thread = &it.value();
    }
    FoundrySimRun *run = nullptr;
    if (!runId.isEmpty()) {
        run = m_runs.value(runId);
        if (!run || run->threadId() != threadId) {
            sendError(exchange, 404, u"not_found"_s, u"No run found with id '%1'."_s.arg(runId));
            return;
        }
        if (run->takeHttpFault(endpoint)) {
            sendFault(exchange, *run->options().httpFault);
            return;
        }
    }

    switch (endpoint) {
    case FoundryEndpoint::CreateThreadRun:
        handleCreateThreadRun(exchange, request);
        break;
    case FoundryEndpoint::CreateThread:
        handleCreateThread(exchange, request);
        break;
    case FoundryEndpoint::GetThread:
        sendJson(exchange, 200, foundryThreadJson(thread->id, thread->createdAt));
        break;
    case FoundryEndpoint::AddMessage:
        handleAddMessage(exchange, request, thread);
        break;
    case FoundryEndpoint::ListMessages:
        handleListMessages(exchange, request, *thread);
        break;
    case FoundryEndpoint::CreateRun:
        handleCreateRun(exchange, request, thread);
        break;
    case FoundryEndpoint::ListRuns:
        handleListRuns(exchange, request, *thread);
        break;
    case FoundryEndpoint::GetRun:
        sendJson(exchange, 200, run->json());
        break;
    case FoundryEndpoint::SubmitToolOutputs:
        handleSubmit(exchange, request, run);
        break;
    case FoundryEndpoint::Cancel:
        handleCancel(exchange, run);
        break;
    case FoundryEndpoint::ListSteps:
        handleListSteps(exchange, request, *run);
        break;
    case FoundryEndpoint::ListAgents:
        handleAgents(exchange, request);
        break;
    case FoundryEndpoint::GetAgent:
        if (const FoundrySimAgent *agent = findAgent(agentId)) {
            sendJson(exchange, 200, foundryAgentJson(*agent, m_agentsCreatedAt));
        } else {
            sendError(exchange, 404, u"not_found"_s, u"No assistant found with id '%1'."_s.arg(agentId));
        }
        break;
    case FoundryEndpoint::CreateAgent:
        handleCreateAgent(exchange, request);
        break;
    case FoundryEndpoint::Unknown:
        sendError(exchange, 404, u"NotFound"_s,
                  u"Resource not found (%1 %2)."_s.arg(QString::fromLatin1(method), request.path));
        break;
    }
}

bool FoundrySimulator::authorised(const HttpRequest &request) const
{
    return m_config.token.isEmpty() || request.hasBearerToken(m_config.token.toUtf8());
}

void FoundrySimulator::sendJson(const Exchange &exchange, int status, const QJsonObject &body)
{
    if (!exchange.connection)
        return;
    RunwatchSim::sendJson(exchange.connection, status, body,
                          {{QByteArrayLiteral("x-ms-request-id"), newRequestId()}});
    recordStatus(exchange, status);
}

void FoundrySimulator::sendError(const Exchange &exchange, int status, const QString &code,
                                 const QString &message)
{
    sendJson(exchange, status, foundryErrorJson(code, message));
}

void FoundrySimulator::sendFault(const Exchange &exchange, const FoundryHttpFault &fault)
{
    if (!exchange.connection)
        return;
    HeaderList headers{{QByteArrayLiteral("x-ms-request-id"), newRequestId()}};
    if (fault.retryAfterSeconds >= 0)
        headers.append({QByteArrayLiteral("Retry-After"), QByteArray::number(fault.retryAfterSeconds)});
    if (fault.htmlBody) {
        const QByteArray title = QByteArray::number(fault.status) + ' ' + reasonPhrase(fault.status);
        sendBody(exchange.connection, fault.status, QByteArrayLiteral("text/html; charset=utf-8"),
                 "<!DOCTYPE html>\n<html><head><title>" + title + "</title></head><body><h1>" + title
                     + "</h1><p>Injected by runwatch-sim.</p></body></html>\n",
                 headers);
    } else {
        const QString code = fault.status == 429 ? u"too_many_requests"_s : u"server_error"_s;
        const QString message
            = fault.status == 429 ? u"Rate limit is exceeded. Try again later (simulated by runwatch-sim)."_s
                                  : u"Simulated HTTP %1 error."_s.arg(fault.status);
        RunwatchSim::sendJson(exchange.connection, fault.status, foundryErrorJson(code, message), headers);
    }
    recordStatus(exchange, fault.status, true);
}

FoundrySimRun *FoundrySimulator::createRun(const FoundryRunParams &params, const FoundryRunOptions &options)
{
    forgetOldRuns();
    const QString id = u"run_"_s + QString::fromLatin1(randomHex(12));
    auto *run = new FoundrySimRun(id, params, options, this);
    m_runs.insert(id, run);
    m_runOrder.append(id);
    m_threads[params.threadId].runIds.append(id);
    ++m_runsCreated;
    connect(run, &FoundrySimRun::statusChanged, this,
            [this, id](const QString &status) { Q_EMIT runStatusChanged(id, status); });
    connect(run, &FoundrySimRun::eventAdded, this,
            [this, id](int index, const QByteArray &name) { Q_EMIT eventGenerated(id, index, name); });
    connect(run, &FoundrySimRun::ended, this, [this, id] { Q_EMIT runEnded(id); });
    Q_EMIT runCreated(id);
    return run;
}

void FoundrySimulator::forgetOldRuns()
{
    // A standalone server runs for days: finished runs beyond the cap are forgotten (404).
    for (qsizetype i = 0; i < m_runOrder.size() && m_runs.size() >= m_config.maxStoredRuns;) {
        FoundrySimRun *old = m_runs.value(m_runOrder.at(i));
        if (old && old->hasEnded()) {
            m_runs.remove(old->id());
            auto thread = m_threads.find(old->threadId());
            if (thread != m_threads.end()) {
                thread->runIds.removeOne(old->id());
                if (thread->runIds.isEmpty())
                    m_threads.erase(thread);
            }
            m_runOrder.removeAt(i);
            old->deleteLater();
        } else {
            ++i;
        }
    }
}

} // namespace RunwatchSim
