// SPDX-License-Identifier: GPL-3.0-or-later
#include "claudeagentssimrun.h"

#include "claudeagentssimwire.h"
#include "server/simserver.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

QJsonArray textContent(const QString &text)
{
    return QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}}};
}

QString textOf(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    QString text;
    for (const QJsonValue &block : content.toArray())
        text += block.toObject().value(u"text"_s).toString();
    return text;
}

} // namespace

ClaudeAgentsSimSession::ClaudeAgentsSimSession(QString id, ClaudeAgentsSimAgent agent, QString environmentId,
                                               QString title, QJsonObject metadata,
                                               const ClaudeAgentsSimConfig &config, QObject *parent)
    : QObject(parent)
    , m_id(std::move(id))
    , m_agent(std::move(agent))
    , m_environmentId(std::move(environmentId))
    , m_title(std::move(title))
    , m_metadata(std::move(metadata))
    , m_config(config)
    , m_created(claudeAgentsNow())
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ClaudeAgentsSimSession::step);
}

ClaudeAgentsSimSession::~ClaudeAgentsSimSession() = default;

QJsonObject ClaudeAgentsSimSession::json() const
{
    QJsonObject agent = claudeAgentsAgentJson(m_agent);
    return {
        {u"id"_s, m_id},
        {u"type"_s, u"session"_s},
        {u"agent"_s, agent},
        {u"environment_id"_s, m_environmentId},
        {u"status"_s, m_status},
        {u"title"_s, m_title.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(m_title)},
        {u"metadata"_s, m_metadata},
        {u"usage"_s, QJsonObject{{u"input_tokens"_s, m_inputTokens}, {u"output_tokens"_s, m_outputTokens}}},
        {u"stats"_s, QJsonObject{{u"active_seconds"_s, 0}, {u"duration_seconds"_s, 0}}},
        {u"resources"_s, QJsonArray()},
        {u"vault_ids"_s, QJsonArray()},
        {u"created_at"_s, m_created},
        {u"updated_at"_s, claudeAgentsNow()},
        {u"archived_at"_s, QJsonValue::Null}};
}

QString ClaudeAgentsSimSession::save(QJsonObject event, QString id)
{
    if (id.isEmpty())
        id = newClaudeAgentsId(u"sevt_");
    event.insert(u"id"_s, id);
    event.insert(u"processed_at"_s, claudeAgentsNow());
    m_log.append(event);
    Q_EMIT frame(event.value(u"type"_s).toString().toUtf8(), compactJson(event), false);
    return id;
}

void ClaudeAgentsSimSession::preview(const QJsonObject &body)
{
    Q_EMIT frame(body.value(u"type"_s).toString().toUtf8(), compactJson(body), true);
}

void ClaudeAgentsSimSession::setStatus(const QString &status)
{
    if (status == m_status)
        return;
    m_status = status;
    Q_EMIT statusChanged(status);
}

ClaudeAgentsSimTurn *ClaudeAgentsSimSession::currentTurn()
{
    return m_turns.isEmpty() ? nullptr : &m_turns.last();
}

ClaudeAgentsSimSession::Sent ClaudeAgentsSimSession::send(const QJsonArray &events)
{
    Sent sent;
    const auto refuse = [&sent](const QString &message) {
        sent.status = 400;
        sent.message = message;
        return sent;
    };
    if (m_deleted)
        return refuse(u"The session was deleted."_s);
    if (events.isEmpty())
        return refuse(u"events: at least one event is required"_s);
    // Checked whole first: a refused request applies nothing.
    QStringList answering = m_pending;
    for (const QJsonValue &value : events) {
        const QJsonObject event = value.toObject();
        const QString type = event.value(u"type"_s).toString();
        if (type == "user.message"_L1) {
            if (!event.value(u"content"_s).isArray() && !event.value(u"content"_s).isString())
                return refuse(u"user.message: content is required"_s);
            if (!m_pending.isEmpty()) // [guessed] (agent-sessions.md §4)
                return refuse(u"The session is waiting for tool confirmations or results."_s);
            ClaudeAgentsTurnOptions options;
            if (const auto error = resolveTurnOptions(m_config, textOf(event.value(u"content"_s)), &options))
                return refuse(error->message);
        } else if (type == "user.interrupt"_L1) {
        } else if (type == "user.tool_confirmation"_L1) {
            const QString id = event.value(u"tool_use_id"_s).toString();
            const QString result = event.value(u"result"_s).toString();
            if (!answering.removeOne(id))
                return refuse(u"tool_use_id %1 does not await a confirmation"_s.arg(id));
            if (result != "allow"_L1 && result != "deny"_L1)
                return refuse(u"result: expected allow or deny"_s);
            if (result == "allow"_L1 && event.contains(u"deny_message"_s))
                return refuse(u"deny_message: only with result deny"_s);
        } else if (type == "user.custom_tool_result"_L1) {
            const QString id = event.value(u"custom_tool_use_id"_s).toString();
            if (!answering.removeOne(id))
                return refuse(u"custom_tool_use_id %1 does not await a result"_s.arg(id));
        } else {
            return refuse(u"events: unsupported event type %1"_s.arg(type));
        }
    }
    QJsonArray echoed;
    for (const QJsonValue &value : events) {
        QJsonObject event = value.toObject();
        const QString type = event.value(u"type"_s).toString();
        const QString id = save(event);
        event.insert(u"id"_s, id);
        event.insert(u"processed_at"_s, m_log.last().toObject().value(u"processed_at"_s));
        echoed.append(event);
        if (type == "user.message"_L1) {
            event.insert(u"id"_s, id);
            if (m_status == "idle"_L1 && m_plan.isEmpty()) {
                startTurn(event);
            } else {
                m_queued << event;
            }
        } else if (type == "user.interrupt"_L1) {
            interrupt();
        } else {
            m_pending.removeAll(type == "user.tool_confirmation"_L1
                                    ? event.value(u"tool_use_id"_s).toString()
                                    : event.value(u"custom_tool_use_id"_s).toString());
            planAfterAnswer(event);
        }
    }
    sent.reply = QJsonObject{{u"data"_s, echoed}};
    return sent;
}

