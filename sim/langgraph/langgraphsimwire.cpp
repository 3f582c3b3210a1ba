// SPDX-License-Identifier: GPL-3.0-or-later
// What the LangGraph simulator puts on the wire: frames, assistants, threads, state, runs and
// messages, field by field as the real server's transcripts (tests/data/langgraph/) show them.
#include "langgraphsimwire.h"

#include "langgraphsimrun.h"

#include <QDateTime>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

QByteArray langGraphFrame(QByteArrayView event, QByteArrayView data, qint64 id)
{
    QByteArray frame;
    frame.reserve(event.size() + data.size() + 32);
    frame.append("event: ").append(event).append('\n');
    frame.append("data: ").append(data).append('\n');
    if (id >= 0)
        frame.append("id: ").append(QByteArray::number(id)).append('\n');
    frame.append('\n');
    return frame;
}

QString langGraphTime(qint64 epochMs)
{
    return QDateTime::fromMSecsSinceEpoch(epochMs).toUTC().toString(Qt::ISODateWithMs);
}

QJsonObject langGraphInfoJson(const QString &version)
{
    return QJsonObject{
        {u"version"_s, version},
        {u"context"_s, u"js"_s},
        {u"flags"_s, QJsonObject{{u"assistants"_s, true},
                                 {u"crons"_s, false},
                                 {u"langsmith"_s, false},
                                 {u"langsmith_tracing_replicas"_s, true}}},
    };
}

QJsonObject langGraphAssistantJson(LangGraphGraph graph, qint64 createdMs)
{
    const QString name = langGraphGraphName(graph);
    return QJsonObject{
        {u"assistant_id"_s, langGraphAssistantId(graph).toString(QUuid::WithoutBraces)},
        {u"graph_id"_s, name},
        {u"name"_s, name},
        {u"description"_s, QJsonValue()},
        {u"version"_s, 1},
        {u"config"_s, QJsonObject()},
        {u"context"_s, QJsonObject()},
        {u"metadata"_s, QJsonObject{{u"created_by"_s, u"system"_s}}},
        {u"created_at"_s, langGraphTime(createdMs)},
        {u"updated_at"_s, langGraphTime(createdMs)},
    };
}

namespace {

QJsonObject aiBase(const QString &id, const QString &text)
{
    return QJsonObject{
        {u"content"_s, text},
        {u"additional_kwargs"_s, QJsonObject()},
        {u"response_metadata"_s, QJsonObject()},
        {u"tool_calls"_s, QJsonArray()},
        {u"invalid_tool_calls"_s, QJsonArray()},
        {u"id"_s, id},
        {u"type"_s, u"ai"_s},
    };
}

QJsonArray interruptsJson(const QList<LangGraphSimInterrupt> &interrupts)
{
    QJsonArray array;
    for (const LangGraphSimInterrupt &interrupt : interrupts)
        array.append(QJsonObject{{u"id"_s, interrupt.id}, {u"value"_s, interrupt.value}});
    return array;
}

QJsonValue checkpointJson(const LangGraphSimThread &thread, const QString &checkpointId)
{
    if (checkpointId.isEmpty())
        return QJsonValue();
    return QJsonObject{
        {u"thread_id"_s, thread.id},
        {u"checkpoint_id"_s, checkpointId},
        {u"checkpoint_ns"_s, u""_s},
        {u"checkpoint_map"_s, QJsonValue()},
    };
}

} // namespace

QString langGraphJsonText(const QJsonValue &value)
{
    const QByteArray array = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(array.mid(1, array.size() - 2));
}

