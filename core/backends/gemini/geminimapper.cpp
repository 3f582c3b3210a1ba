// SPDX-License-Identifier: GPL-3.0-or-later
// The interaction resource (§2 The interaction) and the function results (§2 Function calls); the
// stream's events are in geminievents.cpp.
#include "geminimapper.h"

#include "domain/run.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <limits>

using namespace Qt::StringLiterals;

namespace Runwatch::Gemini {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "GeminiConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(GeminiConnector)
};

// A tool's result is shown as its JSON, cut here: the timeline is for reading, and a search
// result can be long.
constexpr qsizetype kMaxShownJson = 4000;

QString shownJson(const QJsonValue &value)
{
    QString text = value.isString() ? value.toString() : compactJson(value);
    if (value.isNull() || value.isUndefined())
        text.clear();
    if (text.size() > kMaxShownJson)
        text = text.left(kMaxShownJson) + u"…"_s;
    return text;
}

// A token count: a missing, negative, fractional or non-number one is "not reported" (-1).
qint64 countOf(const QJsonValue &value)
{
    const qint64 n = value.isDouble() ? value.toInteger(-1) : -1;
    return n >= 0 ? n : -1;
}

// Two reported counts added without overflowing (a hostile server may send 2^53 twice).
qint64 addCounts(qint64 a, qint64 b)
{
    if (b > std::numeric_limits<qint64>::max() - a)
        return std::numeric_limits<qint64>::max();
    return a + b;
}

// The input steps a stored interaction starts with (@google/genai 3.3.0: the stored copy also has the
// user_input step; a continuation's input is its function_result steps): not numbered by the
// stream, so not by the items either.
qsizetype inputSteps(const QJsonArray &steps)
{
    qsizetype n = 0;
    while (n < steps.size()) {
        const QString type = steps.at(n).toObject().value(u"type"_s).toString();
        if (type != "user_input"_L1 && type != "function_result"_L1)
            break;
        ++n;
    }
    return n;
}

// An error object (an interaction's errors[], a step's error, an error event's error): its code,
// a string or a number, and its message.
RunError errorFrom(const QJsonValue &value)
{
    RunError e;
    e.kind = ErrorKind::Run;
    if (value.isString()) {
        e.message = value.toString();
        return e;
    }
    const QJsonObject object = value.toObject();
    const QJsonValue code = object.value(u"code"_s);
    e.code = code.isString()   ? code.toString()
             : code.isDouble() ? QString::number(code.toInteger())
                               : QString();
    if (e.code.isEmpty())
        e.code = object.value(u"status"_s).toString();
    e.message = object.value(u"message"_s).toString();
    return e;
}

} // namespace

QString contentText(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    if (content.isObject()) {
        const QJsonObject part = content.toObject();
        const QString type = part.value(u"type"_s).toString();
        return type.isEmpty() || type == "text"_L1 ? part.value(u"text"_s).toString() : QString();
    }
    QString text;
    for (const QJsonValue &part : content.toArray()) {
        if (part.isObject() || part.isString())
            text += contentText(part);
    }
    return text;
}

RunStatus runStatusFor(QStringView status)
{
    if (status == u"queued")
        return RunStatus::Queued;
    if (status == u"in_progress")
        return RunStatus::InProgress;
    // Waits for function results: the operator (or the connector's caller) supplies them.
    if (status == u"requires_action")
        return RunStatus::InputRequired;
    // A non-background hop ended and the client continues with the token on its own (§2 The interaction):
    // the run is still working, nobody has to act.
    if (status == u"requires_continuation")
        return RunStatus::InProgress;
    if (status == u"completed")
        return RunStatus::Completed;
    if (status == u"failed")
        return RunStatus::Failed;
    if (status == u"cancelled")
        return RunStatus::Cancelled;
    // Both ended early without failing (the sources say no more): Incomplete is the terminal status
    // for "stopped before its end" (OpenAI's incomplete is a token budget running out, which is
    // what budget_exceeded names too). The raw status keeps which one it was.
    if (status == u"incomplete" || status == u"budget_exceeded")
        return RunStatus::Incomplete;
    return RunStatus::Unknown;
}

