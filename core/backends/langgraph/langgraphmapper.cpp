// SPDX-License-Identifier: GPL-3.0-or-later
#include "langgraphmapper.h"

#include "domain/run.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Runwatch::LangGraph {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "LangGraphConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(LangGraphConnector)
};

// A node update or custom payload is shown as its JSON, cut here: the timeline is for reading.
constexpr qsizetype kMaxShownJson = 4000;

QString shownJson(const QJsonValue &value)
{
    QString text;
    if (value.isString()) {
        text = value.toString();
    } else if (value.isObject()) {
        text = QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    } else if (value.isArray()) {
        text = QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    } else if (!value.isNull() && !value.isUndefined()) {
        text = QJsonValue(value).toVariant().toString();
    }
    if (text.size() > kMaxShownJson)
        text = text.left(kMaxShownJson) + u"…"_s;
    return text;
}

QString compactJson(const QJsonValue &value)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    // A scalar: wrapped and unwrapped, so strings come out quoted and escaped.
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

bool isAiChunk(const QString &type)
{
    return type == "ai"_L1 || type == "AIMessageChunk"_L1 || type == "AIMessage"_L1;
}

// Puts the SSE event's position on the first RunEvent made of it: a replayed event is then
// dropped whole by the reducer (its later RunEvents carry none and are idempotent).
void stamp(RunEvent &e, RunEvent &cursor)
{
    e.sequence = std::exchange(cursor.sequence, -1);
    e.eventId = std::exchange(cursor.eventId, QString());
}

bool hasPosition(const RunEvent &cursor)
{
    return cursor.sequence >= 0 || !cursor.eventId.isEmpty();
}

bool isHitlRequest(const QJsonValue &value)
{
    return value.isObject() && value.toObject().value(u"action_requests"_s).isArray();
}

} // namespace

bool isTerminalRunStatus(QStringView runStatus)
{
    return runStatus == u"success" || runStatus == u"error" || runStatus == u"interrupted"
           || runStatus == u"timeout";
}

RunStatus runStatusFor(QStringView runStatus, QStringView threadStatus)
{
    if (runStatus == u"pending")
        return RunStatus::InProgress; // the JS server's word for queued and executing alike
    if (runStatus == u"running")
        return RunStatus::InProgress;
    if (runStatus == u"error")
        return RunStatus::Failed;
    if (runStatus == u"interrupted")
        return RunStatus::Cancelled; // interrupted = cancelled; a pause is a successful run
    if (runStatus == u"timeout")
        return RunStatus::TimedOut;
    if (runStatus == u"success") {
        if (threadStatus == u"interrupted")
            return RunStatus::InputRequired;
        if (threadStatus == u"error")
            return RunStatus::Failed;
        if (threadStatus == u"busy")
            return RunStatus::InProgress; // a later run of the thread is going: ours is done
        return RunStatus::Completed;
    }
    return RunStatus::Unknown;
}

RunStatus threadStatusFor(QStringView threadStatus)
{
    if (threadStatus == u"busy")
        return RunStatus::InProgress;
    if (threadStatus == u"interrupted")
        return RunStatus::InputRequired;
    if (threadStatus == u"error")
        return RunStatus::Failed;
    if (threadStatus == u"idle")
        return RunStatus::Completed;
    return RunStatus::Unknown;
}

QJsonArray pendingInterrupts(const QJsonObject &threadOrState)
{
    QJsonArray out;
    const QJsonValue interrupts = threadOrState.value(u"interrupts"_s);
    if (interrupts.isObject()) {
        const QJsonObject byTask = interrupts.toObject();
        for (auto it = byTask.begin(); it != byTask.end(); ++it) {
            for (const QJsonValue &i : it.value().toArray()) {
                if (i.isObject())
                    out.append(i);
            }
        }
    } else if (interrupts.isArray()) {
        for (const QJsonValue &i : interrupts.toArray()) {
            if (i.isObject())
                out.append(i);
        }
    }
    if (out.isEmpty()) {
        for (const QJsonValue &task : threadOrState.value(u"tasks"_s).toArray()) {
            for (const QJsonValue &i : task.toObject().value(u"interrupts"_s).toArray()) {
                if (i.isObject())
                    out.append(i);
            }
        }
    }
    return out;
}

