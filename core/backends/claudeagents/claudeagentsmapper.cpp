// SPDX-License-Identifier: GPL-3.0-or-later
// The table of Claude Managed Agents' events (agent-sessions.md §2.4–2.6) in the session/turn
// model's terms, and the answers a turn waits for.
#include "claudeagentsmapper.h"

#include "backends/agentsessions/sessiongate.h"

#include <QCoreApplication>
#include <QJsonDocument>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch::ClaudeAgents {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "ClaudeAgentsConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(ClaudeAgentsConnector)
};

using AgentSessions::SessionEvent;
using Kind = SessionEvent::Kind;

// A tool's input or result is shown as its JSON, cut here: the timeline is for reading.
constexpr qsizetype kMaxShown = 4000;

QString shown(QString text)
{
    if (text.size() > kMaxShown)
        text = text.left(kMaxShown) + u"…"_s;
    return text;
}

QString compactJson(const QJsonValue &value)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    if (value.isString())
        return value.toString();
    return {};
}

// A token count: a missing, negative, fractional or non-number one is "not reported".
qint64 countOf(const QJsonValue &value)
{
    const qint64 n = value.isDouble() ? value.toInteger(-1) : -1;
    return n >= 0 ? n : -1;
}

// A span's model_usage: the input is what the request read, cached or not (Runwatch counts input
// as one figure, as the Messages API bills it); output as reported.
TokenUsage usageOf(const QJsonObject &usage)
{
    TokenUsage u;
    qint64 input = countOf(usage.value(u"input_tokens"_s));
    for (const auto key : {"cache_read_input_tokens"_L1, "cache_creation_input_tokens"_L1}) {
        const qint64 n = countOf(usage.value(key));
        if (n > 0)
            input = std::max<qint64>(input, 0) + n;
    }
    u.inputTokens = input;
    u.outputTokens = countOf(usage.value(u"output_tokens"_s));
    return u;
}

SessionEvent toolCall(const QJsonObject &event, const QString &type)
{
    SessionEvent e;
    e.id = event.value(u"id"_s).toString();
    ToolCallRequest call;
    call.id = e.id;
    call.name = event.value(u"name"_s).toString();
    call.arguments = compactJson(event.value(u"input"_s));
    call.serverLabel = event.value(u"mcp_server_name"_s).toString();
    e.itemKind = SecondaryKind::ToolCall;
    e.title = call.name.isEmpty() ? type : call.name;
    e.text = shown(toolCallText(call.name, call.arguments));
    if (type == "agent.custom_tool_use"_L1) {
        // The session waits for its result (user.custom_tool_result), whoever gives it.
        e.kind = Kind::Call;
        e.call = call;
    } else if (event.value(u"evaluated_permission"_s).toString() == "ask"_L1) {
        // Held for the client's confirmation (user.tool_confirmation: allow, or deny with a
        // message the agent reads).
        call.approval = true;
        call.reasonOnReject = true;
        e.kind = Kind::Call;
        e.call = call;
    } else {
        e.kind = Kind::Item;
    }
    return e;
}

SessionEvent idle(const QJsonObject &event)
{
    SessionEvent e;
    e.id = event.value(u"id"_s).toString();
    const QJsonObject stop = event.value(u"stop_reason"_s).toObject();
    const QString reason = stop.value(u"type"_s).toString();
    e.raw = reason.isEmpty() ? u"idle"_s : reason;
    if (reason == "requires_action"_L1) {
        e.kind = Kind::Waiting;
        for (const QJsonValue &id : stop.value(u"event_ids"_s).toArray()) {
            if (id.isString())
                e.ids << id.toString();
        }
        return e;
    }
    // Every other stop reason ends the turn, one newer than this table too (the SDK's endsTurn).
    e.kind = Kind::TurnEnd;
    if (reason == "retries_exhausted"_L1 || reason == "budget_reached"_L1 || reason == "refusal"_L1) {
        e.end = RunStatus::Failed;
        e.error.kind = ErrorKind::Run;
        e.error.code = reason;
        const QString details = event.value(u"stop_details"_s).toObject().value(u"message"_s).toString();
        if (reason == "budget_reached"_L1) {
            e.error.message = Text::tr("The session reached its budget.");
        } else if (reason == "refusal"_L1) {
            e.error.message = details.isEmpty() ? Text::tr("The model refused to go on.") : details;
        } else {
            e.error.message = Text::tr("The service gave up after repeated errors.");
        }
    }
    return e;
}

} // namespace

