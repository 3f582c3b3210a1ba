// SPDX-License-Identifier: GPL-3.0-or-later
#include "run.h"

#include "enumnames.h"
#include "stringhash.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QSet>

#include <algorithm>
#include <array>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
constexpr std::array kSecondaryNames{
    EnumName{SecondaryKind::Reasoning, "reasoning"_L1}, EnumName{SecondaryKind::ToolCall, "tool_call"_L1},
    EnumName{SecondaryKind::Progress, "progress"_L1},   EnumName{SecondaryKind::Log, "log"_L1},
    EnumName{SecondaryKind::StatusChange, "status"_L1},
};
constexpr std::array kReasonNames{
    EnumName{InputReason::Question, "question"_L1}, EnumName{InputReason::Approval, "approval"_L1},
    EnumName{InputReason::Options, "options"_L1},   EnumName{InputReason::ToolOutput, "tool_output"_L1},
    EnumName{InputReason::Auth, "auth"_L1},         EnumName{InputReason::Timer, "timer"_L1},
    EnumName{InputReason::Webhook, "webhook"_L1},
};

QString isoOrEmpty(const QDateTime &dt)
{
    return dt.isValid() ? dt.toUTC().toString(Qt::ISODateWithMs) : QString();
}
QDateTime parseIso(const QJsonValue &v)
{
    return v.isString() ? QDateTime::fromString(v.toString(), Qt::ISODateWithMs) : QDateTime();
}
} // namespace

namespace {
qint64 addCounts(qint64 a, qint64 b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    return a + b;
}

qint64 countOf(const QJsonValue &value)
{
    // toInteger: a fraction or a value outside qint64 is no count (and never undefined behaviour).
    const qint64 n = value.toInteger(-1);
    return n >= 0 ? n : -1;
}
} // namespace

TokenUsage TokenUsage::plus(const TokenUsage &other) const
{
    return {addCounts(inputTokens, other.inputTokens), addCounts(outputTokens, other.outputTokens),
            addCounts(reasoningTokens, other.reasoningTokens)};
}

QJsonObject TokenUsage::toJson() const
{
    QJsonObject o;
    if (inputTokens >= 0)
        o.insert(u"input_tokens"_s, inputTokens);
    if (outputTokens >= 0)
        o.insert(u"output_tokens"_s, outputTokens);
    if (reasoningTokens >= 0)
        o.insert(u"reasoning_tokens"_s, reasoningTokens);
    return o;
}

TokenUsage TokenUsage::fromJson(const QJsonObject &object)
{
    return {countOf(object.value(u"input_tokens"_s)), countOf(object.value(u"output_tokens"_s)),
            countOf(object.value(u"reasoning_tokens"_s))};
}

QJsonObject ContinuationToken::toJson() const
{
    QJsonObject o;
    o.insert(u"remote_id"_s, remoteId);
    o.insert(u"sequence"_s, sequence);
    if (!eventId.isEmpty())
        o.insert(u"event_id"_s, eventId);
    o.insert(u"streamable"_s, streamable);
    if (!previousRemoteIds.isEmpty())
        o.insert(u"previous_remote_ids"_s, QJsonArray::fromStringList(previousRemoteIds));
    if (textBase > 0)
        o.insert(u"text_base"_s, textBase);
    if (textAtCursor >= 0)
        o.insert(u"text_at_cursor"_s, textAtCursor);
    if (usageBase.isKnown())
        o.insert(u"usage_base"_s, usageBase.toJson());
    if (!extra.isEmpty())
        o.insert(u"extra"_s, extra);
    return o;
}

ContinuationToken ContinuationToken::fromJson(const QJsonObject &object)
{
    ContinuationToken t;
    t.remoteId = object.value(u"remote_id"_s).toString();
    // toInteger, not a cast of toDouble(): a damaged store may hold 1e300 here, and converting
    // an out-of-range double is undefined behaviour (found by fuzz_token). Fractions and values
    // outside qint64 count as "no position".
    t.sequence = std::max<qint64>(-1, object.value(u"sequence"_s).toInteger(-1));
    t.eventId = object.value(u"event_id"_s).toString();
    t.streamable = object.value(u"streamable"_s).toBool();
    for (const QJsonValue &id : object.value(u"previous_remote_ids"_s).toArray()) {
        if (id.isString())
            t.previousRemoteIds << id.toString();
    }
    t.textBase = std::max<qint64>(0, object.value(u"text_base"_s).toInteger(0));
    t.textAtCursor = std::max<qint64>(-1, object.value(u"text_at_cursor"_s).toInteger(-1));
    t.usageBase = TokenUsage::fromJson(object.value(u"usage_base"_s).toObject());
    t.extra = object.value(u"extra"_s).toObject();
    return t;
}

