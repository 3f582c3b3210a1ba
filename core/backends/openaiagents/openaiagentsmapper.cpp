// SPDX-License-Identifier: GPL-3.0-or-later
// The table of the OpenAI Agents API's events, items and required actions (agent-sessions.md §1.3–
// 1.7) in the session/turn model's terms, and the answers a turn waits for.
#include "openaiagentsmapper.h"

#include "backends/agentsessions/sessiongate.h"

#include <QCoreApplication>
#include <QJsonDocument>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch::OpenAiAgents {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "OpenAiAgentsConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(OpenAiAgentsConnector)
};

using AgentSessions::SessionEvent;
using Kind = SessionEvent::Kind;

// A tool's arguments or output are shown as JSON, cut here: the timeline is for reading.
constexpr qsizetype kMaxShown = 4000;

QString shown(QString text)
{
    if (text.size() > kMaxShown)
        text = text.left(kMaxShown) + u"…"_s;
    return text;
}

// `arguments` is typed unknown (§1.5): an object, or a string of JSON; shown as it came.
QString jsonText(const QJsonValue &value)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    if (value.isString())
        return value.toString();
    if (value.isDouble() || value.isBool()) {
        // A number or a boolean as JSON writes it (the one-element array's brackets cut off).
        return QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact))
            .mid(1)
            .chopped(1);
    }
    return {};
}

// The text parts of a content list (output_text / input_text / text), run together.
QString contentText(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    QString text;
    for (const QJsonValue &part : content.toArray()) {
        const QJsonObject object = part.toObject();
        const QString type = object.value(u"type"_s).toString();
        if (type == "output_text"_L1 || type == "input_text"_L1 || type == "text"_L1)
            text += object.value(u"text"_s).toString();
    }
    return text;
}

qint64 countOf(const QJsonValue &value)
{
    const qint64 n = value.isDouble() ? value.toInteger(-1) : -1;
    return n >= 0 ? n : -1;
}

QString turnIdOf(const QJsonObject &event)
{
    const QString id = event.value(u"turn_id"_s).toString();
    return id.isEmpty() ? event.value(u"turn"_s).toObject().value(u"id"_s).toString() : id;
}

// The failure a session's own status gives (agent.session.failed / budget_reached): its error is
// the service's reason, a plain string (§1.3).
SessionEvent sessionFailure(const QJsonObject &session, const QString &status, const QString &id)
{
    SessionEvent e;
    e.kind = Kind::TurnEnd;
    e.id = id;
    e.end = RunStatus::Failed;
    e.raw = status;
    e.error.kind = ErrorKind::Run;
    e.error.code = status == "budget_reached"_L1 ? status : u"session_failed"_s;
    e.error.message = session.value(u"error"_s).toString();
    if (e.error.message.isEmpty()) {
        e.error.message = status == "budget_reached"_L1 ? Text::tr("The session reached its budget.")
                                                        : Text::tr("The session failed without saying why.");
    }
    return e;
}

} // namespace

TokenUsage usageOf(const QJsonValue &usage)
{
    const QJsonObject object = usage.toObject();
    TokenUsage u;
    u.inputTokens = countOf(object.value(u"input_tokens"_s));
    u.outputTokens = countOf(object.value(u"output_tokens"_s));
    u.reasoningTokens
        = countOf(object.value(u"output_tokens_details"_s).toObject().value(u"reasoning_tokens"_s));
    return u;
}