InputRequest inputRequestFor(const QJsonArray &interrupts)
{
    InputRequest request;
    const QJsonObject first = interrupts.at(0).toObject();
    const QJsonValue value = first.value(u"value"_s);
    QJsonArray ids;
    for (const QJsonValue &i : interrupts)
        ids.append(i.toObject().value(u"id"_s));
    request.raw.insert(u"interrupt_id"_s, first.value(u"id"_s));
    request.raw.insert(u"interrupt_ids"_s, ids);
    request.raw.insert(u"value"_s, value);
    if (isHitlRequest(value)) {
        // LangChain's human-in-the-loop middleware: one decision per action request, in order.
        const QJsonObject hitl = value.toObject();
        request.reason = InputReason::Approval;
        request.raw.insert(u"kind"_s, u"hitl"_s);
        QStringList lines;
        // Each action's allowed decisions, by action name (review_configs); an action without a
        // config takes them all.
        QHash<QString, QJsonArray> allowed;
        const QJsonArray configs = hitl.value(u"review_configs"_s).toArray();
        for (const QJsonValue &c : configs) {
            const QJsonObject config = c.toObject();
            const QJsonValue decisions = config.value(u"allowed_decisions"_s);
            if (decisions.isArray())
                allowed.insert(config.value(u"action_name"_s).toString(), decisions.toArray());
        }
        const QJsonArray actions = hitl.value(u"action_requests"_s).toArray();
        for (qsizetype i = 0; i < actions.size(); ++i) {
            const QJsonObject action = actions.at(i).toObject();
            ToolCallRequest call;
            call.id = u"action-%1"_s.arg(i + 1);
            call.name = action.value(u"name"_s).toString();
            call.arguments = compactJson(action.value(u"args"_s));
            call.approval = true;
            call.reasonOnReject = true; // a reject decision's `message` goes to the model
            if (const auto it = allowed.constFind(call.name); it != allowed.cend()) {
                call.approveAllowed = it->contains(u"approve"_s);
                call.rejectAllowed = it->contains(u"reject"_s);
            }
            request.toolCalls << call;
            const QString description = action.value(u"description"_s).toString();
            lines << (description.isEmpty() ? toolCallText(call.name, call.arguments) : description);
        }
        request.prompt = lines.isEmpty()
                             ? Text::tr("The graph asks for a review.")
                             : Text::tr("The graph asks for approval: %1").arg(lines.join(u"; "_s));
        return request;
    }
    request.reason = InputReason::Question;
    if (value.isString()) {
        request.raw.insert(u"kind"_s, u"text"_s);
        request.prompt = value.toString();
        return request;
    }
    // Any other value: the graph takes whatever JSON it is resumed with. A value that carries a
    // JSON Schema gets the typed form; others an editor for any JSON value.
    request.raw.insert(u"kind"_s, u"value"_s);
    const QJsonObject object = value.toObject();
    const QJsonValue schema = object.value(u"schema"_s);
    request.schema
        = schema.isObject() ? schema.toObject() : QJsonObject{{u"description"_s, Text::tr("Any JSON value")}};
    const QString question = object.value(u"question"_s).toString(object.value(u"message"_s).toString());
    request.prompt
        = !question.isEmpty() ? question : Text::tr("The graph waits for a value: %1").arg(shownJson(value));
    return request;
}

std::optional<QJsonValue> resumeValue(const InputRequest &request, const InputAnswer &answer, QString *error)
{
    QJsonValue value;
    if (answer.kind == InputAnswer::Kind::Value) {
        value = answer.value; // --value: raw JSON, whatever the interrupt asked
    } else if (!request.toolCalls.isEmpty()) {
        const auto answers = answersForToolCalls(request, answer, error);
        if (!answers)
            return std::nullopt;
        QJsonArray decisions;
        for (const ToolCallRequest &call : request.toolCalls) {
            const auto it = std::find_if(answers->cbegin(), answers->cend(),
                                         [&](const ToolCallAnswer &a) { return a.callId == call.id; });
            QJsonObject decision{
                {u"type"_s, it != answers->cend() && it->approved ? u"approve"_s : u"reject"_s}};
            if (it != answers->cend() && !it->approved) {
                if (!it->output.isEmpty())
                    decision.insert(u"message"_s, it->output);
            }
            decisions.append(decision);
        }
        value = QJsonObject{{u"decisions"_s, decisions}};
    } else if (answer.kind == InputAnswer::Kind::Text) {
        value = answer.text;
    } else if (answer.kind == InputAnswer::Kind::Choice) {
        value = answer.choice;
    } else if (answer.kind == InputAnswer::Kind::Approve || answer.kind == InputAnswer::Kind::Reject) {
        value = answer.kind == InputAnswer::Kind::Approve;
    }
    const QJsonArray ids = request.raw.value(u"interrupt_ids"_s).toArray();
    const QString id = request.raw.value(u"interrupt_id"_s).toString();
    if (ids.size() > 1 && !id.isEmpty())
        return QJsonValue(QJsonObject{{id, value}});
    return value;
}

