// SPDX-License-Identifier: GPL-3.0-or-later
// The Foundry simulator's endpoints: threads and messages, creating runs (JSON or SSE), submitting
// tool outputs and approvals, cancel, the paged lists and the project's agents.
#include "foundrysim.h"

#include "foundrysimstream.h"
#include "foundrysimwire.h"
#include "server/httpconnection.h"

#include <QDateTime>
#include <QJsonDocument>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

// The text of a message's `content`: a string, or an array of {type:"text", text:"…"} parts.
std::optional<QString> contentText(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    if (!content.isArray())
        return std::nullopt;
    QString text;
    for (const QJsonValue &part : content.toArray()) {
        const QJsonValue value = part.toObject().value("text"_L1);
        if (value.isString()) {
            text += value.toString();
        } else if (value.isObject() && value.toObject().value("value"_L1).isString()) {
            text += value.toObject().value("value"_L1).toString();
        } else {
            return std::nullopt;
        }
    }
    return text;
}

std::optional<QJsonObject> bodyObject(const HttpRequest &request)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    return document.object();
}

bool isActive(const FoundrySimRun *run)
{
    return run && !run->isTerminal();
}

} // namespace

const FoundrySimAgent *FoundrySimulator::findAgent(const QString &id) const
{
    for (const FoundrySimAgent &agent : m_agents) {
        if (agent.id == id)
            return &agent;
    }
    return nullptr;
}

FoundrySimulator::Thread *FoundrySimulator::newThread(const QJsonArray &messages)
{
    Thread thread;
    thread.id = u"thread_"_s + QString::fromLatin1(randomHex(12));
    thread.createdAt = QDateTime::currentSecsSinceEpoch();
    for (const QJsonValue &value : messages) {
        const QJsonObject object = value.toObject();
        FoundrySimMessage message;
        message.id = u"msg_"_s + QString::fromLatin1(randomHex(12));
        message.threadId = thread.id;
        message.role = object.value("role"_L1).toString();
        message.createdAt = thread.createdAt;
        message.serial = nextFoundryMessageSerial();
        message.parts.append(contentText(object.value("content"_L1)).value_or(QString()));
        thread.messages.append(message);
    }
    return &m_threads.insert(thread.id, thread).value();
}

void FoundrySimulator::handleCreateThread(const Exchange &exchange, const HttpRequest &request)
{
    const auto body
        = request.body.trimmed().isEmpty() ? std::optional<QJsonObject>(QJsonObject()) : bodyObject(request);
    if (!body) {
        sendError(exchange, 400, u"invalid_request_error"_s, u"The body must be a JSON object."_s);
        return;
    }
    const QJsonArray messages = body->value("messages"_L1).toArray();
    for (const QJsonValue &message : messages) {
        if (!contentText(message.toObject().value("content"_L1))) {
            sendError(exchange, 400, u"invalid_request_error"_s, u"Each message needs role and content."_s);
            return;
        }
    }
    const Thread *thread = newThread(messages);
    sendJson(exchange, 200, foundryThreadJson(thread->id, thread->createdAt));
}

void FoundrySimulator::handleAddMessage(const Exchange &exchange, const HttpRequest &request, Thread *thread)
{
    const auto body = bodyObject(request);
    const auto text = body ? contentText(body->value("content"_L1)) : std::nullopt;
    const QString role = body ? body->value("role"_L1).toString() : QString();
    if (!text || (role != "user"_L1 && role != "assistant"_L1)) {
        sendError(exchange, 400, u"invalid_request_error"_s,
                  u"A message needs role (user or assistant) and content."_s);
        return;
    }
    for (const QString &runId : thread->runIds) {
        if (isActive(m_runs.value(runId))) {
            sendError(exchange, 400, u"invalid_request_error"_s,
                      u"Can't add messages to %1 while a run %2 is active."_s.arg(thread->id, runId));
            return;
        }
    }
    FoundrySimMessage message;
    message.id = u"msg_"_s + QString::fromLatin1(randomHex(12));
    message.threadId = thread->id;
    message.role = role;
    message.createdAt = QDateTime::currentSecsSinceEpoch();
    message.serial = nextFoundryMessageSerial();
    message.parts.append(*text);
    thread->messages.append(message);
    sendJson(exchange, 200, FoundrySimRun::messageJson(message));
}

void FoundrySimulator::handleCreateThreadRun(const Exchange &exchange, const HttpRequest &request)
{
    const auto body = bodyObject(request);
    if (!body) {
        sendError(exchange, 400, u"invalid_request_error"_s, u"The body must be a JSON object."_s);
        return;
    }
    const QJsonArray messages = body->value("thread"_L1).toObject().value("messages"_L1).toArray();
    for (const QJsonValue &message : messages) {
        if (!contentText(message.toObject().value("content"_L1))) {
            sendError(exchange, 400, u"invalid_request_error"_s, u"Each message needs role and content."_s);
            return;
        }
    }
    if (!findAgent(body->value("assistant_id"_L1).toString())) {
        // Checked before the thread exists, so that a refused create leaves nothing behind.
        sendError(exchange, 404, u"not_found"_s,
                  u"No assistant found with id '%1'."_s.arg(body->value("assistant_id"_L1).toString()));
        return;
    }
    startRun(exchange, *body, newThread(messages), true);
}

