// SPDX-License-Identifier: GPL-3.0-or-later
#include "geminisimwire.h"

#include "server/simserver.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QRandomGenerator>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

QString contentText(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    if (content.isObject()) {
        const QJsonObject part = content.toObject();
        return part.value("type"_L1).toString(u"text"_s) == "text"_L1 ? part.value("text"_L1).toString()
                                                                      : QString();
    }
    QStringList texts;
    for (const QJsonValue &part : content.toArray()) {
        const QString text = contentText(part);
        if (!text.isEmpty())
            texts.append(text);
    }
    return texts.join(QString());
}

// The text of one input item: a Content, a user_input step or a turn.
QString itemText(const QJsonObject &item)
{
    const QString type = item.value("type"_L1).toString();
    if (type == "text"_L1)
        return item.value("text"_L1).toString();
    if (type == "user_input"_L1 || item.contains("role"_L1))
        return contentText(item.value("content"_L1));
    return QString();
}

} // namespace

qint64 geminiNowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QString geminiTime(qint64 epochMs)
{
    return QDateTime::fromMSecsSinceEpoch(epochMs, Qt::UTC).toString(u"yyyy-MM-ddTHH:mm:ssZ"_s);
}

QString newGeminiInteractionId()
{
    QByteArray bytes(30, Qt::Uninitialized);
    for (char &b : bytes)
        b = char(QRandomGenerator::global()->bounded(256));
    return u"v1_"_s
           + QString::fromLatin1(
               bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

QString geminiStatusOf(int httpStatus)
{
    switch (httpStatus) {
    case 400:
        return u"INVALID_ARGUMENT"_s;
    case 401:
        return u"UNAUTHENTICATED"_s;
    case 403:
        return u"PERMISSION_DENIED"_s;
    case 404:
        return u"NOT_FOUND"_s;
    case 409:
        return u"ABORTED"_s;
    case 429:
        return u"RESOURCE_EXHAUSTED"_s;
    case 499:
        return u"CANCELLED"_s;
    case 500:
        return u"INTERNAL"_s;
    case 501:
        return u"UNIMPLEMENTED"_s;
    case 503:
        return u"UNAVAILABLE"_s;
    case 504:
        return u"DEADLINE_EXCEEDED"_s;
    default:
        return u"UNKNOWN"_s;
    }
}

QJsonObject geminiErrorJson(int httpStatus, const QString &message, const QString &status)
{
    return QJsonObject{
        {u"error"_s, QJsonObject{{u"code"_s, httpStatus},
                                 {u"message"_s, message},
                                 {u"status"_s, status.isEmpty() ? geminiStatusOf(httpStatus) : status}}}};
}

QString geminiFaultMessage(int httpStatus)
{
    switch (httpStatus) {
    case 429:
        return u"Resource has been exhausted (e.g. check quota)."_s;
    case 500:
        return u"An internal error has occurred. Please retry or report in "
               u"https://developers.generativeai.google/guide/troubleshooting"_s;
    case 503:
        return u"The model is overloaded. Please try again later."_s;
    case 504:
        return u"Deadline expired before operation could complete."_s;
    default:
        return u"%1 %2 (simulated by runwatch-sim)"_s.arg(httpStatus)
            .arg(QString::fromLatin1(reasonPhrase(httpStatus)));
    }
}

QString geminiInputText(const QJsonValue &input)
{
    if (input.isString())
        return input.toString();
    if (input.isObject())
        return itemText(input.toObject());
    QStringList texts;
    for (const QJsonValue &item : input.toArray()) {
        const QString text = item.isString() ? item.toString() : itemText(item.toObject());
        if (!text.isEmpty())
            texts.append(text);
    }
    return texts.join(u'\n');
}

QList<GeminiFunctionResult> geminiFunctionResults(const QJsonValue &input)
{
    QList<GeminiFunctionResult> results;
    const QJsonArray items = input.isArray() ? input.toArray() : QJsonArray{input};
    for (const QJsonValue &value : items) {
        const QJsonObject item = value.toObject();
        if (item.value("type"_L1).toString() != "function_result"_L1)
            continue;
        results.append(
            {item.value("call_id"_L1).toString(), item.value("name"_L1).toString(), item.value("result"_L1)});
    }
    return results;
}

QJsonArray geminiInputSteps(const QJsonValue &input)
{
    QJsonArray steps;
    const QJsonArray items = input.isArray() ? input.toArray() : QJsonArray{input};
    for (const QJsonValue &value : items) {
        if (value.toObject().value("type"_L1).toString() == "function_result"_L1)
            steps.append(value);
    }
    const QString text = geminiInputText(input);
    if (!text.isEmpty()) {
        steps.prepend(
            QJsonObject{{u"type"_s, u"user_input"_s},
                        {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}}}}});
    }
    return steps;
}

