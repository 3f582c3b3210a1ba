// SPDX-License-Identifier: GPL-3.0-or-later
// The MCP simulator's 2026-07-28 side: the stateless core (server/discover, no initialize, no
// session, plain JSON with resultType, the Mcp-Method / Mcp-Name headers) and tasks as the
// io.modelcontextprotocol/tasks extension (mcp-tasks.md §9; the shapes of ext-tasks 0.2.2's V2
// schemas). No official server implements the extension: what §9 leaves open is marked [guessed].
#include "mcpsim.h"

#include "mcpsimwire.h"
#include "server/httpconnection.h"

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

QJsonObject metaOf(const QJsonObject &message)
{
    return message.value("params"_L1)[u"_meta"_s].toObject();
}

// _meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"]
// is `{}` (ext-tasks checks the value as a strict empty object).
bool declaresTasks(const QJsonObject &message)
{
    const QJsonValue extension = metaOf(message).value(
        QString(kMcpClientCapabilitiesKey))[u"extensions"_s][QString(kMcpTasksExtension)];
    return extension.isObject() && extension.toObject().isEmpty();
}

QJsonObject complete(QJsonObject result)
{
    result.insert(u"resultType"_s, u"complete"_s);
    return result;
}

} // namespace

bool McpSimulator::isRevision2026(const HttpRequest &request, const QJsonObject &message)
{
    return request.header("mcp-protocol-version") == QByteArrayView(kMcpVersion2026)
           || message.value("method"_L1).toString() == "server/discover"_L1
           || metaOf(message).value(QString(kMcpProtocolVersionKey)).toString() == kMcpVersion2026;
}

void McpSimulator::handlePost2026(const Exchange &exchange, const HttpRequest &request,
                                  const QJsonObject &message)
{
    const QString method = message.value("method"_L1).toString();
    const QJsonObject params = message.value("params"_L1).toObject();
    if (!message.contains("id"_L1)) {
        // Notifications (and stray responses): nothing to do without sessions [guessed].
        if (exchange.connection) {
            exchange.connection->sendResponse(202, {}, QByteArray());
            recordStatus(exchange, 202);
        }
        return;
    }
    // Every request names its method, and tools/call and tasks/* their target, in headers [guessed
    // wording; the 2.4.0 server's HTTP entry validates the Mcp-Name table].
    if (request.header("mcp-method") != method.toUtf8()) {
        sendHttpError(exchange, 400, kMcpInvalidRequest,
                      u"Bad Request: Mcp-Method header must be \"%1\""_s.arg(method));
        return;
    }
    const QString target = method == "tools/call"_L1 ? params.value("name"_L1).toString()
                                                     : params.value("taskId"_L1).toString();
    const bool named = method == "tools/call"_L1 || method == "tasks/get"_L1 || method == "tasks/update"_L1
                       || method == "tasks/cancel"_L1;
    if (named && request.header("mcp-name") != target.toUtf8()) {
        sendHttpError(exchange, 400, kMcpInvalidRequest,
                      u"Bad Request: Mcp-Name header must be \"%1\""_s.arg(target));
        return;
    }

    QJsonObject result;
    int errorCode = 0;
    QString errorMessage;
    const bool taskMethod
        = method == "tasks/get"_L1 || method == "tasks/update"_L1 || method == "tasks/cancel"_L1;
    McpSimTask *task = taskMethod ? m_store.anyTask(target) : nullptr;
    if (task && !task->params().revision2026)
        task = nullptr; // [guessed] a 2025 task is not the extension's
    if (taskMethod && !declaresTasks(message)) {
        errorCode = kMcpExtensionRequired;
        errorMessage = u"The io.modelcontextprotocol/tasks extension was not declared"_s; // [guessed]
    } else if (taskMethod && (!task || task->expired(mcpNowMs()))) {
        errorCode = kMcpInvalidParams;
        errorMessage = u"Task not found: "_s + target; // [guessed]
    } else if (method == "server/discover"_L1) {
        result = QJsonObject{{u"supportedVersions"_s, QJsonArray{QString(kMcpVersion2026)}},
                             {u"capabilities"_s, mcpServerCapabilities2026()},
                             {u"resultType"_s, u"complete"_s},
                             {u"ttlMs"_s, 0},
                             {u"cacheScope"_s, u"private"_s},
                             {u"_meta"_s, QJsonObject{{QString(kMcpServerInfoKey), mcpServerInfo()}}}};
    } else if (method == "ping"_L1) {
        result = complete({});
    } else if (method == "tools/list"_L1) {
        result = complete({{u"tools"_s, mcpToolsJson()}});
    } else if (method == "tools/call"_L1) {
        result = toolsCall2026(exchange, message, &errorCode, &errorMessage);
        if (result.isEmpty() && errorCode == 0)
            return; // answered when the task ends
    } else if (method == "tasks/get"_L1) {
        result = complete(task->json2026(true));
    } else if (method == "tasks/update"_L1) {
        // An acknowledgement; the effect is eventual. Keys nobody waits for are ignored [guessed].
        const QJsonObject responses = params.value("inputResponses"_L1).toObject();
        for (auto it = responses.begin(); it != responses.end(); ++it)
            task->answerKey(it.key(), it.value().toObject());
        result = complete({});
    } else if (method == "tasks/cancel"_L1) {
        task->cancel(); // cooperative and eventual in general; here at once, terminal tasks stay
        result = complete({});
    } else {
        // tasks/result, tasks/list and initialize are not in the 2026 core.
        errorCode = kMcpMethodNotFound;
        errorMessage = u"Method not found"_s;
    }
    // Plain JSON, errors included, with HTTP 200 [guessed for errors].
    sendJson(exchange, 200,
             errorCode != 0 ? mcpErrorMessage(exchange.id, errorCode, errorMessage)
                            : mcpResultMessage(exchange.id, result));
}

