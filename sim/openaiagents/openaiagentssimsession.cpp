// SPDX-License-Identifier: GPL-3.0-or-later
// A simulated session's turns, played step by step: its state, the input events it takes and the
// steps as they run; what a turn's scenario plans is in openaiagentssimplan.cpp, its streams in
// openaiagentssimstream.cpp.
#include "openaiagentssimsession.h"

#include "server/simstream.h"

#include <QDateTime>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

qint64 now()
{
    return QDateTime::currentSecsSinceEpoch();
}

QJsonObject usageJson(qint64 input, qint64 output, qint64 reasoning)
{
    return QJsonObject{{u"input_tokens"_s, input},
                       {u"input_tokens_details"_s, QJsonObject{{u"cached_tokens"_s, 0}}},
                       {u"output_tokens"_s, output},
                       {u"output_tokens_details"_s, QJsonObject{{u"reasoning_tokens"_s, reasoning}}},
                       {u"total_tokens"_s, input + output}};
}

QString promptOf(const QJsonObject &event)
{
    QString text;
    for (const QJsonValue &message : event.value(u"input"_s).toArray()) {
        for (const QJsonValue &part : message.toObject().value(u"content"_s).toArray())
            text += part.toObject().value(u"text"_s).toString();
    }
    return text;
}

} // namespace

QString OpenAiAgentsSimSession::newId(QStringView prefix)
{
    static qint64 counter = 0;
    return prefix.toString() + u"68e1"_s + QString::number(++counter, 36).rightJustified(6, u'0');
}

OpenAiAgentsSimSession::OpenAiAgentsSimSession(QString id, OpenAiAgentsSimAgent agent,
                                               QJsonObject environment, QJsonObject metadata,
                                               const OpenAiAgentsSimConfig &config, QObject *parent)
    : QObject(parent)
    , m_id(std::move(id))
    , m_agent(std::move(agent))
    , m_environment(std::move(environment))
    , m_metadata(std::move(metadata))
    , m_config(config)
    , m_createdAt(now())
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &OpenAiAgentsSimSession::step);
}

OpenAiAgentsSimSession::~OpenAiAgentsSimSession() = default;

bool OpenAiAgentsSimSession::running() const
{
    return m_status == "in_progress"_L1 || m_status == "requires_action"_L1;
}

QJsonObject OpenAiAgentsSimSession::json() const
{
    return QJsonObject{
        {u"id"_s, m_id},
        {u"object"_s, u"agent.session"_s},
        {u"agent"_s, QJsonObject{{u"id"_s, m_agent.id},
                                 {u"name"_s, m_agent.name},
                                 {u"model"_s, m_agent.model},
                                 {u"instructions"_s, QJsonValue::Null},
                                 {u"tools"_s, QJsonArray()}}},
        {u"environment"_s, m_environment},
        {u"status"_s, m_status},
        {u"required_actions"_s, m_requiredActions},
        {u"usage"_s, m_turns.isEmpty() ? QJsonValue(QJsonValue::Null)
                                       : QJsonValue(usageJson(m_inputTokens, m_outputTokens, 0))},
        {u"error"_s, m_error.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(m_error)},
        {u"metadata"_s, m_metadata},
        {u"created_at"_s, m_createdAt},
        {u"last_active_at"_s, now()},
        {u"vault_ids"_s, QJsonArray()},
    };
}

QJsonObject OpenAiAgentsSimSession::turnJson(const OpenAiAgentsSimTurn &turn) const
{
    const bool over
        = turn.status == "completed"_L1 || turn.status == "failed"_L1 || turn.status == "cancelled"_L1;
    QJsonValue error = QJsonValue::Null;
    if (!turn.errorCode.isEmpty())
        error = QJsonObject{{u"code"_s, turn.errorCode}, {u"message"_s, turn.errorMessage}};
    return QJsonObject{
        {u"id"_s, turn.id},
        {u"object"_s, u"agent.session.turn"_s},
        {u"session_id"_s, m_id},
        {u"agent_id"_s, m_agent.id},
        {u"subagent_id"_s, QJsonValue::Null},
        {u"status"_s, turn.status},
        {u"created_at"_s, turn.createdAt},
        {u"started_at"_s, turn.createdAt},
        {u"completed_at"_s, over ? QJsonValue(now()) : QJsonValue(QJsonValue::Null)},
        {u"error"_s, error},
        {u"usage"_s, over ? QJsonValue(usageJson(turn.inputTokens, turn.outputTokens, turn.reasoningTokens))
                          : QJsonValue(QJsonValue::Null)},
    };
}

