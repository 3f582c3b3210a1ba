// SPDX-License-Identifier: GPL-3.0-or-later
// The MCP simulator's 2025-11-25 side: the session routing of the SDK's simpleStreamableHttp
// example, the checks of its StreamableHTTPServerTransport, and the methods — initialize,
// tools/list, tools/call (with and without params.task), the Protocol's task handlers (tasks/get,
// tasks/result, tasks/cancel, tasks/list) — with their observed answers and error texts
// (mcp-tasks.md §2–§6, §10).
#include "mcpsim.h"

#include "mcpsimstream.h"
#include "mcpsimwire.h"
#include "server/httpconnection.h"

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

bool isRequest(const QJsonObject &message)
{
    return message.value("method"_L1).isString() && message.contains("id"_L1);
}

bool isValidMessage(const QJsonObject &message)
{
    if (message.value("jsonrpc"_L1).toString() != "2.0"_L1)
        return false;
    if (message.contains("method"_L1))
        return message.value("method"_L1).isString();
    return message.contains("id"_L1) && (message.contains("result"_L1) || message.contains("error"_L1));
}

// The version `initialize` negotiates: the client's when the server speaks it, else the newest
// 2025 one (a 2026-07-28 request gets 2025-11-25 back, as from SDK 1.32.2).
QString negotiate(const QString &requested)
{
    return mcpSupportedVersions().contains(requested) ? requested : QString(kMcpVersion2025);
}

QString unsupportedVersionText(const QByteArray &version)
{
    return u"Bad Request: Unsupported protocol version: %1 (supported versions: %2)"_s.arg(
        QString::fromLatin1(version), mcpSupportedVersions().join(u", "_s));
}

} // namespace

void McpSimulator::handlePost(const Exchange &exchange, const HttpRequest &request, const QJsonValue &body)
{
    if (body.isArray()) {
        // 2025-06-18 took JSON-RPC batching out of the protocol [guessed: the SDK still takes them].
        sendHttpError(exchange, 400, kMcpInvalidRequest, u"Invalid Request: batching is not supported"_s);
        return;
    }
    const QJsonObject message = body.toObject();
    if (!isValidMessage(message)) {
        sendHttpError(exchange, 400, kMcpParseError, u"Parse error: Invalid JSON-RPC message"_s);
        return;
    }
    const QString method = message.value("method"_L1).toString();
    const bool initialize = method == "initialize"_L1 && isRequest(message);
    const QString sessionId = QString::fromLatin1(request.header("mcp-session-id"));

    // The example's routing: a known session, a new one for initialize, else 404 / 400.
    McpSimSession *session = sessionId.isEmpty() ? nullptr : m_store.use(sessionId, m_config.sessionIdleMs);
    if (!sessionId.isEmpty() && !session) {
        sendHttpError(exchange, 404, kMcpRequestTimeout, u"Session not found"_s);
        return;
    }
    if (!session && !initialize) {
        sendHttpError(exchange, 400, kMcpConnectionClosed, u"Bad Request: No valid session ID provided"_s);
        return;
    }
    // The transport's checks.
    const QByteArray accept = request.header("accept");
    if (!accept.contains("application/json") || !accept.contains("text/event-stream")) {
        sendHttpError(exchange, 406, kMcpConnectionClosed,
                      u"Not Acceptable: Client must accept both application/json and text/event-stream"_s);
        return;
    }
    if (!request.header("content-type").toLower().startsWith("application/json")) {
        sendHttpError(exchange, 415, kMcpConnectionClosed,
                      u"Unsupported Media Type: Content-Type must be application/json"_s);
        return;
    }
    if (initialize && session) {
        sendHttpError(exchange, 400, kMcpInvalidRequest, u"Invalid Request: Server already initialized"_s);
        return;
    }
    const QByteArray version = request.header("mcp-protocol-version");
    if (!initialize && !version.isEmpty() && !mcpSupportedVersions().contains(QString::fromLatin1(version))) {
        sendHttpError(exchange, 400, kMcpConnectionClosed, unsupportedVersionText(version));
        return;
    }

    const QJsonObject params = message.value("params"_L1).toObject();
    if (initialize) {
        // A standalone server runs for days and clients do not always end their sessions: at the
        // cap the least recently used one is forgotten (a 404 for it) [guessed: the SDK example
        // refuses with 503 "Too many open sessions" instead, which would stop the server for good].
        while (m_store.sessionCount() >= qMax(1, m_config.maxSessions))
            removeSession(m_store.leastRecentlyUsed());
        const QString negotiated = negotiate(params.value("protocolVersion"_L1).toString());
        session = m_store.addSession(negotiated, params.value("capabilities"_L1).toObject());
        Q_EMIT sessionCreated(session->id);
        reply(exchange, session->id,
              mcpResultMessage(exchange.id, QJsonObject{{u"protocolVersion"_s, negotiated},
                                                        {u"capabilities"_s, mcpServerCapabilities2025()},
                                                        {u"serverInfo"_s, mcpServerInfo()}}));
        return;
    }
    if (!isRequest(message)) {
        // Notifications and responses: 202, no body. The SDK does not wait for
        // notifications/initialized before serving requests, nor does the simulator.
        if (method.isEmpty())
            handleAnswer(session, message);
        if (exchange.connection) {
            exchange.connection->sendResponse(202, {}, QByteArray());
            recordStatus(exchange, 202);
        }
        return;
    }
    dispatch(exchange, session, method, params);
}

