// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2areply.h"

#include "a2amapper.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <array>

using namespace Qt::StringLiterals;

namespace Runwatch::A2a {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "A2aConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(A2aConnector)
};
} // namespace

namespace {

struct ErrorEntry
{
    int code;
    QLatin1StringView name;
    QLatin1StringView reason;
};

constexpr std::array kErrors{
    ErrorEntry{-32700, "JSONParseError"_L1, "PARSE_ERROR"_L1},
    ErrorEntry{-32600, "InvalidRequest"_L1, "INVALID_REQUEST"_L1},
    ErrorEntry{-32601, "MethodNotFound"_L1, "METHOD_NOT_FOUND"_L1},
    ErrorEntry{-32602, "InvalidParams"_L1, "INVALID_PARAMS"_L1},
    ErrorEntry{-32603, "InternalError"_L1, "INTERNAL"_L1},
    ErrorEntry{-32001, "TaskNotFound"_L1, "TASK_NOT_FOUND"_L1},
    ErrorEntry{-32002, "TaskNotCancelable"_L1, "TASK_NOT_CANCELABLE"_L1},
    ErrorEntry{-32003, "PushNotificationNotSupported"_L1, "PUSH_NOTIFICATION_NOT_SUPPORTED"_L1},
    ErrorEntry{-32004, "UnsupportedOperation"_L1, "UNSUPPORTED_OPERATION"_L1},
    ErrorEntry{-32005, "ContentTypeNotSupported"_L1, "CONTENT_TYPE_NOT_SUPPORTED"_L1},
    ErrorEntry{-32006, "InvalidAgentResponse"_L1, "INVALID_AGENT_RESPONSE"_L1},
    ErrorEntry{-32007, "ExtendedAgentCardNotConfigured"_L1, "EXTENDED_AGENT_CARD_NOT_CONFIGURED"_L1},
    ErrorEntry{-32008, "ExtensionSupportRequired"_L1, "EXTENSION_SUPPORT_REQUIRED"_L1},
    ErrorEntry{-32009, "VersionNotSupported"_L1, "VERSION_NOT_SUPPORTED"_L1},
};

std::optional<QJsonObject> parseObject(QByteArrayView json, QString *why)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(json.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError) {
        *why = Text::tr("not JSON (%1 at offset %2)").arg(error.errorString()).arg(error.offset);
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *why = Text::tr("not a JSON object");
        return std::nullopt;
    }
    return doc.object();
}

// The `data` member of a 1.0 JSON-RPC error: an array of ProtoJSON Any objects, one of which
// may be a google.rpc.ErrorInfo.
QString reasonFrom(const QJsonValue &details)
{
    const QJsonArray list = details.isArray() ? details.toArray() : QJsonArray{details};
    for (const QJsonValue &v : list) {
        QString reason = v.toObject().value(u"reason"_s).toString();
        if (!reason.isEmpty())
            return reason;
    }
    return {};
}

int codeForHttpStatus(int status)
{
    switch (status) {
    case 404:
        return -32001;
    case 415:
        return -32005;
    case 400:
        return -32602;
    default:
        return status >= 500 ? -32603 : 0;
    }
}

} // namespace

QString errorName(int code)
{
    for (const ErrorEntry &e : kErrors) {
        if (e.code == code)
            return e.name;
    }
    return {};
}

int codeForReason(QStringView reason)
{
    for (const ErrorEntry &e : kErrors) {
        if (reason == e.reason)
            return e.code;
    }
    if (reason == u"INVALID_ARGUMENT")
        return -32602;
    return 0;
}

RunError toRunError(const ProtocolError &error)
{
    RunError e;
    e.httpStatus = error.httpStatus;
    e.code = QString::number(error.code);
    switch (error.code) {
    case -32001:
        e.kind = ErrorKind::NotFound;
        break;
    case -32603:
    case -32006:
        e.kind = ErrorKind::Server;
        e.retryable = true;
        break;
    case -32700:
    case -32600:
    case -32601:
    case -32602:
    case -32002:
    case -32003:
    case -32004:
    case -32005:
    case -32007:
    case -32008:
    case -32009:
        e.kind = ErrorKind::Client;
        break;
    default:
        // Server-defined codes: the agent's problem, but nothing says a retry would help.
        e.kind = ErrorKind::Server;
        break;
    }
    if (error.httpStatus == 401 || error.httpStatus == 403)
        e.kind = ErrorKind::Auth;
    QString message = error.message.isEmpty() ? Text::tr("The agent reported an error.") : error.message;
    const QString name = errorName(error.code);
    if (!name.isEmpty() && !message.contains(name))
        message = name + u": "_s + message;
    e.message = message.left(2000);
    return e;
}

