// SPDX-License-Identifier: GPL-3.0-or-later
// GeminiMapper: an interaction's SSE events (§2 Streaming, Resume) one by one.
#include "geminimapper.h"

#include "domain/run.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch::Gemini {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "GeminiConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(GeminiConnector)
};

// How much of an unreadable event its note keeps.
constexpr qsizetype kMaxKeptData = 2000;

// Puts the SSE event's id on the first RunEvent made of it, so the run's cursor (token.eventId,
// where a resume starts) moves with what was applied.
void stamp(RunEvent &e, RunEvent &cursor)
{
    e.eventId = std::exchange(cursor.eventId, QString());
}

// A step event's index: a non-negative integer, or -1 (a fraction, 1e300, a string are none).
qint64 indexOf(const QJsonObject &event)
{
    const QJsonValue index = event.value(u"index"_s);
    const qint64 n = index.isDouble() ? index.toInteger(-1) : -1;
    return n >= 0 ? n : -1;
}

bool isResult(const QString &type)
{
    return type == "function_result"_L1 || type.endsWith("_result"_L1);
}

bool isCall(const QString &type)
{
    return type == "function_call"_L1 || type.endsWith("_call"_L1);
}

// Arguments as the step object holds them: the streamed JSON text parsed back when it is JSON,
// so a streamed call reads exactly like the stored one (compactJson of the same object).
QJsonValue argumentsValue(const QString &arguments)
{
    if (arguments.isEmpty())
        return QJsonObject();
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(arguments.toUtf8(), &error);
    if (error.error == QJsonParseError::NoError && doc.isObject())
        return doc.object();
    if (error.error == QJsonParseError::NoError && doc.isArray())
        return doc.array();
    return arguments;
}

} // namespace

GeminiMapper::Outcome GeminiMapper::map(QByteArrayView type, QByteArrayView data, QList<RunEvent> &out)
{
    // The client stops at [DONE] (§2 Streaming), whatever the event is called.
    if (type == "done" || data.trimmed() == "[DONE]")
        return Outcome::End;

    RunEvent cursor; // carries the event's id to the first RunEvent made of it
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(data.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        return malformed(type, data,
                         parseError.error != QJsonParseError::NoError ? parseError.errorString()
                                                                      : Text::tr("not a JSON object"),
                         cursor, out);
    }
    const QJsonObject event = doc.object();
    // Ids are opaque (§2 Resume): only compared, never ordered. A resume's repeat of an event applied
    // before is dropped whole.
    if (const QString id = event.value(u"event_id"_s).toString(); !id.isEmpty()) {
        if (m_seenIds.contains(id)) {
            ++m_dropped;
            return Outcome::Continue;
        }
        m_seenIds.insert(id);
        m_lastEventId = id;
        cursor.eventId = id;
    }
    // The client reads the data alone, which names its type; the SSE name is the fallback.
    QString eventType = event.value(u"event_type"_s).toString();
    if (eventType.isEmpty() && type != "message")
        eventType = QString::fromUtf8(type);

    Outcome outcome = Outcome::Continue;
    if (eventType == "interaction.created"_L1) {
        const QJsonObject interaction = event.value(u"interaction"_s).toObject();
        adoptInteraction(interaction.value(u"id"_s).toString());
        const QString model
            = interaction.value(u"model"_s).toString(interaction.value(u"agent"_s).toString());
        RunEvent identity = RunEvent::identity(m_interactionId, model, m_streamable);
        stamp(identity, cursor);
        out << identity;
        mapStatus(interaction.value(u"status"_s).toString(), interaction, cursor, out);
    } else if (eventType == "interaction.status_update"_L1) {
        adoptInteraction(event.value(u"interaction_id"_s).toString());
        mapStatus(event.value(u"status"_s).toString(), {}, cursor, out);
    } else if (eventType == "interaction.completed"_L1) {
        const QJsonObject interaction = event.value(u"interaction"_s).toObject();
        const QString id = interaction.value(u"id"_s).toString();
        adoptInteraction(id);
        m_finished = true;
        if (!id.isEmpty()) {
            RunEvent identity = RunEvent::identity(
                id, interaction.value(u"model"_s).toString(interaction.value(u"agent"_s).toString()),
                m_streamable);
            stamp(identity, cursor);
            out << identity;
        }
        // A `failed` without errors[] after this stream's error event: that event's message is
        // the failure, not errorOf()'s stand-in for a silent one.
        const bool listsErrors = interaction.contains(u"errors"_s) || interaction.contains(u"error"_s);
        if (const RunError failure = errorOf(interaction);
            failure.isError() && (listsErrors || m_error.kind != ErrorKind::Run)) {
            RunEvent e = RunEvent::failure(failure);
            stamp(e, cursor);
            out << e;
        }
        // The event says the interaction ended even when its snapshot names no status.
        const QString raw = interaction.value(u"status"_s).toString(u"completed"_s);
        mapStatus(raw, interaction, cursor, out);
        outcome = Outcome::Finished;
        if (runStatusFor(raw) == RunStatus::Unknown) {
            // An end nobody can show as one: following it further would never finish.
            m_error = RunError::protocol(
                u"unknown_status"_s,
                Text::tr("The interaction ended with status \"%1\", which Runwatch does not know.").arg(raw));
            outcome = Outcome::Malformed;
        }
    } else if (eventType == "step.start"_L1) {
        outcome = mapStepStart(event, cursor, out);
    } else if (eventType == "step.delta"_L1) {
        outcome = mapStepDelta(event, cursor, out);
    } else if (eventType == "step.stop"_L1) {
        const qint64 index = indexOf(event);
        if (index < 0)
            return malformed(type, data, Text::tr("a step event without a valid index"), cursor, out);
        mapStepStop(index, cursor, out);
    } else if (eventType == "error"_L1) {
        const QJsonValue error = event.value(u"error"_s);
        const QJsonObject object = error.isObject() ? error.toObject() : event;
        const QJsonValue code = object.value(u"code"_s);
        RunError e;
        e.code = code.isString()   ? code.toString()
                 : code.isDouble() ? QString::number(code.toInteger())
                                   : QString();
        e.message = object.value(u"message"_s).toString();
        if (e.code.compare("gateway_timeout"_L1, Qt::CaseInsensitive) == 0) {
            // The service cutting a long stream (§2 Resume): the background interaction goes on, and
            // the next connection resumes after lastEventId(). Nothing goes to the run.
            e.kind = ErrorKind::Timeout;
            e.retryable = true;
            if (e.message.isEmpty())
                e.message = Text::tr("The service ended the stream; the interaction goes on.");
            m_error = e;
            m_cut = true;
            outcome = Outcome::Cut;
        } else {
            e.kind = ErrorKind::Run;
            if (e.message.isEmpty())
                e.message = Text::tr("The interaction failed without saying why.");
            m_error = e;
            RunEvent failure = RunEvent::failure(e);
            stamp(failure, cursor);
            out << failure;
            outcome = Outcome::Failed;
        }
    }
    // Any other type (a future one, a keep-alive) only moves the position.
    if (!cursor.eventId.isEmpty())
        out << cursor;
    return outcome;
}

