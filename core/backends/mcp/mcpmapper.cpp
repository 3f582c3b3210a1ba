// SPDX-License-Identifier: GPL-3.0-or-later
#include "mcpmapper.h"

#include "json/jsonschema.h"

#include <QCoreApplication>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Runwatch::Mcp {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "McpConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(McpConnector)
};

// A server's text is shown, never trusted for size: a status line stays a line.
constexpr qsizetype kMaxStatusChars = 4000;

QString compactJson(const QJsonValue &value)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    return jsonValueText(value);
}

bool isId(const QJsonValue &id)
{
    return id.isString() || id.isDouble();
}

} // namespace

Message parseMessage(const QJsonObject &object)
{
    Message m;
    const QJsonValue method = object.value(u"method"_s);
    const QJsonValue id = object.value(u"id"_s);
    if (method.isString()) {
        m.method = method.toString();
        m.params = object.value(u"params"_s).toObject();
        if (isId(id)) {
            m.kind = Message::Kind::Request;
            m.id = id;
        } else if (id.isUndefined()) {
            m.kind = Message::Kind::Notification;
        }
        return m;
    }
    if (object.contains(u"error"_s)) {
        const QJsonObject error = object.value(u"error"_s).toObject();
        m.kind = Message::Kind::Error;
        m.id = id;
        // An integer, or 0: a code outside qint64 (a hostile 1e300) must not reach the conversion.
        m.errorCode = error.value(u"code"_s).toInteger();
        m.errorMessage = error.value(u"message"_s).toString().left(kMaxStatusChars);
        if (m.errorMessage.isEmpty())
            m.errorMessage = Text::tr("The server answered with error %1.").arg(m.errorCode);
        return m;
    }
    if (object.contains(u"result"_s) && isId(id)) {
        m.kind = Message::Kind::Result;
        m.id = id;
        m.result = object.value(u"result"_s);
    }
    return m;
}

QList<Message> parseMessages(QByteArrayView json)
{
    QList<Message> messages;
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json.toByteArray(), &error);
    if (doc.isObject()) {
        messages << parseMessage(doc.object());
    } else if (doc.isArray()) {
        for (const QJsonValue &item : doc.array())
            messages << parseMessage(item.toObject());
    } else {
        messages << Message{};
    }
    return messages;
}

RunError rpcError(qint64 code, const QString &message)
{
    RunError e;
    e.code = QString::number(code);
    e.message = message;
    if (message.contains(u"not found"_s, Qt::CaseInsensitive) && code == -32602) {
        e.kind = ErrorKind::NotFound;
    } else if (code == -32603 || code == -32000) {
        // -32000 is the SDK's generic server error; an internal error may pass.
        e.kind = ErrorKind::Server;
        e.retryable = code == -32603 && !message.contains(u"no result"_s, Qt::CaseInsensitive);
    } else {
        e.kind = ErrorKind::Client;
    }
    return e;
}

RunStatus runStatusFor(QStringView status)
{
    if (status == u"working")
        return RunStatus::InProgress;
    if (status == u"input_required")
        return RunStatus::InputRequired;
    if (status == u"completed")
        return RunStatus::Completed;
    if (status == u"failed")
        return RunStatus::Failed;
    if (status == u"cancelled")
        return RunStatus::Cancelled;
    return RunStatus::Unknown;
}

bool isTerminalTaskStatus(QStringView status)
{
    return status == u"completed" || status == u"failed" || status == u"cancelled";
}

QList<RunEvent> taskEvents(const QJsonObject &task, bool elicitationKnown)
{
    QList<RunEvent> events;
    const QString status = task.value(u"status"_s).toString();
    const QString message = task.value(u"statusMessage"_s).toString().left(kMaxStatusChars);
    // A failed task's statusMessage is the last "working" line (§4): the error comes from
    // tasks/result, so the item is not updated from a terminal task.
    if (!message.isEmpty() && !isTerminalTaskStatus(status)) {
        events << RunEvent::secondarySnapshot(SecondaryKind::Progress, kStatusItem, Text::tr("status"),
                                              message);
    }
    RunStatus unified = runStatusFor(status);
    if (unified == RunStatus::InputRequired && !elicitationKnown)
        unified = RunStatus::InProgress;
    if (unified == RunStatus::Unknown)
        unified = RunStatus::InProgress;
    events << RunEvent::statusChange(unified, status);
    return events;
}

QString resultText(const QJsonObject &callToolResult)
{
    QString text;
    for (const QJsonValue &item : callToolResult.value(u"content"_s).toArray()) {
        const QJsonObject content = item.toObject();
        if (content.value(u"type"_s).toString() == "text"_L1)
            text += content.value(u"text"_s).toString();
    }
    return text;
}