QString contentText(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    QString text;
    for (const QJsonValue &block : content.toArray()) {
        const QJsonObject object = block.toObject();
        if (object.value(u"type"_s).toString() == "text"_L1)
            text += object.value(u"text"_s).toString();
    }
    return text;
}

SessionEvent sessionEventOf(const QJsonObject &event, QStringView sseType)
{
    SessionEvent e;
    e.id = event.value(u"id"_s).toString();
    // The SDK reads the JSON alone, which names its type; the SSE name is the fallback.
    QString type = event.value(u"type"_s).toString();
    if (type.isEmpty() && sseType != u"message")
        type = sseType.toString();

    if (type == "user.message"_L1) {
        e.kind = Kind::UserMessage;
        e.text = contentText(event.value(u"content"_s));
    } else if (type == "user.interrupt"_L1) {
        e.kind = Kind::Interrupt;
    } else if (type == "user.tool_confirmation"_L1) {
        e.kind = Kind::Answered;
        e.ids << event.value(u"tool_use_id"_s).toString();
        const bool allowed = event.value(u"result"_s).toString() == "allow"_L1;
        e.title = allowed ? Text::tr("allowed") : Text::tr("denied");
        e.text = event.value(u"deny_message"_s).toString();
    } else if (type == "user.custom_tool_result"_L1) {
        e.kind = Kind::Answered;
        e.ids << event.value(u"custom_tool_use_id"_s).toString();
        e.title = Text::tr("tool result");
        e.text = shown(contentText(event.value(u"content"_s)));
    } else if (type == "user.tool_result"_L1) {
        e.kind = Kind::Answered;
        e.ids << event.value(u"tool_use_id"_s).toString();
    } else if (type == "event_start"_L1) {
        // Only agent.message previews carry text; agent.thinking's are start-only.
        const QJsonObject previewed = event.value(u"event"_s).toObject();
        if (previewed.value(u"type"_s).toString() == "agent.message"_L1) {
            e.kind = Kind::PreviewStart;
            e.key = previewed.value(u"id"_s).toString();
        }
        e.id.clear(); // a preview frame has no id of its own: never in the history
    } else if (type == "event_delta"_L1) {
        const QJsonObject delta = event.value(u"delta"_s).toObject();
        const QJsonObject content = delta.value(u"content"_s).toObject();
        if (content.value(u"type"_s).toString(u"text"_s) == "text"_L1) {
            e.kind = Kind::PreviewText;
            e.key = event.value(u"event_id"_s).toString();
            e.text = content.value(u"text"_s).toString();
        }
        e.id.clear();
    } else if (type == "span.model_request_end"_L1) {
        // Closes what the request previewed: its buffered agent.message, when it made one, came
        // before; an interrupted or failed request made none (§2.6).
        e.kind = Kind::Usage;
        e.closesPreviews = true;
        e.usage = usageOf(event.value(u"model_usage"_s).toObject());
    } else if (type == "agent.message"_L1) {
        e.kind = Kind::Output;
        e.key = e.id;
        e.text = contentText(event.value(u"content"_s));
    } else if (type == "agent.thinking"_L1) {
        // A progress signal without content (the SDK's type has none).
        e.kind = Kind::Item;
        e.itemKind = SecondaryKind::Reasoning;
        e.title = QCoreApplication::translate("RunEvents", "Reasoning");
        e.text = Text::tr("The agent is thinking.");
    } else if (type == "agent.tool_use"_L1 || type == "agent.mcp_tool_use"_L1
               || type == "agent.custom_tool_use"_L1) {
        return toolCall(event, type);
    } else if (type == "agent.tool_result"_L1 || type == "agent.mcp_tool_result"_L1) {
        e.kind = Kind::Item;
        e.itemKind = SecondaryKind::ToolCall;
        e.title = Text::tr("result");
        const QString text = shown(contentText(event.value(u"content"_s)));
        e.text = event.value(u"is_error"_s).toBool() ? Text::tr("error: %1").arg(text) : text;
    } else if (type == "session.status_running"_L1) {
        e.kind = Kind::Running;
        e.raw = u"running"_s;
    } else if (type == "session.status_rescheduled"_L1) {
        // Recovering from an error: still live (§2.3).
        e.kind = Kind::Running;
        e.raw = u"rescheduling"_s;
    } else if (type == "session.status_idle"_L1) {
        return idle(event);
    } else if (type == "session.status_terminated"_L1) {
        e.kind = Kind::TurnEnd;
        e.end = RunStatus::Failed;
        e.raw = u"terminated"_s;
        e.error = RunError::client(u"terminated"_s, Text::tr("The session was terminated."));
        e.error.kind = ErrorKind::Run;
    } else if (type == "session.error"_L1) {
        const QJsonObject error = event.value(u"error"_s).toObject();
        e.kind = Kind::Problem;
        e.error.kind = ErrorKind::Run;
        e.error.code = error.value(u"type"_s).toString(u"error"_s);
        e.error.message = error.value(u"message"_s).toString();
        if (e.error.message.isEmpty())
            e.error.message = Text::tr("The session reported an error without saying why.");
        e.retrying = error.value(u"retry_status"_s).toObject().value(u"type"_s).toString() == "retrying"_L1;
    } else if (type == "session.deleted"_L1) {
        e.kind = Kind::Deleted;
    }
    return e;
}

