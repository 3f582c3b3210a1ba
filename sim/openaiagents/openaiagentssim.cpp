// SPDX-License-Identifier: GPL-3.0-or-later
// The OpenAI Agents API simulator's server side: routing (the beta header, the key, injected HTTP
// faults), the endpoints, pages, and the table of sessions. A session's turns are played in
// openaiagentssimsession.cpp.
#include "openaiagentssim.h"
#include "openaiagentssimstream.h"

#include "server/httpconnection.h"

#include <QJsonDocument>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

std::optional<QJsonObject> bodyObject(const HttpRequest &request)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(request.body, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return std::nullopt;
    return doc.object();
}

QString errorType(int status)
{
    switch (status) {
    case 401:
        return u"authentication_error"_s;
    case 403:
        return u"permission_error"_s;
    case 404:
        return u"not_found_error"_s;
    case 409:
        return u"conflict_error"_s;
    case 429:
        return u"rate_limit_error"_s;
    default:
        return status >= 500 ? u"server_error"_s : u"invalid_request_error"_s;
    }
}

QJsonObject errorJson(int status, const QString &message, const QString &code)
{
    return QJsonObject{{u"error"_s, QJsonObject{{u"message"_s, message},
                                                {u"type"_s, errorType(status)},
                                                {u"param"_s, QJsonValue::Null},
                                                {u"code"_s, code.isEmpty() ? QJsonValue(QJsonValue::Null)
                                                                           : QJsonValue(code)}}}};
}

QString newSessionId()
{
    static qint64 counter = 0;
    return u"sess_68e1"_s + QString::number(++counter, 36).rightJustified(8, u'0');
}

} // namespace

OpenAiAgentsSimulator::OpenAiAgentsSimulator(QObject *parent)
    : OpenAiAgentsSimulator(OpenAiAgentsSimConfig(), parent)
{}

OpenAiAgentsSimulator::OpenAiAgentsSimulator(const OpenAiAgentsSimConfig &config, QObject *parent)
    : SimServer(parent)
{
    // The client's baseURL names the version (https://api.openai.com/v1).
    setBasePath(u"/v1"_s);
    setConfig(config);
}

OpenAiAgentsSimulator::~OpenAiAgentsSimulator() = default;

void OpenAiAgentsSimulator::setConfig(const OpenAiAgentsSimConfig &config)
{
    m_config = config;
    setLimits(config);
    m_faults.reset(config.httpFaults);
}

void OpenAiAgentsSimulator::addHttpFault(const OpenAiAgentsHttpFault &fault)
{
    m_config.httpFaults.append(fault);
    m_faults.append(fault);
}

std::optional<OpenAiAgentsSessionInfo> OpenAiAgentsSimulator::session(const QString &id) const
{
    const OpenAiAgentsSimSession *s = m_sessions.value(id);
    if (!s)
        return m_deletedInfo.contains(id) ? std::optional(m_deletedInfo.value(id)) : std::nullopt;
    OpenAiAgentsSessionInfo info;
    info.id = id;
    info.status = s->status();
    info.agentId = s->agent().id;
    info.turns = s->turns();
    info.streamConnections = s->streamConnections();
    return info;
}

QString OpenAiAgentsSimulator::turnText(const QString &id, int index) const
{
    const std::optional<OpenAiAgentsSessionInfo> info = session(id);
    if (!info || info->turns.isEmpty())
        return u"<no turn of session %1>"_s.arg(id);
    const qsizetype at = index < 0 ? info->turns.size() - 1 : index;
    if (at >= info->turns.size())
        return u"<no turn %1 of session %2>"_s.arg(at).arg(id);
    QStringList outputs = info->turns.at(at).outputs;
    outputs.removeAll(QString());
    return outputs.join(u"\n\n"_s);
}

QString OpenAiAgentsSimulator::startSessionElsewhere(const QString &agentId, const QString &prompt)
{
    const auto agent = std::find_if(m_config.agents.cbegin(), m_config.agents.cend(),
                                    [&agentId](const OpenAiAgentsSimAgent &a) { return a.id == agentId; });
    if (agent == m_config.agents.cend())
        return {};
    OpenAiAgentsSimSession *s = createSession(*agent, QJsonObject{{u"type"_s, u"none"_s}}, {});
    s->begin(prompt);
    return s->id();
}

