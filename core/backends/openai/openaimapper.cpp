// SPDX-License-Identifier: GPL-3.0-or-later
#include "openaimapper.h"
#include "openaitoolwindow.h"

#include "json/jsonscan.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {
namespace {
// Operator-facing messages (for both namespaces below); lupdate reads Text::tr() under
// "OpenAiConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(OpenAiConnector)
};
} // namespace
} // namespace Runwatch

namespace Runwatch::OpenAi {

namespace {

constexpr QByteArrayView kDeltaType = "response.output_text.delta";

SecondaryKind kindForItemType(QStringView type)
{
    if (type == u"reasoning")
        return SecondaryKind::Reasoning;
    if (type == u"message")
        return SecondaryKind::Log;
    if (type.endsWith(u"_call") || type == u"mcp_list_tools" || type == u"mcp_approval_request")
        return SecondaryKind::ToolCall;
    return SecondaryKind::Progress;
}

// The readable content of a finished non-message output item.
QString itemText(const QJsonObject &item)
{
    const QString type = item.value(u"type"_s).toString();
    if (type == u"reasoning") {
        QStringList parts;
        const QJsonArray summary = item.value(u"summary"_s).toArray();
        for (const QJsonValue &v : summary)
            parts << v.toObject().value(u"text"_s).toString();
        return parts.join(u"\n\n"_s);
    }
    // A named call reads as a call: `lookup({"q":"x"})` (function, custom tool, MCP call or
    // approval request).
    const QString name = item.value(u"name"_s).toString();
    if (item.contains(u"arguments"_s))
        return toolCallText(name, item.value(u"arguments"_s).toString());
    if (item.contains(u"input"_s))
        return toolCallText(name, item.value(u"input"_s).toString());
    if (item.contains(u"code"_s))
        return item.value(u"code"_s).toString();
    return item.value(u"status"_s).toString();
}

QString itemTitle(const QJsonObject &item)
{
    const QString name = item.value(u"name"_s).toString();
    const QString type = item.value(u"type"_s).toString();
    return name.isEmpty() ? type : name;
}

// A finished non-message output item as secondary snapshots, `seq` on the first. A reasoning item
// becomes one snapshot per summary part, under the ids its streamed parts have (`<id>#s<n>`, see
// the reasoning_summary events): the same item reaches the run once, whether it was streamed,
// repeated by output_item.done and response.completed, or polled.
void appendItemSnapshots(QList<RunEvent> &out, const QJsonObject &item, qint64 seq = -1)
{
    const QString type = item.value(u"type"_s).toString();
    const QString id = item.value(u"id"_s).toString();
    if (type != u"reasoning") {
        out << RunEvent::secondarySnapshot(kindForItemType(type), id, itemTitle(item), itemText(item), seq);
        return;
    }
    const QJsonArray summary = item.value(u"summary"_s).toArray();
    for (qsizetype i = 0; i < summary.size(); ++i) {
        out << RunEvent::secondarySnapshot(SecondaryKind::Reasoning, id + u"#s"_s + QString::number(i),
                                           QCoreApplication::translate("RunEvents", "Reasoning"),
                                           summary.at(i).toObject().value(u"text"_s).toString(), seq);
        seq = -1;
    }
    if (seq >= 0)
        out << RunEvent::cursor(seq);
}

// The text a streamed call item starts with, so that its argument deltas read as the call being
// written: `name(`; empty for an unnamed item.
QString callOpening(const QJsonObject &item)
{
    const QString name = item.value(u"name"_s).toString();
    return name.isEmpty() ? QString() : name + u'(';
}

qint64 sequenceOf(const QJsonObject &o)
{
    // toInteger, not a cast of toDouble(): a server may send 1e300, and converting an
    // out-of-range double is undefined behaviour (found by fuzz_openai_mapping). A fraction or a
    // value outside qint64 is no sequence number.
    return o.value(u"sequence_number"_s).toInteger(-1);
}

} // namespace

RunStatus mapStatus(QStringView s)
{
    if (s == u"queued")
        return RunStatus::Queued;
    if (s == u"in_progress")
        return RunStatus::InProgress;
    if (s == u"completed")
        return RunStatus::Completed;
    if (s == u"failed")
        return RunStatus::Failed;
    if (s == u"cancelled")
        return RunStatus::Cancelled;
    if (s == u"incomplete")
        return RunStatus::Incomplete;
    return RunStatus::Unknown;
}

QString aggregateOutputText(const QJsonObject &response)
{
    QString text;
    const QJsonArray output = response.value(u"output"_s).toArray();
    for (const QJsonValue &itemValue : output) {
        const QJsonObject item = itemValue.toObject();
        if (item.value(u"type"_s).toString() != u"message")
            continue;
        const QJsonArray content = item.value(u"content"_s).toArray();
        for (const QJsonValue &partValue : content) {
            const QJsonObject part = partValue.toObject();
            if (part.value(u"type"_s).toString() == u"output_text")
                text += part.value(u"text"_s).toString();
        }
    }
    return text;
}

std::optional<InputRequest> inputRequestOf(const QJsonObject &response)
{
    if (response.value(u"status"_s).toString() != u"completed")
        return std::nullopt;
    // The calls after the last message: a response that answered after its calls needs nothing.
    const QJsonArray output = response.value(u"output"_s).toArray();
    QList<ToolCallRequest> calls;
    for (const QJsonValue &value : output) {
        const QJsonObject item = value.toObject();
        const QString type = item.value(u"type"_s).toString();
        if (type == u"message") {
            calls.clear();
            continue;
        }
        const bool approval = type == u"mcp_approval_request";
        if (type != u"function_call" && !approval)
            continue;
        ToolCallRequest call;
        // A function output names the call_id; an approval names the request item's id.
        call.id = item.value(approval ? u"id"_s : u"call_id"_s).toString();
        call.name = item.value(u"name"_s).toString();
        const QJsonValue arguments = item.value(u"arguments"_s);
        call.arguments
            = arguments.isObject()
                  ? QString::fromUtf8(QJsonDocument(arguments.toObject()).toJson(QJsonDocument::Compact))
                  : arguments.toString();
        call.serverLabel = item.value(u"server_label"_s).toString();
        call.approval = approval;
        call.reasonOnReject = approval; // mcp_approval_response takes a `reason`
        if (call.id.isEmpty())
            continue; // an answer must name the call: one without an id cannot be answered
        calls << call;
    }
    if (calls.isEmpty())
        return std::nullopt;
    InputRequest request;
    QStringList names;
    qsizetype approvals = 0;
    for (const ToolCallRequest &call : std::as_const(calls)) {
        names << (call.name.isEmpty() ? call.id : call.name);
        approvals += call.approval ? 1 : 0;
    }
    request.reason = approvals == calls.size() ? InputReason::Approval : InputReason::ToolOutput;
    request.prompt = request.reason == InputReason::Approval
                         ? Text::tr("Approve or reject the model's tool call(s): %1").arg(names.join(u", "_s))
                         : Text::tr("The model waits for the output of: %1").arg(names.join(u", "_s));
    request.toolCalls = calls;
    request.raw = QJsonObject{{u"response_id"_s, response.value(u"id"_s).toString()}};
    return request;
}

QJsonArray answerItems(const InputRequest &request, const InputAnswer &answer, QString *error)
{
    const std::optional<QList<ToolCallAnswer>> answers = answersForToolCalls(request, answer, error);
    if (!answers)
        return {};
    QJsonArray items;
    for (const ToolCallAnswer &a : *answers) {
        const auto call = std::find_if(request.toolCalls.cbegin(), request.toolCalls.cend(),
                                       [&a](const ToolCallRequest &c) { return c.id == a.callId; });
        if (call != request.toolCalls.cend() && call->approval) {
            QJsonObject item{{u"type"_s, u"mcp_approval_response"_s},
                             {u"approval_request_id"_s, a.callId},
                             {u"approve"_s, a.approved}};
            if (!a.approved && !a.output.isEmpty())
                item.insert(u"reason"_s, a.output);
            items << item;
        } else {
            items << QJsonObject{
                {u"type"_s, u"function_call_output"_s}, {u"call_id"_s, a.callId}, {u"output"_s, a.output}};
        }
    }
    return items;
}

std::optional<TokenUsage> usageOf(const QJsonObject &response)
{
    const QJsonObject usage = response.value(u"usage"_s).toObject();
    TokenUsage u = TokenUsage::fromJson(
        QJsonObject{{u"input_tokens"_s, usage.value(u"input_tokens"_s)},
                    {u"output_tokens"_s, usage.value(u"output_tokens"_s)},
                    {u"reasoning_tokens"_s,
                     usage.value(u"output_tokens_details"_s).toObject().value(u"reasoning_tokens"_s)}});
    if (!u.isKnown())
        return std::nullopt;
    return u;
}

std::optional<QJsonObject> agentReference(QStringView spec, QString *error)
{
    const qsizetype colon = spec.lastIndexOf(u':');
    const QString name = (colon < 0 ? spec : spec.left(colon)).trimmed().toString();
    QString version = colon < 0 ? QString() : spec.mid(colon + 1).trimmed().toString();
    if (name.isEmpty()) {
        if (error)
            *error = Text::tr("An agent is named NAME or NAME:VERSION.");
        return std::nullopt;
    }
    QJsonObject reference{{u"type"_s, u"agent_reference"_s}, {u"name"_s, name}};
    if (!version.isEmpty() && version.compare(u"latest"_s, Qt::CaseInsensitive) != 0)
        reference.insert(u"version"_s, version);
    return reference;
}

QJsonObject tokenExtraOf(const QJsonObject &response)
{
    QJsonObject extra;
    // `conversation` is {id} on a Response object; a bare id is taken too.
    const QJsonValue conversation = response.value(kConversation);
    const QString conversationId = conversation.isObject() ? conversation.toObject().value(u"id"_s).toString()
                                                           : conversation.toString();
    if (!conversationId.isEmpty())
        extra.insert(kConversation, conversationId);
    const QJsonObject agent = response.value(kAgentReference).toObject();
    if (!agent.value(u"name"_s).toString().isEmpty())
        extra.insert(kAgentReference, agent);
    return extra;
}

QList<RunEvent> mapResponseObject(const QJsonObject &response, bool verify)
{
    QList<RunEvent> events;
    const QString id = response.value(u"id"_s).toString();
    if (!id.isEmpty() || response.contains(u"model"_s)) {
        RunEvent identity = RunEvent::identity(id, response.value(u"model"_s).toString(), false);
        identity.tokenExtra = tokenExtraOf(response);
        events << identity;
    }

    const QJsonArray output = response.value(u"output"_s).toArray();
    for (const QJsonValue &itemValue : output) {
        const QJsonObject item = itemValue.toObject();
        const QString type = item.value(u"type"_s).toString();
        if (type == u"message" || type.isEmpty())
            continue;
        appendItemSnapshots(events, item);
    }
    RunEvent text = RunEvent::primarySnapshot(aggregateOutputText(response));
    text.verify = verify;
    // Usage rides on the snapshot every Response object gives, streamed or polled alike.
    text.usage = usageOf(response);
    events << text;

    const QJsonValue error = response.value(u"error"_s);
    if (error.isObject())
        events << RunEvent::failure(mapErrorObject(error.toObject(), ErrorKind::Run));
    const QJsonObject incomplete = response.value(u"incomplete_details"_s).toObject();
    if (!incomplete.isEmpty()) {
        RunError e;
        e.kind = ErrorKind::Run;
        e.code = incomplete.value(u"reason"_s).toString();
        e.message = Text::tr("The response is incomplete (%1).")
                        .arg(e.code.isEmpty() ? Text::tr("no reason given") : e.code);
        events << RunEvent::failure(e);
    }
    const QString raw = response.value(u"status"_s).toString();
    // A response that completed on function calls or MCP approval requests waits for the
    // operator: the run goes on with the answers (protocol reference §1.8).
    if (std::optional<InputRequest> input = inputRequestOf(response)) {
        // A Foundry agent's calls have a window; past it, nothing can be answered any more.
        input->deadline = agentToolWindowEnd(response);
        if (input->deadline.isValid() && input->deadline <= QDateTime::currentDateTimeUtc()) {
            events << RunEvent::failure(agentToolWindowExpired());
            events << RunEvent::statusChange(RunStatus::Expired, u"expired"_s);
            return events;
        }
        events << RunEvent::statusChange(RunStatus::InputRequired, raw);
        events << RunEvent::inputRequired(std::move(*input));
        return events;
    }
    // A missing status (it is not in the schema's required list) tells us nothing: skip it.
    if (!raw.isEmpty())
        events << RunEvent::statusChange(mapStatus(raw), raw);
    return events;
}

} // namespace Runwatch::OpenAi

