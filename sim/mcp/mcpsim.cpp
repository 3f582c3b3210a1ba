// SPDX-License-Identifier: GPL-3.0-or-later
// The MCP simulator's server side: configuration, counters and inspection, routing (the one
// endpoint, the bearer token, injected HTTP faults, the revision), replies, tasks and sessions.
// The methods are in mcpsimendpoints.cpp (2025-11-25) and mcpsimext.cpp (2026-07-28).
#include "mcpsim.h"

#include "mcpsimstream.h"
#include "mcpsimwire.h"
#include "server/httpconnection.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

McpSimulator::McpSimulator(QObject *parent)
    : McpSimulator(McpSimConfig(), parent)
{}

McpSimulator::McpSimulator(const McpSimConfig &config, QObject *parent)
    : SimServer(parent)
{
    setBasePath(u"/mcp"_s);
    setConfig(config);
}

McpSimulator::~McpSimulator() = default;

void McpSimulator::setConfig(const McpSimConfig &config)
{
    m_config = config;
    setLimits(config);
    m_store.setSessionFree(config.sessionFreeStore);
    m_faults.reset(config.httpFaults);
}

void McpSimulator::setIntervalMs(int ms)
{
    m_config.intervalMs = ms;
}

void McpSimulator::setStreamFaults(const StreamFaults &faults)
{
    m_config.streamFaults = faults;
}

void McpSimulator::addHttpFault(const McpHttpFault &fault)
{
    m_config.httpFaults.append(fault);
    m_faults.append(fault);
}

void McpSimulator::clearFaults()
{
    m_config.httpFaults.clear();
    m_config.streamFaults = StreamFaults();
    m_faults.clear();
}

int McpSimulator::activeStreamCount() const
{
    int count = 0;
    for (const auto &stream : m_streams) {
        if (stream && stream->isOpen())
            ++count;
    }
    return count;
}

void McpSimulator::resetCounters()
{
    m_log.clear();
    m_endpointCounts.clear();
    m_requestTotal = 0;
    m_created = 0;
    m_answersDropped = 0;
    resetRejectedRequestCount();
}

void McpSimulator::forgetSession(const QString &id)
{
    removeSession(id);
}

void McpSimulator::removeSession(const QString &id)
{
    McpSimSession *session = m_store.find(id);
    if (!session)
        return;
    if (session->standalone)
        session->standalone->finish();
    // Before the store deletes the session, whose id `id` may be.
    Q_EMIT sessionForgotten(id);
    m_store.removeSession(id);
}

std::optional<McpTaskInfo> McpSimulator::task(const QString &id) const
{
    const McpSimTask *task = m_store.anyTask(id);
    if (!task)
        return std::nullopt;
    McpTaskInfo info;
    info.id = id;
    info.tool = mcpToolName(task->params().tool);
    info.status = task->statusName();
    info.statusMessage = task->statusMessage();
    info.sessionId = task->params().sessionId;
    info.revision2026 = task->params().revision2026;
    info.hasResult = task->result().has_value();
    info.text = task->result() ? mcpResultText(*task->result()) : QString();
    info.waitingForInput = task->pendingInput().has_value();
    info.inputsAsked = task->inputsAsked();
    info.queued = int(task->queued().size());
    info.resultStreams = task->resultStreams();
    return info;
}

QString McpSimulator::helpText()
{
    return mcpOptionsHelpText();
}

void McpSimulator::recordStatus(const Exchange &exchange, int status, bool faulted)
{
    if (McpRequestRecord *record = m_log.find(exchange.serial)) {
        record->status = status;
        record->faulted = faulted;
        Q_EMIT requestAnswered(*record);
    }
}