QJsonArray OpenAiAgentsSimSession::turnsJson() const
{
    QJsonArray turns;
    for (const OpenAiAgentsSimTurn &turn : m_turns)
        turns.append(turnJson(turn));
    return turns;
}

QJsonObject OpenAiAgentsSimSession::emitEvent(const QString &type, QJsonObject body)
{
    body.insert(u"event_id"_s, newId(u"evt_"));
    body.insert(u"type"_s, type);
    body.insert(u"session_id"_s, m_id);
    Q_EMIT eventSent(type.toUtf8(), QJsonDocument(body).toJson(QJsonDocument::Compact));
    return body;
}

QByteArray OpenAiAgentsSimSession::stateEvent() const
{
    // "Initial idle events … do not end iteration" (§1.6): a connection starts with the state.
    const QJsonObject body{{u"event_id"_s, newId(u"evt_")},
                           {u"type"_s, QString(u"agent.session."_s + m_status)},
                           {u"session_id"_s, m_id},
                           {u"session"_s, json()}};
    const QByteArray type = QByteArray("agent.session.") + m_status.toUtf8();
    return sseFrame(type, QJsonDocument(body).toJson(QJsonDocument::Compact));
}

void OpenAiAgentsSimSession::setStatus(const QString &status, const QString &error)
{
    m_status = status;
    m_error = error;
    if (status != "requires_action"_L1)
        m_requiredActions = {};
    emitEvent(u"agent.session."_s + status, QJsonObject{{u"session"_s, json()}});
    Q_EMIT statusChanged(status);
}

void OpenAiAgentsSimSession::begin(const QString &input)
{
    emitEvent(u"agent.session.created"_s, QJsonObject{{u"session"_s, json()}});
    if (!input.isEmpty())
        startTurn(input);
}

OpenAiAgentsSimTurn *OpenAiAgentsSimSession::currentTurn()
{
    return m_turns.isEmpty() ? nullptr : &m_turns.last();
}

void OpenAiAgentsSimSession::startTurn(const QString &prompt)
{
    OpenAiAgentsSimTurn turn;
    turn.id = newId(u"turn_");
    turn.prompt = prompt;
    turn.createdAt = now();
    turn.status = u"in_progress"_s;
    if (resolveOpenAiAgentsTurn(m_config, prompt, &turn.options))
        turn.options = OpenAiAgentsTurnOptions{};
    m_turns << turn;
    m_refusedOnce = false;
    m_items << QJsonObject{
        {u"id"_s, newId(u"msg_")},
        {u"type"_s, u"message"_s},
        {u"role"_s, u"user"_s},
        {u"status"_s, u"completed"_s},
        {u"phase"_s, QJsonValue::Null},
        {u"turn_id"_s, turn.id},
        {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"input_text"_s}, {u"text"_s, prompt}}}}};
    emitEvent(u"agent.session.turn.created"_s,
              QJsonObject{{u"turn"_s, turnJson(m_turns.last())}, {u"turn_id"_s, turn.id}});
    setStatus(u"in_progress"_s);
    m_plan.clear();
    planTurn(m_turns.last());
    m_timer.start(turn.options.intervalMs);
}

void OpenAiAgentsSimSession::step()
{
    if (m_plan.isEmpty() || m_deleted)
        return;
    const Step next = m_plan.takeFirst();
    next();
    if (!m_plan.isEmpty() && currentTurn())
        m_timer.start(currentTurn()->options.intervalMs);
}