void ClaudeAgentsSimSession::remove()
{
    m_deletedWhileRunning = m_status == "running"_L1 || m_status == "rescheduling"_L1;
    m_deleted = true;
    m_timer.stop();
    m_plan.clear();
    save(QJsonObject{{u"type"_s, u"session.deleted"_s}});
    Q_EMIT deleted();
}

QStringList ClaudeAgentsSimSession::deltasOf(const ClaudeAgentsTurnOptions &options, int from,
                                             int count) const
{
    QStringList deltas;
    for (int i = from; i < from + count; ++i)
        deltas << claudeAgentsDeltaText(i, options.replyWords);
    return deltas;
}

void ClaudeAgentsSimSession::startTurn(const QJsonObject &message)
{
    ClaudeAgentsSimTurn turn;
    turn.messageId = message.value(u"id"_s).toString();
    turn.prompt = textOf(message.value(u"content"_s));
    resolveTurnOptions(m_config, turn.prompt, &turn.options);
    m_turns << turn;
    m_plan.clear();
    m_plan << [this] {
        setStatus(u"running"_s);
        save(QJsonObject{{u"type"_s, u"session.status_running"_s}});
    };
    planTurn(m_turns.last());
    m_timer.start(0);
}

void ClaudeAgentsSimSession::planRequest(const QString &text, const QStringList &deltas, bool cut)
{
    m_plan << [this] {
        m_openRequest = save(QJsonObject{{u"type"_s, u"span.model_request_start"_s}});
        m_openMessage = newClaudeAgentsId(u"sevt_");
        preview(QJsonObject{
            {u"type"_s, u"event_start"_s},
            {u"event"_s, QJsonObject{{u"type"_s, u"agent.message"_s}, {u"id"_s, m_openMessage}}}});
    };
    for (const QString &delta : deltas) {
        m_plan << [this, delta] {
            preview(QJsonObject{{u"type"_s, u"event_delta"_s},
                                {u"event_id"_s, m_openMessage},
                                {u"delta"_s, QJsonObject{{u"type"_s, u"content_delta"_s},
                                                         {u"index"_s, 0},
                                                         {u"content"_s, QJsonObject{{u"type"_s, u"text"_s},
                                                                                    {u"text"_s, delta}}}}}});
        };
    }
    const qint64 output = deltas.size();
    m_plan << [this, text, cut, output] {
        if (!cut) {
            save(QJsonObject{{u"type"_s, u"agent.message"_s}, {u"content"_s, textContent(text)}},
                 m_openMessage);
            if (ClaudeAgentsSimTurn *turn = currentTurn())
                turn->outputs << text;
        }
        const qint64 input = 40 + text.size() % 17;
        m_inputTokens += input;
        m_outputTokens += output;
        save(QJsonObject{{u"type"_s, u"span.model_request_end"_s},
                         {u"model_request_start_id"_s, m_openRequest},
                         {u"is_error"_s, cut},
                         {u"model_usage"_s, QJsonObject{{u"input_tokens"_s, input},
                                                        {u"output_tokens"_s, output},
                                                        {u"cache_creation_input_tokens"_s, 0},
                                                        {u"cache_read_input_tokens"_s, 0}}}});
        m_openRequest.clear();
        m_openMessage.clear();
    };
}

