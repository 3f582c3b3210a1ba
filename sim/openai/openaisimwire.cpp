// SPDX-License-Identifier: GPL-3.0-or-later
// What a simulated response puts on the wire: the payload of each step's event, its output items,
// usage and the snapshot served by GET /v1/responses/{id}. The plan and its pace are in
// openaisimrun.cpp.
#include "openaisimrun.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QTimer>

#include <array>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

constexpr std::array kArgumentChunks{"{\"location\":"_L1, "\"Paris\","_L1, "\"unit\":\"celsius\"}"_L1};
static_assert(kArgumentChunks.size() == std::size_t(OpenAiSimRun::kArgumentChunkCount));

} // namespace

QString tokenDelta(int index)
{
    return u"tok"_s + QString::number(index) + u' ';
}

QString hugeText(qint64 bytes)
{
    static const QString alphabet = u"abcdefghijklmnopqrstuvwxyz0123456789"_s;
    QString line;
    for (int i = 0; i < 79; ++i)
        line.append(alphabet.at(i % alphabet.size()));
    line.append(u'\n');
    QString text;
    text.reserve(bytes);
    while (text.size() + line.size() <= bytes)
        text.append(line);
    text.append(line.left(bytes - text.size()));
    return text;
}

QString OpenAiSimRun::deltaText(int item, int index) const
{
    const Item &it = m_items.at(item);
    switch (it.kind) {
    case Item::Kind::Message:
        if (!m_replyChunks.isEmpty())
            return m_replyChunks.value(index);
        if (m_options.scenario == OpenAiScenario::Huge && index == qMin(1, m_options.deltas - 1))
            return hugeText(m_options.hugeBytes);
        return tokenDelta(index);
    case Item::Kind::Reasoning:
        return u"step"_s + QString::number(index) + u' ';
    case Item::Kind::FunctionCall:
        return QString(kArgumentChunks.at(std::size_t(index)));
    case Item::Kind::McpApprovalRequest:
        break;
    }
    return QString();
}

void OpenAiSimRun::appendEvent(const QByteArray &type, QJsonObject payload)
{
    const qint64 seq = m_events.size();
    // QJsonObject sorts its keys; "type" and "sequence_number" go first by hand, as on the real
    // wire (protocol §6.1), which keeps transcripts readable.
    payload.remove("type"_L1);
    payload.remove("sequence_number"_L1);
    const QByteArray rest = QJsonDocument(payload).toJson(QJsonDocument::Compact);
    QByteArray data = "{\"type\":\"" + type + "\",\"sequence_number\":" + QByteArray::number(seq);
    if (rest.size() > 2) {
        data += ',' + rest.mid(1);
    } else {
        data += '}';
    }
    m_events.append(OpenAiSimEvent{seq, type, data});
    Q_EMIT eventAdded(seq, type);
}

void OpenAiSimRun::lifecycleEvent(const QByteArray &type)
{
    appendEvent(type, QJsonObject{{u"response"_s, snapshot()}});
}