void FoundrySimulator::handleCreateRun(const Exchange &exchange, const HttpRequest &request, Thread *thread)
{
    const auto body = bodyObject(request);
    if (!body) {
        sendError(exchange, 400, u"invalid_request_error"_s, u"The body must be a JSON object."_s);
        return;
    }
    for (const QString &runId : thread->runIds) {
        if (isActive(m_runs.value(runId))) {
            sendError(exchange, 400, u"invalid_request_error"_s,
                      u"Thread %1 already has an active run %2."_s.arg(thread->id, runId));
            return;
        }
    }
    startRun(exchange, *body, thread, false);
}

void FoundrySimulator::startRun(const Exchange &exchange, const QJsonObject &body, Thread *thread,
                                bool threadCreated)
{
    const QString assistantId = body.value("assistant_id"_L1).toString();
    const FoundrySimAgent *agent = findAgent(assistantId);
    if (!agent) {
        sendError(exchange, 404, u"not_found"_s, u"No assistant found with id '%1'."_s.arg(assistantId));
        return;
    }
    if (body.contains("stream"_L1) && !body.value("stream"_L1).isBool()
        && !body.value("stream"_L1).isNull()) {
        sendError(exchange, 400, u"invalid_request_error"_s, u"'stream' must be a boolean."_s);
        return;
    }
    const QJsonValue metadata = body.value("metadata"_L1);
    if (!metadata.isUndefined() && !metadata.isNull() && !metadata.isObject()) {
        sendError(exchange, 400, u"invalid_request_error"_s, u"'metadata' must be an object."_s);
        return;
    }
    for (const QJsonValue &value : body.value("additional_messages"_L1).toArray()) {
        const QJsonObject object = value.toObject();
        const auto text = contentText(object.value("content"_L1));
        if (!text) {
            sendError(exchange, 400, u"invalid_request_error"_s, u"Each message needs role and content."_s);
            return;
        }
        FoundrySimMessage message;
        message.id = u"msg_"_s + QString::fromLatin1(randomHex(12));
        message.threadId = thread->id;
        message.role = object.value("role"_L1).toString();
        message.createdAt = QDateTime::currentSecsSinceEpoch();
        message.serial = nextFoundryMessageSerial();
        message.parts.append(*text);
        thread->messages.append(message);
    }
    FoundryRunParams params;
    params.threadId = thread->id;
    params.assistantId = assistantId;
    params.model = body.value("model"_L1).toString(agent->model);
    params.instructions = body.value("instructions"_L1).toString(agent->instructions);
    params.metadata = metadata.toObject();
    QStringList prompt;
    for (const FoundrySimMessage &message : thread->messages) {
        if (message.role == "user"_L1)
            prompt.append(message.parts.join(QString()));
    }
    params.prompt = prompt.join(u'\n');
    params.threadCreated = threadCreated;
    params.threadJson = foundryThreadJson(thread->id, thread->createdAt);
    FoundryRunOptions options;
    if (const auto error = resolveRunOptions(m_config, params.prompt, params.metadata, &options)) {
        sendError(exchange, 400, u"invalid_request_error"_s, error->message);
        return;
    }
    FoundrySimRun *run = createRun(params, options);
    if (body.value("stream"_L1).toBool()) {
        openStream(exchange, run, 0);
        run->start();
    } else {
        run->start();
        sendJson(exchange, 200, run->json());
    }
}

void FoundrySimulator::handleSubmit(const Exchange &exchange, const HttpRequest &request, FoundrySimRun *run)
{
    const auto body = bodyObject(request);
    if (!body) {
        sendError(exchange, 400, u"invalid_request_error"_s, u"The body must be a JSON object."_s);
        return;
    }
    // The stream of a submit starts with what the submit causes: no replay of earlier events.
    const int first = int(run->events().size());
    const QString error = run->submit(*body);
    if (!error.isEmpty()) {
        sendError(exchange, 400, u"invalid_request_error"_s, error);
        return;
    }
    if (body->value("stream"_L1).toBool()) {
        openStream(exchange, run, first);
    } else {
        sendJson(exchange, 200, run->json());
    }
}

void FoundrySimulator::handleCancel(const Exchange &exchange, FoundrySimRun *run)
{
    const QString error = run->cancel();
    if (!error.isEmpty()) {
        sendError(exchange, 400, u"invalid_request_error"_s, error);
        return;
    }
    sendJson(exchange, 200, run->json());
}