void GeminiMapper::adoptInteraction(const QString &id)
{
    if (id.isEmpty() || id == m_interactionId)
        return;
    // Another interaction (a continuation streamed with this mapper): its steps count from 0
    // again and its answer starts anew.
    if (!m_interactionId.isEmpty()) {
        m_steps.clear();
        m_anyText = false;
        m_finished = false;
        m_error = {};
    }
    m_interactionId = id;
}

GeminiMapper::Step &GeminiMapper::stepAt(qint64 index)
{
    Step &step = m_steps[index];
    step.index = index;
    // Named once: a step seen before the interaction's id was known keeps its item after.
    if (step.item.isEmpty())
        step.item = itemIdFor(m_interactionId, index);
    return step;
}

void GeminiMapper::mapStatus(const QString &raw, const QJsonObject &interaction, RunEvent &cursor,
                             QList<RunEvent> &out)
{
    const std::optional<TokenUsage> usage = usageOf(interaction);
    if (raw.isEmpty()) {
        if (usage) {
            RunEvent e = RunEvent::cursor(-1);
            e.usage = usage;
            stamp(e, cursor);
            out << e;
        }
        return;
    }
    const RunStatus status = runStatusFor(raw);
    RunEvent e = RunEvent::statusChange(status, raw);
    e.usage = usage;
    stamp(e, cursor);
    out << e;
    if (status != RunStatus::InputRequired)
        return;
    // The pending calls as the stream showed them, when it showed each from its start; otherwise
    // (a stream resumed after a call began) the event's own steps, if it has any. Without
    // either, the status says the run waits and a GET (mapInteraction) brings the request.
    QList<qint64> indexes = m_steps.keys();
    std::sort(indexes.begin(), indexes.end());
    QList<ToolCallRequest> calls;
    QSet<QString> answered;
    bool complete = true;
    for (const qint64 index : std::as_const(indexes)) {
        const Step &step = *m_steps.constFind(index);
        if (step.type == "function_result"_L1) {
            answered.insert(step.callId);
        } else if (step.type == "function_call"_L1) {
            complete = complete && step.started;
            if (step.callId.isEmpty())
                continue;
            ToolCallRequest call;
            call.id = step.callId;
            call.name = step.name;
            call.arguments = compactJson(argumentsValue(step.arguments));
            calls << call;
        }
    }
    calls.removeIf([&answered](const ToolCallRequest &call) { return answered.contains(call.id); });
    if (complete && !calls.isEmpty()) {
        out << RunEvent::inputRequired(toolOutputRequest(m_interactionId, calls));
    } else if (std::optional<InputRequest> request = inputRequestOf(interaction)) {
        out << RunEvent::inputRequired(std::move(*request));
    }
}