void OpenAiSimRun::runStep(const Step &step)
{
    Item *item = step.item < m_items.size() ? &m_items[step.item] : nullptr;
    // The plan only schedules item steps for items it created; a step that names none is a bug
    // in the plan, skipped rather than dereferenced.
    const bool itemStep = step.op >= Op::ItemAdded && step.op <= Op::ItemDoneIncomplete;
    if (itemStep && !item) {
        Q_ASSERT_X(false, "OpenAiSimRun::runStep", "item step without an item");
        return;
    }
    const auto indexFields = [&](QJsonObject object, bool withContentIndex) {
        object.insert("item_id"_L1, item->id);
        object.insert("output_index"_L1, step.item);
        if (withContentIndex)
            object.insert(item->kind == Item::Kind::Reasoning ? "summary_index"_L1 : "content_index"_L1, 0);
        return object;
    };
    switch (step.op) {
    case Op::Created:
        lifecycleEvent(QByteArrayLiteral("response.created"));
        break;
    case Op::Queued:
        lifecycleEvent(QByteArrayLiteral("response.queued"));
        break;
    case Op::Keepalive:
        appendEvent(QByteArrayLiteral("keepalive"), QJsonObject{{u"model"_s, m_params.model}});
        break;
    case Op::InProgress:
        if (m_status != Status::Cancelled)
            setStatus(Status::InProgress);
        lifecycleEvent(QByteArrayLiteral("response.in_progress"));
        break;
    case Op::ItemAdded:
        item->added = true;
        appendEvent(QByteArrayLiteral("response.output_item.added"),
                    QJsonObject{{u"output_index"_s, step.item}, {u"item"_s, itemJson(*item)}});
        break;
    case Op::PartAdded:
        item->partAdded = true;
        if (item->kind == Item::Kind::Reasoning) {
            appendEvent(QByteArrayLiteral("response.reasoning_summary_part.added"),
                        indexFields({{u"part"_s,
                                      QJsonObject{{u"type"_s, u"summary_text"_s}, {u"text"_s, QString()}}}},
                                    true));
        } else {
            appendEvent(QByteArrayLiteral("response.content_part.added"),
                        indexFields({{u"part"_s, QJsonObject{{u"type"_s, u"output_text"_s},
                                                             {u"text"_s, QString()},
                                                             {u"annotations"_s, QJsonArray()}}}},
                                    true));
        }
        break;
    case Op::Delta: {
        const QString delta = deltaText(step.item, step.index);
        item->text += delta;
        switch (item->kind) {
        case Item::Kind::Message: {
            ++m_outputTokens;
            QJsonObject payload = indexFields({{u"delta"_s, delta}, {u"logprobs"_s, QJsonArray()}}, true);
            if (m_params.obfuscation) {
                static const QString pad = u"Xy7Qp2Lm9Rt4Vb1N"_s;
                payload.insert("obfuscation"_L1, pad.left(4 + int(m_events.size() % 12)));
            }
            appendEvent(QByteArrayLiteral("response.output_text.delta"), payload);
            break;
        }
        case Item::Kind::Reasoning:
            ++m_reasoningTokens;
            appendEvent(QByteArrayLiteral("response.reasoning_summary_text.delta"),
                        indexFields({{u"delta"_s, delta}}, true));
            break;
        case Item::Kind::FunctionCall:
            ++m_outputTokens;
            appendEvent(QByteArrayLiteral("response.function_call_arguments.delta"),
                        indexFields({{u"delta"_s, delta}}, false));
            break;
        case Item::Kind::McpApprovalRequest:
            break;
        }
        break;
    }
    case Op::TextDone:
        switch (item->kind) {
        case Item::Kind::Message:
            appendEvent(QByteArrayLiteral("response.output_text.done"),
                        indexFields({{u"text"_s, item->text}, {u"logprobs"_s, QJsonArray()}}, true));
            break;
        case Item::Kind::Reasoning:
            appendEvent(QByteArrayLiteral("response.reasoning_summary_text.done"),
                        indexFields({{u"text"_s, item->text}}, true));
            break;
        case Item::Kind::FunctionCall:
            appendEvent(QByteArrayLiteral("response.function_call_arguments.done"),
                        indexFields({{u"name"_s, item->name}, {u"arguments"_s, item->text}}, false));
            break;
        case Item::Kind::McpApprovalRequest:
            break;
        }
        break;
    case Op::PartDone:
        if (item->kind == Item::Kind::Reasoning) {
            appendEvent(QByteArrayLiteral("response.reasoning_summary_part.done"),
                        indexFields({{u"part"_s,
                                      QJsonObject{{u"type"_s, u"summary_text"_s}, {u"text"_s, item->text}}}},
                                    true));
        } else {
            appendEvent(QByteArrayLiteral("response.content_part.done"),
                        indexFields({{u"part"_s, QJsonObject{{u"type"_s, u"output_text"_s},
                                                             {u"text"_s, item->text},
                                                             {u"annotations"_s, QJsonArray()}}}},
                                    true));
        }
        break;
    case Op::ItemDone:
    case Op::ItemDoneIncomplete:
        item->status = step.op == Op::ItemDone ? u"completed"_s : u"incomplete"_s;
        appendEvent(QByteArrayLiteral("response.output_item.done"),
                    QJsonObject{{u"output_index"_s, step.item}, {u"item"_s, itemJson(*item)}});
        break;
    case Op::Completed:
        m_completedAt = double(QDateTime::currentSecsSinceEpoch() + m_options.clockSkewS)
                        + (m_params.fractionalTimestamps ? 0.5 : 0.0);
        m_usage = true;
        finishWith(Status::Completed);
        break;
    case Op::Failed:
        m_error = QJsonObject{{u"code"_s, u"server_error"_s},
                              {u"message"_s, u"The model failed to generate a response."_s}};
        finishWith(Status::Failed);
        break;
    case Op::Incomplete:
        m_incompleteDetails = QJsonObject{{u"reason"_s, u"max_output_tokens"_s}};
        m_usage = true;
        finishWith(Status::Incomplete);
        break;
    case Op::ErrorEvent: {
        const QString message = u"The model is currently over capacity."_s;
        m_error = QJsonObject{{u"code"_s, u"rate_limit_exceeded"_s}, {u"message"_s, message}};
        setStatus(Status::Failed);
        // Nested, as first-party servers send it (protocol §2.5), not the flat SPEC shape.
        appendEvent(QByteArrayLiteral("error"),
                    QJsonObject{{u"error"_s, QJsonObject{{u"type"_s, u"invalid_request_error"_s},
                                                         {u"code"_s, u"rate_limit_exceeded"_s},
                                                         {u"message"_s, message},
                                                         {u"param"_s, u"input"_s}}}});
        m_ended = true;
        m_timer->stop();
        Q_EMIT ended();
        break;
    }
    }
}