void ClaudeAgentsSimSession::planIdle(const QString &reason, const QJsonArray &eventIds)
{
    m_plan << [this, reason, eventIds] {
        QJsonObject stop{{u"type"_s, reason}};
        if (reason == "requires_action"_L1) {
            stop.insert(u"event_ids"_s, eventIds);
            m_pending.clear();
            for (const QJsonValue &id : eventIds)
                m_pending << id.toString();
        }
        setStatus(u"idle"_s);
        save(QJsonObject{{u"type"_s, u"session.status_idle"_s},
                         {u"stop_reason"_s, stop},
                         {u"stop_details"_s, QJsonValue::Null}});
        if (reason != "requires_action"_L1)
            endTurn(reason);
    };
}

void ClaudeAgentsSimSession::planTurn(ClaudeAgentsSimTurn &turn)
{
    const ClaudeAgentsTurnOptions &o = turn.options;
    const QStringList all = deltasOf(o, 0, o.deltas);
    const QString answer = all.join(QString());
    switch (o.scenario) {
    case ClaudeAgentsScenario::Normal:
    case ClaudeAgentsScenario::Long: {
        // The deltas over `messages` model requests, each saving its part.
        const int parts = std::min<int>(o.messages, int(all.size()));
        qsizetype from = 0;
        for (int i = 0; i < parts; ++i) {
            const qsizetype count = (all.size() - from) / (parts - i);
            const QStringList chunk = all.mid(from, count);
            planRequest(chunk.join(QString()), chunk);
            from += count;
        }
        planIdle(u"end_turn"_s);
        break;
    }
    case ClaudeAgentsScenario::Think: {
        m_plan << [this] { save(QJsonObject{{u"type"_s, u"agent.thinking"_s}}); };
        planRequest(u"Let me look that up."_s, {u"Let me "_s, u"look that up."_s});
        m_plan << [this, prompt = turn.prompt] {
            const QString use = save(QJsonObject{{u"type"_s, u"agent.tool_use"_s},
                                                 {u"name"_s, u"web_search"_s},
                                                 {u"input"_s, QJsonObject{{u"query"_s, prompt.left(60)}}},
                                                 {u"evaluated_permission"_s, u"allow"_s}});
            save(QJsonObject{{u"type"_s, u"agent.tool_result"_s},
                             {u"tool_use_id"_s, use},
                             {u"content"_s, textContent(u"3 results"_s)},
                             {u"is_error"_s, false}});
        };
        planRequest(answer, all);
        planIdle(u"end_turn"_s);
        break;
    }
    case ClaudeAgentsScenario::Confirm:
        planRequest(u"I need to run a command."_s, {u"I need to "_s, u"run a command."_s});
        m_plan << [this] {
            const QString use = save(QJsonObject{{u"type"_s, u"agent.tool_use"_s},
                                                 {u"name"_s, u"bash"_s},
                                                 {u"input"_s, QJsonObject{{u"command"_s, u"ls -la"_s}}},
                                                 {u"evaluated_permission"_s, u"ask"_s}});
            m_plan.prepend([this, use] {
                setStatus(u"idle"_s);
                m_pending = QStringList{use};
                save(QJsonObject{{u"type"_s, u"session.status_idle"_s},
                                 {u"stop_reason"_s, QJsonObject{{u"type"_s, u"requires_action"_s},
                                                                {u"event_ids"_s, QJsonArray{use}}}},
                                 {u"stop_details"_s, QJsonValue::Null}});
            });
        };
        break;
    case ClaudeAgentsScenario::Custom:
        m_plan << [this] {
            const QString use = save(QJsonObject{{u"type"_s, u"agent.custom_tool_use"_s},
                                                 {u"name"_s, u"lookup_order"_s},
                                                 {u"input"_s, QJsonObject{{u"order_id"_s, u"1234"_s}}}});
            m_plan.prepend([this, use] {
                setStatus(u"idle"_s);
                m_pending = QStringList{use};
                save(QJsonObject{{u"type"_s, u"session.status_idle"_s},
                                 {u"stop_reason"_s, QJsonObject{{u"type"_s, u"requires_action"_s},
                                                                {u"event_ids"_s, QJsonArray{use}}}},
                                 {u"stop_details"_s, QJsonValue::Null}});
            });
        };
        break;
    case ClaudeAgentsScenario::Fail:
    case ClaudeAgentsScenario::Flaky: {
        const bool fail = o.scenario == ClaudeAgentsScenario::Fail;
        planRequest({}, all.mid(0, std::max<qsizetype>(1, all.size() / 2)), true);
        m_plan << [this] {
            save(QJsonObject{
                {u"type"_s, u"session.error"_s},
                {u"error"_s, QJsonObject{{u"type"_s, u"model_overloaded_error"_s},
                                         {u"message"_s, u"The model is overloaded."_s},
                                         {u"retry_status"_s, QJsonObject{{u"type"_s, u"retrying"_s}}}}}});
            setStatus(u"rescheduling"_s);
            save(QJsonObject{{u"type"_s, u"session.status_rescheduled"_s}});
        };
        m_plan << [this] {
            setStatus(u"running"_s);
            save(QJsonObject{{u"type"_s, u"session.status_running"_s}});
        };
        if (fail) {
            m_plan << [this] {
                save(QJsonObject{
                    {u"type"_s, u"session.error"_s},
                    {u"error"_s,
                     QJsonObject{{u"type"_s, u"model_overloaded_error"_s},
                                 {u"message"_s, u"The model is overloaded; retries exhausted."_s},
                                 {u"retry_status"_s, QJsonObject{{u"type"_s, u"exhausted"_s}}}}}});
            };
            planIdle(u"retries_exhausted"_s);
        } else {
            planRequest(answer, all);
            planIdle(u"end_turn"_s);
        }
        break;
    }
    }
}