void McpSimulator::route(HttpConnection *connection, const HttpRequest &request)
{
    McpRequestRecord record;
    record.setRequest(request);
    record.sessionId = QString::fromLatin1(request.header("mcp-session-id"));
    QJsonParseError parseError{};
    const QJsonDocument document
        = request.method == "POST" ? QJsonDocument::fromJson(request.body, &parseError) : QJsonDocument();
    const QJsonObject message = document.object();
    if (request.method == "GET") {
        record.endpoint = McpEndpoint::Stream;
    } else if (request.method == "DELETE") {
        record.endpoint = McpEndpoint::Delete;
    } else if (document.isObject()) {
        record.rpcMethod = message.value("method"_L1).toString();
        record.rpcId = message.value("id"_L1);
        const bool isResponse = !message.contains("method"_L1)
                                && (message.contains("result"_L1) || message.contains("error"_L1));
        record.endpoint = mcpEndpointOfMethod(record.rpcMethod, isResponse);
        record.taskId = message.value("params"_L1)[u"taskId"_s].toString();
        record.revision2026 = m_config.serve2026 && isRevision2026(request, message);
    }
    const Exchange exchange{connection, m_log.append(record), record.rpcId};
    ++m_requestTotal;
    ++m_endpointCounts[record.endpoint];
    Q_EMIT requestReceived(*m_log.find(exchange.serial));

    QString path = request.path;
    while (path.size() > 1 && path.endsWith(u'/'))
        path.chop(1);
    if (path != "/mcp"_L1) {
        // What express answers for a route it does not have [guessed: the text].
        sendPlain(exchange, 404, "Cannot " + request.method + ' ' + request.path.toUtf8() + '\n');
        return;
    }
    if (!checkAuth(exchange, request))
        return;
    const McpEndpoint endpoint = record.endpoint;
    if (const McpHttpFault *fault
        = m_faults.take([endpoint](const McpHttpFault &f) { return f.aimsAt(endpoint); })) {
        sendFault(exchange, *fault);
        return;
    }
    if (!record.taskId.isEmpty() && takeTaskFault(exchange, endpoint, record.taskId))
        return;

    if (request.method == "GET") {
        handleGet(exchange, request);
    } else if (request.method == "DELETE") {
        handleDelete(exchange, request);
    } else if (request.method == "POST") {
        if (parseError.error != QJsonParseError::NoError || document.isNull()) {
            sendHttpError(exchange, 400, kMcpParseError, u"Parse error: Invalid JSON"_s);
        } else if (record.revision2026) {
            handlePost2026(exchange, request, message);
        } else {
            handlePost(exchange, request,
                       document.isArray() ? QJsonValue(document.array()) : QJsonValue(message));
        }
    } else {
        sendHttpError(exchange, 405, kMcpConnectionClosed, u"Method not allowed."_s,
                      {{QByteArrayLiteral("Allow"), QByteArrayLiteral("GET, POST, DELETE")}});
    }
}

bool McpSimulator::checkAuth(const Exchange &exchange, const HttpRequest &request)
{
    if (m_config.bearerToken.isEmpty() || request.hasBearerToken(m_config.bearerToken.toUtf8()))
        return true;
    // The SDK's requireBearerAuth: 401 with an OAuth error body and WWW-Authenticate.
    const bool missing = request.header("authorization").isEmpty();
    const QString description = missing ? u"Missing Authorization header"_s : u"Invalid token"_s;
    sendJson(exchange, 401,
             QJsonObject{{u"error"_s, u"invalid_token"_s}, {u"error_description"_s, description}},
             {{QByteArrayLiteral("WWW-Authenticate"),
               "Bearer error=\"invalid_token\", error_description=\"" + description.toUtf8() + '"'}});
    return false;
}

bool McpSimulator::takeTaskFault(const Exchange &exchange, McpEndpoint endpoint, const QString &taskId)
{
    const McpSimTask *task = m_store.anyTask(taskId);
    if (!task || !task->options().httpFault || !task->options().httpFault->aimsAt(endpoint))
        return false;
    const McpHttpFault &fault = *task->options().httpFault;
    if (!takeFault(fault.count, &m_taskFaultsServed[taskId]))
        return false;
    sendFault(exchange, fault);
    return true;
}

void McpSimulator::sendJson(const Exchange &exchange, int status, const QJsonObject &body,
                            const HeaderList &headers)
{
    if (!exchange.connection)
        return;
    RunwatchSim::sendJson(exchange.connection, status, body, headers);
    recordStatus(exchange, status);
}