SessionEvent itemEventOf(const QJsonObject &item)
{
    SessionEvent e;
    e.id = item.value(u"id"_s).toString();
    const QString type = item.value(u"type"_s).toString();
    const QString status = item.value(u"status"_s).toString();
    // Only what the service saved counts: an item in progress comes again when it is done.
    if (status == "in_progress"_L1 || e.id.isEmpty()) {
        e.id.clear();
        return e;
    }
    if (type == "message"_L1) {
        // The user's own message (the turn's start says it), or an answer that was never finished
        // (incomplete: a cancelled or failed turn abandons it).
        if (item.value(u"role"_s).toString() != "assistant"_L1
            || (!status.isEmpty() && status != "completed"_L1)) {
            e.id.clear();
            return e;
        }
        const QString text = contentText(item.value(u"content"_s));
        if (item.value(u"phase"_s).toString() == "commentary"_L1) {
            // Not part of the turn's answer (the SDK's output_text leaves it out, §1.7).
            e.kind = Kind::Item;
            e.itemKind = SecondaryKind::Progress;
            e.title = Text::tr("commentary");
            e.text = shown(text);
            return e;
        }
        e.kind = Kind::Output;
        e.key = e.id;
        e.text = text;
        return e;
    }
    e.kind = Kind::Item;
    if (type == "reasoning"_L1) {
        e.itemKind = SecondaryKind::Reasoning;
        e.title = QCoreApplication::translate("RunEvents", "Reasoning");
        QStringList parts;
        for (const QJsonValue &part : item.value(u"summary"_s).toArray())
            parts << part.toObject().value(u"text"_s).toString();
        e.text = shown(parts.join(u"\n"_s));
        if (e.text.isEmpty())
            e.text = Text::tr("The agent is thinking.");
    } else if (type == "function_call"_L1 || type == "mcp_call"_L1) {
        e.itemKind = SecondaryKind::ToolCall;
        const QString name = item.value(u"name"_s).toString();
        e.title = name.isEmpty() ? type : name;
        e.text = toolCallText(name, jsonText(item.value(u"arguments"_s)));
        const QString output = jsonText(item.value(u"output"_s));
        const QString error = jsonText(item.value(u"error"_s));
        if (!error.isEmpty()) {
            e.text += u"\n"_s + Text::tr("error: %1").arg(error);
        } else if (!output.isEmpty()) {
            e.text += u"\n→ "_s + output;
        }
        e.text = shown(e.text);
    } else if (type == "function_call_output"_L1) {
        e.itemKind = SecondaryKind::ToolCall;
        e.title = Text::tr("tool result");
        e.text = shown(jsonText(item.value(u"output"_s)));
    } else {
        // Web search, command execution, computer use, subagents: shown by their type.
        e.itemKind = SecondaryKind::Log;
        e.title = type.isEmpty() ? Text::tr("item") : type;
        e.text = shown(QString::fromUtf8(QJsonDocument(item).toJson(QJsonDocument::Compact)));
    }
    return e;
}

SessionEvent turnEndOf(const QJsonObject &turn, const QJsonValue &usage)
{
    SessionEvent e;
    const QString id = turn.value(u"id"_s).toString();
    const QString status = turn.value(u"status"_s).toString();
    if (status != "completed"_L1 && status != "failed"_L1 && status != "cancelled"_L1)
        return e;
    e.kind = Kind::TurnEnd;
    e.id = id + u":end"_s;
    e.raw = status;
    e.end = status == "completed"_L1   ? RunStatus::Completed
            : status == "cancelled"_L1 ? RunStatus::Cancelled
                                       : RunStatus::Failed;
    e.usage = usageOf(usage.isObject() ? usage : turn.value(u"usage"_s));
    if (e.end == RunStatus::Failed) {
        const QJsonObject error = turn.value(u"error"_s).toObject();
        e.error.kind = ErrorKind::Run;
        e.error.code = error.value(u"code"_s).toString(u"failed"_s);
        e.error.message = error.value(u"message"_s).toString();
        if (e.error.message.isEmpty())
            e.error.message = Text::tr("The turn failed without saying why.");
    }
    return e;
}

