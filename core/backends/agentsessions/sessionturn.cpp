// SPDX-License-Identifier: GPL-3.0-or-later
#include "sessionturn.h"

#include <QCoreApplication>
#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace Runwatch::AgentSessions {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "AgentSessions".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(AgentSessions)
};

// The outputs of a turn are joined as one answer, the way the other connectors join an answer's
// parts.
const QString kSeparator = u"\n\n"_s;

// Puts the event's id on the first RunEvent made of it: the run's cursor moves with what was
// applied.
void stampFirst(QList<RunEvent> &out, qsizetype from, const QString &id)
{
    if (id.isEmpty())
        return;
    if (from < out.size()) {
        out[from].eventId = id;
    } else {
        out << RunEvent::cursor(-1, id);
    }
}

} // namespace

SessionTurn::SessionTurn(QString turnId)
    : m_turnId(std::move(turnId))
    , m_latest(m_turnId.isEmpty())
{}

void SessionTurn::followNextTurn()
{
    m_next = true;
    m_latest = false;
    m_turnId.clear();
}

void SessionTurn::resetTurn(const QString &turnId, const QString &prompt)
{
    m_turnId = turnId;
    m_prompt = prompt;
    m_started = true;
    m_ended = false;
    m_interrupted = false;
    m_items.clear();
    m_itemAt.clear();
    m_outputs.clear();
    m_outputKeys.clear();
    m_previews.clear();
    m_calls.clear();
    m_forms.clear();
    m_blocking.clear();
    m_status = RunStatus::InProgress;
    m_raw.clear();
    m_failure = {};
    m_usage = {};
    m_usageKnown = false;
    m_previewShown = false;
}

void SessionTurn::history(const SessionEvent &event)
{
    apply(event, nullptr);
}

void SessionTurn::live(const SessionEvent &event, QList<RunEvent> &out)
{
    const qsizetype from = out.size();
    const qint64 dropped = m_dropped;
    apply(event, &out);
    // A repeat moves nothing; anything else moves the cursor to its id.
    if (m_dropped == dropped)
        stampFirst(out, from, event.id);
}

QString SessionTurn::savedText() const
{
    QStringList parts;
    for (const QString &text : m_outputs) {
        if (!text.isEmpty())
            parts << text;
    }
    return parts.join(kSeparator);
}

QString SessionTurn::shownText() const
{
    QStringList parts;
    for (const QString &text : m_outputs) {
        if (!text.isEmpty())
            parts << text;
    }
    for (const auto &preview : m_previews) {
        if (!preview.second.isEmpty())
            parts << preview.second;
    }
    return parts.join(kSeparator);
}

RunStatus SessionTurn::status() const
{
    if (m_ended)
        return m_status;
    return waiting() ? RunStatus::InputRequired : RunStatus::InProgress;
}

std::optional<InputRequest> SessionTurn::pendingRequest() const
{
    if (!waiting())
        return std::nullopt;
    // A typed form is answered on its own (its answer is one value, not one per call).
    for (const QString &id : m_blocking) {
        if (const auto form = m_forms.constFind(id); form != m_forms.cend())
            return *form;
    }
    InputRequest request;
    QStringList names;
    bool approvals = false;
    for (const QString &id : m_blocking) {
        const auto it = m_calls.constFind(id);
        // A call the history did not show (it began before what was read) cannot be answered
        // rightly: it is left out, and the service's next idle names it again.
        if (it == m_calls.cend())
            continue;
        request.toolCalls << *it;
        approvals = approvals || it->approval;
        names << (it->name.isEmpty() ? it->id : it->name);
    }
    request.reason = approvals ? InputReason::Approval : InputReason::ToolOutput;
    request.prompt = approvals ? Text::tr("The agent waits for your decision on: %1").arg(names.join(u", "_s))
                               : Text::tr("The agent waits for the result of: %1").arg(names.join(u", "_s));
    request.raw = QJsonObject{{u"event_ids"_s, QJsonArray::fromStringList(m_blocking)}};
    return request;
}