std::optional<ProtocolError> parseErrorBody(QByteArrayView json, int httpStatus)
{
    QString why;
    const std::optional<QJsonObject> root = parseObject(json, &why);
    if (!root)
        return std::nullopt;
    ProtocolError p;
    p.httpStatus = httpStatus;
    const QJsonValue error = root->value(u"error"_s);
    if (error.isObject()) {
        const QJsonObject o = error.toObject();
        p.message = o.value(u"message"_s).toString();
        if (root->contains(u"jsonrpc"_s) || root->contains(u"id"_s)) {
            // JSON-RPC: the code is the A2A code.
            p.code = o.value(u"code"_s).toInt();
            p.reason = reasonFrom(o.value(u"data"_s));
        } else {
            // HTTP+JSON: google.rpc.Status {code: http status, status, message, details[]}.
            p.reason = reasonFrom(o.value(u"details"_s));
            const int rpcCode = o.value(u"code"_s).toInt();
            p.code = codeForReason(p.reason);
            if (p.code == 0 && rpcCode < 0)
                p.code = rpcCode;
            if (p.code == 0)
                p.code = codeForHttpStatus(httpStatus);
        }
        return p;
    }
    if (error.isString()) {
        p.message = error.toString();
        p.code = codeForHttpStatus(httpStatus);
        return p;
    }
    // RFC 9457 problem details.
    if (root->contains(u"title"_s) || root->contains(u"detail"_s)) {
        p.message = root->value(u"detail"_s).toString();
        if (p.message.isEmpty())
            p.message = root->value(u"title"_s).toString();
        p.code = codeForHttpStatus(httpStatus);
        return p;
    }
    return std::nullopt;
}

Reply decodeJsonRpc(QByteArrayView json)
{
    Reply r;
    QString why;
    const std::optional<QJsonObject> root = parseObject(json, &why);
    if (!root) {
        r.malformed = Text::tr("The agent's JSON-RPC reply is ") + why + u'.';
        return r;
    }
    const QJsonValue error = root->value(u"error"_s);
    if (error.isObject()) {
        const QJsonObject o = error.toObject();
        ProtocolError p;
        p.code = o.value(u"code"_s).toInt();
        p.message = o.value(u"message"_s).toString();
        p.reason = reasonFrom(o.value(u"data"_s));
        r.error = p;
        return r;
    }
    if (!root->contains(u"result"_s)) {
        r.malformed = Text::tr("The agent's JSON-RPC reply has neither result nor error.");
        return r;
    }
    r.result = root->value(u"result"_s);
    return r;
}

Reply decodeReply(Binding binding, QByteArrayView json, int httpStatus)
{
    return binding == Binding::JsonRpc ? decodeJsonRpc(json) : decodeRest(json, httpStatus);
}

Reply decodeRest(QByteArrayView json, int httpStatus)
{
    Reply r;
    QString why;
    const std::optional<QJsonObject> root = parseObject(json, &why);
    if (!root) {
        r.malformed = Text::tr("The agent's reply is ") + why + u'.';
        return r;
    }
    if (root->contains(u"error"_s)) {
        if (auto e = parseErrorBody(json, httpStatus)) {
            r.error = *e;
            return r;
        }
    }
    r.result = *root;
    return r;
}

// The readers of event objects that the scanner (a2ascan.cpp) stands in for.

ArtifactChunk artifactChunkOf(const QJsonObject &event)
{
    const QJsonObject a = event.value(u"artifact"_s).toObject();
    ArtifactChunk chunk;
    chunk.taskId = event.value(u"taskId"_s).toString();
    chunk.contextId = event.value(u"contextId"_s).toString();
    chunk.artifactId = a.value(u"artifactId"_s).toString();
    chunk.name = a.value(u"name"_s).toString();
    chunk.text = partsText(a.value(u"parts"_s).toArray());
    chunk.append = event.value(u"append"_s).toBool(false);
    chunk.lastChunk = event.value(u"lastChunk"_s).toBool(false);
    return chunk;
}

TaskStatus taskStatusOf(const QJsonObject &status)
{
    TaskStatus s;
    s.state = status.value(u"state"_s).toString();
    if (status.value(u"message"_s).isObject())
        s.message = parseMessage(status.value(u"message"_s).toObject());
    return s;
}

StatusUpdate statusUpdateOf(const QJsonObject &event)
{
    StatusUpdate update;
    update.taskId = event.value(u"taskId"_s).toString();
    update.contextId = event.value(u"contextId"_s).toString();
    if (event.value(u"status"_s).isObject())
        update.status = taskStatusOf(event.value(u"status"_s).toObject());
    return update;
}

} // namespace Runwatch::A2a