QString secondaryKindName(SecondaryKind kind)
{
    return nameOf(kSecondaryNames, kind);
}

SecondaryKind secondaryKindFromName(QStringView name)
{
    return fromName(kSecondaryNames, name).value_or(SecondaryKind::Log);
}

QJsonObject SecondaryItem::toJson() const
{
    QJsonObject o;
    o.insert(u"id"_s, id);
    o.insert(u"kind"_s, secondaryKindName(kind));
    if (!title.isEmpty())
        o.insert(u"title"_s, title);
    o.insert(u"text"_s, text);
    o.insert(u"at"_s, isoOrEmpty(at));
    o.insert(u"done"_s, done);
    return o;
}

SecondaryItem SecondaryItem::fromJson(const QJsonObject &object)
{
    SecondaryItem item;
    item.id = object.value(u"id"_s).toString();
    item.kind = secondaryKindFromName(object.value(u"kind"_s).toString());
    item.title = object.value(u"title"_s).toString();
    item.text = object.value(u"text"_s).toString();
    item.at = parseIso(object.value(u"at"_s));
    item.done = object.value(u"done"_s).toBool();
    return item;
}

QString inputReasonName(InputReason reason)
{
    return nameOf(kReasonNames, reason);
}

InputReason inputReasonFromName(QStringView name)
{
    return fromName(kReasonNames, name).value_or(InputReason::Question);
}

QJsonObject InputRequest::toJson() const
{
    QJsonObject o;
    o.insert(u"reason"_s, inputReasonName(reason));
    o.insert(u"prompt"_s, prompt);
    if (!options.isEmpty())
        o.insert(u"options"_s, QJsonArray::fromStringList(options));
    if (deadline.isValid())
        o.insert(u"deadline"_s, isoOrEmpty(deadline));
    if (!callbackUrl.isEmpty())
        o.insert(u"callback_url"_s, callbackUrl);
    if (!toolCalls.isEmpty()) {
        QJsonArray calls;
        for (const ToolCallRequest &call : toolCalls)
            calls.append(call.toJson());
        o.insert(u"tool_calls"_s, calls);
    }
    if (!schema.isEmpty())
        o.insert(u"schema"_s, schema);
    if (declinable)
        o.insert(u"declinable"_s, true);
    if (!dismissChoice.isEmpty())
        o.insert(u"dismiss_choice"_s, dismissChoice);
    if (!raw.isEmpty())
        o.insert(u"raw"_s, raw);
    return o;
}

InputRequest InputRequest::fromJson(const QJsonObject &object)
{
    InputRequest r;
    r.reason = inputReasonFromName(object.value(u"reason"_s).toString());
    r.prompt = object.value(u"prompt"_s).toString();
    const QJsonArray options = object.value(u"options"_s).toArray();
    for (const QJsonValue &v : options)
        r.options << v.toString();
    r.deadline = parseIso(object.value(u"deadline"_s));
    r.callbackUrl = object.value(u"callback_url"_s).toString();
    const QJsonArray calls = object.value(u"tool_calls"_s).toArray();
    for (const QJsonValue &v : calls) {
        if (v.isObject())
            r.toolCalls << ToolCallRequest::fromJson(v.toObject());
    }
    r.schema = object.value(u"schema"_s).toObject();
    r.declinable = object.value(u"declinable"_s).toBool();
    r.dismissChoice = object.value(u"dismiss_choice"_s).toString();
    r.raw = object.value(u"raw"_s).toObject();
    return r;
}

QJsonObject ToolCallRequest::toJson() const
{
    QJsonObject o{{u"id"_s, id}, {u"name"_s, name}, {u"arguments"_s, arguments}};
    if (!serverLabel.isEmpty())
        o.insert(u"server_label"_s, serverLabel);
    if (approval)
        o.insert(u"approval"_s, true);
    if (reasonOnReject)
        o.insert(u"reason_on_reject"_s, true);
    if (!approveAllowed)
        o.insert(u"approve_allowed"_s, false);
    if (!rejectAllowed)
        o.insert(u"reject_allowed"_s, false);
    return o;
}

ToolCallRequest ToolCallRequest::fromJson(const QJsonObject &object)
{
    ToolCallRequest r;
    r.id = object.value(u"id"_s).toString();
    r.name = object.value(u"name"_s).toString();
    r.arguments = object.value(u"arguments"_s).toString();
    r.serverLabel = object.value(u"server_label"_s).toString();
    r.approval = object.value(u"approval"_s).toBool();
    r.reasonOnReject = object.value(u"reason_on_reject"_s).toBool();
    r.approveAllowed = object.value(u"approve_allowed"_s).toBool(true);
    r.rejectAllowed = object.value(u"reject_allowed"_s).toBool(true);
    return r;
}