QString geminiResultText(const QJsonValue &result)
{
    if (result.isString())
        return result.toString();
    if (result.isArray())
        return contentText(result);
    if (result.isObject())
        return QString::fromUtf8(compactJson(result.toObject()));
    return QString::fromUtf8(QJsonDocument(QJsonArray{result}).toJson(QJsonDocument::Compact))
        .mid(1)
        .chopped(1);
}

QList<QString> geminiFunctionNames(const QJsonValue &tools)
{
    QList<QString> names;
    for (const QJsonValue &value : tools.toArray()) {
        const QJsonObject tool = value.toObject();
        if (tool.value("type"_L1).toString() == "function"_L1 && !tool.value("name"_L1).toString().isEmpty())
            names.append(tool.value("name"_L1).toString());
    }
    return names;
}

void geminiApplyDelta(QJsonObject *step, const QJsonObject &delta)
{
    const QString type = delta.value("type"_L1).toString();
    if (type == "text"_L1) {
        QJsonArray content = step->value("content"_L1).toArray();
        QJsonObject part = content.isEmpty() ? QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, QString()}}
                                             : content.last().toObject();
        part.insert(u"text"_s, QString(part.value("text"_L1).toString() + delta.value("text"_L1).toString()));
        if (content.isEmpty()) {
            content.append(part);
        } else {
            content.replace(content.size() - 1, part);
        }
        step->insert(u"content"_s, content);
    } else if (type == "thought_summary"_L1) {
        QJsonArray summary = step->value("summary"_L1).toArray();
        summary.append(delta.value("content"_L1));
        step->insert(u"summary"_s, summary);
    } else if (type == "thought_signature"_L1) {
        step->insert(u"signature"_s, delta.value("signature"_L1));
    } else if (type == "arguments_delta"_L1) {
        step->insert(u"_arguments"_s, QString(step->value("_arguments"_L1).toString()
                                              + delta.value("arguments"_L1).toString()));
    } else if (type == "google_search_call"_L1) {
        step->insert(u"arguments"_s, delta.value("arguments"_L1));
    } else if (type == "google_search_result"_L1) {
        step->insert(u"result"_s, delta.value("result"_L1));
    }
}

void geminiFinishStep(QJsonObject *step)
{
    if (step->contains("_arguments"_L1)) {
        step->insert(u"arguments"_s,
                     QJsonDocument::fromJson(step->value("_arguments"_L1).toString().toUtf8()).object());
        step->remove(u"_arguments"_s);
    }
}

QJsonObject geminiUsageJson(const GeminiUsage &usage)
{
    return QJsonObject{
        {u"total_tokens"_s, usage.input + usage.output + usage.thought + usage.toolUse},
        {u"total_input_tokens"_s, usage.input},
        {u"input_tokens_by_modality"_s,
         QJsonArray{QJsonObject{{u"modality"_s, u"text"_s}, {u"tokens"_s, usage.input}}}},
        {u"total_cached_tokens"_s, 0},
        {u"total_output_tokens"_s, usage.output},
        {u"total_tool_use_tokens"_s, usage.toolUse},
        {u"total_thought_tokens"_s, usage.thought},
    };
}

QJsonObject geminiModelJson(const QString &id)
{
    return QJsonObject{
        {u"name"_s, QString(u"models/"_s + id)},
        {u"version"_s, u"3.0"_s},
        {u"displayName"_s, id},
        {u"description"_s, u"%1, simulated by runwatch-sim"_s.arg(id)},
        {u"inputTokenLimit"_s, 1048576},
        {u"outputTokenLimit"_s, 65536},
        {u"supportedGenerationMethods"_s, QJsonArray{u"generateContent"_s, u"countTokens"_s,
                                                     u"createCachedContent"_s, u"batchGenerateContent"_s}},
        {u"temperature"_s, 1},
        {u"topP"_s, 0.95},
        {u"topK"_s, 64},
        {u"maxTemperature"_s, 2},
        {u"thinking"_s, true},
    };
}

QJsonObject geminiAgentJson(const QString &id)
{
    return QJsonObject{{u"id"_s, id},
                       {u"description"_s, u"Deep Research agent %1, simulated by runwatch-sim"_s.arg(id)}};
}

} // namespace RunwatchSim