QString contentText(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    QString text;
    for (const QJsonValue &block : content.toArray()) {
        if (block.isString()) {
            text += block.toString();
            continue;
        }
        const QJsonObject b = block.toObject();
        const QString type = b.value(u"type"_s).toString();
        if (type.isEmpty() || type == "text"_L1 || type == "text_delta"_L1)
            text += b.value(u"text"_s).toString();
    }
    return text;
}

QString answerFromState(const QJsonObject &state, qsizetype before)
{
    const QJsonArray messages = state.value(u"values"_s).toObject().value(u"messages"_s).toArray();
    if (before < 0) {
        // Not known (a thread attached by id): the latest turn, after the last user message.
        before = 0;
        for (qsizetype i = messages.size() - 1; i >= 0; --i) {
            const QJsonObject m = messages.at(i).toObject();
            const QString type = m.value(u"type"_s).toString(m.value(u"role"_s).toString());
            if (type == "human"_L1 || type == "user"_L1) {
                before = i + 1;
                break;
            }
        }
    }
    QString text;
    for (qsizetype i = before; i < messages.size(); ++i) {
        const QJsonObject m = messages.at(i).toObject();
        if (isAiChunk(m.value(u"type"_s).toString()) || m.value(u"role"_s).toString() == "assistant"_L1)
            text += contentText(m.value(u"content"_s));
    }
    return text;
}

LangGraphMapper::Outcome LangGraphMapper::map(QByteArrayView type, QByteArrayView data, QByteArrayView id,
                                              QList<RunEvent> &out)
{
    m_gotEvents = true;
    RunEvent cursor;
    cursor.eventId = QString::fromUtf8(id);
    if (!cursor.eventId.isEmpty())
        m_lastEventId = cursor.eventId;
    bool numeric = false;
    const qint64 seq = QByteArray(id.data(), id.size()).toLongLong(&numeric);
    cursor.sequence = numeric && seq >= 0 ? seq : -1;

    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(data.data(), data.size()), &parseError);
    const bool parsed = parseError.error == QJsonParseError::NoError;
    QJsonValue value;
    if (doc.isObject()) {
        value = doc.object();
    } else if (doc.isArray()) {
        value = doc.array();
    }
    const QString eventType = QString::fromUtf8(type);
    // Item ids name the run: a resumed or followed-up thread numbers its next run's events from 0
    // again, into the same local run.
    const QString itemKey = m_runId + u':' + cursor.eventId;
    if (!parsed && type == "error") {
        // Not the graph's error but the server's about the stream (joining an unknown run gives
        // `data: "Run not found"`): a note; the run's own status, read after the close, decides.
        RunEvent note
            = RunEvent::secondarySnapshot(SecondaryKind::Log, u"stream-error:"_s + itemKey,
                                          Text::tr("stream error"), QString::fromUtf8(data).remove(u'"'));
        stamp(note, cursor);
        out << note;
        return Outcome::Continue;
    }
    if (!parsed && type != "end") {
        // Kept as a note, not a stop: a rejoin would bring the same event again.
        RunEvent note = RunEvent::secondarySnapshot(SecondaryKind::Log, u"unreadable:"_s + itemKey, eventType,
                                                    Text::tr("An event that is not JSON was skipped."));
        stamp(note, cursor);
        out << note;
        return Outcome::Continue;
    }
    if (type == "messages") {
        mapMessage(value, cursor, out);
    } else if (type == "updates") {
        mapUpdates(value, itemKey, cursor, out);
    } else if (type == "custom") {
        RunEvent e = RunEvent::secondarySnapshot(SecondaryKind::Progress, u"custom:"_s + itemKey,
                                                 Text::tr("custom"), shownJson(value));
        stamp(e, cursor);
        out << e;
    } else if (type == "metadata") {
        if (const QString runId = value.toObject().value(u"run_id"_s).toString(); !runId.isEmpty())
            m_runId = runId;
        out << cursor;
    } else if (type == "error") {
        const QJsonObject object = value.toObject();
        RunError e;
        e.kind = ErrorKind::Run;
        e.code = object.value(u"error"_s).toString(u"error"_s);
        e.message = object.value(u"message"_s).toString();
        if (e.message.isEmpty())
            e.message = Text::tr("The graph failed.");
        RunEvent failure = RunEvent::failure(e);
        stamp(failure, cursor);
        out << failure << RunEvent::statusChange(RunStatus::Failed, u"error"_s);
        return Outcome::Failed;
    } else if (type == "end") {
        out << cursor;
        return Outcome::End;
    } else {
        out << cursor; // values, debug, tasks, …: only the position moves
    }
    return Outcome::Continue;
}

