// SPDX-License-Identifier: GPL-3.0-or-later
// What the Foundry simulator puts on the wire: ThreadRun, RunStep, ThreadMessage, agents, lists
// and errors, field by field as protocol §5.3-§5.5 lists them.
#include "foundrysimwire.h"

#include "foundrysimrun.h"

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

QJsonValue timestamp(qint64 seconds)
{
    return seconds > 0 ? QJsonValue(seconds) : QJsonValue();
}

QJsonObject toolCallJson(const FoundrySimToolCall &call, bool inStep)
{
    QJsonObject json{{u"id"_s, call.id}, {u"type"_s, call.type}};
    if (call.type == "function"_L1) {
        QJsonObject function{{u"name"_s, call.name}, {u"arguments"_s, call.arguments}};
        if (inStep)
            function.insert(u"output"_s, call.answered ? QJsonValue(call.output) : QJsonValue());
        json.insert(u"function"_s, function);
    } else if (call.type == "mcp"_L1) {
        json.insert(u"name"_s, call.name);
        json.insert(u"arguments"_s, call.arguments);
        json.insert(u"server_label"_s, call.serverLabel);
        if (inStep) {
            json.insert(u"output"_s,
                        call.answered && call.approved ? QJsonValue(u"{\"results\":3}"_s) : QJsonValue());
        }
    } else if (call.type == "code_interpreter"_L1) {
        json.insert(u"code_interpreter"_s,
                    QJsonObject{{u"input"_s, call.arguments},
                                {u"outputs"_s,
                                 QJsonArray{QJsonObject{{u"type"_s, u"logs"_s}, {u"logs"_s, call.output}}}}});
    }
    return json;
}

// The agents' tool definitions (ToolDefinition): a function tool names its function with a JSON
// Schema of its parameters, as the official client reads it (`function.name` is required there).
QJsonArray toolDefinitionsJson()
{
    const auto function = [](const QString &name, const QString &description, const QString &parameter) {
        return QJsonObject{
            {u"type"_s, u"function"_s},
            {u"function"_s,
             QJsonObject{{u"name"_s, name},
                         {u"description"_s, description},
                         {u"parameters"_s,
                          QJsonObject{{u"type"_s, u"object"_s},
                                      {u"properties"_s,
                                       QJsonObject{{parameter, QJsonObject{{u"type"_s, u"string"_s}}}}},
                                      {u"required"_s, QJsonArray{parameter}}}}}},
        };
    };
    return QJsonArray{function(u"get_weather"_s, u"The weather at a place."_s, u"location"_s),
                      function(u"get_time"_s, u"The local time in a time zone."_s, u"timezone"_s)};
}

} // namespace

QJsonObject FoundrySimRun::json() const
{
    QJsonValue requiredAction;
    if (m_status == Status::RequiresAction && m_actionStep >= 0) {
        QJsonArray calls;
        for (const FoundrySimToolCall &call : m_steps.at(m_actionStep).calls)
            calls.append(toolCallJson(call, false));
        requiredAction
            = QJsonObject{{u"type"_s, m_actionType}, {m_actionType, QJsonObject{{u"tool_calls"_s, calls}}}};
    }
    QJsonValue lastError;
    if (m_status == Status::Failed) {
        lastError = QJsonObject{{u"code"_s, u"server_error"_s},
                                {u"message"_s, u"The agent's tool backend is unavailable (simulated)."_s}};
    }
    QJsonValue incomplete;
    if (m_status == Status::Incomplete)
        incomplete = QJsonObject{{u"reason"_s, u"max_completion_tokens"_s}};
    const bool terminal = isTerminal();
    return QJsonObject{
        {u"id"_s, m_id},
        {u"object"_s, u"thread.run"_s},
        {u"thread_id"_s, m_params.threadId},
        {u"assistant_id"_s, m_params.assistantId},
        {u"status"_s, statusName()},
        {u"required_action"_s, requiredAction},
        {u"last_error"_s, lastError},
        {u"model"_s, m_params.model},
        {u"instructions"_s, m_params.instructions},
        {u"tools"_s, toolDefinitionsJson()},
        {u"created_at"_s, m_createdAt},
        {u"expires_at"_s, terminal ? QJsonValue() : QJsonValue(m_expiresAt)},
        {u"started_at"_s, timestamp(m_startedAt)},
        {u"completed_at"_s, m_status == Status::Completed ? timestamp(m_endedAt) : QJsonValue()},
        {u"cancelled_at"_s, m_status == Status::Cancelled ? timestamp(m_endedAt) : QJsonValue()},
        {u"failed_at"_s, m_status == Status::Failed ? timestamp(m_endedAt) : QJsonValue()},
        {u"incomplete_details"_s, incomplete},
        {u"usage"_s, terminal ? QJsonValue(usageJson()) : QJsonValue()},
        {u"temperature"_s, 1.0},
        {u"top_p"_s, 1.0},
        {u"max_prompt_tokens"_s, QJsonValue()},
        {u"max_completion_tokens"_s, QJsonValue()},
        {u"truncation_strategy"_s, QJsonObject{{u"type"_s, u"auto"_s}, {u"last_messages"_s, QJsonValue()}}},
        {u"tool_choice"_s, u"auto"_s},
        {u"response_format"_s, u"auto"_s},
        {u"metadata"_s, m_params.metadata},
        {u"tool_resources"_s, QJsonObject()},
        {u"parallel_tool_calls"_s, true},
    };
}

