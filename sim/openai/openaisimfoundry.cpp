// SPDX-License-Identifier: GPL-3.0-or-later
// The Azure AI Foundry project the OpenAI simulator also serves (docs/protocols/
// foundry-agents-and-gemini.md §1): the project layout, the agents listing, conversations, and the
// agent_reference / conversation parts of a create request. The Responses endpoints themselves
// are in openaisimendpoints.cpp.
//
// Wording marked "guessed" has no source: the references give the status and, where they can, the
// code; the rest is ours, so that a client shows something readable.
#include "openaisim.h"

#include "openaisimrun.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>
#include <array>
#include <utility>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

constexpr int kDefaultListLimit = 20; // the usual OpenAI-style default, guessed for /agents
constexpr int kMaxListLimit = 100;

// The fields a request may not set next to an agent: the agent's definition owns them.
constexpr std::array kAgentOwnedFields{"instructions"_L1, "tools"_L1, "tool_choice"_L1, "text"_L1,
                                       "reasoning"_L1};

// The api-versions /agents accepts: the SDK's default, and the preview the new agents came with.
// Which others the service takes is unknown (guessed).
constexpr std::array kAgentsApiVersions{"v1"_L1, "2025-11-15-preview"_L1};

bool present(const QJsonValue &value)
{
    return !value.isUndefined() && !value.isNull();
}

QString agentModel(const OpenAiSimAgent &agent, const OpenAiSimConfig &config)
{
    if (!agent.model.isEmpty())
        return agent.model;
    return config.modelIds.isEmpty() ? u"runwatch-sim-1"_s : config.modelIds.first();
}

// The agent object of the listing, as §1 gives it: only the latest version is shown.
QJsonObject agentJson(const OpenAiSimAgent &agent, const OpenAiSimConfig &config, qint64 createdAt)
{
    const QString version = QString::number(agent.version);
    const QString instructions = agent.instructions.isEmpty()
                                     ? u"You are the %1 agent of runwatch-sim."_s.arg(agent.name)
                                     : agent.instructions;
    const QJsonObject definition{
        {u"kind"_s, u"prompt"_s}, {u"model"_s, agentModel(agent, config)}, {u"instructions"_s, instructions}};
    const QJsonObject latest{
        {u"object"_s, u"agent.version"_s},
        {u"id"_s, QString(agent.name + u':' + version)},
        {u"name"_s, agent.name},
        {u"version"_s, version},
        {u"description"_s, agent.description},
        {u"created_at"_s, createdAt},
        {u"definition"_s, definition},
        {u"status"_s, u"active"_s},
        {u"metadata"_s, QJsonObject()},
    };
    return QJsonObject{{u"object"_s, u"agent"_s},
                       {u"id"_s, agent.name},
                       {u"name"_s, agent.name},
                       {u"state"_s, u"enabled"_s},
                       {u"versions"_s, QJsonObject{{u"latest"_s, latest}}}};
}

QJsonObject conversationJson(const QString &id, qint64 createdAt, const QJsonObject &metadata)
{
    return QJsonObject{{u"id"_s, id},
                       {u"object"_s, u"conversation"_s},
                       {u"created_at"_s, createdAt},
                       {u"metadata"_s, metadata}};
}

} // namespace

QUrl OpenAiSimulator::foundryProjectUrl() const
{
    QUrl url = baseUrl();
    url.setPath(u"/api/projects/"_s + m_config.foundryProject);
    return url;
}

QUrl OpenAiSimulator::foundryBaseUrl() const
{
    QUrl url = foundryProjectUrl();
    url.setPath(url.path() + u"/openai/v1"_s);
    return url;
}

QString OpenAiSimulator::localPath(const QString &requestPath, bool *inProject) const
{
    QString path = requestPath;
    while (path.size() > 1 && path.endsWith(u'/'))
        path.chop(1);
    // Another project's paths stay unknown (404 "Invalid URL"); the service's answer for a
    // project that does not exist is not in the references (guessed).
    const QString prefix = u"/api/projects/"_s + m_config.foundryProject;
    *inProject = path == prefix || path.startsWith(prefix + u'/');
    if (*inProject)
        path = path.mid(prefix.size());
    if (path == "/openai/v1"_L1 || path.startsWith("/openai/v1/"_L1))
        return path.mid(7); // the Azure OpenAI v1 layout, and a Foundry project's
    if (*inProject && path != "/agents"_L1)
        return QString(); // a project serves nothing else here
    return path;
}