SessionEvent waitingOf(const QJsonObject &session, const QString &id)
{
    SessionEvent e;
    e.kind = Kind::Waiting;
    e.id = id;
    e.raw = u"requires_action"_s;
    for (const QJsonValue &value : session.value(u"required_actions"_s).toArray()) {
        const QJsonObject action = value.toObject();
        const QString type = action.value(u"type"_s).toString();
        const QJsonObject request = action.value(u"request"_s).toObject();
        ToolCallRequest call;
        if (type == "function_call"_L1) {
            call.id = action.value(u"call_id"_s).toString();
            call.name = action.value(u"name"_s).toString();
            call.arguments = jsonText(action.value(u"arguments"_s));
        } else if (type == "mcp_approval_request"_L1) {
            call.id = action.value(u"request_id"_s).toString();
            call.name = request.value(u"name"_s).toString();
            call.arguments = jsonText(request.value(u"arguments"_s));
            call.serverLabel = request.value(u"server_label"_s).toString();
            call.approval = true;
            // decision approve | deny | cancel, and no field for a reason (§1.4).
            call.reasonOnReject = false;
        } else if (type == "computer_use_approval_request"_L1
                   && request.value(u"type"_s).toString() == "browser_authentication"_L1) {
            // A browser sign-in form with typed fields: answered as one value (the schema form).
            const QString requestId = action.value(u"request_id"_s).toString();
            if (requestId.isEmpty())
                continue;
            QJsonObject properties;
            QJsonArray required;
            for (const QJsonValue &f : request.value(u"fields"_s).toArray()) {
                const QJsonObject field = f.toObject();
                const QString fieldId = field.value(u"id"_s).toString();
                if (fieldId.isEmpty())
                    continue;
                QJsonObject property{{u"type"_s, u"string"_s},
                                     {u"title"_s, field.value(u"label"_s).toString()}};
                if (field.value(u"type"_s).toString() == "password"_L1)
                    property.insert(u"format"_s, u"password"_s);
                properties.insert(fieldId, property);
                if (field.value(u"required"_s).toBool())
                    required.append(fieldId);
            }
            QJsonArray options;
            for (const QJsonValue &o : request.value(u"options"_s).toArray())
                options.append(o.toObject().value(u"id"_s));
            if (!options.isEmpty()) {
                properties.insert(u"selected_option"_s,
                                  QJsonObject{{u"type"_s, u"string"_s}, {u"enum"_s, options}});
            }
            InputRequest form;
            form.reason = InputReason::Question;
            const QString origin = request.value(u"credential_origin"_s).toString();
            form.prompt = origin.isEmpty() ? Text::tr("The agent asks you to sign in.")
                                           : Text::tr("The agent asks you to sign in to %1.").arg(origin);
            if (const QString reason = request.value(u"reason"_s).toString(); !reason.isEmpty())
                form.prompt += u' ' + reason;
            form.schema = QJsonObject{
                {u"type"_s, u"object"_s}, {u"properties"_s, properties}, {u"required"_s, required}};
            form.raw = action;
            e.form = form;
            e.ids << requestId;
            continue;
        } else if (type == "computer_use_approval_request"_L1) {
            call.id = action.value(u"request_id"_s).toString();
            call.name = request.value(u"type"_s).toString(u"computer_use"_s);
            call.arguments = request.value(u"origin"_s).toString();
            call.approval = true;
        } else {
            // environment_connection and newer kinds: nothing a person answers here.
            continue;
        }
        if (call.id.isEmpty())
            continue;
        e.calls << call;
        e.ids << call.id;
    }
    return e;
}