void McpSimulator::handleAnswer(McpSimSession *session, const QJsonObject &message)
{
    // The pending request lives in the server object of the session that started the task: an
    // answer on any other session (or to nothing pending) is dropped without a word (§5).
    const QJsonValue id = message.value("id"_L1);
    McpSimTask *task = id.isDouble() ? m_store.taskAwaiting(session->id, id.toInteger()) : nullptr;
    bool taken = false;
    if (task && message.contains("result"_L1)) {
        taken = task->answer(id.toInteger(), message.value("result"_L1).toObject());
    } else if (task) {
        const QJsonObject error = message.value("error"_L1).toObject();
        taken = task->answerError(id.toInteger(), error.value("code"_L1).toInt(),
                                  error.value("message"_L1).toString());
    }
    if (!taken) {
        ++m_answersDropped;
        Q_EMIT answerDropped(session->id, id);
    }
}

void McpSimulator::handleGet(const Exchange &exchange, const HttpRequest &request)
{
    const QString sessionId = QString::fromLatin1(request.header("mcp-session-id"));
    if (sessionId.isEmpty()) {
        sendPlain(exchange, 400, "Missing session ID");
        return;
    }
    McpSimSession *session = m_store.use(sessionId, m_config.sessionIdleMs);
    if (!session) {
        sendHttpError(exchange, 404, kMcpRequestTimeout, u"Session not found"_s);
        return;
    }
    if (!request.header("accept").contains("text/event-stream")) {
        sendHttpError(exchange, 406, kMcpConnectionClosed,
                      u"Not Acceptable: Client must accept text/event-stream"_s);
        return;
    }
    const QByteArray version = request.header("mcp-protocol-version");
    if (!version.isEmpty() && !mcpSupportedVersions().contains(QString::fromLatin1(version))) {
        sendHttpError(exchange, 400, kMcpConnectionClosed, unsupportedVersionText(version));
        return;
    }
    if (session->standalone && session->standalone->isOpen()) {
        sendHttpError(exchange, 409, kMcpConnectionClosed,
                      u"Conflict: Only one SSE stream is allowed per session"_s);
        return;
    }
    session->standalone = openReply(exchange, session->id);
}

void McpSimulator::handleDelete(const Exchange &exchange, const HttpRequest &request)
{
    const QString sessionId = QString::fromLatin1(request.header("mcp-session-id"));
    if (sessionId.isEmpty()) {
        sendPlain(exchange, 400, "Missing session ID");
        return;
    }
    if (!m_store.use(sessionId, m_config.sessionIdleMs)) {
        sendHttpError(exchange, 404, kMcpRequestTimeout, u"Session not found"_s);
        return;
    }
    // Closing the session fails a pending elicitation (§5).
    removeSession(sessionId);
    if (exchange.connection) {
        exchange.connection->sendResponse(200, {}, QByteArray());
        recordStatus(exchange, 200);
    }
}

