// SPDX-License-Identifier: GPL-3.0-or-later
#include "foundrymapper.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {
namespace {
// Operator-facing messages (for both namespaces below); lupdate reads Text::tr() under
// "FoundryConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(FoundryConnector)
};
} // namespace
} // namespace Runwatch

namespace Runwatch::Foundry {

RunStatus mapStatus(QStringView s)
{
    if (s == u"queued")
        return RunStatus::Queued;
    if (s == u"in_progress")
        return RunStatus::InProgress;
    if (s == u"requires_action")
        return RunStatus::InputRequired;
    if (s == u"cancelling")
        return RunStatus::Cancelling;
    if (s == u"cancelled")
        return RunStatus::Cancelled;
    if (s == u"failed")
        return RunStatus::Failed;
    if (s == u"completed")
        return RunStatus::Completed;
    if (s == u"expired")
        return RunStatus::Expired;
    if (s == u"incomplete")
        return RunStatus::Incomplete;
    return RunStatus::Unknown;
}

std::optional<InputRequest> inputRequestOf(const QJsonObject &run)
{
    const QJsonObject action = run.value(u"required_action"_s).toObject();
    const QString type = action.value(u"type"_s).toString();
    const bool approval = type == u"submit_tool_approval";
    if (type != u"submit_tool_outputs" && !approval)
        return std::nullopt;
    InputRequest request;
    request.reason = approval ? InputReason::Approval : InputReason::ToolOutput;
    const QJsonArray calls = action.value(type).toObject().value(u"tool_calls"_s).toArray();
    QStringList names;
    for (const QJsonValue &value : calls) {
        const QJsonObject call = value.toObject();
        ToolCallRequest t;
        t.id = call.value(u"id"_s).toString();
        const QJsonObject function = call.value(u"function"_s).toObject();
        t.name = function.isEmpty() ? call.value(u"name"_s).toString() : function.value(u"name"_s).toString();
        const QJsonValue arguments
            = function.isEmpty() ? call.value(u"arguments"_s) : function.value(u"arguments"_s);
        t.arguments
            = arguments.isString()
                  ? arguments.toString()
                  : QString::fromUtf8(QJsonDocument(arguments.toObject()).toJson(QJsonDocument::Compact));
        if (arguments.isUndefined() || arguments.isNull())
            t.arguments.clear();
        t.serverLabel = call.value(u"server_label"_s).toString();
        t.approval = approval;
        if (t.id.isEmpty())
            continue; // an answer must name the call: one without an id cannot be answered
        names << (t.name.isEmpty() ? t.id : t.name);
        request.toolCalls << t;
    }
    request.prompt = approval
                         ? Text::tr("Approve or reject the agent's tool call(s): %1").arg(names.join(u", "_s))
                         : Text::tr("The agent waits for the output of: %1").arg(names.join(u", "_s));
    const QJsonValue expires = run.value(u"expires_at"_s);
    if (expires.isDouble() && expires.toDouble() > 0)
        request.deadline = QDateTime::fromSecsSinceEpoch(qint64(expires.toDouble()), Qt::UTC);
    request.raw = action;
    return request;
}

std::optional<TokenUsage> usageOf(const QJsonObject &run)
{
    const QJsonObject usage = run.value(u"usage"_s).toObject();
    TokenUsage u
        = TokenUsage::fromJson(QJsonObject{{u"input_tokens"_s, usage.value(u"prompt_tokens"_s)},
                                           {u"output_tokens"_s, usage.value(u"completion_tokens"_s)}});
    if (!u.isKnown())
        return std::nullopt;
    return u;
}

QList<RunEvent> mapRunObject(const QJsonObject &run)
{
    QList<RunEvent> events;
    const QString id = run.value(u"id"_s).toString();
    if (!id.isEmpty()) {
        // No stream of this protocol can be resumed: the engine polls after a drop.
        RunEvent identity = RunEvent::identity(id, run.value(u"model"_s).toString(), false);
        const QString thread = run.value(u"thread_id"_s).toString();
        if (!thread.isEmpty())
            identity.tokenExtra.insert(u"thread_id"_s, thread);
        // A follow-up runs the same agent on the thread: persisted with the token.
        const QString agent = run.value(u"assistant_id"_s).toString();
        if (!agent.isEmpty())
            identity.tokenExtra.insert(u"assistant_id"_s, agent);
        events << identity;
    }
    const QString raw = run.value(u"status"_s).toString();
    const RunStatus status = mapStatus(raw);
    if (status == RunStatus::Failed) {
        const QJsonValue lastError = run.value(u"last_error"_s);
        RunError error
            = lastError.isObject() ? mapErrorObject(lastError.toObject(), ErrorKind::Run) : RunError();
        if (!lastError.isObject()) {
            error.kind = ErrorKind::Run;
            error.message = Text::tr("The run failed without saying why.");
        }
        events << RunEvent::failure(error);
    } else if (status == RunStatus::Incomplete) {
        RunError error;
        error.kind = ErrorKind::Run;
        error.code = run.value(u"incomplete_details"_s).toObject().value(u"reason"_s).toString();
        error.message = Text::tr("The run is incomplete (%1).")
                            .arg(error.code.isEmpty() ? Text::tr("no reason given") : error.code);
        events << RunEvent::failure(error);
    } else if (status == RunStatus::Expired) {
        RunError error;
        error.kind = ErrorKind::Run;
        error.code = u"expired"_s;
        error.message
            = Text::tr("The run expired: nobody answered its request before the deadline (runs expire ten "
                       "minutes after creation). Start a new run.");
        events << RunEvent::failure(error);
    }
    if (status == RunStatus::InputRequired) {
        if (auto request = inputRequestOf(run)) {
            RunEvent change = RunEvent::statusChange(status, raw);
            change.usage = usageOf(run);
            events << change;
            events << RunEvent::inputRequired(*request);
            return events;
        }
        // An action we do not know: say so instead of showing an answer form that cannot work.
        RunError error;
        error.kind = ErrorKind::Protocol;
        error.code = u"unknown_action"_s;
        error.message = Text::tr("The run requires an action Runwatch does not know: %1")
                            .arg(run.value(u"required_action"_s).toObject().value(u"type"_s).toString());
        events << RunEvent::failure(error);
    }
    RunEvent change = RunEvent::statusChange(status, raw);
    // One run, however many tool rounds: the service's figure is the run's whole usage.
    change.usage = usageOf(run);
    events << change;
    return events;
}

QList<RunEvent> mapRunStep(const QJsonObject &step)
{
    QList<RunEvent> events;
    const QJsonObject details = step.value(u"step_details"_s).toObject();
    if (details.value(u"type"_s).toString() != u"tool_calls")
        return events;
    const QString status = step.value(u"status"_s).toString();
    for (const QJsonValue &value : details.value(u"tool_calls"_s).toArray()) {
        const QJsonObject call = value.toObject();
        const QString id = call.value(u"id"_s).toString();
        const QString type = call.value(u"type"_s).toString();
        if (id.isEmpty())
            continue;
        QString title = type;
        QString text;
        if (type == u"function") {
            const QJsonObject function = call.value(u"function"_s).toObject();
            title = function.value(u"name"_s).toString();
            text = toolCallText(title, function.value(u"arguments"_s).toString());
            if (function.value(u"output"_s).isString())
                text += u"\n→ "_s + function.value(u"output"_s).toString();
        } else if (type == u"code_interpreter") {
            const QJsonObject code = call.value(u"code_interpreter"_s).toObject();
            title = Text::tr("code interpreter");
            text = code.value(u"input"_s).toString();
            for (const QJsonValue &output : code.value(u"outputs"_s).toArray()) {
                const QString logs = output.toObject().value(u"logs"_s).toString();
                if (!logs.isEmpty())
                    text += u"\n→ "_s + logs;
            }
        } else if (type == u"mcp") {
            title = call.value(u"server_label"_s).toString() + u": "_s + call.value(u"name"_s).toString();
            text = toolCallText(call.value(u"name"_s).toString(), call.value(u"arguments"_s).toString());
            if (call.value(u"output"_s).isString())
                text += u"\n→ "_s + call.value(u"output"_s).toString();
        } else {
            // file_search, bing_grounding, openapi, …: show what the service says, compactly.
            const QJsonValue body = call.value(type);
            if (body.isObject())
                text = QString::fromUtf8(QJsonDocument(body.toObject()).toJson(QJsonDocument::Compact));
        }
        if (!status.isEmpty() && status != u"completed" && status != u"in_progress")
            text += u"\n("_s + status + u')';
        events << RunEvent::secondarySnapshot(SecondaryKind::ToolCall, id, title, text);
    }
    return events;
}

QString assistantText(const QJsonArray &messages)
{
    QString text;
    for (const QJsonValue &value : messages) {
        const QJsonObject message = value.toObject();
        if (message.value(u"role"_s).toString() != u"assistant")
            continue;
        for (const QJsonValue &part : message.value(u"content"_s).toArray()) {
            const QJsonObject p = part.toObject();
            if (p.value(u"type"_s).toString() == u"text")
                text += p.value(u"text"_s).toObject().value(u"value"_s).toString();
        }
    }
    return text;
}

bool ListPages::add(const QJsonArray &page, qint64 bodyBytes, bool hasMore)
{
    ++m_pages;
    m_bytes += std::max<qint64>(bodyBytes, 0);
    const qsizetype room = std::max<qsizetype>(m_limits.maxItems - m_items.size(), 0);
    const qsizetype keep = std::min(page.size(), room);
    for (qsizetype i = 0; i < keep; ++i)
        m_items.append(page.at(i));
    const bool full
        = m_items.size() >= m_limits.maxItems || m_bytes >= m_limits.maxBytes || m_pages >= m_limits.maxPages;
    if (keep < page.size() || (full && hasMore))
        m_truncated = true;
    return !full;
}

RunError ListPages::error() const
{
    if (!m_truncated)
        return {};
    return RunError::protocol(
        u"list_too_long"_s,
        Text::tr("The service's list is longer than Runwatch reads (at most %1 items, %2 MiB, %3 pages): "
                 "only its first %4 items were read.")
            .arg(m_limits.maxItems)
            .arg(m_limits.maxBytes / (1024 * 1024))
            .arg(m_limits.maxPages)
            .arg(m_items.size()));
}

QJsonObject submitBody(const InputRequest &request, const InputAnswer &answer, QString *error)
{
    const std::optional<QList<ToolCallAnswer>> answers = answersForToolCalls(request, answer, error);
    if (!answers)
        return QJsonObject();
    const bool approval = request.reason == InputReason::Approval;
    QJsonArray entries;
    for (const ToolCallAnswer &a : *answers) {
        entries << (approval ? QJsonObject{{u"tool_call_id"_s, a.callId}, {u"approve"_s, a.approved}}
                             : QJsonObject{{u"tool_call_id"_s, a.callId}, {u"output"_s, a.output}});
    }
    return QJsonObject{{approval ? u"tool_approvals"_s : u"tool_outputs"_s, entries}};
}

} // namespace Runwatch::Foundry