void OpenAiAgentsSimSession::endTurn(const QString &status, const QString &code, const QString &message)
{
    OpenAiAgentsSimTurn *turn = currentTurn();
    if (!turn)
        return;
    m_plan.clear();
    m_timer.stop();
    const bool budget = status == "budget_reached"_L1;
    turn->status = budget ? u"failed"_s : status;
    turn->errorCode = code;
    turn->errorMessage = message;
    m_inputTokens += turn->inputTokens;
    m_outputTokens += turn->outputTokens;
    const QJsonObject usage = usageJson(turn->inputTokens, turn->outputTokens, turn->reasoningTokens);
    emitEvent(u"agent.session.turn."_s + turn->status,
              QJsonObject{{u"turn"_s, turnJson(*turn)}, {u"turn_id"_s, turn->id}, {u"usage"_s, usage}});
    const int index = int(m_turns.size()) - 1;
    if (budget) {
        // The session stops with the service's reason (§1.3): no further turn runs.
        setStatus(u"budget_reached"_s, message);
        m_queued.clear();
    } else {
        setStatus(u"idle"_s);
    }
    Q_EMIT turnEnded(index);
    if (!m_queued.isEmpty() && !budget)
        startTurn(m_queued.takeFirst());
}

void OpenAiAgentsSimSession::cancelTurn()
{
    OpenAiAgentsSimTurn *turn = currentTurn();
    if (!turn || !running())
        return; // nothing runs: accepted, nothing happens (§4)
    // Unpublished outputs are abandoned.
    for (qsizetype i = m_items.size() - 1; i >= 0; --i) {
        if (m_items.at(i).value(u"turn_id"_s).toString() == turn->id
            && m_items.at(i).value(u"status"_s).toString() == "in_progress"_L1)
            m_items[i].insert(u"status"_s, u"incomplete"_s);
    }
    endTurn(u"cancelled"_s, {}, {});
}

void OpenAiAgentsSimSession::resume(const QString &what, const QJsonObject &answer)
{
    OpenAiAgentsSimTurn *turn = currentTurn();
    turn->status = u"in_progress"_s;
    m_requiredActions = {};
    setStatus(u"in_progress"_s);
    const OpenAiAgentsTurnOptions &o = turn->options;
    if (what == "mcp"_L1) {
        const QString decision = answer.value(u"response"_s).toObject().value(u"decision"_s).toString();
        turn->decision = decision;
        const bool approved = decision == "approve"_L1;
        planItem(QJsonObject{
            {u"id"_s, newId(u"mcp_")},
            {u"type"_s, u"mcp_call"_s},
            {u"name"_s, u"delete_branch"_s},
            {u"server_label"_s, u"github"_s},
            {u"arguments"_s, QJsonObject{{u"branch"_s, u"old-feature"_s}}},
            {u"output"_s, approved ? QJsonValue(u"deleted"_s) : QJsonValue(QJsonValue::Null)},
            {u"error"_s, approved ? QJsonValue(QJsonValue::Null) : QJsonValue(u"denied by the user"_s)},
            {u"status"_s, approved ? u"completed"_s : u"failed"_s}});
        QStringList deltas{approved ? u"Approved. "_s : u"Denied. "_s};
        deltas << deltasOf(o, 0, 2);
        planAnswer(deltas);
    } else if (what == "tool"_L1) {
        // output: a string, or input content parts (their text).
        const QJsonValue value = answer.value(u"output"_s);
        QString output = value.toString();
        for (const QJsonValue &part : value.toArray())
            output += part.toObject().value(u"text"_s).toString();
        if (!answer.value(u"success"_s).toBool(true))
            output = u"(error) "_s + answer.value(u"error"_s).toString();
        turn->toolOutput = output;
        planItem(QJsonObject{{u"id"_s, newId(u"fco_")},
                             {u"type"_s, u"function_call_output"_s},
                             {u"call_id"_s, answer.value(u"call_id"_s)},
                             {u"output"_s, output},
                             {u"status"_s, u"completed"_s}});
        planAnswer({u"The order says: "_s, output});
    } else {
        const QJsonObject response = answer.value(u"response"_s).toObject();
        turn->decision = response.value(u"action"_s).toString();
        QString user;
        for (const QJsonValue &field : response.value(u"fields"_s).toArray()) {
            if (field.toObject().value(u"field_id"_s).toString() == "username"_L1)
                user = field.toObject().value(u"value"_s).toString();
        }
        turn->toolOutput = user;
        planAnswer(turn->decision == "submit"_L1 ? QStringList{u"Signed in as "_s, QString(user + u"."_s)}
                                                 : QStringList{u"Sign-in cancelled."_s});
    }
    planEnd(u"completed"_s);
    m_timer.start(o.intervalMs);
}