QList<RunEvent> resultEvents(const QJsonObject &callToolResult, QStringView status,
                             const QString &statusMessage)
{
    QList<RunEvent> events;
    const QString text = resultText(callToolResult);
    const bool isError = callToolResult.value(u"isError"_s).toBool() || status == u"failed";
    if (const QJsonValue structured = callToolResult.value(u"structuredContent"_s);
        !structured.isUndefined() && !structured.isNull()) {
        events << RunEvent::secondarySnapshot(SecondaryKind::Log, kStructuredItem,
                                              Text::tr("structured content"), compactJson(structured));
    }
    if (!isError) {
        events << RunEvent::primarySnapshot(text);
        events << RunEvent::statusChange(RunStatus::Completed, status.toString());
        return events;
    }
    RunError e;
    e.kind = ErrorKind::Run;
    e.code = u"tool_error"_s;
    e.message = !text.isEmpty()            ? text
                : !statusMessage.isEmpty() ? statusMessage
                                           : Text::tr("The tool failed without saying why.");
    events << RunEvent::failure(e);
    events << RunEvent::statusChange(RunStatus::Failed, status.isEmpty() ? u"failed"_s : status.toString());
    return events;
}

std::optional<RunEvent> progressEvent(const QJsonObject &params)
{
    const QJsonValue progress = params.value(u"progress"_s);
    if (!progress.isDouble())
        return std::nullopt;
    QString text = params.value(u"total"_s).isDouble()
                       ? u"%1/%2"_s.arg(progress.toDouble()).arg(params.value(u"total"_s).toDouble())
                       : QString::number(progress.toDouble());
    if (const QString message = params.value(u"message"_s).toString().left(kMaxStatusChars);
        !message.isEmpty())
        text += u' ' + message;
    return RunEvent::secondarySnapshot(SecondaryKind::Progress, kProgressItem, Text::tr("progress"), text);
}

QJsonObject elicitationEntry(const QJsonValue &requestId, const QJsonObject &params, const QString &sessionId)
{
    return {{u"id"_s, requestId}, {u"params"_s, params}, {u"session"_s, sessionId}};
}

InputRequest inputRequestFor(const QJsonValue &requestId, const QJsonObject &params, const QString &sessionId)
{
    InputRequest request;
    request.prompt = params.value(u"message"_s).toString().left(kMaxStatusChars * 4);
    if (params.value(u"mode"_s).toString() == "url"_L1) {
        request.reason = InputReason::Auth;
        request.callbackUrl = params.value(u"url"_s).toString();
    } else {
        request.reason = InputReason::Question;
        request.schema = params.value(u"requestedSchema"_s).toObject();
    }
    // Both modes may be turned down (elicitResult): Reject is the result `decline`, the Choice
    // "cancel" is `cancel` (the user closed the request without choosing, §elicitation).
    request.declinable = true;
    request.dismissChoice = u"cancel"_s;
    request.raw = elicitationEntry(requestId, params, sessionId);
    request.raw.insert(u"method"_s, u"elicitation/create"_s);
    return request;
}

std::optional<InputRequest> storedInputRequest(const QJsonObject &tokenExtra)
{
    const QJsonObject stored = tokenExtra.value(kElicitation).toObject();
    if (stored.isEmpty() || !isId(stored.value(u"id"_s)))
        return std::nullopt;
    return inputRequestFor(stored.value(u"id"_s), stored.value(u"params"_s).toObject(),
                           stored.value(u"session"_s).toString());
}