RunEvent SessionTurn::usageEvent() const
{
    RunEvent e = RunEvent::cursor(-1);
    e.usage = m_usage;
    return e;
}

QList<RunEvent> SessionTurn::historyEvents() const
{
    QList<RunEvent> events;
    if (m_started) {
        events = turnEvents();
    } else if (m_ended) {
        events << RunEvent::statusChange(m_status, m_raw);
    }
    if (!m_lastId.isEmpty())
        events << RunEvent::cursor(-1, m_lastId);
    return events;
}

QList<RunEvent> SessionTurn::turnEvents() const
{
    QList<RunEvent> events;
    RunEvent identity = RunEvent::identity({}, {}, false);
    identity.tokenExtra.insert(kTurnKey, m_turnId);
    events << identity;
    for (const Item &item : m_items)
        events << RunEvent::secondarySnapshot(item.kind, item.id, item.title, item.text);
    // The answer as saved: whatever a preview left in the run before a drop or a restart goes.
    RunEvent text = RunEvent::primarySnapshot(savedText());
    text.authoritative = true;
    events << text;
    if (m_usageKnown)
        events << usageEvent();
    if (m_ended && m_status == RunStatus::Failed && m_failure.isError())
        events << RunEvent::failure(m_failure);
    const RunStatus now = status();
    events << RunEvent::statusChange(now, m_raw.isEmpty() ? statusName(now) : m_raw);
    if (const std::optional<InputRequest> request = pendingRequest())
        events << RunEvent::inputRequired(*request);
    return events;
}