QJsonObject OpenAiSimRun::itemJson(const Item &item) const
{
    switch (item.kind) {
    case Item::Kind::Message: {
        QJsonArray content;
        if (item.partAdded) {
            content.append(QJsonObject{
                {u"type"_s, u"output_text"_s}, {u"text"_s, item.text}, {u"annotations"_s, QJsonArray()}});
        }
        return QJsonObject{{u"id"_s, item.id},
                           {u"type"_s, u"message"_s},
                           {u"status"_s, item.status},
                           {u"role"_s, u"assistant"_s},
                           {u"content"_s, content}};
    }
    case Item::Kind::Reasoning: {
        QJsonArray summary;
        if (item.partAdded)
            summary.append(QJsonObject{{u"type"_s, u"summary_text"_s}, {u"text"_s, item.text}});
        return QJsonObject{{u"id"_s, item.id}, {u"type"_s, u"reasoning"_s}, {u"summary"_s, summary}};
    }
    case Item::Kind::FunctionCall:
        return QJsonObject{{u"id"_s, item.id},         {u"type"_s, u"function_call"_s},
                           {u"status"_s, item.status}, {u"call_id"_s, item.callId},
                           {u"name"_s, item.name},     {u"arguments"_s, item.text}};
    case Item::Kind::McpApprovalRequest:
        // Protocol §1.8: {type, id, name, server_label, arguments}; no status.
        return QJsonObject{{u"id"_s, item.id},
                           {u"type"_s, u"mcp_approval_request"_s},
                           {u"name"_s, item.name},
                           {u"server_label"_s, item.serverLabel},
                           {u"arguments"_s, item.text}};
    }
    return QJsonObject();
}

QJsonObject OpenAiSimRun::usageJson() const
{
    const qsizetype inputWords = inputTextOf(m_params.input).split(u' ', Qt::SkipEmptyParts).size();
    const int inputTokens = int(qMax<qsizetype>(1, inputWords));
    const int outputTokens = m_outputTokens + m_reasoningTokens;
    return QJsonObject{
        {u"input_tokens"_s, inputTokens},
        {u"input_tokens_details"_s, QJsonObject{{u"cached_tokens"_s, 0}, {u"cache_write_tokens"_s, 0}}},
        {u"output_tokens"_s, outputTokens},
        {u"output_tokens_details"_s, QJsonObject{{u"reasoning_tokens"_s, m_reasoningTokens}}},
        {u"total_tokens"_s, inputTokens + outputTokens},
    };
}