bool followUpAllowed(const Run &run)
{
    // A failed or cancelled turn is not a conversation to build on: the services refuse it or
    // continue from an answer that never came.
    if (!run.capabilities.testFlag(Capability::FollowUp) || run.remoteId.isEmpty())
        return false;
    // Working only: a queued run has not begun, one waiting for input is answered (Respond),
    // and a cancelling one is ending.
    return run.status == RunStatus::Completed
           || (run.status == RunStatus::InProgress && run.capabilities.testFlag(Capability::FollowUpWorking));
}

bool followUpContinuesRun(const Run &run)
{
    return !run.isTerminal();
}

namespace {

quint64 idHash(const QString &id)
{
    return seededStringHash(id);
}

quint32 tagOf(quint64 hash)
{
    return quint32(hash >> 32);
}

} // namespace

qsizetype SecondaryIndex::find(QList<SecondaryItem> &items, const QString &id)
{
    if (id.isEmpty())
        return -1;
    items.detach(); // a write through the answer must not move the items afterwards
    // The tail's id is usually the very string indexed: no comparison of the text needed.
    const auto tailMoved = [&] {
        const QString &tail = items.at(m_covered - 1).id;
        const bool same = tail.constData() == m_tailId.constData() && tail.size() == m_tailId.size();
        return !same && tail != m_tailId;
    };
    if (items.constData() != m_buffer || m_covered > items.size() || (m_covered > 0 && tailMoved())) {
        rebuild(items);
    } else {
        extend(items);
    }
    const quint64 hash = idHash(id);
    bool stale = false;
    qsizetype at = lookup(items, id, hash, stale);
    if (at < 0 && stale) {
        rebuild(items);
        at = lookup(items, id, hash, stale);
    }
    if (at < 0) {
        // The caller usually appends an item of this id next: extend() takes the hash from here.
        m_missedId = id;
        m_missedHash = hash;
    }
    return at;
}

qsizetype SecondaryIndex::lookup(const QList<SecondaryItem> &items, const QString &id, quint64 hash,
                                 bool &stale) const
{
    if (m_slots.isEmpty())
        return -1;
    const quint64 mask = quint64(m_slots.size()) - 1;
    const quint32 tag = tagOf(hash);
    for (quint64 i = tag & mask;; i = (i + 1) & mask) {
        const Slot &slot = m_slots.at(qsizetype(i));
        if (slot.next == 0)
            return -1;
        if (slot.tag != tag)
            continue;
        const qsizetype position = qsizetype(slot.next) - 1;
        if (position < items.size() && items.at(position).id == id)
            return position;
        stale = true; // moved, renamed, or the rare id of the same tag
    }
}

void SecondaryIndex::rebuild(const QList<SecondaryItem> &items)
{
    m_slots.clear();
    m_used = 0;
    m_covered = 0;
    extend(items);
}

void SecondaryIndex::extend(const QList<SecondaryItem> &items)
{
    m_buffer = items.constData();
    if (m_covered == items.size())
        return;
    // Later items with the same id win, as the scan from the end did.
    for (qsizetype i = m_covered; i < items.size(); ++i) {
        if (!items.at(i).id.isEmpty())
            insert(items, i);
    }
    m_covered = items.size();
    m_tailId = items.last().id;
}

void SecondaryIndex::insert(const QList<SecondaryItem> &items, qsizetype position)
{
    // At most three quarters full: eight slots share a cache line, so the longer probes of a fuller
    // table cost less than the misses of a table twice the size (80,000 items: 1 MB, not 2).
    if ((m_used + 1) * 4 > m_slots.size() * 3)
        grow();
    const QString &id = items.at(position).id;
    const bool missed = id.constData() == m_missedId.constData() && id.size() == m_missedId.size();
    const quint64 hash = missed ? m_missedHash : idHash(id);
    const quint32 tag = tagOf(hash);
    const quint64 mask = quint64(m_slots.size()) - 1;
    Slot *slots = m_slots.data();
    for (quint64 i = tag & mask;; i = (i + 1) & mask) {
        Slot &slot = slots[i];
        if (slot.next == 0) {
            slot = {tag, quint32(position + 1)};
            ++m_used;
            return;
        }
        if (slot.tag == tag && items.at(slot.next - 1).id == id) {
            slot.next = quint32(position + 1);
            return;
        }
    }
}

