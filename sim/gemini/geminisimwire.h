// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Payload shapes of the Gemini Interactions API on the wire (protocol §2, tests/data/gemini/):
// Google's error body, ids and times, the input a create carries, the steps and how a delta grows
// one, usage, the models and agents lists. The interaction resource itself is GeminiSimRun::json()
// (geminisimrun.cpp).

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

namespace RunwatchSim {

qint64 geminiNowMs();
// "2026-11-30T10:00:03Z": ISO-8601 in UTC, whole seconds, as the client keeps them.
QString geminiTime(qint64 epochMs);
// "v1_" and 40 URL-safe base64 characters: opaque, as the service's.
QString newGeminiInteractionId();

// Google's canonical status of an HTTP status ("INVALID_ARGUMENT", "RESOURCE_EXHAUSTED", …).
QString geminiStatusOf(int httpStatus);
// {"error":{"code":<http status>,"message","status"}}; `status` empty: geminiStatusOf(code).
QJsonObject geminiErrorJson(int httpStatus, const QString &message, const QString &status = QString());
// What the service says with an injected status (429: "Resource has been exhausted …").
QString geminiFaultMessage(int httpStatus);

// A function_result of a create's input: what it answers, and the result as text.
struct GeminiFunctionResult
{
    QString callId;
    QString name;
    QJsonValue result;
};

// The text of a create's `input`: a string, a Content, or an array of Contents, steps
// (user_input) or turns ({role, content}); their text parts joined by "\n".
QString geminiInputText(const QJsonValue &input);
// The function_result items of `input` (an array, or one object), in order.
QList<GeminiFunctionResult> geminiFunctionResults(const QJsonValue &input);
// The input as the stored interaction lists it first: function_result steps as given, the rest
// as one user_input step with the text.
QJsonArray geminiInputSteps(const QJsonValue &input);
// A function result as text: a string as it is, text parts joined, anything else as compact JSON.
QString geminiResultText(const QJsonValue &result);
// The names of the request's function tools ([{type:"function", name, …}]).
QList<QString> geminiFunctionNames(const QJsonValue &tools);

// Grows a stored step by one delta (text, thought_summary, thought_signature, arguments_delta,
// google_search_call, google_search_result). A function_call's arguments gather as text in
// `_arguments` until geminiFinishStep() parses them.
void geminiApplyDelta(QJsonObject *step, const QJsonObject &delta);
void geminiFinishStep(QJsonObject *step);

struct GeminiUsage
{
    qint64 input = 0;
    qint64 output = 0;
    qint64 thought = 0;
    qint64 toolUse = 0;
};
// total_tokens = input + output + thought + tool use; input_tokens_by_modality (all text).
QJsonObject geminiUsageJson(const GeminiUsage &usage);

// GET /{v}/models: {"models":[…]} with Google's camelCase model resource.
QJsonObject geminiModelJson(const QString &id);
// GET /{v}/agents: {"agents":[{id, description}]} (the client's experimental Agent type).
QJsonObject geminiAgentJson(const QString &id);

} // namespace RunwatchSim