QJsonObject OpenAiSimRun::snapshot() const
{
    QJsonArray output;
    for (const Item &item : m_items) {
        if (item.added)
            output.append(itemJson(item));
    }
    QJsonObject response{
        {u"id"_s, m_id},
        {u"object"_s, u"response"_s},
        {u"created_at"_s, m_createdAt},
        {u"status"_s, statusName()},
        {u"background"_s, m_params.background},
        {u"completed_at"_s, m_status == Status::Completed ? QJsonValue(m_completedAt) : QJsonValue()},
        {u"error"_s, m_error.isObject() && m_status == Status::Failed ? m_error : QJsonValue()},
        {u"incomplete_details"_s, m_incompleteDetails},
        {u"instructions"_s, m_params.instructions},
        {u"max_output_tokens"_s, m_params.maxOutputTokens},
        {u"model"_s, m_params.model},
        {u"output"_s, output},
        {u"parallel_tool_calls"_s, true},
        {u"previous_response_id"_s, m_params.previousResponseId},
        {u"store"_s, m_params.store},
        {u"temperature"_s, 1},
        {u"text"_s, QJsonObject{{u"format"_s, QJsonObject{{u"type"_s, u"text"_s}}}}},
        {u"tool_choice"_s, u"auto"_s},
        {u"tools"_s, QJsonArray()},
        {u"top_p"_s, 1},
        {u"truncation"_s, u"disabled"_s},
        {u"usage"_s, m_usage ? QJsonValue(usageJson()) : QJsonValue()},
        {u"metadata"_s, m_params.metadata},
    };
    // Only Foundry's responses have these, and plain OpenAI objects stay as they were.
    if (m_params.conversation.isObject())
        response.insert("conversation"_L1, m_params.conversation);
    if (m_params.agentReference.isObject())
        response.insert("agent_reference"_L1, m_params.agentReference);
    return response;
}

QJsonArray OpenAiSimRun::inputItems() const
{
    QJsonArray items;
    if (m_params.input.isString()) {
        items.append(QJsonObject{
            {u"id"_s, QString(u"msg_in_"_s + m_id.mid(5))},
            {u"type"_s, u"message"_s},
            {u"role"_s, u"user"_s},
            {u"status"_s, u"completed"_s},
            {u"content"_s,
             QJsonArray{QJsonObject{{u"type"_s, u"input_text"_s}, {u"text"_s, m_params.input.toString()}}}},
        });
        return items;
    }
    int index = 0;
    const QJsonArray input = m_params.input.toArray();
    for (const QJsonValue &value : input) {
        QJsonObject item = value.toObject();
        if (!item.contains("id"_L1))
            item.insert("id"_L1, u"item_in_%1_%2"_s.arg(m_id.mid(5)).arg(index));
        items.append(item);
        ++index;
    }
    return items;
}

QString OpenAiSimRun::textOf(Item::Kind kind) const
{
    // A message has text only once its content part was added, so no check of partAdded is needed.
    QString text;
    for (const Item &item : m_items) {
        if (item.kind == kind)
            text += item.text;
    }
    return text;
}

QString OpenAiSimRun::outputText() const
{
    return textOf(Item::Kind::Message);
}

QString OpenAiSimRun::reasoningText() const
{
    return textOf(Item::Kind::Reasoning);
}

QString OpenAiSimRun::functionArguments() const
{
    return textOf(Item::Kind::FunctionCall);
}

QList<OpenAiSimRun::PendingCall> OpenAiSimRun::pendingCalls() const
{
    QList<PendingCall> calls;
    if (m_status != Status::Completed)
        return calls;
    for (const Item &item : m_items) {
        if (!item.added)
            continue;
        switch (item.kind) {
        case Item::Kind::Message:
            calls.clear(); // the model answered after these calls: they need nothing
            break;
        case Item::Kind::Reasoning:
            break;
        case Item::Kind::FunctionCall:
            calls.append({item.callId, item.name, false});
            break;
        case Item::Kind::McpApprovalRequest:
            calls.append({item.id, item.name, true});
            break;
        }
    }
    return calls;
}

} // namespace RunwatchSim