bool OpenAiAgentsSimulator::sendElsewhere(const QString &id, const QString &prompt)
{
    OpenAiAgentsSimSession *s = m_sessions.value(id);
    if (!s)
        return false;
    const QJsonObject message{
        {u"role"_s, u"user"_s},
        {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"input_text"_s}, {u"text"_s, prompt}}}}};
    const QJsonArray events{
        QJsonObject{{u"type"_s, u"agent.session.input.message"_s}, {u"input"_s, QJsonArray{message}}}};
    return s->send(events, {}).status == 202;
}

QString OpenAiAgentsSimulator::helpText()
{
    return openAiAgentsOptionsHelpText();
}

void OpenAiAgentsSimulator::recordStatus(const Exchange &exchange, int status, bool faulted)
{
    if (OpenAiAgentsRequestRecord *record = m_log.find(exchange.serial)) {
        record->status = status;
        record->faulted = faulted;
        Q_EMIT requestAnswered(*record);
    }
}

void OpenAiAgentsSimulator::route(HttpConnection *connection, const HttpRequest &request)
{
    QString path = request.path;
    while (path.size() > 1 && path.endsWith(u'/'))
        path.chop(1);
    const QStringList segments = path.split(u'/', Qt::SkipEmptyParts);
    const qsizetype n = segments.size();
    const QByteArray &method = request.method;
    using E = OpenAiAgentsEndpoint;
    E endpoint = E::Unknown;
    QString sessionId;
    QString turnId;
    if (segments.value(0) == "v1"_L1 && segments.value(1) == "agents"_L1) {
        if (n == 2 && method == "GET") {
            endpoint = E::Agents;
        } else if (segments.value(2) == "sessions"_L1) {
            if (n == 3) {
                endpoint = method == "POST"  ? E::CreateSession
                           : method == "GET" ? E::ListSessions
                                             : E::Unknown;
            } else if (n == 4) {
                endpoint = method == "GET"      ? E::GetSession
                           : method == "DELETE" ? E::DeleteSession
                                                : E::Unknown;
            } else if (n == 5 && segments.at(4) == "events"_L1) {
                endpoint = method == "POST" ? E::SendEvents : method == "GET" ? E::Stream : E::Unknown;
            } else if ((n == 5 || n == 6) && segments.at(4) == "turns"_L1 && method == "GET") {
                endpoint = E::Turns;
                turnId = segments.value(5);
            } else if (n == 5 && segments.at(4) == "items"_L1 && method == "GET") {
                endpoint = E::Items;
            }
            if (n >= 4 && endpoint != E::Unknown)
                sessionId = segments.at(3);
        }
    }
    OpenAiAgentsRequestRecord record;
    record.setRequest(request);
    record.endpoint = endpoint;
    record.sessionId = sessionId;
    const Exchange exchange{connection, m_log.append(record)};
    ++m_requestTotal;
    ++m_endpointCounts[endpoint];
    Q_EMIT requestReceived(*m_log.find(exchange.serial));
    if (!checkHeaders(exchange, request))
        return;
    if (const OpenAiAgentsHttpFault *fault
        = m_faults.take([endpoint](const OpenAiAgentsHttpFault &f) { return f.aimsAt(endpoint); })) {
        sendFault(exchange, *fault);
        return;
    }
    OpenAiAgentsSimSession *session = nullptr;
    if (!sessionId.isEmpty()) {
        session = m_sessions.value(sessionId);
        if (!session) {
            sendError(exchange, 404, u"No session found with id '%1'."_s.arg(sessionId), u"not_found"_s);
            return;
        }
    }
    switch (endpoint) {
    case E::Agents: {
        QJsonArray agents;
        for (const OpenAiAgentsSimAgent &agent : std::as_const(m_config.agents)) {
            agents.append(QJsonObject{{u"id"_s, agent.id},
                                      {u"object"_s, u"agent"_s},
                                      {u"name"_s, agent.name},
                                      {u"model"_s, agent.model},
                                      {u"instructions"_s, u"You are the %1."_s.arg(agent.name.toLower())},
                                      {u"tools"_s, QJsonArray()},
                                      {u"metadata"_s, QJsonObject()},
                                      {u"created_at"_s, 1767225600},
                                      {u"updated_at"_s, 1767225600}});
        }
        sendPage(exchange, request, agents, false);
        break;
    }
    case E::CreateSession:
        handleCreate(exchange, request);
        break;
    case E::ListSessions:
        handleList(exchange, request);
        break;
    case E::GetSession:
        sendJson(exchange, 200, session->json());
        break;
    case E::DeleteSession:
        handleDelete(exchange, session);
        break;
    case E::SendEvents:
        handleSend(exchange, request, session);
        break;
    case E::Stream:
        openStream(exchange, session, true);
        break;
    case E::Turns: {
        const QJsonArray turns = session->turnsJson();
        if (turnId.isEmpty()) {
            sendPage(exchange, request, turns, true);
            break;
        }
        const auto it = std::find_if(turns.begin(), turns.end(), [&turnId](const QJsonValue &t) {
            return t.toObject().value(u"id"_s).toString() == turnId;
        });
        if (it == turns.end()) {
            sendError(exchange, 404, u"No turn found with id '%1'."_s.arg(turnId), u"not_found"_s);
        } else {
            sendJson(exchange, 200, it->toObject());
        }
        break;
    }
    case E::Items: {
        QJsonArray items;
        for (const QJsonObject &item : session->items())
            items.append(item);
        sendPage(exchange, request, items, true);
        break;
    }
    case E::Unknown:
        sendError(exchange, 404, u"Invalid URL (%1 %2)"_s.arg(QString::fromLatin1(method), request.path));
        break;
    }
}