void LangGraphMapper::mapMessage(const QJsonValue &data, RunEvent cursor, QList<RunEvent> &out)
{
    // messages-tuple: [chunk, metadata].
    const QJsonObject chunk = data.isArray() ? data.toArray().at(0).toObject() : data.toObject();
    const QString type = chunk.value(u"type"_s).toString();
    if (isAiChunk(type)) {
        const QString text = contentText(chunk.value(u"content"_s));
        if (!text.isEmpty()) {
            RunEvent delta = RunEvent::primaryDelta(text);
            stamp(delta, cursor);
            out << delta;
        }
        mapToolCallChunks(chunk, cursor, out);
        if (hasPosition(cursor))
            out << cursor;
        return;
    }
    if (type == "tool"_L1 || type == "ToolMessage"_L1 || type == "ToolMessageChunk"_L1) {
        const QString callId = chunk.value(u"tool_call_id"_s).toString();
        RunEvent result = RunEvent::secondarySnapshot(
            SecondaryKind::ToolCall,
            u"tool-result:"_s + (callId.isEmpty() ? m_runId + u':' + cursor.eventId : callId),
            chunk.value(u"name"_s).toString(), contentText(chunk.value(u"content"_s)));
        stamp(result, cursor);
        out << result;
        return;
    }
    out << cursor; // the input echoed, a system message: not output
}

void LangGraphMapper::mapToolCallChunks(const QJsonObject &chunk, RunEvent &cursor, QList<RunEvent> &out)
{
    const QString messageId = chunk.value(u"id"_s).toString();
    for (const QJsonValue &v : chunk.value(u"tool_call_chunks"_s).toArray()) {
        const QJsonObject call = v.toObject();
        const QString key = messageId + u'#' + QString::number(call.value(u"index"_s).toInt());
        QString item = m_toolCallItems.value(key);
        QString text;
        if (item.isEmpty()) {
            const QString callId = call.value(u"id"_s).toString();
            item = u"tool:"_s + (callId.isEmpty() ? key : callId);
            m_toolCallItems.insert(key, item);
            text = call.value(u"name"_s).toString() + u' ';
        }
        text += call.value(u"args"_s).toString();
        RunEvent e = RunEvent::secondaryDelta(SecondaryKind::ToolCall, item, text);
        if (hasPosition(cursor))
            stamp(e, cursor);
        out << e;
    }
}

void LangGraphMapper::mapUpdates(const QJsonValue &data, const QString &id, RunEvent cursor,
                                 QList<RunEvent> &out)
{
    const QJsonObject updates = data.toObject();
    for (auto it = updates.begin(); it != updates.end(); ++it) {
        RunEvent e;
        if (it.key() == "__interrupt__"_L1) {
            e = RunEvent::secondarySnapshot(SecondaryKind::Progress, u"interrupt:"_s + id,
                                            Text::tr("interrupt"), Text::tr("The graph waits for a person."));
        } else {
            e = RunEvent::secondarySnapshot(SecondaryKind::Progress, u"update:"_s + id + u':' + it.key(),
                                            it.key(), shownJson(it.value()));
        }
        if (hasPosition(cursor))
            stamp(e, cursor);
        out << e;
    }
    if (hasPosition(cursor))
        out << cursor;
}

} // namespace Runwatch::LangGraph
