// SPDX-License-Identifier: GPL-3.0-or-later
// The A2A simulator's server side: configuration, the request log, routes, the agent card and
// JSON-RPC framing. The methods are in a2asimendpoints.cpp.
#include "a2asim.h"

#include "a2asimrun.h"
#include "a2asimwire.h"
#include "server/httpconnection.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

A2aSimulator::A2aSimulator(QObject *parent)
    : A2aSimulator(A2aSimConfig(), parent)
{}

A2aSimulator::A2aSimulator(const A2aSimConfig &config, QObject *parent)
    : SimServer(parent)
{
    ServerLimits limits;
    limits.maxConnections = -1; // agents have never capped their connections
    setLimits(limits);
    setConfig(config);
}

A2aSimulator::~A2aSimulator() = default;

void A2aSimulator::setConfig(const A2aSimConfig &config)
{
    m_config = config;
    m_faults.reset(config.rpcFaults);
}

void A2aSimulator::addRpcFault(const A2aRpcFault &fault)
{
    m_config.rpcFaults.append(fault);
    m_faults.append(fault);
}

int A2aSimulator::requestCount(const QString &rpcMethod) const
{
    const QList<A2aRequestRecord> &records = m_log.records();
    return int(std::count_if(records.cbegin(), records.cend(),
                             [&](const A2aRequestRecord &r) { return r.rpcMethod == rpcMethod; }));
}

std::optional<A2aTaskInfo> A2aSimulator::task(const QString &id) const
{
    const A2aSimRun *t = m_tasks.value(id);
    if (!t)
        return std::nullopt;
    A2aTaskInfo info;
    info.id = t->id();
    info.contextId = t->contextId();
    info.state = t->state();
    info.text = t->text();
    info.streamConnections = t->streamConnections();
    info.eventsGenerated = t->eventsGenerated();
    info.ended = t->isTerminal();
    return info;
}

QStringList A2aSimulator::taskIds() const
{
    return m_taskOrder;
}

QString A2aSimulator::chunkText(int chunks)
{
    QString text;
    for (int i = 0; i < chunks; ++i)
        text += u"tok%1 "_s.arg(i);
    return text;
}

QString A2aSimulator::helpText()
{
    return a2aOptionsHelpText();
}

bool A2aSimulator::authorised(const HttpRequest &request) const
{
    if (m_config.apiKey.isEmpty())
        return true;
    const QByteArray key = m_config.apiKey.toUtf8();
    if (m_config.authScheme == A2aSimConfig::AuthScheme::ApiKeyHeader)
        return request.header(m_config.apiKeyHeader.toLower().toUtf8()) == key;
    return request.hasBearerToken(key);
}

void A2aSimulator::route(HttpConnection *connection, const HttpRequest &request)
{
    A2aRequestRecord record;
    record.setRequest(request);
    const qint64 serial = m_log.append(record);

    if (request.method == "GET" && request.path == u"/.well-known/agent-card.json"_s) {
        handleCard(connection, false);
        return;
    }
    if (request.method == "GET" && request.path == u"/.well-known/agent.json"_s) {
        handleCard(connection, true);
        return;
    }
    if (request.path == u"/a2a"_s || request.path == u"/a2a/"_s) {
        if (request.method != "POST") {
            sendBody(connection, 405, "text/plain", "Method Not Allowed\n");
            return;
        }
        if (!authorised(request)) {
            sendBody(connection, 401, "application/json",
                     R"({"error":"unauthorized: missing or wrong credentials"})");
            return;
        }
        handleRpc(Exchange{connection, QJsonValue(), serial}, request);
        return;
    }
    sendBody(connection, 404, "text/html; charset=utf-8",
             "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>Cannot " + request.method
                 + ' ' + request.path.toUtf8() + "</body></html>\n");
}