std::optional<QJsonObject> elicitResult(const InputRequest &request, const InputAnswer &answer,
                                        QString *problem)
{
    const auto fail = [problem](const QString &why) -> std::optional<QJsonObject> {
        if (problem)
            *problem = why;
        return std::nullopt;
    };
    const auto accept = [](const QJsonObject &content) {
        return QJsonObject{{u"action"_s, u"accept"_s}, {u"content"_s, content}};
    };
    const bool urlMode = request.reason == InputReason::Auth;
    switch (answer.kind) {
    case InputAnswer::Kind::Reject:
        return QJsonObject{{u"action"_s, u"decline"_s}};
    case InputAnswer::Kind::Choice:
        if (answer.choice == "decline"_L1 || answer.choice == "cancel"_L1)
            return QJsonObject{{u"action"_s, answer.choice}};
        if (answer.choice == "accept"_L1)
            return urlMode ? QJsonObject{{u"action"_s, u"accept"_s}} : accept({});
        return fail(
            Text::tr("An elicitation is answered accept, decline or cancel, not \"%1\".").arg(answer.choice));
    case InputAnswer::Kind::Approve:
        if (urlMode)
            return QJsonObject{{u"action"_s, u"accept"_s}};
        if (const std::optional<SchemaForm> form = SchemaForm::fromSchema(request.schema)) {
            const QJsonObject content = form->defaults();
            if (validateJson(request.schema, content).isEmpty())
                return accept(content);
        }
        return fail(Text::tr("The form has fields to fill in: answer with a value (--value JSON)."));
    case InputAnswer::Kind::Value: {
        if (urlMode) {
            return fail(
                Text::tr("The server asks you to open a URL: accept (--approve) or decline (--reject)."));
        }
        if (!answer.value.isObject())
            return fail(Text::tr("The answer to a form is a JSON object of its fields."));
        const QStringList problems = validateJson(request.schema, answer.value);
        if (!problems.isEmpty())
            return fail(problems.join(u"; "_s));
        return accept(answer.value.toObject());
    }
    case InputAnswer::Kind::Text: {
        if (urlMode) {
            return fail(
                Text::tr("The server asks you to open a URL: accept (--approve) or decline (--reject)."));
        }
        // A form of one string field takes a plain text.
        const QJsonObject properties = request.schema.value(u"properties"_s).toObject();
        QStringList strings;
        for (auto it = properties.constBegin(); it != properties.constEnd(); ++it) {
            if (it.value().toObject().value(u"type"_s).toString() == "string"_L1)
                strings << it.key();
        }
        if (strings.size() != 1 || properties.size() != 1) {
            return fail(Text::tr("The form has %n field(s): answer with a JSON object of them (--value).",
                                 nullptr, int(properties.size())));
        }
        const QJsonObject content{{strings.first(), answer.text}};
        if (const QStringList problems = validateJson(request.schema, content); !problems.isEmpty())
            return fail(problems.join(u"; "_s));
        return accept(content);
    }
    }
    return fail(Text::tr("This answer does not fit the request."));
}

QString taskSupportOf(const QJsonObject &tool)
{
    const QString support = tool.value(u"execution"_s).toObject().value(u"taskSupport"_s).toString();
    return support.isEmpty() ? u"forbidden"_s : support;
}

CatalogEntry catalogEntryFor(const QJsonObject &tool)
{
    CatalogEntry entry;
    entry.id = tool.value(u"name"_s).toString();
    entry.name = entry.id;
    entry.description = tool.value(u"description"_s).toString().left(kMaxStatusChars);
    entry.inputSchema = tool.value(u"inputSchema"_s).toObject();
    entry.cliFields.insert(u"task_support"_s, taskSupportOf(tool));
    if (const QString title = tool.value(u"title"_s).toString(); !title.isEmpty())
        entry.cliFields.insert(u"title"_s, title);
    return entry;
}

RemoteRunInfo remoteRunFor(const QJsonObject &task)
{
    RemoteRunInfo info;
    info.remoteId = task.value(u"taskId"_s).toString();
    info.rawStatus = task.value(u"status"_s).toString();
    info.status = runStatusFor(info.rawStatus);
    info.title = task.value(u"statusMessage"_s).toString().left(200);
    info.createdAt = QDateTime::fromString(task.value(u"createdAt"_s).toString(), Qt::ISODateWithMs);
    return info;
}

QJsonObject createdTask(const QJsonValue &result)
{
    return result.toObject().value(u"task"_s).toObject();
}

QJsonObject taskExtra(const QJsonObject &task)
{
    QJsonObject extra;
    if (const QJsonValue ttl = task.value(u"ttl"_s); ttl.isDouble())
        extra.insert(kTtlMs, ttl.toInteger());
    if (const QJsonValue poll = task.value(u"pollInterval"_s); poll.isDouble())
        extra.insert(kPollIntervalMs, poll.toInteger());
    if (const QString created = task.value(u"createdAt"_s).toString(); !created.isEmpty())
        extra.insert(kCreatedAt, created);
    return extra;
}

RunEvent ttlEvent(qint64 ttlMs)
{
    const QString text
        = ttlMs > 0
              ? Text::tr("The server keeps this task for %1 s after it was created (its ttl); MCP has no "
                         "delete, so deleting the run removes it here only.")
                    .arg(ttlMs / 1000)
              : Text::tr("The server keeps this task without a time limit (no ttl); MCP has no delete, so "
                         "deleting the run removes it here only.");
    RunEvent e = RunEvent::secondarySnapshot(SecondaryKind::Log, kTtlItem, Text::tr("task lifetime"), text);
    return e;
}

} // namespace Runwatch::Mcp
