// SPDX-License-Identifier: GPL-3.0-or-later
// The Claude Managed Agents simulator's server side: configuration, inspection, routing (the beta
// headers, the key, injected HTTP faults), replies and the table of sessions. The endpoints are in
// claudeagentssimendpoints.cpp.
#include "claudeagentssim.h"

#include "claudeagentssimwire.h"
#include "server/httpconnection.h"

using namespace Qt::StringLiterals;

namespace RunwatchSim {

ClaudeAgentsSimulator::ClaudeAgentsSimulator(QObject *parent)
    : ClaudeAgentsSimulator(ClaudeAgentsSimConfig(), parent)
{}

ClaudeAgentsSimulator::ClaudeAgentsSimulator(const ClaudeAgentsSimConfig &config, QObject *parent)
    : SimServer(parent)
{
    setConfig(config);
}

ClaudeAgentsSimulator::~ClaudeAgentsSimulator() = default;

void ClaudeAgentsSimulator::setConfig(const ClaudeAgentsSimConfig &config)
{
    m_config = config;
    setLimits(config);
    m_faults.reset(config.httpFaults);
}

void ClaudeAgentsSimulator::addHttpFault(const ClaudeAgentsHttpFault &fault)
{
    m_config.httpFaults.append(fault);
    m_faults.append(fault);
}

std::optional<ClaudeAgentsSessionInfo> ClaudeAgentsSimulator::session(const QString &id) const
{
    const ClaudeAgentsSimSession *s = m_sessions.value(id);
    if (!s)
        return m_deletedInfo.contains(id) ? std::optional(m_deletedInfo.value(id)) : std::nullopt;
    ClaudeAgentsSessionInfo info;
    info.id = id;
    info.status = s->status();
    info.agentId = s->agent().id;
    info.environmentId = s->json().value(u"environment_id"_s).toString();
    info.turns = s->turns();
    for (const QJsonValue &event : s->log())
        info.logTypes << event.toObject().value(u"type"_s).toString();
    info.streamConnections = s->streamConnections();
    return info;
}

QString ClaudeAgentsSimulator::turnText(const QString &id, int index) const
{
    const std::optional<ClaudeAgentsSessionInfo> info = session(id);
    if (!info || info->turns.isEmpty())
        return u"<no turn of session %1>"_s.arg(id);
    const qsizetype at = index < 0 ? info->turns.size() - 1 : index;
    if (at >= info->turns.size())
        return u"<no turn %1 of session %2>"_s.arg(at).arg(id);
    QStringList outputs = info->turns.at(at).outputs;
    outputs.removeAll(QString());
    return outputs.join(u"\n\n"_s);
}

QString ClaudeAgentsSimulator::startSessionElsewhere(const QString &agentId, const QString &prompt)
{
    ClaudeAgentsSimAgent agent;
    for (const ClaudeAgentsSimAgent &a : std::as_const(m_config.agents)) {
        if (a.id == agentId)
            agent = a;
    }
    if (agent.id.isEmpty())
        return {};
    ClaudeAgentsSimSession *s = createSession(agent, m_config.environments.value(0), prompt.left(40), {});
    const QJsonArray message{
        QJsonObject{{u"type"_s, u"user.message"_s},
                    {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, prompt}}}}}};
    s->send(message);
    return s->id();
}

bool ClaudeAgentsSimulator::sendElsewhere(const QString &id, const QString &prompt)
{
    ClaudeAgentsSimSession *s = m_sessions.value(id);
    if (!s)
        return false;
    const QJsonArray message{
        QJsonObject{{u"type"_s, u"user.message"_s},
                    {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, prompt}}}}}};
    return s->send(message).status == 200;
}

QString ClaudeAgentsSimulator::helpText()
{
    return claudeAgentsOptionsHelpText();
}

void ClaudeAgentsSimulator::recordStatus(const Exchange &exchange, int status, bool faulted)
{
    if (ClaudeAgentsRequestRecord *record = m_log.find(exchange.serial)) {
        record->status = status;
        record->faulted = faulted;
        Q_EMIT requestAnswered(*record);
    }
}