QJsonObject McpSimulator::toolsCall2026(const Exchange &exchange, const QJsonObject &message, int *errorCode,
                                        QString *errorMessage)
{
    const QJsonObject params = message.value("params"_L1).toObject();
    const QString name = params.value("name"_L1).toString();
    const QJsonObject arguments = params.value("arguments"_L1).toObject();
    const std::optional<McpTool> tool = mcpToolFromName(name);
    McpCallOptions options;
    if (!tool) {
        *errorCode = kMcpInvalidParams;
        *errorMessage = u"Tool %1 not found"_s.arg(name); // [guessed]
        return {};
    }
    if (const QString why = mcpCheckArguments(*tool, arguments); !why.isEmpty()) {
        *errorCode = kMcpInvalidParams;
        *errorMessage = u"Input validation error: Invalid arguments for tool %1: %2"_s.arg(name, why);
        return {};
    }
    if (const auto error = resolveCallOptions(m_config, *tool, arguments, &options)) {
        *errorCode = kMcpInvalidParams;
        *errorMessage = error->message;
        return {};
    }
    const McpTaskSupport support = mcpTaskSupport(*tool);
    if (support == McpTaskSupport::Forbidden)
        return complete(mcpTextResult(arguments.value("text"_L1).toString()));
    const bool declared = declaresTasks(message);
    if (support == McpTaskSupport::Required && !declared) {
        *errorCode = kMcpExtensionRequired;
        *errorMessage
            = u"Tool %1 requires the io.modelcontextprotocol/tasks extension"_s.arg(name); // [guessed]
        return {};
    }
    McpTaskParams taskParams;
    taskParams.tool = *tool;
    taskParams.arguments = arguments;
    taskParams.revision2026 = true;
    taskParams.ttlMs = m_config.ttl2026Ms;
    // The client's capabilities ride in _meta on every request [guessed: elicitation as in 2025].
    const QJsonObject capabilities = metaOf(message).value(QString(kMcpClientCapabilitiesKey)).toObject();
    const QJsonObject elicitation = capabilities.value("elicitation"_L1).toObject();
    taskParams.formElicitation = capabilities.contains("elicitation"_L1)
                                 && (elicitation.isEmpty() || elicitation.contains("form"_L1));
    taskParams.urlElicitation = elicitation.contains("url"_L1);
    McpSimTask *task = createTask(taskParams, options);
    if (declared) {
        QJsonObject handle = task->json2026(false);
        handle.insert(u"resultType"_s, u"task"_s);
        return handle;
    }
    // An optional tool for a client without the extension: the server decides, and answers with
    // the result once it is there [guessed].
    const QJsonValue id = exchange.id;
    const Exchange pending = exchange;
    connect(task, &McpSimTask::ended, this, [this, pending, task, id] {
        sendJson(pending, 200,
                 mcpResultMessage(id, complete(task->result() ? *task->result()
                                                              : mcpTextResult(task->statusMessage(), true))));
    });
    return {};
}

} // namespace RunwatchSim