GeminiMapper::Outcome GeminiMapper::mapStepStart(const QJsonObject &event, RunEvent &cursor,
                                                 QList<RunEvent> &out)
{
    const qint64 index = indexOf(event);
    if (index < 0) {
        const QByteArray data = QJsonDocument(event).toJson(QJsonDocument::Compact);
        return malformed("step.start", data, Text::tr("a step event without a valid index"), cursor, out);
    }
    Step &step = stepAt(index);
    if (step.started)
        return Outcome::Continue; // a resume's repeat: the step is known already
    step.started = true;
    const QJsonObject object = event.value(u"step"_s).toObject();
    step.type = object.value(u"type"_s).toString();
    step.callId = object.value(isResult(step.type) ? u"call_id"_s : u"id"_s).toString();
    step.name = object.value(u"name"_s).toString();
    step.isError = object.value(u"is_error"_s).toBool();
    if (object.contains(u"arguments"_s) && !step.streamedArgs)
        step.arguments = compactJson(object.value(u"arguments"_s));
    if (object.contains(u"result"_s))
        step.result = object.value(u"result"_s);
    const QString &item = step.item;

    if (step.type == "model_output"_L1) {
        // Observed starts carry no content; one that did would be the step's first text.
        appendText(step, contentText(object.value(u"content"_s)), cursor, out);
    } else if (step.type == "thought"_L1) {
        appendSummary(step, contentText(object.value(u"summary"_s)), cursor, out);
    } else if (step.type == "function_call"_L1) {
        // The call reads as it is written: `name(` now, its arguments as they stream, the whole
        // call once the step stops.
        RunEvent e = RunEvent::secondaryDelta(SecondaryKind::ToolCall, item, step.name + u'(');
        e.title = step.name.isEmpty() ? step.type : step.name;
        stamp(e, cursor);
        out << e;
    } else if (auto shown = stepItem(item, stepObject(step))) {
        stamp(*shown, cursor);
        out << *shown;
    }
    return Outcome::Continue;
}

GeminiMapper::Outcome GeminiMapper::mapStepDelta(const QJsonObject &event, RunEvent &cursor,
                                                 QList<RunEvent> &out)
{
    const qint64 index = indexOf(event);
    const QJsonValue deltaValue = event.value(u"delta"_s);
    if (index < 0 || !deltaValue.isObject()) {
        const QByteArray data = QJsonDocument(event).toJson(QJsonDocument::Compact);
        return malformed("step.delta", data,
                         index < 0 ? Text::tr("a step event without a valid index")
                                   : Text::tr("a step.delta without a delta object"),
                         cursor, out);
    }
    const QJsonObject delta = deltaValue.toObject();
    const QString kind = delta.value(u"type"_s).toString();
    Step &step = stepAt(index);
    const QString &item = step.item;

    if (kind == "text"_L1) {
        const QString text = delta.value(u"text"_s).toString();
        // A step not seen from its start (a resume in the middle of it) is an output step.
        if (step.type.isEmpty() || step.type == "model_output"_L1) {
            appendText(step, text, cursor, out);
        } else if (!text.isEmpty()) {
            RunEvent e = RunEvent::secondaryDelta(SecondaryKind::Progress, item, text);
            e.title = step.type;
            stamp(e, cursor);
            out << e;
        }
    } else if (kind == "thought_summary"_L1) {
        if (step.type.isEmpty())
            step.type = u"thought"_s;
        appendSummary(step, contentText(delta.value(u"content"_s)), cursor, out);
    } else if (kind == "arguments_delta"_L1) {
        if (step.type.isEmpty())
            step.type = u"function_call"_s;
        const QJsonValue fragment = delta.value(u"arguments"_s);
        const QString text = fragment.isString() ? fragment.toString() : compactJson(fragment);
        // The start's `arguments: {}` is a placeholder: the fragments are the arguments.
        if (!step.streamedArgs)
            step.arguments.clear();
        step.streamedArgs = true;
        step.arguments += text;
        RunEvent e = RunEvent::secondaryDelta(SecondaryKind::ToolCall, item, text);
        e.title = step.name.isEmpty() ? step.type : step.name;
        stamp(e, cursor);
        out << e;
    } else if (isCall(kind) || isResult(kind)) {
        // A server tool's call or result (google_search_call{arguments}, …_result{result}), or a
        // function result: whole, not fragments, so the item is shown whole at once.
        if (step.type.isEmpty())
            step.type = kind;
        if (const QString id = delta.value(isResult(kind) ? u"call_id"_s : u"id"_s).toString(); !id.isEmpty())
            step.callId = id;
        if (const QString name = delta.value(u"name"_s).toString(); !name.isEmpty())
            step.name = name;
        if (delta.contains(u"arguments"_s))
            step.arguments = compactJson(delta.value(u"arguments"_s));
        if (delta.contains(u"result"_s))
            step.result = delta.value(u"result"_s);
        step.isError = step.isError || delta.value(u"is_error"_s).toBool();
        if (auto shown = stepItem(item, stepObject(step))) {
            stamp(*shown, cursor);
            out << *shown;
        }
    }
    // thought_signature (the model's encrypted state, the last delta of a thought), media and
    // annotations: nothing to show, only the position moves.
    return Outcome::Continue;
}