void ClaudeAgentsSimulator::route(HttpConnection *connection, const HttpRequest &request)
{
    QString path = request.path;
    while (path.size() > 1 && path.endsWith(u'/'))
        path.chop(1);
    const QStringList segments = path.split(u'/', Qt::SkipEmptyParts);
    const qsizetype n = segments.size();
    const QByteArray &method = request.method;
    ClaudeAgentsEndpoint endpoint = ClaudeAgentsEndpoint::Unknown;
    QString sessionId;
    if (segments.value(0) == "v1"_L1) {
        const QString resource = segments.value(1);
        if (resource == "agents"_L1 && n == 2 && method == "GET") {
            endpoint = ClaudeAgentsEndpoint::Agents;
        } else if (resource == "environments"_L1 && n == 2 && method == "GET") {
            endpoint = ClaudeAgentsEndpoint::Environments;
        } else if (resource == "sessions"_L1) {
            if (n == 2) {
                endpoint = method == "POST"  ? ClaudeAgentsEndpoint::CreateSession
                           : method == "GET" ? ClaudeAgentsEndpoint::ListSessions
                                             : ClaudeAgentsEndpoint::Unknown;
            } else if (n == 3) {
                endpoint = method == "GET"      ? ClaudeAgentsEndpoint::GetSession
                           : method == "DELETE" ? ClaudeAgentsEndpoint::DeleteSession
                                                : ClaudeAgentsEndpoint::Unknown;
            } else if (n == 4 && segments.at(3) == "events"_L1) {
                endpoint = method == "POST"  ? ClaudeAgentsEndpoint::SendEvents
                           : method == "GET" ? ClaudeAgentsEndpoint::ListEvents
                                             : ClaudeAgentsEndpoint::Unknown;
            } else if (n == 5 && segments.at(3) == "events"_L1 && segments.at(4) == "stream"_L1
                       && method == "GET") {
                endpoint = ClaudeAgentsEndpoint::Stream;
            }
            if (n >= 3 && endpoint != ClaudeAgentsEndpoint::Unknown)
                sessionId = segments.at(2);
        }
    }

    ClaudeAgentsRequestRecord record;
    record.setRequest(request);
    record.endpoint = endpoint;
    record.sessionId = sessionId;
    const Exchange exchange{connection, m_log.append(record)};
    ++m_requestTotal;
    ++m_endpointCounts[endpoint];
    Q_EMIT requestReceived(*m_log.find(exchange.serial));

    if (!checkHeaders(exchange, request))
        return;
    if (const ClaudeAgentsHttpFault *fault
        = m_faults.take([endpoint](const ClaudeAgentsHttpFault &f) { return f.aimsAt(endpoint); })) {
        sendFault(exchange, *fault);
        return;
    }
    ClaudeAgentsSimSession *session = nullptr;
    if (!sessionId.isEmpty()) {
        session = m_sessions.value(sessionId);
        if (!session) {
            sendError(exchange, 404, u"Session %1 not found."_s.arg(sessionId));
            return;
        }
    }
    switch (endpoint) {
    case ClaudeAgentsEndpoint::Agents:
        handleAgents(exchange, request);
        break;
    case ClaudeAgentsEndpoint::Environments:
        handleEnvironments(exchange, request);
        break;
    case ClaudeAgentsEndpoint::CreateSession:
        handleCreate(exchange, request);
        break;
    case ClaudeAgentsEndpoint::ListSessions:
        handleList(exchange, request);
        break;
    case ClaudeAgentsEndpoint::GetSession:
        sendJson(exchange, 200, session->json());
        break;
    case ClaudeAgentsEndpoint::DeleteSession:
        handleDelete(exchange, session);
        break;
    case ClaudeAgentsEndpoint::SendEvents:
        handleSend(exchange, request, session);
        break;
    case ClaudeAgentsEndpoint::ListEvents:
        handleEvents(exchange, request, session);
        break;
    case ClaudeAgentsEndpoint::Stream:
        handleStream(exchange, request, session);
        break;
    case ClaudeAgentsEndpoint::Unknown:
        sendError(exchange, 404, u"Not found."_s);
        break;
    }
}