OpenAiEndpoint OpenAiSimulator::conversationEndpoint(const QStringList &segments, const QByteArray &method)
{
    // segments: "v1", "conversations"[, id[, "items"]]
    if (segments.size() == 2 && method == "POST")
        return OpenAiEndpoint::ConversationCreate;
    if (segments.size() == 3 && method == "GET")
        return OpenAiEndpoint::ConversationGet;
    if (segments.size() == 3 && method == "DELETE")
        return OpenAiEndpoint::ConversationDelete;
    if (segments.size() == 4 && segments.at(3) == "items"_L1 && method == "GET")
        return OpenAiEndpoint::ConversationItems;
    return OpenAiEndpoint::Unknown;
}

std::optional<QJsonObject> OpenAiSimulator::listPage(const Exchange &exchange, const QUrlQuery &query,
                                                     const QJsonArray &ascending)
{
    // Every wording here is guessed; order and limit follow the OpenAI list conventions.
    const QString order = query.hasQueryItem(u"order"_s) ? query.queryItemValue(u"order"_s) : u"desc"_s;
    if (order != "asc"_L1 && order != "desc"_L1) {
        sendError(exchange, 400, u"Invalid value for 'order': expected 'asc' or 'desc'."_s,
                  u"invalid_request_error"_s, u"order"_s, u"invalid_value"_s);
        return std::nullopt;
    }
    int limit = kDefaultListLimit;
    if (query.hasQueryItem(u"limit"_s)) {
        bool ok = false;
        limit = query.queryItemValue(u"limit"_s).toInt(&ok);
        if (!ok || limit < 1 || limit > kMaxListLimit) {
            sendError(exchange, 400,
                      u"Invalid value for 'limit': expected an integer from 1 to %1."_s.arg(kMaxListLimit),
                      u"invalid_request_error"_s, u"limit"_s, u"invalid_value"_s);
            return std::nullopt;
        }
    }
    QJsonArray items;
    for (qsizetype i = 0; i < ascending.size(); ++i)
        items.append(ascending.at(order == "desc"_L1 ? ascending.size() - 1 - i : i));
    qsizetype begin = 0;
    qsizetype end = items.size();
    for (const auto &cursor : {u"after"_s, u"before"_s}) {
        if (!query.hasQueryItem(cursor))
            continue;
        const QString id = query.queryItemValue(cursor);
        const auto found = std::find_if(items.cbegin(), items.cend(), [&id](const QJsonValue &item) {
            return item["id"_L1].toString() == id;
        });
        if (found == items.cend()) {
            sendError(exchange, 400, u"No object with id '%1' in this list."_s.arg(id),
                      u"invalid_request_error"_s, cursor, u"invalid_value"_s);
            return std::nullopt;
        }
        const qsizetype at = found - items.cbegin();
        if (cursor == "after"_L1) {
            begin = at + 1;
        } else {
            end = qMax(begin, at);
        }
    }
    // `before` alone pages backwards: the `limit` objects right before its cursor.
    const bool backwards = query.hasQueryItem(u"before"_s) && !query.hasQueryItem(u"after"_s);
    const qsizetype first = backwards ? qMax(begin, end - limit) : begin;
    const qsizetype last = backwards ? end : qMin(end, begin + limit);
    QJsonArray data;
    for (qsizetype i = first; i < last; ++i)
        data.append(items.at(i));
    return QJsonObject{
        {u"data"_s, data},
        {u"first_id"_s, data.isEmpty() ? QJsonValue() : data.first()["id"_L1]},
        {u"last_id"_s, data.isEmpty() ? QJsonValue() : data.last()["id"_L1]},
        {u"has_more"_s, backwards ? first > begin : last < end},
    };
}