void SecondaryIndex::grow()
{
    // A slot is picked by the tag it keeps, so growing reads no item and hashes no id again (the
    // items are scattered over the heap: touching each one was most of the cost of growing).
    // The entries are distinct ids: each goes to the first free slot.
    const QList<Slot> old = std::exchange(m_slots, QList<Slot>(std::max<qsizetype>(16, m_slots.size() * 2)));
    const quint64 mask = quint64(m_slots.size()) - 1;
    Slot *slots = m_slots.data();
    for (const Slot &entry : old) {
        if (entry.next == 0)
            continue;
        quint64 i = entry.tag & mask;
        while (slots[i].next != 0)
            i = (i + 1) & mask;
        slots[i] = entry;
    }
}

QString Run::summarize(const QString &prompt, int maxChars)
{
    QString s = prompt.simplified();
    if (s.size() > maxChars) {
        s.truncate(maxChars - 1);
        s += u'…';
    }
    return s;
}

std::optional<QList<ToolCallAnswer>> answersForToolCalls(const InputRequest &request,
                                                         const InputAnswer &answer, QString *error)
{
    const auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return std::optional<QList<ToolCallAnswer>>();
    };
    if (request.toolCalls.isEmpty()) {
        return fail(
            QCoreApplication::translate("ToolCalls", "The run's request names no tool calls to answer."));
    }
    qsizetype outputs = 0;
    for (const ToolCallRequest &call : request.toolCalls)
        outputs += call.approval ? 0 : 1;
    const qsizetype approvals = request.toolCalls.size() - outputs;
    QList<ToolCallAnswer> answers = answer.toolAnswers;
    if (answers.isEmpty()) {
        const bool decision
            = answer.kind == InputAnswer::Kind::Approve || answer.kind == InputAnswer::Kind::Reject;
        if (decision && approvals > 0 && outputs == 0) {
            // One decision for every call; a reject's comment is each call's reason.
            const bool approve = answer.kind == InputAnswer::Kind::Approve;
            for (const ToolCallRequest &call : request.toolCalls)
                answers << ToolCallAnswer{call.id, approve ? QString() : answer.comment, approve};
        } else if (answer.kind == InputAnswer::Kind::Text && outputs > 0 && approvals == 0) {
            if (outputs != 1) {
                return fail(QCoreApplication::translate(
                    "ToolCalls", "%n tool calls are pending: give one output per call id.", nullptr,
                    int(outputs)));
            }
            answers << ToolCallAnswer{request.toolCalls.first().id, answer.text, false};
        } else if (outputs > 0 && approvals > 0) {
            return fail(QCoreApplication::translate(
                "ToolCalls", "This run asks for tool outputs and approvals: answer each call by its id."));
        } else {
            return fail(outputs == 0
                            ? QCoreApplication::translate("ToolCalls",
                                                          "This run asks to approve or reject tool calls.")
                            : QCoreApplication::translate("ToolCalls", "This run asks for tool outputs."));
        }
    }
    QHash<QString, const ToolCallRequest *> pending;
    for (const ToolCallRequest &call : request.toolCalls)
        pending.insert(call.id, &call);
    QSet<QString> answered;
    for (const ToolCallAnswer &a : std::as_const(answers)) {
        const ToolCallRequest *call = pending.value(a.callId);
        if (!call) {
            return fail(QCoreApplication::translate("ToolCalls", "No pending tool call has the id \"%1\".")
                            .arg(a.callId));
        }
        // A decision the service does not take for this call would fail the run: refused here.
        if (call->approval && !(a.approved ? call->approveAllowed : call->rejectAllowed)) {
            const QString name = call->name.isEmpty() ? call->id : call->name;
            return fail(
                a.approved
                    ? QCoreApplication::translate("ToolCalls", "The service does not allow approving %1.")
                          .arg(name)
                    : QCoreApplication::translate("ToolCalls", "The service does not allow rejecting %1.")
                          .arg(name));
        }
        if (answered.contains(a.callId)) {
            return fail(QCoreApplication::translate("ToolCalls", "The tool call \"%1\" is answered twice.")
                            .arg(a.callId));
        }
        answered.insert(a.callId);
    }
    if (answered.size() != pending.size()) {
        QStringList missing;
        for (const ToolCallRequest &call : request.toolCalls) {
            if (!answered.contains(call.id))
                missing << call.id;
        }
        return fail(
            QCoreApplication::translate(
                "ToolCalls", "Every pending tool call needs an answer in the same submit; missing: %1")
                .arg(missing.join(u", "_s)));
    }
    return answers;
}

QString toolCallText(const QString &name, const QString &arguments)
{
    if (name.isEmpty())
        return arguments;
    return name + u'(' + arguments + u')';
}

} // namespace Runwatch