bool OpenAiAgentsSimulator::checkHeaders(const Exchange &exchange, const HttpRequest &request)
{
    if (!m_config.apiKey.isEmpty() && !request.hasBearerToken(m_config.apiKey.toUtf8())) {
        sendError(exchange, 401,
                  request.hasHeader("authorization") ? u"Incorrect API key provided."_s
                                                     : u"You didn't provide an API key."_s,
                  u"invalid_api_key"_s);
        return false;
    }
    bool beta = false;
    for (const QByteArray &name : request.header("openai-beta").split(','))
        beta = beta || name.trimmed() == "agents=v1";
    if (!beta) {
        // Assumed to answer like Assistants v2 without its header (§1.1 [G]).
        sendError(exchange, 400,
                  u"You must provide the 'OpenAI-Beta: agents=v1' header to access the Agents API."_s,
                  u"invalid_beta"_s);
        return false;
    }
    return true;
}

void OpenAiAgentsSimulator::sendJson(const Exchange &exchange, int status, const QJsonObject &body)
{
    if (!exchange.connection)
        return;
    RunwatchSim::sendJson(exchange.connection, status, body,
                          {{QByteArrayLiteral("x-request-id"), newRequestId()}});
    recordStatus(exchange, status);
}

void OpenAiAgentsSimulator::sendError(const Exchange &exchange, int status, const QString &message,
                                      const QString &code)
{
    sendJson(exchange, status, errorJson(status, message, code));
}

void OpenAiAgentsSimulator::sendFault(const Exchange &exchange, const OpenAiAgentsHttpFault &fault)
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
                              errorJson(fault.status, u"Injected by runwatch-sim."_s, {}), headers);
    }
    recordStatus(exchange, fault.status, true);
}