QJsonObject A2aSimulator::card() const
{
    const QString rpcUrl = baseUrl().toString() + u"/a2a"_s;
    const QJsonArray skills{
        QJsonObject{{u"id"_s, u"chunks"_s},
                    {u"name"_s, u"Chunked answers"_s},
                    {u"description"_s, u"Streams its answer as artifact chunks."_s},
                    {u"tags"_s, QJsonArray{u"test"_s}},
                    {u"examples"_s, QJsonArray{u"normal chunks=20"_s}}},
        QJsonObject{{u"id"_s, u"weather"_s},
                    {u"name"_s, u"Weather"_s},
                    {u"description"_s, u"Asks which city, then answers."_s},
                    {u"tags"_s, QJsonArray{u"test"_s, u"input-required"_s}}},
    };
    QJsonObject c{{u"name"_s, m_config.agentName},
                  {u"description"_s, u"A2A test double of Runwatch (runwatch-sim --a2a)."_s},
                  {u"version"_s, u"1.0.0"_s},
                  {u"provider"_s,
                   QJsonObject{{u"organization"_s, u"Runwatch"_s}, {u"url"_s, u"https://example.invalid"_s}}},
                  {u"capabilities"_s,
                   QJsonObject{{u"streaming"_s, m_config.streaming}, {u"pushNotifications"_s, false}}},
                  {u"defaultInputModes"_s, QJsonArray{u"text/plain"_s}},
                  {u"defaultOutputModes"_s, QJsonArray{u"text/plain"_s}},
                  {u"skills"_s, skills}};
    const bool key = !m_config.apiKey.isEmpty();
    const bool bearer = m_config.authScheme == A2aSimConfig::AuthScheme::Bearer;
    if (v03()) {
        c.insert(u"protocolVersion"_s, u"0.3.0"_s);
        c.insert(u"url"_s, rpcUrl);
        c.insert(u"preferredTransport"_s, u"JSONRPC"_s);
        if (key) {
            c.insert(u"securitySchemes"_s,
                     QJsonObject{
                         {u"auth"_s, bearer ? QJsonObject{{u"type"_s, u"http"_s}, {u"scheme"_s, u"bearer"_s}}
                                            : QJsonObject{{u"type"_s, u"apiKey"_s},
                                                          {u"in"_s, u"header"_s},
                                                          {u"name"_s, m_config.apiKeyHeader}}}});
            c.insert(u"security"_s, QJsonArray{QJsonObject{{u"auth"_s, QJsonArray{}}}});
        }
    } else {
        c.insert(u"supportedInterfaces"_s, QJsonArray{QJsonObject{{u"url"_s, rpcUrl},
                                                                  {u"protocolBinding"_s, u"JSONRPC"_s},
                                                                  {u"tenant"_s, u""_s},
                                                                  {u"protocolVersion"_s, u"1.0"_s}}});
        if (key) {
            c.insert(u"securitySchemes"_s,
                     QJsonObject{{u"auth"_s,
                                  bearer ? QJsonObject{{u"httpAuthSecurityScheme"_s,
                                                        QJsonObject{{u"scheme"_s, u"Bearer"_s}}}}
                                         : QJsonObject{{u"apiKeySecurityScheme"_s,
                                                        QJsonObject{{u"location"_s, u"header"_s},
                                                                    {u"name"_s, m_config.apiKeyHeader}}}}}});
            c.insert(u"securityRequirements"_s,
                     QJsonArray{QJsonObject{
                         {u"schemes"_s, QJsonObject{{u"auth"_s, QJsonObject{{u"list"_s, QJsonArray{}}}}}}}});
        }
    }
    return c;
}

void A2aSimulator::handleCard(HttpConnection *connection, bool legacyPath)
{
    using Mode = A2aSimConfig::CardMode;
    const Mode mode = m_config.cardMode;
    // 1.0 agents serve only agent-card.json; a 0.3 one also the old name; a "legacy path" agent
    // only the old name.
    const bool served = mode == Mode::LegacyPath ? legacyPath : (!legacyPath || v03());
    if (mode == Mode::Missing || !served) {
        sendBody(
            connection, 404, "text/html; charset=utf-8",
            "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>Not Found</body></html>\n");
        return;
    }
    switch (mode) {
    case Mode::Malformed:
        sendBody(connection, 200, "application/json",
                 R"({"name":"Broken agent","supportedInterfaces":[{"url":)");
        return;
    case Mode::NoName:
        sendBody(connection, 200, "application/json", R"({"status":"ok","service":"not an agent"})");
        return;
    case Mode::Html:
        sendBody(
            connection, 200, "text/html; charset=utf-8",
            "<!DOCTYPE html><html><head><title>Sign in</title></head><body>Please sign in.</body></html>\n");
        return;
    case Mode::Normal:
    case Mode::LegacyPath:
    case Mode::Missing:
        break;
    }
    sendJson(connection, 200, card(), {{"Vary", "A2A-Version"}});
}

QJsonValue A2aSimulator::shaped(const QJsonObject &response) const
{
    return v03() ? QJsonValue(responseV03(response)) : QJsonValue(response);
}