SessionEvent sessionEventOf(const QJsonObject &event, QStringView sseType)
{
    SessionEvent e;
    e.id = event.value(u"event_id"_s).toString();
    // The SDK reads the JSON alone, which names its type; the SSE name is the fallback.
    QString type = event.value(u"type"_s).toString();
    if (type.isEmpty() && sseType != u"message")
        type = sseType.toString();

    if (type == "agent.session.turn.created"_L1) {
        // Subagents' turns are part of the root turn's work, not turns of the conversation.
        const QJsonObject turn = event.value(u"turn"_s).toObject();
        if (turn.value(u"subagent_id"_s).isString())
            return e;
        e.kind = Kind::UserMessage;
        e.id = turnIdOf(event);
    } else if (type == "agent.session.turn.in_progress"_L1 || type == "agent.session.in_progress"_L1) {
        e.kind = Kind::Running;
        e.raw = u"in_progress"_s;
    } else if (type == "agent.session.turn.completed"_L1 || type == "agent.session.turn.failed"_L1
               || type == "agent.session.turn.cancelled"_L1) {
        QJsonObject turn = event.value(u"turn"_s).toObject();
        if (turn.value(u"subagent_id"_s).isString())
            return e;
        if (turn.value(u"id"_s).toString().isEmpty())
            turn.insert(u"id"_s, turnIdOf(event));
        // The event's type is the truth for the status (the turn object may lag).
        turn.insert(u"status"_s, type.mid(QLatin1StringView("agent.session.turn.").size()));
        SessionEvent end = turnEndOf(turn, event.value(u"usage"_s));
        if (end.kind == Kind::TurnEnd)
            return end;
    } else if (type == "agent.session.turn.item.added"_L1) {
        const QJsonObject item = event.value(u"item"_s).toObject();
        if (item.value(u"type"_s).toString() == "message"_L1
            && item.value(u"role"_s).toString() == "assistant"_L1
            && item.value(u"phase"_s).toString() != "commentary"_L1) {
            e.kind = Kind::PreviewStart;
            e.key = item.value(u"id"_s).toString();
        }
        // Other items are shown once they are done (their id then counts).
    } else if (type == "agent.session.turn.item.done"_L1) {
        SessionEvent item = itemEventOf(event.value(u"item"_s).toObject());
        if (item.kind != Kind::Other)
            return item;
    } else if (type == "agent.session.turn.output_text.delta"_L1) {
        e.kind = Kind::PreviewText;
        e.key = event.value(u"item_id"_s).toString();
        e.text = event.value(u"delta"_s).toString();
    } else if (type == "agent.session.requires_action"_L1) {
        return waitingOf(event.value(u"session"_s).toObject(), e.id);
    } else if (type == "agent.session.failed"_L1 || type == "agent.session.budget_reached"_L1) {
        return sessionFailure(event.value(u"session"_s).toObject(),
                              type.mid(QLatin1StringView("agent.session.").size()), e.id);
    }
    return e;
}

QList<SessionEvent> historyOf(const QJsonObject &session, const QJsonArray &turns, const QJsonArray &items)
{
    QList<QJsonObject> ordered;
    for (const QJsonValue &turn : turns) {
        const QJsonObject object = turn.toObject();
        if (!object.value(u"id"_s).toString().isEmpty() && !object.value(u"subagent_id"_s).isString())
            ordered << object;
    }
    // Oldest first whatever the listing's order (turns are listed newest first by default).
    std::stable_sort(ordered.begin(), ordered.end(), [](const QJsonObject &a, const QJsonObject &b) {
        return a.value(u"created_at"_s).toDouble() < b.value(u"created_at"_s).toDouble();
    });
    QList<SessionEvent> history;
    for (const QJsonObject &turn : std::as_const(ordered)) {
        const QString id = turn.value(u"id"_s).toString();
        SessionEvent start;
        start.kind = Kind::UserMessage;
        start.id = id;
        QList<SessionEvent> events;
        for (const QJsonValue &value : items) {
            const QJsonObject item = value.toObject();
            if (item.value(u"turn_id"_s).toString() != id)
                continue;
            // The user's message of the turn: its words are the turn's prompt.
            if (item.value(u"type"_s).toString() == "message"_L1
                && item.value(u"role"_s).toString() == "user"_L1 && start.text.isEmpty()) {
                start.text = contentText(item.value(u"content"_s));
                continue;
            }
            events << itemEventOf(item);
        }
        history << start << events;
        if (SessionEvent end = turnEndOf(turn); end.kind == Kind::TurnEnd)
            history << end;
    }
    const QString status = session.value(u"status"_s).toString();
    if (status == "requires_action"_L1) {
        history << waitingOf(session);
    } else if (status == "failed"_L1 || status == "budget_reached"_L1) {
        history << sessionFailure(session, status, {});
    }
    return history;
}

RunStatus sessionStatusFor(QStringView status)
{
    if (status == u"in_progress")
        return RunStatus::InProgress;
    if (status == u"requires_action")
        return RunStatus::InputRequired;
    if (status == u"idle")
        return RunStatus::Completed;
    if (status == u"failed" || status == u"budget_reached")
        return RunStatus::Failed;
    return RunStatus::Unknown;
}