void OpenAiAgentsSimulator::sendPage(const Exchange &exchange, const HttpRequest &request, QJsonArray all,
                                     bool newestFirst)
{
    // order: asc | desc, desc the default for sessions, turns and items (§1.2).
    const QString order = request.query.queryItemValue(u"order"_s);
    if (!order.isEmpty() && order != "asc"_L1 && order != "desc"_L1) {
        sendError(exchange, 400, u"order: must be asc or desc"_s);
        return;
    }
    if ((order.isEmpty() ? newestFirst : order == "desc"_L1)) {
        QJsonArray reversed;
        for (qsizetype i = all.size() - 1; i >= 0; --i)
            reversed.append(all.at(i));
        all = reversed;
    }
    int limit = 20;
    if (const QString l = request.query.queryItemValue(u"limit"_s); !l.isEmpty()) {
        bool ok = false;
        limit = l.toInt(&ok);
        if (!ok || limit < 1 || limit > 100) {
            sendError(exchange, 400, u"limit: must be between 1 and 100"_s);
            return;
        }
    }
    limit = std::min(limit, m_config.maxPageSize);
    qsizetype from = 0;
    if (const QString after = request.query.queryItemValue(u"after"_s, QUrl::FullyDecoded);
        !after.isEmpty()) {
        from = -1;
        for (qsizetype i = 0; i < all.size(); ++i) {
            if (all.at(i).toObject().value(u"id"_s).toString() == after)
                from = i + 1;
        }
        if (from < 0) {
            sendError(exchange, 400, u"after: no object with id '%1'"_s.arg(after));
            return;
        }
    }
    QJsonArray data;
    for (qsizetype i = from; i < all.size() && data.size() < limit; ++i)
        data.append(all.at(i));
    const auto idAt = [&data](qsizetype i) {
        return data.isEmpty() ? QJsonValue(QJsonValue::Null) : data.at(i).toObject().value(u"id"_s);
    };
    sendJson(exchange, 200,
             QJsonObject{{u"object"_s, u"list"_s},
                         {u"data"_s, data},
                         {u"first_id"_s, idAt(0)},
                         {u"last_id"_s, idAt(data.size() - 1)},
                         {u"has_more"_s, from + data.size() < all.size()}});
}

OpenAiAgentsSimSession *OpenAiAgentsSimulator::createSession(const OpenAiAgentsSimAgent &agent,
                                                             const QJsonObject &environment,
                                                             const QJsonObject &metadata)
{
    // A standalone server runs for days: the oldest idle sessions beyond the cap are forgotten.
    for (qsizetype i = 0; i < m_order.size() && m_sessions.size() >= m_config.maxSessions;) {
        OpenAiAgentsSimSession *old = m_sessions.value(m_order.at(i));
        if (old && !old->running()) {
            m_sessions.remove(old->id());
            m_order.removeAt(i);
            old->deleteLater();
        } else {
            ++i;
        }
    }
    const QString id = newSessionId();
    auto *session = new OpenAiAgentsSimSession(id, agent, environment, metadata, m_config, this);
    m_sessions.insert(id, session);
    m_order.append(id);
    ++m_created;
    connect(session, &OpenAiAgentsSimSession::statusChanged, this,
            [this, id](const QString &status) { Q_EMIT sessionStatusChanged(id, status); });
    connect(session, &OpenAiAgentsSimSession::turnEnded, this,
            [this, id](int index) { Q_EMIT turnEnded(id, index); });
    Q_EMIT sessionCreated(id);
    return session;
}

void OpenAiAgentsSimulator::handleCreate(const Exchange &exchange, const HttpRequest &request)
{
    const std::optional<QJsonObject> body = bodyObject(request);
    if (!body) {
        sendError(exchange, 400, u"We could not parse the JSON body of your request."_s);
        return;
    }
    const QString agentId = body->value(u"agent_id"_s).toString();
    if (agentId.isEmpty()) {
        sendError(exchange, 400, u"Missing required parameter: 'agent_id'."_s,
                  u"missing_required_parameter"_s);
        return;
    }
    const auto agent = std::find_if(m_config.agents.cbegin(), m_config.agents.cend(),
                                    [&agentId](const OpenAiAgentsSimAgent &a) { return a.id == agentId; });
    if (agent == m_config.agents.cend()) {
        sendError(exchange, 404, u"No agent found with id '%1'."_s.arg(agentId), u"not_found"_s);
        return;
    }
    const QJsonObject environment = body->value(u"environment"_s).toObject();
    if (environment.value(u"type"_s).toString().isEmpty()) {
        sendError(exchange, 400, u"Missing required parameter: 'environment'."_s,
                  u"missing_required_parameter"_s);
        return;
    }
    // input: a string (one user message) or messages.
    QString input;
    const QJsonValue inputValue = body->value(u"input"_s);
    if (inputValue.isString()) {
        input = inputValue.toString();
    } else {
        for (const QJsonValue &message : inputValue.toArray()) {
            for (const QJsonValue &part : message.toObject().value(u"content"_s).toArray())
                input += part.toObject().value(u"text"_s).toString();
        }
    }
    if (input.isEmpty() && environment.value(u"type"_s).toString() == "none"_L1) {
        sendError(exchange, 400, u"'input' is required when environment.type is 'none'."_s);
        return;
    }
    OpenAiAgentsSimSession *session
        = createSession(*agent, environment, body->value(u"metadata"_s).toObject());
    if (body->value(u"stream"_s).toBool()) {
        // The create call's own stream: the session's events from its first.
        openStream(exchange, session, false);
        session->begin(input);
        return;
    }
    session->begin(input);
    sendJson(exchange, 200, session->json());
}