QJsonObject langGraphHitlRequest()
{
    const auto request = [](const QString &name, const QJsonObject &args, const QString &description) {
        return QJsonObject{{u"name"_s, name}, {u"args"_s, args}, {u"description"_s, description}};
    };
    const auto config = [](const QString &name, const QJsonArray &decisions) {
        return QJsonObject{{u"action_name"_s, name}, {u"allowed_decisions"_s, decisions}};
    };
    return QJsonObject{
        {u"action_requests"_s,
         QJsonArray{request(u"send_email"_s,
                            QJsonObject{{u"to"_s, u"ops@example.com"_s}, {u"subject"_s, u"Report"_s}},
                            u"Send the report"_s),
                    request(u"delete_file"_s, QJsonObject{{u"path"_s, u"/tmp/x"_s}}, u"Remove the draft"_s)}},
        {u"review_configs"_s,
         QJsonArray{config(u"send_email"_s, QJsonArray{u"approve"_s, u"edit"_s, u"reject"_s}),
                    config(u"delete_file"_s, QJsonArray{u"approve"_s, u"reject"_s})}},
    };
}

QJsonObject langGraphAiChunk(const QString &id, const QString &text)
{
    QJsonObject chunk = aiBase(id, text);
    chunk.insert(u"tool_call_chunks"_s, QJsonArray());
    return chunk;
}

QJsonObject langGraphAiUpdate(const QString &id, const QString &text)
{
    // The same fields as a chunk, in another order on the real server: JSON order is no contract.
    return langGraphAiChunk(id, text);
}

QJsonObject langGraphAiMessage(const QString &id, const QString &text)
{
    return aiBase(id, text);
}

QJsonObject langGraphInputMessage(const QString &type, const QJsonValue &content, const QString &id)
{
    if (type == "ai"_L1) {
        QJsonObject message = aiBase(id, QString());
        message.insert(u"content"_s, content);
        return message;
    }
    return QJsonObject{
        {u"content"_s, content},
        {u"additional_kwargs"_s, QJsonObject()},
        {u"response_metadata"_s, QJsonObject()},
        {u"id"_s, id},
        {u"type"_s, type},
    };
}

QString langGraphContentText(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    QString text;
    for (const QJsonValue &block : content.toArray()) {
        if (block.isString()) {
            text += block.toString();
        } else {
            text += block.toObject().value("text"_L1).toString();
        }
    }
    return text;
}

QJsonObject langGraphThreadJson(const LangGraphSimThread &thread)
{
    QJsonObject json{
        {u"thread_id"_s, thread.id},
        {u"created_at"_s, langGraphTime(thread.createdMs)},
        {u"updated_at"_s, langGraphTime(thread.updatedMs)},
        {u"metadata"_s, thread.metadata},
        {u"status"_s, thread.status},
        {u"config"_s, thread.config},
    };
    // The real server leaves both out while a run executes, and after a cancel.
    if (thread.status != "busy"_L1 && thread.valuesShown) {
        json.insert(u"values"_s, QJsonObject{{u"messages"_s, thread.messages}});
        QJsonObject interrupts;
        // A failed task is listed with no interrupts: {task_id: []}.
        if (thread.task && (thread.status == "interrupted"_L1 || thread.status == "error"_L1))
            interrupts.insert(thread.task->id, interruptsJson(thread.task->interrupts));
        json.insert(u"interrupts"_s, interrupts);
    }
    return json;
}

QJsonObject langGraphStateJson(const LangGraphSimThread &thread)
{
    if (thread.step < 0) {
        return QJsonObject{
            {u"values"_s, QJsonObject()},    {u"next"_s, QJsonArray()},
            {u"tasks"_s, QJsonArray()},      {u"created_at"_s, QJsonValue()},
            {u"checkpoint"_s, QJsonValue()}, {u"parent_checkpoint"_s, QJsonValue()},
        };
    }
    QJsonArray next;
    QJsonArray tasks;
    if (thread.task) {
        const LangGraphSimTask &task = *thread.task;
        next.append(task.node);
        tasks.append(QJsonObject{
            {u"id"_s, task.id},
            {u"name"_s, task.node},
            {u"error"_s, task.error.isEmpty() ? QJsonValue() : QJsonValue(task.error)},
            {u"interrupts"_s, interruptsJson(task.interrupts)},
            {u"path"_s, QJsonArray{u"__pregel_pull"_s, task.node}},
            {u"checkpoint"_s, QJsonValue()},
            {u"state"_s, QJsonValue()},
            {u"result"_s, QJsonValue()},
        });
    }
    return QJsonObject{
        {u"values"_s, QJsonObject{{u"messages"_s, thread.messages}}},
        {u"next"_s, next},
        {u"tasks"_s, tasks},
        {u"metadata"_s, thread.checkpointMetadata},
        {u"created_at"_s, langGraphTime(thread.checkpointMs)},
        {u"checkpoint"_s, checkpointJson(thread, thread.checkpointId)},
        {u"parent_checkpoint"_s, checkpointJson(thread, thread.parentCheckpointId)},
    };
}