void FoundrySimulator::openStream(const Exchange &exchange, FoundrySimRun *run, int firstEvent)
{
    if (!exchange.connection)
        return;
    beginEventStream(exchange.connection, {{QByteArrayLiteral("x-ms-request-id"), newRequestId()}});
    recordStatus(exchange, 200);
    const int index = run->openStreamConnection();
    FoundryStreamSettings settings;
    settings.lineEnding = m_config.lineEnding;
    settings.splitWrites = run->options().splitWrites;
    auto *stream = new FoundrySimStream(exchange.connection, run, firstEvent,
                                        run->options().streamFaults.hitConnection(index), settings, this);
    m_streams.removeAll(nullptr);
    m_streams.append(stream);
    const QString id = run->id();
    connect(stream, &SimStream::finished, this, [this, id] { Q_EMIT streamClosed(id); });
    Q_EMIT streamOpened(id, index);
    stream->start();
}

void FoundrySimulator::sendList(const Exchange &exchange, const QUrlQuery &query,
                                const QList<QJsonObject> &ascending)
{
    const QString order = query.hasQueryItem(u"order"_s) ? query.queryItemValue(u"order"_s) : u"desc"_s;
    if (order != "asc"_L1 && order != "desc"_L1) {
        sendError(exchange, 400, u"invalid_request_error"_s, u"'order' must be 'asc' or 'desc'."_s);
        return;
    }
    int limit = 20;
    if (query.hasQueryItem(u"limit"_s)) {
        bool ok = false;
        limit = query.queryItemValue(u"limit"_s).toInt(&ok);
        if (!ok || limit < 1 || limit > 100) {
            sendError(exchange, 400, u"invalid_request_error"_s,
                      u"'limit' must be an integer from 1 to 100."_s);
            return;
        }
    }
    QList<QJsonObject> items = ascending;
    if (order == "desc"_L1)
        std::reverse(items.begin(), items.end());
    const auto indexOf = [&items](const QString &id) -> qsizetype {
        for (qsizetype i = 0; i < items.size(); ++i) {
            if (items.at(i).value("id"_L1).toString() == id)
                return i;
        }
        return -1;
    };
    qsizetype begin = 0;
    qsizetype end = items.size();
    if (query.hasQueryItem(u"after"_s)) {
        const qsizetype at = indexOf(query.queryItemValue(u"after"_s));
        begin = at < 0 ? items.size() : at + 1;
    }
    if (query.hasQueryItem(u"before"_s)) {
        const qsizetype at = indexOf(query.queryItemValue(u"before"_s));
        end = at < 0 ? 0 : at;
        // "before" pages backwards: the `limit` items right before the cursor.
        begin = qMax(begin, end - limit);
    }
    QJsonArray data;
    for (qsizetype i = begin; i < end && data.size() < limit; ++i)
        data.append(items.at(i));
    sendJson(exchange, 200, foundryListJson(data, begin + data.size() < end));
}

void FoundrySimulator::handleListMessages(const Exchange &exchange, const HttpRequest &request,
                                          const Thread &thread)
{
    const QString runFilter = request.query.queryItemValue(u"run_id"_s);
    QList<FoundrySimMessage> messages;
    if (runFilter.isEmpty())
        messages = thread.messages;
    for (const QString &runId : thread.runIds) {
        if (const FoundrySimRun *run = m_runs.value(runId);
            run && (runFilter.isEmpty() || runFilter == runId))
            messages.append(run->messages());
    }
    std::sort(messages.begin(), messages.end(),
              [](const FoundrySimMessage &a, const FoundrySimMessage &b) { return a.serial < b.serial; });
    QList<QJsonObject> json;
    for (const FoundrySimMessage &message : messages)
        json.append(FoundrySimRun::messageJson(message));
    sendList(exchange, request.query, json);
}

void FoundrySimulator::handleListRuns(const Exchange &exchange, const HttpRequest &request,
                                      const Thread &thread)
{
    QList<QJsonObject> json;
    for (const QString &runId : thread.runIds) {
        if (const FoundrySimRun *run = m_runs.value(runId))
            json.append(run->json());
    }
    sendList(exchange, request.query, json);
}

void FoundrySimulator::handleListSteps(const Exchange &exchange, const HttpRequest &request,
                                       const FoundrySimRun &run)
{
    QList<QJsonObject> json;
    for (const FoundrySimStep &step : run.steps())
        json.append(run.stepJson(step));
    sendList(exchange, request.query, json);
}

void FoundrySimulator::handleAgents(const Exchange &exchange, const HttpRequest &request)
{
    QList<QJsonObject> json;
    for (const FoundrySimAgent &agent : m_agents)
        json.append(foundryAgentJson(agent, m_agentsCreatedAt));
    sendList(exchange, request.query, json);
}

void FoundrySimulator::handleCreateAgent(const Exchange &exchange, const HttpRequest &request)
{
    const auto body = bodyObject(request);
    if (!body || !body->value("model"_L1).isString()) {
        sendError(exchange, 400, u"invalid_request_error"_s, u"'model' is required."_s);
        return;
    }
    FoundrySimAgent agent;
    agent.id = u"asst_"_s + QString::fromLatin1(randomHex(12));
    agent.name = body->value("name"_L1).toString();
    agent.model = body->value("model"_L1).toString();
    agent.instructions = body->value("instructions"_L1).toString();
    m_agents.append(agent);
    sendJson(exchange, 200, foundryAgentJson(agent, m_agentsCreatedAt));
}

} // namespace RunwatchSim