void McpSimulator::dispatch(const Exchange &exchange, McpSimSession *session, const QString &method,
                            const QJsonObject &params)
{
    const QString taskId = params.value("taskId"_L1).toString();
    const auto fail = [&](int code, const QString &message) {
        reply(exchange, session->id, mcpErrorMessage(exchange.id, code, message));
    };
    const auto answer = [&](const QJsonObject &result) {
        reply(exchange, session->id, mcpResultMessage(exchange.id, result));
    };
    if (method.startsWith("tasks/"_L1) && method != "tasks/list"_L1
        && !params.value("taskId"_L1).isString()) {
        fail(kMcpInvalidParams,
             mcpErrorText(kMcpInvalidParams, u"Invalid params: taskId is required"_s)); // [guessed]
        return;
    }
    if (method == "ping"_L1) {
        answer(QJsonObject());
    } else if (method == "tools/list"_L1) {
        answer(QJsonObject{{u"tools"_s, mcpToolsJson()}});
    } else if (method == "tools/call"_L1) {
        handleToolsCall(exchange, session, params);
    } else if (method == "tasks/get"_L1) {
        McpSimTask *task = m_store.task(taskId, session->id);
        if (!task) {
            fail(kMcpInvalidParams,
                 mcpErrorText(kMcpInvalidParams, u"Failed to retrieve task: Task not found"_s));
            return;
        }
        // No related-task _meta on tasks/get: the taskId is the source of truth.
        answer(task->json2025());
    } else if (method == "tasks/result"_L1) {
        McpSimTask *task = m_store.task(taskId, session->id);
        if (!task) {
            fail(kMcpInvalidParams, mcpErrorText(kMcpInvalidParams, u"Task not found: "_s + taskId));
            return;
        }
        handleTasksResult(exchange, session, task);
    } else if (method == "tasks/cancel"_L1) {
        McpSimTask *task = m_store.task(taskId, session->id);
        if (!task) {
            fail(kMcpInvalidParams, mcpErrorText(kMcpInvalidParams, u"Task not found: "_s + taskId));
        } else if (!task->cancel()) {
            fail(kMcpInvalidParams,
                 mcpErrorText(kMcpInvalidParams,
                              u"Cannot cancel task in terminal status: "_s + task->statusName()));
        } else {
            QJsonObject result = task->json2025();
            result.insert(u"_meta"_s, QJsonObject());
            answer(result);
        }
    } else if (method == "tasks/list"_L1) {
        const QString cursor = params.value("cursor"_L1).toString();
        QList<McpSimTask *> tasks;
        QString next;
        if (!m_store.page(cursor, session->id, &tasks, &next)) {
            fail(kMcpInvalidParams,
                 mcpErrorText(kMcpInvalidParams, u"Failed to list tasks: Invalid cursor: "_s + cursor));
            return;
        }
        QJsonArray list;
        for (const McpSimTask *task : std::as_const(tasks))
            list.append(task->json2025());
        QJsonObject result{{u"tasks"_s, list}, {u"_meta"_s, QJsonObject()}};
        if (!next.isEmpty())
            result.insert(u"nextCursor"_s, next);
        answer(result);
    } else {
        fail(kMcpMethodNotFound, u"Method not found"_s);
    }
}