QJsonObject LangGraphSimRun::tupleMetadata(const QString &node) const
{
    QJsonObject metadata = m_params.metadata;
    const QString ns = node + u':' + (m_thread->task ? m_thread->task->id : QString());
    metadata.insert(u"tags"_s, QJsonArray());
    metadata.insert(u"ls_integration"_s, u"langchain_chat_model"_s);
    metadata.insert(u"run_attempt"_s, 1);
    metadata.insert(u"langgraph_version"_s, u"0.0.0"_s);
    metadata.insert(u"langgraph_plan"_s, u"developer"_s);
    metadata.insert(u"langgraph_host"_s, u"self-hosted"_s);
    metadata.insert(u"thread_id"_s, m_params.threadId);
    metadata.insert(u"run_id"_s, m_id);
    metadata.insert(u"langgraph_step"_s, m_langgraphStep);
    metadata.insert(u"langgraph_node"_s, node);
    metadata.insert(u"langgraph_triggers"_s, QJsonArray{QString(u"branch:to:"_s + node)});
    metadata.insert(u"langgraph_path"_s, QJsonArray{u"__pregel_pull"_s, node});
    metadata.insert(u"langgraph_checkpoint_ns"_s, ns);
    metadata.insert(u"checkpoint_ns"_s, ns);
    metadata.insert(u"ls_model_type"_s, u"chat"_s);
    metadata.insert(u"ls_provider"_s, u"runwatch"_s);
    metadata.insert(u"ls_model_name"_s, u"scripted"_s);
    metadata.insert(u"versions"_s, QJsonObject{{u"@langchain/core"_s, u"1.4.0"_s}});
    return metadata;
}

QJsonObject LangGraphSimRun::checkpointMetadata(const QString &source, int step) const
{
    QJsonObject metadata = m_params.metadata;
    if (!m_params.userAgent.isEmpty())
        metadata.insert(u"user-agent"_s, m_params.userAgent);
    metadata.insert(u"ls_integration"_s, u"langgraph"_s);
    metadata.insert(u"run_attempt"_s, 1);
    metadata.insert(u"langgraph_version"_s, u"0.0.0"_s);
    metadata.insert(u"langgraph_plan"_s, u"developer"_s);
    metadata.insert(u"langgraph_host"_s, u"self-hosted"_s);
    metadata.insert(u"thread_id"_s, m_params.threadId);
    metadata.insert(u"run_id"_s, m_id);
    metadata.insert(u"source"_s, source);
    metadata.insert(u"step"_s, step);
    metadata.insert(u"parents"_s, QJsonObject());
    return metadata;
}

QJsonObject LangGraphSimRun::json() const
{
    return QJsonObject{
        {u"run_id"_s, m_id},
        {u"thread_id"_s, m_params.threadId},
        {u"assistant_id"_s, m_params.assistantId},
        {u"metadata"_s, m_params.metadata},
        {u"status"_s, statusName()},
        {u"kwargs"_s, m_params.kwargs},
        {u"multitask_strategy"_s, u"reject"_s},
        {u"created_at"_s, langGraphTime(m_createdMs)},
        {u"updated_at"_s, langGraphTime(m_updatedMs)},
    };
}

} // namespace RunwatchSim