RunStatus sessionStatusFor(QStringView status)
{
    if (status == u"running" || status == u"rescheduling")
        return RunStatus::InProgress;
    if (status == u"idle")
        return RunStatus::Completed;
    if (status == u"terminated")
        return RunStatus::Failed;
    return RunStatus::Unknown;
}

RunError errorOf(const QJsonObject &body, RunError base)
{
    const QJsonObject error = body.value(u"error"_s).toObject();
    if (const QString type = error.value(u"type"_s).toString(); !type.isEmpty())
        base.code = type;
    if (const QString message = error.value(u"message"_s).toString(); !message.isEmpty())
        base.message = message;
    return base;
}

QJsonArray answerEvents(const InputRequest &request, const InputAnswer &answer, QString *error)
{
    const std::optional<QList<ToolCallAnswer>> answers = answersForToolCalls(request, answer, error);
    if (!answers)
        return {};
    QJsonArray events;
    // In the order the agent called them, whatever order the operator answered in.
    for (const ToolCallRequest &call : request.toolCalls) {
        const auto it = std::find_if(answers->cbegin(), answers->cend(),
                                     [&call](const ToolCallAnswer &a) { return a.callId == call.id; });
        if (it == answers->cend())
            continue;
        if (call.approval) {
            QJsonObject confirmation{{u"type"_s, u"user.tool_confirmation"_s},
                                     {u"tool_use_id"_s, call.id},
                                     {u"result"_s, it->approved ? u"allow"_s : u"deny"_s}};
            // The message is for a deny only (§2.4).
            if (!it->approved && !it->output.isEmpty())
                confirmation.insert(u"deny_message"_s, it->output);
            events.append(confirmation);
        } else {
            events.append(QJsonObject{
                {u"type"_s, u"user.custom_tool_result"_s},
                {u"custom_tool_use_id"_s, call.id},
                {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, it->output}}}},
                {u"is_error"_s, false}});
        }
    }
    return events;
}

void ClaudeAgentsMapper::map(QByteArrayView sseType, QByteArrayView data, QList<RunEvent> &out)
{
    m_turn.live(AgentSessions::SessionGate::read(&sessionEventOf, sseType, data), out);
}

} // namespace Runwatch::ClaudeAgents