void McpSimulator::handleToolsCall(const Exchange &exchange, McpSimSession *session,
                                   const QJsonObject &params)
{
    const QString name = params.value("name"_L1).toString();
    const QJsonObject arguments = params.value("arguments"_L1).toObject();
    const bool taskCall = params.value("task"_L1).isObject();
    const std::optional<McpTool> tool = mcpToolFromName(name);
    const McpTaskSupport support = tool ? mcpTaskSupport(*tool) : McpTaskSupport::Forbidden;
    // McpServer turns its own errors into an isError result; a task call then fails the server's
    // CreateTaskResult check instead (§3, observed for forbidden and unknown tools and bad arguments).
    QString toolError;
    McpCallOptions options;
    if (!tool) {
        toolError = mcpErrorText(kMcpInvalidParams, u"Tool %1 not found"_s.arg(name));
    } else if (support == McpTaskSupport::Required && !taskCall) {
        toolError = mcpErrorText(kMcpMethodNotFound,
                                 u"Tool %1 requires task augmentation (taskSupport: 'required')"_s.arg(name));
    } else if (const QString why = mcpCheckArguments(*tool, arguments); !why.isEmpty()) {
        toolError = mcpErrorText(
            kMcpInvalidParams, u"Input validation error: Invalid arguments for tool %1: %2"_s.arg(name, why));
    } else if (const auto error = resolveCallOptions(m_config, *tool, arguments, &options)) {
        toolError = mcpErrorText(kMcpInvalidParams, error->message);
    }
    if (taskCall && (!toolError.isEmpty() || support == McpTaskSupport::Forbidden)) {
        reply(exchange, session->id,
              mcpErrorMessage(exchange.id, kMcpInvalidParams, mcpInvalidTaskCreationText()));
        return;
    }
    if (!toolError.isEmpty()) {
        reply(exchange, session->id, mcpResultMessage(exchange.id, mcpTextResult(toolError, true)));
        return;
    }
    if (support == McpTaskSupport::Forbidden) {
        reply(exchange, session->id,
              mcpResultMessage(exchange.id, mcpTextResult(arguments.value("text"_L1).toString())));
        return;
    }

    McpTaskParams taskParams;
    taskParams.tool = *tool;
    taskParams.arguments = arguments;
    taskParams.sessionId = session->id;
    // A progress token is a string or an integer; anything else is none.
    const QJsonValue progressToken = params.value("_meta"_L1)[u"progressToken"_s];
    if (progressToken.isString() || progressToken.isDouble())
        taskParams.progressToken = progressToken;
    const QJsonValue ttl = params.value("task"_L1)[u"ttl"_s];
    if (ttl.isDouble()) // the server's choice: at most maxTtlMs [guessed: the bound]
        taskParams.ttlMs = qBound<qint64>(1, qint64(ttl.toDouble()), m_config.maxTtlMs);
    const QJsonObject elicitation = session->clientCapabilities.value("elicitation"_L1).toObject();
    // `{}` counts as form (the SDK reads an empty elicitation capability as form support).
    taskParams.formElicitation = session->clientCapabilities.contains("elicitation"_L1)
                                 && (elicitation.isEmpty() || elicitation.contains("form"_L1));
    taskParams.urlElicitation = elicitation.contains("url"_L1);
    McpSimTask *task = createTask(taskParams, options);

    if (taskCall) {
        reply(exchange, session->id,
              mcpResultMessage(exchange.id, QJsonObject{{u"task"_s, task->json2025()}}));
        if (options.loseSession)
            removeSession(session->id);
        return;
    }
    // An optional tool without params.task: the SDK's automatic polling answers the call itself
    // with the task's result once it ends.
    McpSimStream *stream = openReply(exchange, session->id);
    if (!stream)
        return;
    const QPointer<McpSimStream> guarded(stream);
    const QJsonValue id = exchange.id;
    connect(task, &McpSimTask::ended, stream, [guarded, task, id] {
        if (!guarded)
            return;
        guarded->send(mcpResultMessage(
            id, task->result() ? *task->result()
                               : mcpTextResult(u"Task %1 has no result stored"_s.arg(task->id()), true)));
        guarded->finish();
    });
}

void McpSimulator::handleTasksResult(const Exchange &exchange, McpSimSession *session, McpSimTask *task)
{
    const McpCallOptions &options = task->options();
    const int connection = task->openResultStream();
    McpStreamSettings settings;
    settings.lineEnding = options.lineEnding;
    settings.splitWrites = options.splitWrites;
    McpSimStream *stream = openReply(exchange, session->id, options.streamFaults,
                                     options.streamFaults.hitConnection(connection), settings);
    if (!stream)
        return;
    // Queued messages go only to the session whose server object holds the task's queue (§5).
    const bool origin = task->params().sessionId == session->id;
    const QPointer<McpSimStream> guardedStream(stream);
    const QPointer<McpSimTask> guardedTask(task);
    const QJsonValue id = exchange.id;
    const auto pump = [this, guardedStream, guardedTask, origin, id] {
        if (guardedStream && guardedTask)
            pumpResult(guardedStream, guardedTask, origin, id);
    };
    connect(task, &McpSimTask::messageQueued, stream, pump);
    connect(task, &McpSimTask::changed, stream, pump);
    connect(task, &QObject::destroyed, stream, [guardedStream] {
        if (guardedStream)
            guardedStream->finish();
    });
    pumpResult(stream, task, origin, id);
}

void McpSimulator::pumpResult(McpSimStream *stream, McpSimTask *task, bool origin, const QJsonValue &id)
{
    if (!stream->isOpen())
        return;
    // Each queued message is delivered once: taken from the queue only when it went out whole.
    while (origin && !task->queued().isEmpty()) {
        if (!stream->send(task->queued().first()))
            return;
        task->takeQueued();
    }
    // Blocks until the task is terminal, then its result (with the related-task _meta).
    if (!task->isTerminal())
        return;
    if (task->result()) {
        QJsonObject result = *task->result();
        QJsonObject meta = result.value("_meta"_L1).toObject();
        meta.insert(QString(kMcpRelatedTaskKey), QJsonObject{{u"taskId"_s, task->id()}});
        result.insert(u"_meta"_s, meta);
        if (!stream->send(mcpResultMessage(id, result)))
            return;
    } else {
        // A plain Error in the store: the Protocol answers InternalError with its message.
        if (!stream->send(
                mcpErrorMessage(id, kMcpInternalError, u"Task %1 has no result stored"_s.arg(task->id()))))
            return;
    }
    stream->finish();
}

} // namespace RunwatchSim