bool ClaudeAgentsSimulator::checkHeaders(const Exchange &exchange, const HttpRequest &request)
{
    if (!m_config.apiKey.isEmpty()) {
        // The SDK sends the key as a bearer token; the docs' curl as x-api-key (§2.1).
        const QByteArray key = m_config.apiKey.toUtf8();
        if (!request.hasBearerToken(key) && request.header("x-api-key") != key) {
            const bool none = !request.hasHeader("authorization") && !request.hasHeader("x-api-key");
            sendError(exchange, 401, none ? u"Missing credentials."_s : u"invalid x-api-key"_s);
            return false;
        }
    }
    // The beta is named on every call, with the API version.
    bool beta = false;
    for (const QByteArray &name : request.header("anthropic-beta").split(','))
        beta = beta || name.trimmed() == "managed-agents-2026-04-01";
    if (!beta) {
        sendError(exchange, 400,
                  u"This endpoint requires the anthropic-beta header managed-agents-2026-04-01."_s);
        return false;
    }
    if (request.header("anthropic-version").isEmpty()) {
        sendError(exchange, 400, u"anthropic-version: header is required"_s);
        return false;
    }
    return true;
}

void ClaudeAgentsSimulator::sendJson(const Exchange &exchange, int status, const QJsonObject &body)
{
    if (!exchange.connection)
        return;
    RunwatchSim::sendJson(exchange.connection, status, body,
                          {{QByteArrayLiteral("request-id"), newRequestId()}});
    recordStatus(exchange, status);
}

void ClaudeAgentsSimulator::sendError(const Exchange &exchange, int status, const QString &message)
{
    sendJson(exchange, status, claudeAgentsErrorJson(status, message));
}

void ClaudeAgentsSimulator::sendFault(const Exchange &exchange, const ClaudeAgentsHttpFault &fault)
{
    if (!exchange.connection)
        return;
    HeaderList headers;
    if (fault.retryAfterSeconds >= 0)
        headers.append({QByteArrayLiteral("Retry-After"), QByteArray::number(fault.retryAfterSeconds)});
    if (fault.htmlBody) {
        const QByteArray title = QByteArray::number(fault.status) + ' ' + reasonPhrase(fault.status);
        sendBody(exchange.connection, fault.status, QByteArrayLiteral("text/html; charset=UTF-8"),
                 "<html><title>" + title + "</title><p>Injected by runwatch-sim.</html>\n", headers);
    } else {
        RunwatchSim::sendJson(exchange.connection, fault.status,
                              claudeAgentsErrorJson(fault.status, u"Injected by runwatch-sim."_s), headers);
    }
    recordStatus(exchange, fault.status, true);
}

ClaudeAgentsSimSession *ClaudeAgentsSimulator::createSession(const ClaudeAgentsSimAgent &agent,
                                                             const QString &environmentId,
                                                             const QString &title,
                                                             const QJsonObject &metadata)
{
    // A standalone server runs for days: the oldest idle sessions beyond the cap are forgotten.
    for (qsizetype i = 0; i < m_order.size() && m_sessions.size() >= m_config.maxSessions;) {
        ClaudeAgentsSimSession *old = m_sessions.value(m_order.at(i));
        if (old && old->status() == "idle"_L1) {
            m_sessions.remove(old->id());
            m_order.removeAt(i);
            old->deleteLater();
        } else {
            ++i;
        }
    }
    const QString id = newClaudeAgentsId(u"sesn_");
    auto *session = new ClaudeAgentsSimSession(id, agent, environmentId, title, metadata, m_config, this);
    m_sessions.insert(id, session);
    m_order.append(id);
    ++m_created;
    connect(session, &ClaudeAgentsSimSession::statusChanged, this,
            [this, id](const QString &status) { Q_EMIT sessionStatusChanged(id, status); });
    connect(session, &ClaudeAgentsSimSession::turnEnded, this,
            [this, id](int index) { Q_EMIT turnEnded(id, index); });
    Q_EMIT sessionCreated(id);
    return session;
}

} // namespace RunwatchSim