void A2aSimulator::recordStatus(const Exchange &exchange, int status)
{
    if (A2aRequestRecord *record = m_log.find(exchange.serial))
        record->status = status;
}

void A2aSimulator::sendResult(const Exchange &exchange, const QJsonValue &result)
{
    if (!exchange.connection)
        return;
    sendJson(exchange.connection, 200, rpcResultEnvelope(exchange.rpcId, result));
    recordStatus(exchange, 200);
}

void A2aSimulator::sendRpcError(const Exchange &exchange, int code, const QString &message, int httpStatus)
{
    if (!exchange.connection)
        return;
    // 1.0 names the reason of the errors it defines (google.rpc.ErrorInfo); 0.3 has no `data`.
    static const QHash<int, QString> reasons{
        {-32001, u"TASK_NOT_FOUND"_s},        {-32002, u"TASK_NOT_CANCELABLE"_s},
        {-32004, u"UNSUPPORTED_OPERATION"_s}, {-32005, u"CONTENT_TYPE_NOT_SUPPORTED"_s},
        {-32009, u"VERSION_NOT_SUPPORTED"_s}, {-32602, u"INVALID_PARAMS"_s},
    };
    const QString reason = v03() ? QString() : reasons.value(code);
    sendJson(exchange.connection, httpStatus, rpcErrorEnvelope(exchange.rpcId, code, message, reason));
    recordStatus(exchange, httpStatus);
}

void A2aSimulator::handleRpc(Exchange exchange, const HttpRequest &request)
{
    const QByteArray contentType = request.header("content-type").toLower();
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        sendRpcError(exchange, -32700, u"Parse error"_s);
        return;
    }
    const QJsonObject rpc = doc.object();
    exchange.rpcId = rpc.value(u"id"_s);
    const QString method = rpc.value(u"method"_s).toString();
    if (A2aRequestRecord *record = m_log.find(exchange.serial)) {
        record->rpcMethod = method;
        const A2aRequestRecord received = *record; // a slot may log more
        Q_EMIT requestReceived(received);
    }
    if (!doc.isObject() || rpc.value(u"jsonrpc"_s).toString() != u"2.0"_s || method.isEmpty()) {
        sendRpcError(exchange, -32600, u"Invalid JSON-RPC Request."_s);
        return;
    }
    if (!contentType.startsWith("application/json")) {
        sendRpcError(exchange, -32005,
                     u"Content type not supported: %1"_s.arg(QString::fromLatin1(contentType)));
        return;
    }
    if (!v03()) {
        // A 1.0 agent without a 0.3 interface refuses requests that do not say 1.0 (§0.2).
        const QByteArray version = request.header("a2a-version");
        if (version != "1.0") {
            sendRpcError(exchange, -32009,
                         u"A2A-Version %1 is not supported by this agent (supported: 1.0)."_s.arg(
                             version.isEmpty() ? u"0.3 (no header)"_s : QString::fromLatin1(version)));
            return;
        }
    }
    if (const A2aRpcFault *fault = m_faults.take(
            [&method](const A2aRpcFault &f) { return f.method.isEmpty() || f.method == method; })) {
        sendRpcError(exchange, fault->code, fault->message, fault->httpStatus);
        return;
    }
    const QJsonValue paramsValue = rpc.value(u"params"_s);
    if (!paramsValue.isObject()) {
        sendRpcError(exchange, -32602, u"params must be an object."_s);
        return;
    }
    const QJsonObject params = paramsValue.toObject();
    const bool v1 = !v03();
    if (method == (v1 ? u"SendMessage"_s : u"message/send"_s)) {
        handleSend(exchange, params, false);
    } else if (method == (v1 ? u"SendStreamingMessage"_s : u"message/stream"_s)) {
        handleSend(exchange, params, true);
    } else if (method == (v1 ? u"GetTask"_s : u"tasks/get"_s)) {
        handleGet(exchange, params);
    } else if (v1 && method == u"ListTasks"_s) {
        handleList(exchange, params);
    } else if (method == (v1 ? u"CancelTask"_s : u"tasks/cancel"_s)) {
        handleCancel(exchange, params);
    } else if (method == (v1 ? u"SubscribeToTask"_s : u"tasks/resubscribe"_s)) {
        handleSubscribe(exchange, params);
    } else {
        sendRpcError(exchange, -32601, u"Method not found: %1"_s.arg(method));
    }
}

} // namespace RunwatchSim