namespace Runwatch {

using namespace OpenAi;

OpenAiMapper::Outcome OpenAiMapper::malformed(const QString &why)
{
    m_error = RunError::protocol(
        u"malformed_event"_s,
        m_lastSequence >= 0 ? Text::tr("Malformed event after sequence %1: %2").arg(m_lastSequence).arg(why)
                            : Text::tr("Malformed event at the start of the stream: %1").arg(why));
    return Outcome::Malformed;
}

bool OpenAiMapper::mapDeltaFast(QByteArrayView data, QList<RunEvent> &out, bool &handled)
{
    QByteArrayView type, delta, seq;
    bool escapedKey = false;
    const bool ok = JsonScan::forEachMember(data, [&](const JsonScan::Member &m) {
        if (m.keyHasEscapes) {
            escapedKey = true;
        } else if (m.key == "type") {
            type = m.value;
        } else if (m.key == "delta") {
            delta = m.value;
        } else if (m.key == "sequence_number") {
            seq = m.value;
        }
    });
    if (!ok)
        return false;
    // Anything unusual (escaped keys, another type) takes the general path.
    if (escapedKey || type != "\"response.output_text.delta\"" || delta.isEmpty()) {
        handled = false;
        return true;
    }
    qint64 sequence = -1;
    if (!seq.isEmpty()) {
        const auto n = JsonScan::decodeInteger(seq);
        if (!n) {
            handled = false;
            return true;
        }
        sequence = *n;
    }
    handled = true;
    const qint64 before = m_lastSequence;
    if (isDuplicate(sequence))
        return true;
    auto text = JsonScan::decodeString(delta);
    if (!text) {
        // Not consumed: the error then names the last good event, not this one.
        m_lastSequence = before;
        return false;
    }
    out.append(RunEvent::primaryDelta(std::move(*text), sequence));
    return true;
}

bool OpenAiMapper::isDuplicate(qint64 seq)
{
    if (seq < 0)
        return false;
    if (seq <= m_lastSequence) {
        ++m_dropped;
        return true;
    }
    m_lastSequence = seq;
    return false;
}

OpenAiMapper::Outcome OpenAiMapper::map(QByteArrayView sseType, QByteArrayView data, QList<RunEvent> &out)
{
    // Some compatible servers end with [DONE]; the real API just closes. Accept, never wait for it.
    if (data == "[DONE]")
        return Outcome::Continue;
    if (sseType == kDeltaType || (sseType == "message" && data.contains(kDeltaType))) {
        bool handled = false;
        if (!mapDeltaFast(data, out, handled))
            return malformed(u"invalid JSON or UTF-8 in a text delta"_s);
        if (handled)
            return Outcome::Continue;
    }
    return mapGeneral(sseType, data, out);
}

OpenAiMapper::Outcome OpenAiMapper::mapGeneral(QByteArrayView sseType, QByteArrayView data,
                                               QList<RunEvent> &out)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(data.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        return malformed(parseError.error != QJsonParseError::NoError ? parseError.errorString()
                                                                      : Text::tr("not a JSON object"));
    }
    const QJsonObject o = doc.object();
    QString type = o.value(u"type"_s).toString();
    if (type.isEmpty())
        type = QString::fromUtf8(sseType);
    const qint64 seq = sequenceOf(o);
    if (isDuplicate(seq))
        return Outcome::Continue;