QString compactJson(const QJsonValue &value)
{
    if (value.isString())
        return value.toString();
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    if (value.isUndefined())
        return {};
    // A scalar: wrapped and unwrapped, so it comes out as its JSON literal.
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

QString itemIdFor(const QString &interactionId, qint64 index)
{
    return interactionId + u'#' + QString::number(index);
}

QString outputText(const QJsonObject &interaction)
{
    QStringList texts;
    for (const QJsonValue &value : interaction.value(u"steps"_s).toArray()) {
        const QJsonObject step = value.toObject();
        if (step.value(u"type"_s).toString() != "model_output"_L1)
            continue;
        const QString text = contentText(step.value(u"content"_s));
        if (!text.isEmpty())
            texts << text;
    }
    return texts.join(u"\n\n"_s);
}

std::optional<TokenUsage> usageOf(const QJsonObject &interaction)
{
    const QJsonObject usage = interaction.value(u"usage"_s).toObject();
    const qint64 input = countOf(usage.value(u"total_input_tokens"_s));
    const qint64 toolUse = countOf(usage.value(u"total_tool_use_tokens"_s));
    const qint64 output = countOf(usage.value(u"total_output_tokens"_s));
    const qint64 thought = countOf(usage.value(u"total_thought_tokens"_s));
    TokenUsage u;
    u.inputTokens = input >= 0 ? addCounts(input, std::max<qint64>(toolUse, 0)) : -1;
    u.outputTokens = output >= 0 ? addCounts(output, std::max<qint64>(thought, 0)) : -1;
    u.reasoningTokens = thought;
    if (!u.isKnown())
        return std::nullopt;
    return u;
}

RunError errorOf(const QJsonObject &interaction)
{
    QJsonArray errors = interaction.value(u"errors"_s).toArray();
    if (errors.isEmpty() && interaction.value(u"error"_s).isObject())
        errors.append(interaction.value(u"error"_s)); // the singular form some clients show
    RunError failure;
    QStringList messages;
    for (const QJsonValue &value : std::as_const(errors)) {
        const RunError e = errorFrom(value);
        if (failure.code.isEmpty())
            failure.code = e.code;
        if (!e.message.isEmpty() && !messages.contains(e.message))
            messages << e.message;
    }
    const bool failed = interaction.value(u"status"_s).toString() == "failed"_L1;
    if (errors.isEmpty() && !failed)
        return {};
    failure.kind = ErrorKind::Run;
    failure.message = messages.isEmpty() ? Text::tr("The interaction failed without saying why.")
                                         : messages.join(u"; "_s);
    if (failure.code.isEmpty())
        failure.code = u"failed"_s;
    return failure;
}

std::optional<RunEvent> stepItem(const QString &itemId, const QJsonObject &step)
{
    const QString type = step.value(u"type"_s).toString();
    if (type.isEmpty() || type == "user_input"_L1)
        return std::nullopt;
    if (type == "model_output"_L1) {
        // Its text is the answer; only an error of the step is an item.
        const QJsonValue error = step.value(u"error"_s);
        if (!error.isObject())
            return std::nullopt;
        const RunError e = errorFrom(error);
        return RunEvent::secondarySnapshot(SecondaryKind::Log, itemId, Text::tr("output error"),
                                           e.message.isEmpty() ? e.code : e.message);
    }
    if (type == "thought"_L1) {
        // The signature is the model's encrypted state, nothing to read; a thought without a
        // summary (thinking_summaries off, or little thinking) shows as no item.
        const QString summary = contentText(step.value(u"summary"_s));
        if (summary.isEmpty())
            return std::nullopt;
        return RunEvent::secondarySnapshot(SecondaryKind::Reasoning, itemId,
                                           QCoreApplication::translate("RunEvents", "Reasoning"), summary);
    }
    if (type == "function_call"_L1 || type.endsWith("_call"_L1)) {
        // A function call by its name; a server tool's call (google_search_call, …) by its tool.
        const QString name = type == "function_call"_L1 ? step.value(u"name"_s).toString()
                                                        : type.chopped(int(sizeof("_call") - 1));
        return RunEvent::secondarySnapshot(SecondaryKind::ToolCall, itemId, name.isEmpty() ? type : name,
                                           toolCallText(name, compactJson(step.value(u"arguments"_s))));
    }
    if (type == "function_result"_L1 || type.endsWith("_result"_L1)) {
        const QString name = type == "function_result"_L1 ? step.value(u"name"_s).toString()
                                                          : type.chopped(int(sizeof("_result") - 1));
        const QString result = shownJson(step.value(u"result"_s));
        return RunEvent::secondarySnapshot(
            SecondaryKind::ToolCall, itemId, name.isEmpty() ? type : name,
            step.value(u"is_error"_s).toBool() ? Text::tr("error: %1").arg(result) : result);
    }
    // A step type this mapping does not know yet: shown by its type and what it holds.
    QJsonObject rest = step;
    rest.remove(u"type"_s);
    return RunEvent::secondarySnapshot(SecondaryKind::Progress, itemId, type, shownJson(rest));
}

InputRequest toolOutputRequest(const QString &interactionId, const QList<ToolCallRequest> &calls)
{
    InputRequest request;
    request.reason = InputReason::ToolOutput;
    QStringList names;
    for (const ToolCallRequest &call : calls)
        names << (call.name.isEmpty() ? call.id : call.name);
    request.prompt = Text::tr("The model waits for the output of: %1").arg(names.join(u", "_s));
    request.toolCalls = calls;
    request.raw = QJsonObject{{u"interaction_id"_s, interactionId}};
    return request;
}

std::optional<InputRequest> inputRequestOf(const QJsonObject &interaction)
{
    if (interaction.value(u"status"_s).toString() != "requires_action"_L1)
        return std::nullopt;
    QList<ToolCallRequest> calls;
    QSet<QString> answered;
    for (const QJsonValue &value : interaction.value(u"steps"_s).toArray()) {
        const QJsonObject step = value.toObject();
        const QString type = step.value(u"type"_s).toString();
        if (type == "function_result"_L1) {
            answered.insert(step.value(u"call_id"_s).toString());
            continue;
        }
        if (type != "function_call"_L1)
            continue;
        ToolCallRequest call;
        call.id = step.value(u"id"_s).toString();
        call.name = step.value(u"name"_s).toString();
        call.arguments = compactJson(step.value(u"arguments"_s));
        if (call.id.isEmpty())
            continue; // a result must name its call: one without an id cannot be answered
        calls << call;
    }
    calls.removeIf([&answered](const ToolCallRequest &call) { return answered.contains(call.id); });
    if (calls.isEmpty())
        return std::nullopt;
    return toolOutputRequest(interaction.value(u"id"_s).toString(), calls);
}

QList<RunEvent> mapInteraction(const QJsonObject &interaction)
{
    QList<RunEvent> events;
    const QString id = interaction.value(u"id"_s).toString();
    // Exactly one of them names what runs it (§2 Create).
    const QString model = interaction.value(u"model"_s).toString(interaction.value(u"agent"_s).toString());
    if (!id.isEmpty() || !model.isEmpty())
        events << RunEvent::identity(id, model, false);

    const QJsonArray steps = interaction.value(u"steps"_s).toArray();
    const qsizetype first = inputSteps(steps);
    for (qsizetype i = first; i < steps.size(); ++i) {
        if (auto item = stepItem(itemIdFor(id, i - first), steps.at(i).toObject()))
            events << *item;
    }
    // Usage rides on the snapshot every interaction gives, in progress or finished alike.
    RunEvent text = RunEvent::primarySnapshot(outputText(interaction));
    text.usage = usageOf(interaction);
    events << text;

    if (const RunError failure = errorOf(interaction); failure.isError())
        events << RunEvent::failure(failure);
    const QString raw = interaction.value(u"status"_s).toString();
    if (raw == "requires_action"_L1) {
        events << RunEvent::statusChange(RunStatus::InputRequired, raw);
        if (std::optional<InputRequest> request = inputRequestOf(interaction))
            events << RunEvent::inputRequired(std::move(*request));
        return events;
    }
    // A reply without a status (a hostile or partial one) tells nothing about it: skipped.
    if (!raw.isEmpty())
        events << RunEvent::statusChange(runStatusFor(raw), raw);
    return events;
}

QJsonArray functionResults(const InputRequest &request, const InputAnswer &answer, QString *error)
{
    const std::optional<QList<ToolCallAnswer>> answers = answersForToolCalls(request, answer, error);
    if (!answers)
        return {};
    QJsonArray input;
    // In the order the model called them, whatever order the operator answered in.
    for (const ToolCallRequest &call : request.toolCalls) {
        const auto it = std::find_if(answers->cbegin(), answers->cend(),
                                     [&call](const ToolCallAnswer &a) { return a.callId == call.id; });
        if (it == answers->cend())
            continue; // answersForToolCalls refuses an answer that leaves a call out
        // The result is the operator's text as a string, one of the forms a function_result takes (a
        // string, content parts, an object): it is not guessed to be JSON.
        QJsonObject result{
            {u"type"_s, u"function_result"_s}, {u"call_id"_s, call.id}, {u"result"_s, it->output}};
        if (!call.name.isEmpty())
            result.insert(u"name"_s, call.name);
        input.append(result);
    }
    return input;
}

} // namespace Runwatch::Gemini