RunError errorOf(const QJsonObject &body, RunError base)
{
    const QJsonObject error = body.value(u"error"_s).toObject();
    if (const QString code = error.value(u"code"_s).toString(); !code.isEmpty()) {
        base.code = code;
    } else if (const QString type = error.value(u"type"_s).toString(); !type.isEmpty()) {
        base.code = type;
    }
    if (const QString message = error.value(u"message"_s).toString(); !message.isEmpty())
        base.message = message;
    return base;
}

QJsonArray answerEvents(const InputRequest &request, const InputAnswer &answer, const QString &turnId,
                        QString *error)
{
    const QString requestId = request.raw.value(u"request_id"_s).toString();
    if (!request.schema.isEmpty() && !requestId.isEmpty()) {
        // The browser sign-in form: its fields' values, and the option chosen.
        QJsonObject response{{u"type"_s, u"browser_authentication"_s}};
        if (answer.kind == InputAnswer::Kind::Reject) {
            response.insert(u"action"_s, u"cancel"_s);
        } else {
            if (!answer.value.isObject()) {
                if (error)
                    *error = Text::tr("Answer the form with a JSON object of its fields (--value).");
                return {};
            }
            const QJsonObject values = answer.value.toObject();
            QJsonArray fields;
            for (auto it = values.begin(); it != values.end(); ++it) {
                if (it.key() != "selected_option"_L1)
                    fields.append(QJsonObject{{u"field_id"_s, it.key()}, {u"value"_s, jsonText(it.value())}});
            }
            response.insert(u"action"_s, u"submit"_s);
            response.insert(u"fields"_s, fields);
            if (values.value(u"selected_option"_s).isString())
                response.insert(u"selected_option"_s, values.value(u"selected_option"_s));
        }
        return QJsonArray{
            QJsonObject{{u"type"_s, u"agent.session.input.computer_use_approval_request_result"_s},
                        {u"request_id"_s, requestId},
                        {u"response"_s, response}}};
    }
    const std::optional<QList<ToolCallAnswer>> answers = answersForToolCalls(request, answer, error);
    if (!answers)
        return {};
    QJsonArray events;
    // In the order the agent asked, whatever order the operator answered in.
    for (const ToolCallRequest &call : request.toolCalls) {
        const auto it = std::find_if(answers->cbegin(), answers->cend(),
                                     [&call](const ToolCallAnswer &a) { return a.callId == call.id; });
        if (it == answers->cend())
            continue;
        const QString decision = it->approved ? u"approve"_s : u"deny"_s;
        if (call.approval && call.serverLabel.isEmpty() && call.name.startsWith("browser_"_L1)) {
            events.append(
                QJsonObject{{u"type"_s, u"agent.session.input.computer_use_approval_request_result"_s},
                            {u"request_id"_s, call.id},
                            {u"response"_s, QJsonObject{{u"type"_s, call.name}, {u"decision"_s, decision}}}});
        } else if (call.approval) {
            events.append(QJsonObject{
                {u"type"_s, u"agent.session.input.mcp_approval_request_result"_s},
                {u"request_id"_s, call.id},
                {u"response"_s, QJsonObject{{u"type"_s, u"mcp_tool_call"_s}, {u"decision"_s, decision}}}});
        } else {
            events.append(QJsonObject{{u"type"_s, u"agent.session.input.tool_result"_s},
                                      {u"call_id"_s, call.id},
                                      {u"turn_id"_s, turnId},
                                      {u"success"_s, true},
                                      {u"output"_s, it->output}});
        }
    }
    return events;
}

void OpenAiAgentsMapper::history(const QJsonObject &session, const QJsonArray &turns, const QJsonArray &items)
{
    for (const SessionEvent &event : historyOf(session, turns, items))
        m_turn.history(event);
}

void OpenAiAgentsMapper::map(QByteArrayView sseType, QByteArrayView data, QList<RunEvent> &out)
{
    m_turn.live(AgentSessions::SessionGate::read(&sessionEventOf, sseType, data), out);
}

} // namespace Runwatch::OpenAiAgents
