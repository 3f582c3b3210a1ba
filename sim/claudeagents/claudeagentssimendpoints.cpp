// SPDX-License-Identifier: GPL-3.0-or-later
// The Claude Managed Agents simulator's endpoints (agent-sessions.md §2.2).
#include "claudeagentssim.h"

#include "claudeagentssimstream.h"
#include "claudeagentssimwire.h"
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

} // namespace

void ClaudeAgentsSimulator::sendPage(const Exchange &exchange, const HttpRequest &request,
                                     const QJsonArray &all, int defaultLimit, bool bidirectional)
{
    QString error;
    const std::optional<QJsonObject> page
        = claudeAgentsPage(all, request, defaultLimit, m_config.maxPageSize, bidirectional, &error);
    if (!page) {
        sendError(exchange, 400, error);
        return;
    }
    sendJson(exchange, 200, *page);
}

void ClaudeAgentsSimulator::handleAgents(const Exchange &exchange, const HttpRequest &request)
{
    QJsonArray agents;
    for (const ClaudeAgentsSimAgent &agent : std::as_const(m_config.agents))
        agents.append(claudeAgentsAgentJson(agent));
    sendPage(exchange, request, agents, 20, false);
}

void ClaudeAgentsSimulator::handleEnvironments(const Exchange &exchange, const HttpRequest &request)
{
    QJsonArray environments;
    for (const QString &id : std::as_const(m_config.environments))
        environments.append(claudeAgentsEnvironmentJson(id));
    sendPage(exchange, request, environments, 20, false);
}

void ClaudeAgentsSimulator::handleCreate(const Exchange &exchange, const HttpRequest &request)
{
    const std::optional<QJsonObject> body = bodyObject(request);
    if (!body) {
        sendError(exchange, 400, u"The request body is not a JSON object."_s);
        return;
    }
    // agent: an id, or {type:"agent", id, version} (§2.2).
    const QJsonValue agentValue = body->value(u"agent"_s);
    const QString agentId
        = agentValue.isObject() ? agentValue.toObject().value(u"id"_s).toString() : agentValue.toString();
    const auto agent = std::find_if(m_config.agents.cbegin(), m_config.agents.cend(),
                                    [&agentId](const ClaudeAgentsSimAgent &a) { return a.id == agentId; });
    if (agentId.isEmpty()) {
        sendError(exchange, 400, u"agent: Field required"_s);
        return;
    }
    if (agent == m_config.agents.cend()) {
        sendError(exchange, 404, u"Agent %1 not found."_s.arg(agentId));
        return;
    }
    const QString environment = body->value(u"environment_id"_s).toString();
    if (environment.isEmpty()) {
        sendError(exchange, 400, u"environment_id: Field required"_s);
        return;
    }
    if (!m_config.environments.contains(environment)) {
        sendError(exchange, 404, u"Environment %1 not found."_s.arg(environment));
        return;
    }
    ClaudeAgentsSimSession *session = createSession(*agent, environment, body->value(u"title"_s).toString(),
                                                    body->value(u"metadata"_s).toObject());
    // initial_events: as if sent right after the create.
    const QJsonArray initial = body->value(u"initial_events"_s).toArray();
    if (!initial.isEmpty())
        session->send(initial);
    sendJson(exchange, 200, session->json());
}

void ClaudeAgentsSimulator::handleList(const Exchange &exchange, const HttpRequest &request)
{
    const bool ascending = request.query.queryItemValue(u"order"_s) == "asc"_L1;
    const QString agentId = request.query.queryItemValue(u"agent_id"_s);
    QJsonArray sessions;
    for (const QString &id : std::as_const(m_order)) {
        const ClaudeAgentsSimSession *session = m_sessions.value(id);
        if (!session || (!agentId.isEmpty() && session->agent().id != agentId))
            continue;
        if (ascending) {
            sessions.append(session->json());
        } else {
            sessions.prepend(session->json()); // newest first, the default
        }
    }
    sendPage(exchange, request, sessions, 20, true);
}

void ClaudeAgentsSimulator::handleDelete(const Exchange &exchange, ClaudeAgentsSimSession *session)
{
    const QString id = session->id();
    session->remove();
    std::optional<ClaudeAgentsSessionInfo> info = this->session(id);
    if (info) {
        info->deleted = true;
        info->deletedWhileRunning = session->deletedWhileRunning();
        m_deletedInfo.insert(id, *info);
    }
    m_sessions.remove(id);
    m_order.removeOne(id);
    session->deleteLater();
    sendJson(exchange, 200, QJsonObject{{u"id"_s, id}, {u"type"_s, u"session_deleted"_s}});
}

void ClaudeAgentsSimulator::handleSend(const Exchange &exchange, const HttpRequest &request,
                                       ClaudeAgentsSimSession *session)
{
    const std::optional<QJsonObject> body = bodyObject(request);
    if (!body || !body->value(u"events"_s).isArray()) {
        sendError(exchange, 400, u"events: Field required"_s);
        return;
    }
    const ClaudeAgentsSimSession::Sent sent = session->send(body->value(u"events"_s).toArray());
    if (sent.status != 200) {
        sendError(exchange, sent.status, sent.message);
        return;
    }
    sendJson(exchange, 200, sent.reply);
}

void ClaudeAgentsSimulator::handleEvents(const Exchange &exchange, const HttpRequest &request,
                                         ClaudeAgentsSimSession *session)
{
    QJsonArray events = session->log();
    if (request.query.queryItemValue(u"order"_s) == "desc"_L1) {
        QJsonArray reversed;
        for (qsizetype i = events.size() - 1; i >= 0; --i)
            reversed.append(events.at(i));
        events = reversed;
    }
    // The log's default page is 1000 events (§2.2).
    sendPage(exchange, request, events, 1000, false);
}

void ClaudeAgentsSimulator::handleStream(const Exchange &exchange, const HttpRequest &request,
                                         ClaudeAgentsSimSession *session)
{
    if (!exchange.connection)
        return;
    // The SDK sends arrays as name[]=value (qs brackets, §2.2).
    bool previews = false;
    for (const auto &item : request.query.queryItems(QUrl::FullyDecoded)) {
        if ((item.first == "event_deltas[]"_L1 || item.first == "event_deltas"_L1)
            && item.second == "agent.message"_L1)
            previews = true;
    }
    beginEventStream(exchange.connection, {});
    recordStatus(exchange, 200);
    const int index = session->openStreamConnection();
    auto *stream = new ClaudeAgentsSimStream(exchange.connection, session, m_config.streamFaults,
                                             m_config.streamFaults.hitConnection(index), previews,
                                             m_config.heartbeatMs, this);
    Q_EMIT streamOpened(session->id(), index);
    stream->start();
}

} // namespace RunwatchSim