void GeminiMapper::mapStepStop(qint64 index, RunEvent &cursor, QList<RunEvent> &out)
{
    const auto it = m_steps.constFind(index);
    // A step seen only from the middle (a resume) is known in part: its item keeps what the run
    // has rather than being replaced by a part of it.
    if (it == m_steps.cend() || !it->started)
        return;
    if (auto shown = stepItem(it->item, stepObject(*it))) {
        stamp(*shown, cursor);
        out << *shown;
    }
}

void GeminiMapper::appendSummary(Step &step, const QString &text, RunEvent &cursor, QList<RunEvent> &out)
{
    if (text.isEmpty())
        return;
    step.text += text;
    RunEvent e = RunEvent::secondaryDelta(SecondaryKind::Reasoning, step.item, text);
    e.title = QCoreApplication::translate("RunEvents", "Reasoning");
    stamp(e, cursor);
    out << e;
}

void GeminiMapper::appendText(Step &step, const QString &text, RunEvent &cursor, QList<RunEvent> &out)
{
    if (text.isEmpty())
        return;
    // The answer is the output steps' texts joined by a blank line, as outputText() joins them.
    RunEvent e = RunEvent::primaryDelta(!step.hasText && m_anyText ? u"\n\n"_s + text : text);
    step.hasText = true;
    m_anyText = true;
    m_answerStep = step.index;
    stamp(e, cursor);
    out << e;
}

QJsonObject GeminiMapper::stepObject(const Step &step) const
{
    QJsonObject object{{u"type"_s, step.type}};
    if (step.type == "thought"_L1) {
        if (!step.text.isEmpty()) {
            object.insert(u"summary"_s,
                          QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, step.text}}});
        }
    } else if (isResult(step.type)) {
        object.insert(u"call_id"_s, step.callId);
        if (!step.name.isEmpty())
            object.insert(u"name"_s, step.name);
        object.insert(u"result"_s, step.result);
        if (step.isError)
            object.insert(u"is_error"_s, true);
    } else if (isCall(step.type)) {
        object.insert(u"id"_s, step.callId);
        if (!step.name.isEmpty())
            object.insert(u"name"_s, step.name);
        object.insert(u"arguments"_s, argumentsValue(step.arguments));
    }
    return object;
}

GeminiMapper::Outcome GeminiMapper::malformed(QByteArrayView type, QByteArrayView data, const QString &why,
                                              RunEvent &cursor, QList<RunEvent> &out)
{
    const QString name = type.isEmpty() ? u"message"_s : QString::fromUtf8(type);
    m_error = RunError::protocol(
        u"malformed_event"_s,
        m_lastEventId.isEmpty()
            ? Text::tr("Malformed \"%1\" event before any event id: %2").arg(name, why)
            : Text::tr("Malformed \"%1\" event after event %2: %3").arg(name, m_lastEventId, why));
    // Kept on the run as a note with what arrived, not as the run's failure: the interaction
    // goes on, and a resume may bring the same event again, which lands on the same note.
    QString kept = QString::fromUtf8(data.first(std::min(data.size(), kMaxKeptData)));
    if (data.size() > kMaxKeptData)
        kept += u"…"_s;
    RunEvent note = RunEvent::secondarySnapshot(SecondaryKind::Log,
                                                u"malformed:"_s + QString::number(qHash(data, 0), 16),
                                                Text::tr("malformed event"), m_error.message + u'\n' + kept);
    stamp(note, cursor);
    out << note;
    return Outcome::Malformed;
}

} // namespace Runwatch::Gemini