void OpenAiAgentsSimulator::handleList(const Exchange &exchange, const HttpRequest &request)
{
    const QString agentId = request.query.queryItemValue(u"agent_id"_s, QUrl::FullyDecoded);
    QJsonArray sessions;
    for (const QString &id : std::as_const(m_order)) {
        const OpenAiAgentsSimSession *session = m_sessions.value(id);
        if (session && (agentId.isEmpty() || session->agent().id == agentId))
            sessions.append(session->json());
    }
    sendPage(exchange, request, sessions, true);
}

void OpenAiAgentsSimulator::handleDelete(const Exchange &exchange, OpenAiAgentsSimSession *session)
{
    if (session->running()) {
        sendError(exchange, 409, u"Running execution must be cancelled first."_s, u"session_active"_s);
        return;
    }
    const QString id = session->id();
    std::optional<OpenAiAgentsSessionInfo> info = this->session(id);
    session->remove();
    if (info) {
        info->deleted = true;
        m_deletedInfo.insert(id, *info);
    }
    m_sessions.remove(id);
    m_order.removeOne(id);
    session->deleteLater();
    sendJson(exchange, 200,
             QJsonObject{{u"id"_s, id}, {u"deleted"_s, true}, {u"object"_s, u"agent.session.deleted"_s}});
}

void OpenAiAgentsSimulator::handleSend(const Exchange &exchange, const HttpRequest &request,
                                       OpenAiAgentsSimSession *session)
{
    const std::optional<QJsonObject> body = bodyObject(request);
    if (!body || !body->value(u"events"_s).isArray()) {
        sendError(exchange, 400, u"Missing required parameter: 'events'."_s, u"missing_required_parameter"_s);
        return;
    }
    const OpenAiAgentsSimSession::Sent sent
        = session->send(body->value(u"events"_s).toArray(), request.header("idempotency-key"));
    if (sent.status != 202) {
        sendError(exchange, sent.status, sent.message, sent.code);
        return;
    }
    if (!exchange.connection)
        return;
    // 202 with an empty body: acceptance, not completion (§1.2).
    sendBody(exchange.connection, 202, QByteArrayLiteral("application/json"), QByteArray(),
             {{QByteArrayLiteral("x-request-id"), newRequestId()}});
    recordStatus(exchange, 202);
}

void OpenAiAgentsSimulator::openStream(const Exchange &exchange, OpenAiAgentsSimSession *session,
                                       bool withState)
{
    if (!exchange.connection)
        return;
    beginEventStream(exchange.connection, {{QByteArrayLiteral("x-request-id"), newRequestId()}});
    recordStatus(exchange, 200);
    const int index = session->openStreamConnection();
    auto *stream
        = new OpenAiAgentsSimStream(exchange.connection, session, m_config.streamFaults,
                                    m_config.streamFaults.hitConnection(index), m_config.heartbeatMs, this);
    Q_EMIT streamOpened(session->id(), index);
    stream->start(withState ? session->stateEvent() : QByteArray());
}

} // namespace RunwatchSim