namespace Runwatch {

FoundryMapper::Outcome FoundryMapper::malformed(const QString &why)
{
    m_error = RunError::protocol(u"malformed_event"_s, why);
    return Outcome::Malformed;
}

FoundryMapper::Outcome FoundryMapper::map(QByteArrayView eventName, QByteArrayView data, QList<RunEvent> &out)
{
    if (eventName == "done")
        return Outcome::Done;
    // The sentinel alone, without an event name, ends the stream too.
    if (eventName.isEmpty() && data.trimmed() == "[DONE]")
        return Outcome::Done;
    const bool thread = eventName.startsWith("thread.");
    if (!thread && eventName != "error")
        return Outcome::Continue; // unknown events are skipped (the service adds new ones)
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(data.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        return malformed(Text::tr("The service sent a \"%1\" event whose data is not a JSON object.")
                             .arg(QString::fromUtf8(eventName.toByteArray())));
    }
    const QJsonObject object = doc.object();
    if (eventName == "error") {
        m_error = Foundry::mapErrorObject(object, ErrorKind::Run);
        return Outcome::StreamError;
    }
    if (eventName == "thread.message.delta") {
        const QJsonArray content = object.value(u"delta"_s).toObject().value(u"content"_s).toArray();
        for (const QJsonValue &part : content) {
            const QJsonObject p = part.toObject();
            if (p.value(u"type"_s).toString() != u"text")
                continue;
            const QString text = p.value(u"text"_s).toObject().value(u"value"_s).toString();
            if (!text.isEmpty()) {
                out << RunEvent::primaryDelta(text);
                ++m_deltas;
            }
        }
        return Outcome::Continue;
    }
    if (eventName.startsWith("thread.run.step.")) {
        if (eventName != "thread.run.step.delta")
            out << Foundry::mapRunStep(object);
        return Outcome::Continue;
    }
    if (eventName.startsWith("thread.run.")) {
        const QString status = object.value(u"status"_s).toString();
        if (object.value(u"id"_s).toString().isEmpty() || status.isEmpty()) {
            return malformed(Text::tr("A \"%1\" event carries no run id or status.")
                                 .arg(QString::fromUtf8(eventName.toByteArray())));
        }
        m_runId = object.value(u"id"_s).toString();
        m_threadId = object.value(u"thread_id"_s).toString();
        out << Foundry::mapRunObject(object);
        const RunStatus mapped = Foundry::mapStatus(status);
        if (mapped == RunStatus::InputRequired)
            return Outcome::NeedsInput;
        return isTerminal(mapped) ? Outcome::Terminal : Outcome::Continue;
    }
    if (eventName == "thread.created") {
        // Known before the run's own events: enough to find the run if the stream breaks here.
        m_threadId = object.value(u"id"_s).toString();
        return Outcome::Continue;
    }
    // thread.message.created/in_progress/completed/incomplete: the text comes
    // from the deltas here and from the message list when reconciling.
    return Outcome::Continue;
}

} // namespace Runwatch