QJsonObject FoundrySimRun::usageJson() const
{
    const int prompt = int(qMax<qsizetype>(1, m_params.prompt.split(u' ', Qt::SkipEmptyParts).size()));
    return QJsonObject{{u"prompt_tokens"_s, prompt},
                       {u"completion_tokens"_s, m_deltasDone},
                       {u"total_tokens"_s, prompt + m_deltasDone}};
}

QJsonObject FoundrySimRun::stepJson(const FoundrySimStep &step) const
{
    QJsonObject details{{u"type"_s, step.type}};
    if (step.type == "message_creation"_L1) {
        details.insert(u"message_creation"_s, QJsonObject{{u"message_id"_s, step.messageId}});
    } else {
        QJsonArray calls;
        for (const FoundrySimToolCall &call : step.calls)
            calls.append(toolCallJson(call, true));
        details.insert(u"tool_calls"_s, calls);
    }
    return QJsonObject{
        {u"id"_s, step.id},
        {u"object"_s, u"thread.run.step"_s},
        {u"type"_s, step.type},
        {u"assistant_id"_s, m_params.assistantId},
        {u"thread_id"_s, m_params.threadId},
        {u"run_id"_s, m_id},
        {u"status"_s, step.status},
        {u"step_details"_s, details},
        {u"last_error"_s, QJsonValue()},
        {u"created_at"_s, step.createdAt},
        {u"expired_at"_s, step.status == "expired"_L1 ? QJsonValue(step.completedAt) : QJsonValue()},
        {u"completed_at"_s, step.status == "completed"_L1 ? QJsonValue(step.completedAt) : QJsonValue()},
        {u"cancelled_at"_s, QJsonValue()},
        {u"failed_at"_s, QJsonValue()},
        {u"metadata"_s, QJsonObject()},
    };
}

QJsonObject FoundrySimRun::messageJson(const FoundrySimMessage &message)
{
    QJsonArray content;
    for (const QString &part : message.parts) {
        content.append(
            QJsonObject{{u"type"_s, u"text"_s},
                        {u"text"_s, QJsonObject{{u"value"_s, part}, {u"annotations"_s, QJsonArray()}}}});
    }
    const bool assistant = message.role == "assistant"_L1;
    return QJsonObject{
        {u"id"_s, message.id},
        {u"object"_s, u"thread.message"_s},
        {u"created_at"_s, message.createdAt},
        {u"thread_id"_s, message.threadId},
        {u"status"_s, message.status},
        {u"incomplete_details"_s, message.status == "incomplete"_L1
                                      ? QJsonValue(QJsonObject{{u"reason"_s, u"run_failed"_s}})
                                      : QJsonValue()},
        {u"completed_at"_s, message.status == "completed"_L1 ? QJsonValue(message.createdAt) : QJsonValue()},
        {u"incomplete_at"_s, QJsonValue()},
        {u"role"_s, message.role},
        {u"content"_s, content},
        {u"assistant_id"_s, assistant ? QJsonValue(message.assistantId) : QJsonValue()},
        {u"run_id"_s, message.runId.isEmpty() ? QJsonValue() : QJsonValue(message.runId)},
        {u"attachments"_s, QJsonArray()},
        {u"metadata"_s, QJsonObject()},
    };
}

QJsonObject foundryAgentJson(const FoundrySimAgent &agent, qint64 createdAt)
{
    return QJsonObject{
        {u"id"_s, agent.id},
        {u"object"_s, u"assistant"_s},
        {u"created_at"_s, createdAt},
        {u"name"_s, agent.name},
        {u"description"_s, QJsonValue()},
        {u"model"_s, agent.model},
        {u"instructions"_s, agent.instructions},
        {u"tools"_s, toolDefinitionsJson()},
        {u"tool_resources"_s, QJsonObject()},
        {u"temperature"_s, 1.0},
        {u"top_p"_s, 1.0},
        {u"response_format"_s, u"auto"_s},
        {u"metadata"_s, QJsonObject()},
    };
}

QJsonObject foundryThreadJson(const QString &id, qint64 createdAt)
{
    return QJsonObject{{u"id"_s, id},
                       {u"object"_s, u"thread"_s},
                       {u"created_at"_s, createdAt},
                       {u"tool_resources"_s, QJsonObject()},
                       {u"metadata"_s, QJsonObject()}};
}

QJsonObject foundryListJson(const QJsonArray &data, bool hasMore)
{
    return QJsonObject{
        {u"object"_s, u"list"_s},
        {u"data"_s, data},
        {u"first_id"_s, data.isEmpty() ? QJsonValue() : data.first().toObject().value("id"_L1)},
        {u"last_id"_s, data.isEmpty() ? QJsonValue() : data.last().toObject().value("id"_L1)},
        {u"has_more"_s, hasMore},
    };
}

QJsonObject foundryErrorJson(const QString &code, const QString &message)
{
    return QJsonObject{{u"error"_s, QJsonObject{{u"code"_s, code},
                                                {u"message"_s, message},
                                                {u"type"_s, QJsonValue()},
                                                {u"param"_s, QJsonValue()}}}};
}

} // namespace RunwatchSim