OpenAiAgentsSimSession::Sent OpenAiAgentsSimSession::send(const QJsonArray &events,
                                                          const QByteArray &idempotencyKey)
{
    if (!idempotencyKey.isEmpty() && m_keys.contains(idempotencyKey))
        return {};
    // Checked as a whole first: a refused submit changes nothing.
    for (const QJsonValue &value : events) {
        const QJsonObject event = value.toObject();
        const QString type = event.value(u"type"_s).toString();
        if (type == "agent.session.input.message"_L1) {
            if (promptOf(event).isEmpty())
                return {400, u"invalid_request_error"_s, u"input: a message needs input_text content"_s};
            if (m_status == "budget_reached"_L1 || m_status == "failed"_L1) {
                return {409, u"session_not_active"_s,
                        u"The session is %1 and takes no input."_s.arg(m_status)};
            }
        } else if (type == "agent.session.input.cancel"_L1) {
            // Always taken: on an idle session it does nothing (§4).
        } else if (type == "agent.session.input.tool_result"_L1
                   || type == "agent.session.input.mcp_approval_request_result"_L1
                   || type == "agent.session.input.computer_use_approval_request_result"_L1) {
            const bool tool = type == "agent.session.input.tool_result"_L1;
            const QString id = event.value(tool ? u"call_id"_s : u"request_id"_s).toString();
            bool pending = false;
            for (const QJsonValue &action : std::as_const(m_requiredActions)) {
                const QJsonObject a = action.toObject();
                pending = pending || a.value(u"call_id"_s).toString() == id
                          || a.value(u"request_id"_s).toString() == id;
            }
            if (tool
                && (!pending || (currentTurn() && currentTurn()->options.unregistered && !m_refusedOnce))) {
                m_refusedOnce = true;
                return {400, u"invalid_request_error"_s, u"Unknown pending tool call: %1"_s.arg(id)};
            }
            if (!pending)
                return {400, u"invalid_request_error"_s, u"Unknown pending request: %1"_s.arg(id)};
        } else {
            return {400, u"invalid_request_error"_s, u"events: unknown input event type '%1'"_s.arg(type)};
        }
    }
    if (!idempotencyKey.isEmpty())
        m_keys.insert(idempotencyKey);
    for (const QJsonValue &value : events) {
        const QJsonObject event = value.toObject();
        const QString type = event.value(u"type"_s).toString();
        if (type == "agent.session.input.message"_L1) {
            if (running()) {
                m_queued << promptOf(event); // the next turn
            } else {
                startTurn(promptOf(event));
            }
        } else if (type == "agent.session.input.cancel"_L1) {
            cancelTurn();
        } else if (type == "agent.session.input.tool_result"_L1) {
            resume(u"tool"_s, event);
        } else if (type == "agent.session.input.mcp_approval_request_result"_L1) {
            resume(u"mcp"_s, event);
        } else {
            resume(u"form"_s, event);
        }
    }
    return {};
}

void OpenAiAgentsSimSession::remove()
{
    m_deleted = true;
    m_timer.stop();
    m_plan.clear();
    Q_EMIT deleted();
}

} // namespace RunwatchSim
