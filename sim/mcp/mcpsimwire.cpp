// SPDX-License-Identifier: GPL-3.0-or-later
#include "mcpsimwire.h"

#include "server/httpmessage.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

QJsonObject property(const QString &type, const QString &title, const QString &description)
{
    return QJsonObject{{u"type"_s, type}, {u"title"_s, title}, {u"description"_s, description}};
}

// Why `value` does not fit the property `schema` of `key`, or empty.
QString checkValue(const QString &key, const QJsonValue &value, const QJsonObject &schema)
{
    const QString type = schema.value("type"_L1).toString();
    const auto expected = [&](const QString &what) { return u"%1: expected %2"_s.arg(key, what); };
    if (type == "string"_L1) {
        if (!value.isString())
            return expected(u"string"_s);
        const QJsonArray allowed = schema.value("enum"_L1).toArray();
        if (!allowed.isEmpty() && !allowed.contains(value)) {
            return expected(u"one of "_s
                            + QString::fromUtf8(QJsonDocument(allowed).toJson(QJsonDocument::Compact)));
        }
    } else if (type == "boolean"_L1) {
        if (!value.isBool())
            return expected(u"boolean"_s);
    } else if (type == "number"_L1 || type == "integer"_L1) {
        if (!value.isDouble())
            return expected(type);
        const double number = value.toDouble();
        if (type == "integer"_L1 && number != double(qint64(number)))
            return expected(u"integer"_s);
        if (schema.contains("minimum"_L1) && number < schema.value("minimum"_L1).toDouble())
            return u"%1: must be >= %2"_s.arg(key).arg(schema.value("minimum"_L1).toDouble());
        if (schema.contains("maximum"_L1) && number > schema.value("maximum"_L1).toDouble())
            return u"%1: must be <= %2"_s.arg(key).arg(schema.value("maximum"_L1).toDouble());
    }
    return QString();
}

} // namespace

const QStringList &mcpSupportedVersions()
{
    static const QStringList versions{u"2025-11-25"_s, u"2025-06-18"_s, u"2025-03-26"_s, u"2024-11-05"_s,
                                      u"2024-10-07"_s};
    return versions;
}

qint64 mcpNowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QString mcpTime(qint64 epochMs)
{
    return QDateTime::fromMSecsSinceEpoch(epochMs, Qt::UTC).toString(Qt::ISODateWithMs);
}

QString newMcpTaskId()
{
    return QString::fromLatin1(randomHex(16));
}

QString newMcpSessionId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

QJsonObject mcpResultMessage(const QJsonValue &id, const QJsonObject &result)
{
    return QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"result"_s, result}};
}

QJsonObject mcpErrorMessage(const QJsonValue &id, int code, const QString &message)
{
    return QJsonObject{{u"jsonrpc"_s, u"2.0"_s},
                       {u"id"_s, id.isUndefined() ? QJsonValue(QJsonValue::Null) : id},
                       {u"error"_s, QJsonObject{{u"code"_s, code}, {u"message"_s, message}}}};
}

QJsonObject mcpNotificationMessage(const QString &method, const QJsonObject &params)
{
    return QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"method"_s, method}, {u"params"_s, params}};
}

QJsonObject mcpRequestMessage(qint64 id, const QString &method, const QJsonObject &params)
{
    return QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"method"_s, method}, {u"params"_s, params}};
}

QString mcpErrorText(int code, const QString &message)
{
    return u"MCP error %1: %2"_s.arg(code).arg(message);
}

QJsonObject mcpTextResult(const QString &text, bool isError)
{
    QJsonObject result{{u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}}}}};
    if (isError)
        result.insert(u"isError"_s, true);
    return result;
}

QString mcpResultText(const QJsonObject &callToolResult)
{
    QString text;
    for (const QJsonValue &item : callToolResult.value("content"_L1).toArray()) {
        if (item[u"type"_s].toString() == "text"_L1)
            text += item[u"text"_s].toString();
    }
    return text;
}

QJsonObject mcpRelatedTaskMeta(const QString &taskId)
{
    return QJsonObject{{QString(kMcpRelatedTaskKey), QJsonObject{{u"taskId"_s, taskId}}}};
}

QString mcpInvalidTaskCreationText()
{
    return mcpErrorText(kMcpInvalidParams, uR"(Invalid task creation result: [
  {
    "expected": "object",
    "code": "invalid_type",
    "path": [
      "task"
    ],
    "message": "Invalid input: expected object, received undefined"
  }
])"_s);
}

QJsonObject mcpServerInfo()
{
    return QJsonObject{{u"name"_s, u"runwatch-sim"_s}, {u"version"_s, u"1.0.0"_s}};
}

QJsonObject mcpServerCapabilities2025()
{
    return QJsonObject{
        {u"tools"_s, QJsonObject{{u"listChanged"_s, true}}},
        {u"tasks"_s,
         QJsonObject{{u"list"_s, QJsonObject()},
                     {u"cancel"_s, QJsonObject()},
                     {u"requests"_s, QJsonObject{{u"tools"_s, QJsonObject{{u"call"_s, QJsonObject()}}}}}}}};
}

QJsonObject mcpServerCapabilities2026()
{
    return QJsonObject{{u"tools"_s, QJsonObject{{u"listChanged"_s, true}}},
                       {u"extensions"_s, QJsonObject{{QString(kMcpTasksExtension), QJsonObject()}}}};
}

QJsonObject mcpApprovalSchema()
{
    QJsonObject priority = property(u"string"_s, u"Priority"_s, u"How urgent the work is"_s);
    priority.insert(u"enum"_s, QJsonArray{u"low"_s, u"normal"_s, u"high"_s});
    QJsonObject budget = property(u"number"_s, u"Budget"_s, u"At most this many euros"_s);
    budget.insert(u"minimum"_s, 0);
    budget.insert(u"maximum"_s, 1000);
    return QJsonObject{
        {u"type"_s, u"object"_s},
        {u"properties"_s,
         QJsonObject{{u"approve"_s, property(u"boolean"_s, u"Go ahead"_s, u"Start the work as planned"_s)},
                     {u"reason"_s, property(u"string"_s, u"Reason"_s, u"Why (optional)"_s)},
                     {u"priority"_s, priority},
                     {u"budget"_s, budget}}},
        {u"required"_s, QJsonArray{u"approve"_s}}};
}

QJsonObject mcpQuestionSchema()
{
    return QJsonObject{
        {u"type"_s, u"object"_s},
        {u"properties"_s, QJsonObject{{u"answer"_s, property(u"string"_s, u"Answer"_s, u"Your answer"_s)}}},
        {u"required"_s, QJsonArray{u"answer"_s}}};
}

QString mcpCheckAgainstSchema(const QJsonObject &schema, const QJsonObject &value)
{
    for (const QJsonValue &required : schema.value("required"_L1).toArray()) {
        if (!value.contains(required.toString()))
            return u"%1: Required"_s.arg(required.toString());
    }
    const QJsonObject properties = schema.value("properties"_L1).toObject();
    for (auto it = properties.begin(); it != properties.end(); ++it) {
        if (value.contains(it.key())) {
            QString why = checkValue(it.key(), value.value(it.key()), it.value().toObject());
            if (!why.isEmpty())
                return why;
        }
    }
    return QString();
}

} // namespace RunwatchSim