void OpenAiSimulator::handleAgents(const Exchange &exchange, const HttpRequest &request)
{
    // /agents needs its api-version (§1); the refusal's wording is guessed.
    if (!request.query.hasQueryItem(u"api-version"_s)) {
        sendError(exchange, 400, u"Missing required query parameter: 'api-version'."_s,
                  u"invalid_request_error"_s, u"api-version"_s, u"missing_required_parameter"_s);
        return;
    }
    const QString version = request.query.queryItemValue(u"api-version"_s);
    if (std::none_of(kAgentsApiVersions.cbegin(), kAgentsApiVersions.cend(),
                     [&version](QLatin1StringView known) { return version == known; })) {
        sendError(exchange, 400, u"Unsupported api-version '%1'. Use 'v1'."_s.arg(version),
                  u"invalid_request_error"_s, u"api-version"_s, u"unsupported_api_version"_s);
        return;
    }
    // Every agent here is a prompt agent: another `kind` lists none (guessed).
    const bool prompt
        = !request.query.hasQueryItem(u"kind"_s) || request.query.queryItemValue(u"kind"_s) == "prompt"_L1;
    QJsonArray agents;
    const qsizetype count = m_config.agents.size();
    for (qsizetype i = 0; prompt && i < count; ++i) {
        // Created a minute apart, in list order, before the simulator started.
        agents.append(agentJson(m_config.agents.at(i), m_config, m_startedAt - (count - i) * 60));
    }
    if (const auto page = listPage(exchange, request.query, agents))
        sendJson(exchange, 200, *page);
}

void OpenAiSimulator::handleConversationCreate(const Exchange &exchange, const HttpRequest &request)
{
    QJsonObject body;
    // The openai client sends "{}" when given nothing; an empty body is read the same way.
    if (!request.body.trimmed().isEmpty()) {
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(request.body, &parseError);
        if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
            sendError(exchange, 400,
                      u"We could not parse the JSON body of your request. The API expects a JSON "
                      u"object."_s);
            return;
        }
        body = document.object();
    }
    Conversation conversation;
    if (!takeMetadata(exchange, body.value("metadata"_L1), &conversation.metadata))
        return;
    const QJsonValue items = body.value("items"_L1);
    if (present(items) && !items.isArray()) {
        sendInvalidType(exchange, u"items"_s, u"an array"_s, items);
        return;
    }
    const QJsonArray initial = items.toArray();
    for (qsizetype i = 0; i < initial.size(); ++i) {
        if (!initial.at(i).isObject()) {
            sendInvalidType(exchange, u"items[%1]"_s.arg(i), u"an object"_s, initial.at(i));
            return;
        }
        QJsonObject item = initial.at(i).toObject();
        if (!item.value("id"_L1).isString()) {
            const bool message = item.value("type"_L1).toString(u"message"_s) == "message"_L1;
            item.insert("id"_L1,
                        QString((message ? u"msg_"_s : u"item_"_s) + QString::fromLatin1(randomHex(24))));
        }
        conversation.items.append(item);
    }
    conversation.id = u"conv_"_s + QString::fromLatin1(randomHex(24));
    conversation.createdAt = QDateTime::currentSecsSinceEpoch();

    // A standalone server runs for days: beyond the cap the oldest idle conversations go (404).
    for (qsizetype i = 0;
         i < m_conversationOrder.size() && m_conversations.size() >= m_config.maxStoredResponses;) {
        const OpenAiSimRun *last
            = m_runs.value(m_conversations.value(m_conversationOrder.at(i)).lastResponseId);
        if (last && !last->hasEnded()) {
            ++i;
        } else {
            m_conversations.remove(m_conversationOrder.takeAt(i));
        }
    }
    m_conversations.insert(conversation.id, conversation);
    m_conversationOrder.append(conversation.id);
    sendJson(exchange, 200, conversationJson(conversation.id, conversation.createdAt, conversation.metadata));
}