void McpSimulator::sendHttpError(const Exchange &exchange, int status, int code, const QString &message,
                                 const HeaderList &headers)
{
    sendJson(exchange, status, mcpErrorMessage(QJsonValue(), code, message), headers);
}

void McpSimulator::sendPlain(const Exchange &exchange, int status, const QByteArray &text)
{
    if (!exchange.connection)
        return;
    sendBody(exchange.connection, status, QByteArrayLiteral("text/plain; charset=utf-8"), text);
    recordStatus(exchange, status);
}

void McpSimulator::sendFault(const Exchange &exchange, const McpHttpFault &fault)
{
    if (!exchange.connection)
        return;
    HeaderList headers;
    if (fault.retryAfterSeconds >= 0)
        headers.append({QByteArrayLiteral("Retry-After"), QByteArray::number(fault.retryAfterSeconds)});
    const QByteArray title = QByteArray::number(fault.status) + ' ' + reasonPhrase(fault.status);
    if (fault.htmlBody) {
        sendBody(exchange.connection, fault.status, QByteArrayLiteral("text/html"),
                 "<html><head><title>" + title + "</title></head><body><h1>" + title
                     + "</h1><p>Injected by runwatch-sim.</p></body></html>\n",
                 headers);
    } else {
        // A JSON-RPC error as the SDK's own routing writes them [guessed: the message].
        RunwatchSim::sendJson(exchange.connection, fault.status,
                              mcpErrorMessage(QJsonValue(), kMcpConnectionClosed, QString::fromLatin1(title)),
                              headers);
    }
    recordStatus(exchange, fault.status, true);
}

McpSimStream *McpSimulator::openReply(const Exchange &exchange, const QString &sessionId,
                                      const StreamFaults &faults, bool faulted,
                                      const McpStreamSettings &settings)
{
    if (!exchange.connection)
        return nullptr;
    HeaderList headers;
    if (!sessionId.isEmpty())
        headers.append({QByteArrayLiteral("mcp-session-id"), sessionId.toLatin1()});
    beginEventStream(exchange.connection, headers);
    recordStatus(exchange, 200);
    auto *stream = new McpSimStream(exchange.connection, faults, faulted, settings, this);
    m_streams.removeIf([](const QPointer<McpSimStream> &s) { return !s; });
    m_streams.append(stream);
    return stream;
}

void McpSimulator::reply(const Exchange &exchange, const QString &sessionId, const QJsonObject &message)
{
    if (McpSimStream *stream = openReply(exchange, sessionId)) {
        stream->send(message);
        stream->finish();
    }
}

McpSimTask *McpSimulator::createTask(const McpTaskParams &params, const McpCallOptions &options)
{
    m_store.trim(m_config.maxTasks);
    auto *task = new McpSimTask(newMcpTaskId(), params, options, this);
    if (McpSimSession *session = m_store.find(params.sessionId)) {
        const std::shared_ptr<qint64> counter = session->nextRequestId;
        task->setRequestIdSource([counter] { return (*counter)++; });
    }
    m_store.addTask(task);
    ++m_created;
    const QString id = task->id();
    connect(task, &McpSimTask::changed, this, [this, task, id] {
        notifyStatus(task);
        Q_EMIT taskStatusChanged(id, task->statusName());
    });
    connect(task, &McpSimTask::ended, this, [this, id] { Q_EMIT taskEnded(id); });
    connect(task, &McpSimTask::inputRequested, this, [this, id] { Q_EMIT inputRequested(id); });
    Q_EMIT taskCreated(id);
    task->start();
    return task;
}

void McpSimulator::notifyStatus(McpSimTask *task)
{
    // The full Task on every change, on the standalone stream of the session that created it;
    // lost when that stream is not open (§6).
    if (task->params().revision2026 || task->params().sessionId.isEmpty())
        return;
    McpSimSession *session = m_store.find(task->params().sessionId);
    if (session && session->standalone)
        session->standalone->send(mcpNotificationMessage(u"notifications/tasks/status"_s, task->json2025()));
}

} // namespace RunwatchSim