void ClaudeAgentsSimSession::planAfterAnswer(const QJsonObject &answer)
{
    ClaudeAgentsSimTurn *turn = currentTurn();
    if (!turn || !m_pending.isEmpty())
        return;
    const ClaudeAgentsTurnOptions &o = turn->options;
    const QStringList all = deltasOf(o, 0, o.deltas);
    m_plan << [this] {
        setStatus(u"running"_s);
        save(QJsonObject{{u"type"_s, u"session.status_running"_s}});
    };
    const QString type = answer.value(u"type"_s).toString();
    QStringList deltas;
    if (type == "user.tool_confirmation"_L1) {
        const QString use = answer.value(u"tool_use_id"_s).toString();
        const bool allowed = answer.value(u"result"_s).toString() == "allow"_L1;
        const QString denial = answer.value(u"deny_message"_s).toString();
        turn->denyMessage = denial;
        m_plan << [this, use, allowed, denial] {
            save(QJsonObject{{u"type"_s, u"agent.tool_result"_s},
                             {u"tool_use_id"_s, use},
                             {u"content"_s, textContent(allowed ? u"total 2\nREADME.md"_s
                                                                : u"Denied by the user: "_s + denial)},
                             {u"is_error"_s, !allowed}});
        };
        deltas << (allowed ? u"It ran. "_s : u"Understood, I did not run it (%1). "_s.arg(denial));
    } else {
        const QString result = textOf(answer.value(u"content"_s));
        turn->toolResult = result;
        deltas << u"The order says: %1. "_s.arg(result);
    }
    deltas << all;
    planRequest(deltas.join(QString()), deltas);
    planIdle(u"end_turn"_s);
    m_timer.start(0);
}

void ClaudeAgentsSimSession::step()
{
    if (m_plan.isEmpty())
        return;
    const Step next = m_plan.takeFirst();
    next();
    if (!m_plan.isEmpty() && m_pending.isEmpty()) {
        const ClaudeAgentsSimTurn *turn = currentTurn();
        m_timer.start(turn ? turn->options.intervalMs : m_config.intervalMs);
    }
}

void ClaudeAgentsSimSession::endTurn(const QString &reason)
{
    if (ClaudeAgentsSimTurn *turn = currentTurn()) {
        turn->stopReason = reason;
        Q_EMIT turnEnded(int(m_turns.size() - 1));
    }
    m_pending.clear();
    if (!m_queued.isEmpty())
        startTurn(m_queued.takeFirst());
}

void ClaudeAgentsSimSession::interrupt()
{
    ClaudeAgentsSimTurn *turn = currentTurn();
    if (!turn || !turn->stopReason.isEmpty())
        return; // nothing runs: the interrupt does nothing
    turn->interrupted = true;
    m_timer.stop();
    m_plan.clear();
    m_pending.clear();
    // The request in flight ends without saving what it previewed (§2.6).
    if (!m_openRequest.isEmpty()) {
        save(QJsonObject{{u"type"_s, u"span.model_request_end"_s},
                         {u"model_request_start_id"_s, m_openRequest},
                         {u"is_error"_s, false},
                         {u"model_usage"_s, QJsonObject{{u"input_tokens"_s, 40}, {u"output_tokens"_s, 0}}}});
        m_openRequest.clear();
        m_openMessage.clear();
    }
    // The types have no stop reason of their own for an interrupt (agent-sessions.md §4).
    planIdle(u"end_turn"_s);
    m_timer.start(0);
}

} // namespace RunwatchSim