void OpenAiSimulator::handleConversation(const Exchange &exchange, const HttpRequest &request,
                                         OpenAiEndpoint endpoint, const QString &id)
{
    const auto found = m_conversations.constFind(id);
    if (found == m_conversations.cend()) {
        sendError(exchange, 404, u"Conversation with id '%1' not found."_s.arg(id));
        return;
    }
    switch (endpoint) {
    case OpenAiEndpoint::ConversationGet:
        sendJson(exchange, 200, conversationJson(found->id, found->createdAt, found->metadata));
        break;
    case OpenAiEndpoint::ConversationDelete:
        // A response still running in it goes on; its items then go nowhere (guessed).
        m_conversations.erase(found);
        m_conversationOrder.removeOne(id);
        sendJson(exchange, 200,
                 QJsonObject{{u"id"_s, id}, {u"object"_s, u"conversation.deleted"_s}, {u"deleted"_s, true}});
        break;
    case OpenAiEndpoint::ConversationItems:
        if (auto page = listPage(exchange, request.query, found->items)) {
            page->insert("object"_L1, u"list"_s);
            sendJson(exchange, 200, *page);
        }
        break;
    default:
        break;
    }
}

bool OpenAiSimulator::takeAgent(const Exchange &exchange, const QJsonObject &body, OpenAiCreateParams *params)
{
    // The older `agent` property: refused with this exact message (§1, field reports). That a
    // null one passes is guessed.
    if (present(body.value("agent"_L1))) {
        sendError(exchange, 400, u"The 'agent' property is deprecated. Use 'agent_reference' instead."_s,
                  u"invalid_request_error"_s, u"agent"_s, u"invalid_payload"_s);
        return false;
    }
    const QJsonValue value = body.value("agent_reference"_L1);
    if (!present(value))
        return true;
    if (!value.isObject()) {
        sendInvalidType(exchange, u"agent_reference"_s, u"an object"_s, value);
        return false;
    }
    const QJsonObject reference = value.toObject();
    // The shape checks' wording is guessed; the SDK always sends type "agent_reference".
    if (reference.value("type"_L1).toString() != "agent_reference"_L1) {
        sendError(exchange, 400, u"Invalid value for 'agent_reference.type': expected 'agent_reference'."_s,
                  u"invalid_request_error"_s, u"agent_reference.type"_s, u"invalid_value"_s);
        return false;
    }
    const QJsonValue name = reference.value("name"_L1);
    if (!name.isString() || name.toString().isEmpty()) {
        if (present(name)) {
            sendInvalidType(exchange, u"agent_reference.name"_s, u"a string"_s, name);
        } else {
            sendError(exchange, 400, u"Missing required parameter: 'agent_reference.name'."_s,
                      u"invalid_request_error"_s, u"agent_reference.name"_s, u"missing_required_parameter"_s);
        }
        return false;
    }
    const QJsonValue version = reference.value("version"_L1);
    if (present(version) && !version.isString()) {
        sendInvalidType(exchange, u"agent_reference.version"_s, u"a string"_s, version);
        return false;
    }
    // The agent's definition owns these (§1, field reports: message, code and param). That a
    // null one passes is guessed.
    for (const QLatin1StringView field : kAgentOwnedFields) {
        if (present(body.value(field))) {
            sendError(exchange, 400, u"Not allowed when agent is specified."_s, u"invalid_request_error"_s,
                      QString(field), u"invalid_payload"_s);
            return false;
        }
    }
    const auto agent = std::find_if(m_config.agents.cbegin(), m_config.agents.cend(),
                                    [&name](const OpenAiSimAgent &a) { return a.name == name.toString(); });
    if (agent == m_config.agents.cend()) {
        // 404 as the references say; message, param and code guessed.
        sendError(exchange, 404, u"Agent %1 not found."_s.arg(name.toString()), u"invalid_request_error"_s,
                  u"agent_reference.name"_s, u"not_found"_s);
        return false;
    }
    // No version: the latest. "latest" itself is not a version (§1: 404 "... with version latest
    // not found"; the message's start, param and code are guessed), nor is a number past it.
    int resolved = agent->version;
    if (version.isString()) {
        bool ok = false;
        resolved = version.toString().toInt(&ok);
        if (!ok || resolved < 1 || resolved > agent->version
            || QString::number(resolved) != version.toString()) {
            sendError(exchange, 404,
                      u"Agent %1 with version %2 not found."_s.arg(agent->name, version.toString()),
                      u"invalid_request_error"_s, u"agent_reference.version"_s, u"not_found"_s);
            return false;
        }
    }
    // An agent that cannot run in the background or stream (--agent refuses=…): 400 naming the
    // parameter, as the service refuses a parameter it does not take. Wording and code guessed.
    for (const auto &[refused, field] : {std::pair{agent->refusesBackground, "background"_L1},
                                         std::pair{agent->refusesStream, "stream"_L1}}) {
        if (refused && body.value(field).toBool()) {
            sendError(exchange, 400, u"Agent %1 does not support '%2'."_s.arg(agent->name, field),
                      u"invalid_request_error"_s, QString(field), u"unsupported_parameter"_s);
            return false;
        }
    }
    params->model = agentModel(*agent, m_config);
    params->agentReference = QJsonObject{{u"type"_s, u"agent_reference"_s},
                                         {u"name"_s, agent->name},
                                         {u"version"_s, QString::number(resolved)}};
    return true;
}