bool SessionTurn::apply(const SessionEvent &event, QList<RunEvent> *out)
{
    if (!event.id.isEmpty()) {
        if (m_seen.contains(event.id)) {
            ++m_dropped;
            return false;
        }
        m_seen.insert(event.id);
        m_lastId = event.id;
    }
    using Kind = SessionEvent::Kind;
    if (event.kind == Kind::Deleted) {
        m_ended = true;
        m_blocking.clear();
        m_status = RunStatus::Deleted;
        m_raw = u"deleted"_s;
        if (out)
            *out << RunEvent::statusChange(m_status, m_raw);
        return true;
    }
    if (event.kind == Kind::Malformed) {
        // Kept on the run as a note, whichever turn it belongs to: the session goes on.
        const QString id = u"malformed:"_s + QString::number(qHash(event.text, 0), 16);
        Item item{id, SecondaryKind::Log, Text::tr("malformed event"),
                  event.error.message + u'\n' + event.text};
        if (out)
            *out << RunEvent::secondarySnapshot(item.kind, item.id, item.title, item.text);
        return true;
    }
    if (event.kind == Kind::UserMessage) {
        if (m_next && out && !event.id.isEmpty()) {
            // The run's turn: the first the stream starts once the run's message went out.
            m_next = false;
            resetTurn(event.id, event.text);
            RunEvent identity = RunEvent::identity({}, {}, true);
            identity.tokenExtra.insert(kTurnKey, m_turnId);
            *out << identity;
            return true;
        }
        if (m_latest && !out) {
            // Attached by session id: the history's last turn is the one followed; the ones before
            // it are the conversation's earlier turns.
            if (m_started)
                m_earlier << EarlierTurn{.prompt = m_prompt, .events = turnEvents()};
            resetTurn(event.id, event.text);
            return true;
        }
        if (!m_started && !event.id.isEmpty() && event.id == m_turnId) {
            m_started = true;
            m_prompt = event.text;
            return true;
        }
        // Another turn's message: a later turn, or one queued while this one runs.
        return false;
    }
    // Events of earlier turns, and of later ones once this one ended, are not this run's.
    if (!m_started || m_ended)
        return false;

    switch (event.kind) {
    case Kind::Other:
    case Kind::UserMessage:
    case Kind::Deleted:
    case Kind::Malformed:
        return false;
    case Kind::Interrupt:
        m_interrupted = true;
        return true;
    case Kind::PreviewStart: {
        if (event.key.isEmpty() || m_outputKeys.contains(event.key))
            return false;
        for (const auto &preview : std::as_const(m_previews)) {
            if (preview.first == event.key)
                return false;
        }
        m_previews.append({event.key, QString()});
        return true;
    }
    case Kind::PreviewText: {
        // A preview whose start this stream did not show (it began before the connection): its
        // beginning is lost, and its saved form brings all of it.
        for (auto &preview : m_previews) {
            if (preview.first != event.key)
                continue;
            if (event.text.isEmpty())
                return false;
            const bool before = !shownText().isEmpty();
            const bool first = preview.second.isEmpty();
            preview.second += event.text;
            m_previewShown = true;
            if (out)
                *out << RunEvent::primaryDelta(first && before ? kSeparator + event.text : event.text);
            return true;
        }
        return false;
    }
    case Kind::Usage:
    case Kind::PreviewEnd: {
        bool changed = false;
        if (event.kind == Kind::Usage && event.usage.isKnown()) {
            m_usage = m_usageKnown ? m_usage.plus(event.usage) : event.usage;
            m_usageKnown = true;
            if (out)
                *out << usageEvent();
            changed = true;
        }
        // A model request that ended without saving what it previewed (interrupted, failed): its
        // preview leaves the answer. Usage events close previews when the vendor says they do.
        if (event.kind == Kind::PreviewEnd || event.closesPreviews) {
            const QString before = shownText();
            m_previews.clear();
            const QString after = shownText();
            if (before != after) {
                m_previewShown = false;
                if (out) {
                    RunEvent text = RunEvent::primarySnapshot(after);
                    text.authoritative = true;
                    *out << text;
                }
            }
            changed = true;
        }
        return changed;
    }
    case Kind::Output: {
        const QString before = shownText();
        for (qsizetype i = 0; i < m_previews.size(); ++i) {
            if (m_previews.at(i).first == event.key) {
                m_previews.removeAt(i);
                break;
            }
        }
        m_outputs << event.text;
        m_outputKeys << event.key;
        const QString after = shownText();
        if (m_previews.isEmpty())
            m_previewShown = false;
        if (out && after != before) {
            if (after.startsWith(before)) {
                *out << RunEvent::primaryDelta(after.mid(before.size()));
            } else {
                RunEvent text = RunEvent::primarySnapshot(after);
                text.authoritative = true;
                *out << text;
            }
        }
        return true;
    }
    case Kind::Item:
    case Kind::Call: {
        if (event.kind == Kind::Call && event.call && !event.call->id.isEmpty())
            m_calls.insert(event.call->id, *event.call);
        if (event.id.isEmpty() && event.title.isEmpty())
            return event.kind == Kind::Call;
        const QString id = event.id.isEmpty() ? event.title : event.id;
        Item item{id, event.itemKind, event.title, event.text};
        if (const auto at = m_itemAt.constFind(id); at != m_itemAt.cend()) {
            m_items[*at] = item;
        } else {
            m_itemAt.insert(id, m_items.size());
            m_items << item;
        }
        if (out)
            *out << RunEvent::secondarySnapshot(item.kind, item.id, item.title, item.text);
        return true;
    }
    case Kind::Answered: {
        const bool wasWaiting = waiting();
        for (const QString &id : event.ids)
            m_blocking.removeAll(id);
        if (!event.title.isEmpty() && !event.id.isEmpty()) {
            Item item{event.id, SecondaryKind::Log, event.title, event.text};
            m_itemAt.insert(item.id, m_items.size());
            m_items << item;
            if (out)
                *out << RunEvent::secondarySnapshot(item.kind, item.id, item.title, item.text);
        }
        if (wasWaiting && !waiting()) {
            // Every blocking call has its answer: the session goes on.
            m_raw = u"running"_s;
            if (out)
                *out << RunEvent::statusChange(RunStatus::InProgress, m_raw);
        }
        return true;
    }
    case Kind::Running: {
        m_blocking.clear();
        const QString raw = event.raw.isEmpty() ? u"running"_s : event.raw;
        if (raw == m_raw)
            return true;
        m_raw = raw;
        if (out)
            *out << RunEvent::statusChange(RunStatus::InProgress, m_raw);
        return true;
    }
    case Kind::Waiting: {
        m_blocking.clear();
        for (const ToolCallRequest &call : event.calls) {
            if (!call.id.isEmpty())
                m_calls.insert(call.id, call);
        }
        if (event.form && !event.form->raw.value(u"request_id"_s).toString().isEmpty())
            m_forms.insert(event.form->raw.value(u"request_id"_s).toString(), *event.form);
        for (const QString &id : event.ids) {
            if (!id.isEmpty() && !m_blocking.contains(id))
                m_blocking << id;
        }
        if (m_blocking.isEmpty())
            return true;
        m_raw = event.raw.isEmpty() ? u"requires_action"_s : event.raw;
        if (out) {
            *out << RunEvent::statusChange(RunStatus::InputRequired, m_raw);
            if (const std::optional<InputRequest> request = pendingRequest())
                *out << RunEvent::inputRequired(*request);
        }
        return true;
    }
    case Kind::Problem: {
        const QString title = event.retrying ? Text::tr("error, retrying") : Text::tr("error");
        const QString id = event.id.isEmpty()
                               ? u"error:"_s + QString::number(qHash(event.error.message, 0), 16)
                               : event.id;
        Item item{id, SecondaryKind::Log, title,
                  event.error.code.isEmpty() ? event.error.message
                                             : event.error.code + u": "_s + event.error.message};
        m_itemAt.insert(item.id, m_items.size());
        m_items << item;
        if (!event.retrying)
            m_failure = event.error;
        if (out)
            *out << RunEvent::secondarySnapshot(item.kind, item.id, item.title, item.text);
        return true;
    }
    case Kind::TurnEnd: {
        m_ended = true;
        m_blocking.clear();
        m_status = event.end;
        m_raw = event.raw;
        // The service has no stop reason of its own for an interrupt: a turn the user interrupted
        // that then ends is cancelled (agent-sessions.md §4).
        if (m_interrupted && m_status == RunStatus::Completed) {
            m_status = RunStatus::Cancelled;
            m_raw = u"interrupted"_s;
        }
        if (m_status == RunStatus::Failed && !m_failure.isError()) {
            m_failure = event.error;
            if (!m_failure.isError()) {
                m_failure.kind = ErrorKind::Run;
                m_failure.code = event.raw;
                m_failure.message = Text::tr("The turn ended: %1.").arg(event.raw);
            }
        }
        // A vendor with turn objects reports the turn's whole usage with its end.
        const bool usageGiven = event.usage.isKnown();
        if (usageGiven) {
            m_usage = event.usage;
            m_usageKnown = true;
        }
        if (!out)
            return true;
        if (usageGiven)
            *out << usageEvent();
        const QString saved = savedText();
        if (m_previewShown || shownText() != saved) {
            m_previews.clear();
            m_previewShown = false;
            RunEvent text = RunEvent::primarySnapshot(saved);
            text.authoritative = true;
            *out << text;
        }
        if (m_status == RunStatus::Failed)
            *out << RunEvent::failure(m_failure);
        *out << RunEvent::statusChange(m_status, m_raw);
        return true;
    }
    }
    return false;
}

void putTurnState(const SessionTurn &turn, const RunEvent &session, ActionResult &result)
{
    result.events << session << turn.historyEvents();
    result.prompt = turn.prompt();
    for (EarlierTurn earlier : turn.earlierTurns()) {
        earlier.events.prepend(session);
        result.earlierTurns << earlier;
    }
}

} // namespace Runwatch::AgentSessions