    const QString itemId = o.value(u"item_id"_s).toString();

    if (type == u"response.created" || type == u"response.queued" || type == u"response.in_progress") {
        const QJsonObject response = o.value(u"response"_s).toObject();
        const QString raw = response.value(u"status"_s).toString();
        RunEvent identity = RunEvent::identity(response.value(u"id"_s).toString(),
                                               response.value(u"model"_s).toString(), m_streamable, seq);
        identity.tokenExtra = OpenAi::tokenExtraOf(response);
        out << identity;
        if (!raw.isEmpty())
            out << RunEvent::statusChange(mapStatus(raw), raw);
        return Outcome::Continue;
    }
    if (type == u"response.completed" || type == u"response.failed" || type == u"response.incomplete") {
        const QJsonObject response = o.value(u"response"_s).toObject();
        out << RunEvent::cursor(seq);
        QList<RunEvent> snapshot = mapResponseObject(response, true);
        std::optional<RunEvent> status;
        for (const RunEvent &e : std::as_const(snapshot)) {
            if (e.type == RunEvent::Type::Status)
                status = e;
        }
        out << snapshot;
        if (!status) {
            // The event type is the status when the snapshot lacks one.
            const QString raw = type.mid(int(sizeof("response.") - 1));
            status = RunEvent::statusChange(mapStatus(raw), raw);
            out << *status;
        }
        if (status->status == RunStatus::Unknown) {
            // The run ended in a state we cannot show as finished, and following it further
            // would never end: keep what the event carried, then stop with an error naming it.
            m_error = RunError::protocol(
                u"unknown_status"_s,
                Text::tr("The response ended with status \"%1\", which Runwatch does not know.")
                    .arg(status->rawStatus));
            return Outcome::Malformed;
        }
        return Outcome::Terminal;
    }
    if (type == u"error") {
        m_error = mapErrorObject(o, ErrorKind::Run);
        out << RunEvent::failure(m_error, seq);
        return Outcome::StreamError;
    }
    if (type == u"response.output_text.delta") {
        out << RunEvent::primaryDelta(o.value(u"delta"_s).toString(), seq);
        return Outcome::Continue;
    }
    if (type == u"response.output_item.added" || type == u"response.output_item.done") {
        const QJsonObject item = o.value(u"item"_s).toObject();
        const QString itemType = item.value(u"type"_s).toString();
        if (itemType == u"message" || itemType.isEmpty()
            || (itemType == u"reasoning" && type.endsWith(u".added"))) {
            // A reasoning item's content arrives as summary parts, each an item of its own.
            out << RunEvent::cursor(seq);
        } else if (type.endsWith(u".added")) {
            RunEvent e = RunEvent::secondaryDelta(kindForItemType(itemType), item.value(u"id"_s).toString(),
                                                  callOpening(item), seq);
            e.title = itemTitle(item);
            out << e;
        } else {
            appendItemSnapshots(out, item, seq);
        }
        return Outcome::Continue;
    }
    if (type == u"response.reasoning_summary_text.delta" || type == u"response.reasoning_text.delta") {
        const QString part = type.contains(u"summary")
                                 ? u"#s"_s + QString::number(o.value(u"summary_index"_s).toInt())
                                 : u"#r"_s + QString::number(o.value(u"content_index"_s).toInt());
        out << RunEvent::secondaryDelta(SecondaryKind::Reasoning, itemId + part,
                                        o.value(u"delta"_s).toString(), seq);
        return Outcome::Continue;
    }
    if (type == u"response.reasoning_summary_text.done" || type == u"response.reasoning_text.done") {
        const QString part = type.contains(u"summary")
                                 ? u"#s"_s + QString::number(o.value(u"summary_index"_s).toInt())
                                 : u"#r"_s + QString::number(o.value(u"content_index"_s).toInt());
        out << RunEvent::secondarySnapshot(SecondaryKind::Reasoning, itemId + part,
                                           QCoreApplication::translate("RunEvents", "Reasoning"),
                                           o.value(u"text"_s).toString(), seq);
        return Outcome::Continue;
    }
    if (type == u"response.function_call_arguments.delta" || type == u"response.custom_tool_call_input.delta"
        || type == u"response.mcp_call_arguments.delta"
        || type == u"response.code_interpreter_call_code.delta") {
        out << RunEvent::secondaryDelta(SecondaryKind::ToolCall, itemId, o.value(u"delta"_s).toString(), seq);
        return Outcome::Continue;
    }
    if (type == u"response.function_call_arguments.done" || type == u"response.mcp_call_arguments.done"
        || type == u"response.custom_tool_call_input.done") {
        // The finished call reads `name(arguments)`. Without the name (only the function event
        // carries it) the item's output_item.done, which follows, finishes it: one final form.
        const QString name = o.value(u"name"_s).toString();
        if (name.isEmpty()) {
            out << RunEvent::cursor(seq);
            return Outcome::Continue;
        }
        const QString arguments
            = o.contains(u"input"_s) ? o.value(u"input"_s).toString() : o.value(u"arguments"_s).toString();
        out << RunEvent::secondarySnapshot(SecondaryKind::ToolCall, itemId, name,
                                           toolCallText(name, arguments), seq);
        return Outcome::Continue;
    }
    if (type == u"response.code_interpreter_call_code.done") {
        out << RunEvent::secondarySnapshot(SecondaryKind::ToolCall, itemId, {}, o.value(u"code"_s).toString(),
                                           seq);
        return Outcome::Continue;
    }
    if (type == u"response.refusal.delta") {
        out << RunEvent::secondaryDelta(SecondaryKind::Log, itemId + u"#refusal"_s,
                                        o.value(u"delta"_s).toString(), seq);
        return Outcome::Continue;
    }
    if (type == u"response.refusal.done") {
        out << RunEvent::secondarySnapshot(SecondaryKind::Log, itemId + u"#refusal"_s,
                                           QCoreApplication::translate("RunEvents", "Refusal"),
                                           o.value(u"refusal"_s).toString(), seq);
        return Outcome::Continue;
    }
    // Tool progress: response.<tool>_call.<phase> (web/file search, code interpreter, MCP, images).
    if (type.startsWith(u"response.") && !itemId.isEmpty()
        && (type.endsWith(u".in_progress") || type.endsWith(u".searching") || type.endsWith(u".completed")
            || type.endsWith(u".interpreting") || type.endsWith(u".generating") || type.endsWith(u".failed")
            || type.endsWith(u".partial_image"))) {
        const qsizetype dot = type.lastIndexOf(u'.');
        const QString tool = type.mid(9, dot - 9);
        QString phase = type.mid(dot + 1);
        out << RunEvent::secondarySnapshot(SecondaryKind::Progress, itemId + u"#progress"_s, tool,
                                           phase.replace(u'_', u' '), seq);
        return Outcome::Continue;
    }
    // Structure events, *.done text confirmations, keep-alives and future types: only the cursor moves.
    out << RunEvent::cursor(seq);
    return Outcome::Continue;
}

} // namespace Runwatch