bool OpenAiSimulator::takeConversation(const Exchange &exchange, const QJsonObject &body,
                                       OpenAiCreateParams *params, const OpenAiSimRun **last)
{
    const QJsonValue value = body.value("conversation"_L1);
    if (!present(value))
        return true;
    // A conversation id, or the object {id} (the openai client's two forms).
    const QJsonValue idValue = value.isObject() ? value["id"_L1] : value;
    if (!idValue.isString() || idValue.toString().isEmpty()) {
        sendInvalidType(exchange, u"conversation"_s, u"a string or an object with an 'id'"_s, value);
        return false;
    }
    const QString id = idValue.toString();
    if (present(body.value("previous_response_id"_L1))) {
        // 400 per §1 (conversation and previous_response_id exclude each other); wording guessed.
        sendError(exchange, 400,
                  u"Mutually exclusive parameters: Ensure you are only providing one of: "
                  u"'previous_response_id' or 'conversation'."_s,
                  u"invalid_request_error"_s, u"conversation"_s, u"mutually_exclusive_parameters"_s);
        return false;
    }
    const auto conversation = m_conversations.constFind(id);
    if (conversation == m_conversations.cend()) {
        sendError(exchange, 404, u"Conversation with id '%1' not found."_s.arg(id),
                  u"invalid_request_error"_s, u"conversation"_s);
        return false;
    }
    const OpenAiSimRun *previous = m_runs.value(conversation->lastResponseId);
    // One turn at a time (§1, hosted-agent docs: 409 conversation_locked while a response of the
    // conversation is queued or in progress). Message and type guessed.
    if (previous
        && (previous->status() == OpenAiSimRun::Status::Queued
            || previous->status() == OpenAiSimRun::Status::InProgress)) {
        sendError(exchange, 409,
                  u"Conversation %1 is locked: response %2 is still %3. Wait for it to finish."_s.arg(
                      id, previous->id(), previous->statusName()),
                  u"invalid_request_error"_s, u"conversation"_s, u"conversation_locked"_s);
        return false;
    }
    params->conversation = QJsonObject{{u"id"_s, id}};
    *last = previous;
    return true;
}

void OpenAiSimulator::joinConversation(OpenAiSimRun *run)
{
    const QString id = run->params().conversation["id"_L1].toString();
    const auto conversation = m_conversations.find(id);
    if (id.isEmpty() || conversation == m_conversations.end())
        return;
    // §1: the response's input items, then its output items, are appended to the conversation.
    // That the output goes in when the response ends, whatever its status, is guessed.
    const QJsonArray input = run->inputItems();
    for (const QJsonValue &item : input)
        conversation->items.append(item);
    conversation->lastResponseId = run->id();
    connect(
        run, &OpenAiSimRun::ended, this,
        [this, id, run] {
            const auto target = m_conversations.find(id);
            if (target == m_conversations.end())
                return; // deleted meanwhile
            const QJsonArray output = run->snapshot().value("output"_L1).toArray();
            for (const QJsonValue &item : output)
                target->items.append(item);
        },
        Qt::SingleShotConnection);
}

} // namespace RunwatchSim
