// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2amapper.h"

#include <QCoreApplication>
#include <QJsonDocument>

#include <array>

using namespace Qt::StringLiterals;

namespace Runwatch::A2a {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "A2aConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(A2aConnector)
};
} // namespace

namespace {

// Artifacts of one task are separate outputs (result.txt, summary.md, …): a blank line keeps
// them apart in the one primary text.
constexpr QStringView kArtifactSeparator = u"\n\n";

QString stripped(QStringView state)
{
    QString s = state.trimmed().toString().toLower();
    if (s.startsWith(u"task_state_"_s))
        s = s.mid(11);
    s.replace(u'_', u'-');
    return s;
}

QString fileLabel(const QJsonObject &part)
{
    QString name = part.value(u"filename"_s).toString();
    const QJsonObject file = part.value(u"file"_s).toObject();
    if (name.isEmpty())
        name = file.value(u"name"_s).toString();
    QString where = part.value(u"url"_s).toString();
    if (where.isEmpty())
        where = file.value(u"uri"_s).toString();
    if (where.isEmpty())
        where = file.value(u"fileWithUri"_s).toString();
    if (name.isEmpty())
        name = where;
    return name.isEmpty() ? u"[file]"_s : u"[file %1]"_s.arg(name);
}

QString jsonText(const QJsonValue &value)
{
    if (value.isString())
        return value.toString();
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    if (value.isDouble())
        return QString::number(value.toDouble());
    if (value.isBool())
        return value.toBool() ? u"true"_s : u"false"_s;
    return {};
}

// The same characters in the same place: equal without a comparison (a string the scanner handed
// back from its hints, ScanHints).
bool sameText(const QString &a, const QString &b)
{
    return a.constData() == b.constData() && a.size() == b.size();
}

QString lastHistoryMessageId(const QJsonObject &task)
{
    const QJsonArray history = task.value(u"history"_s).toArray();
    if (history.isEmpty())
        return {};
    return history.last().toObject().value(u"messageId"_s).toString();
}

} // namespace

QString versionHeader(Version version)
{
    return version == Version::V10 ? u"1.0"_s : u"0.3"_s;
}

QString bindingName(Binding binding)
{
    return binding == Binding::JsonRpc ? u"JSONRPC"_s : u"HTTP+JSON"_s;
}

RunStatus mapState(QStringView wireState)
{
    const QString s = stripped(wireState);
    if (s == u"submitted")
        return RunStatus::Queued;
    if (s == u"working")
        return RunStatus::InProgress;
    if (s == u"completed")
        return RunStatus::Completed;
    if (s == u"failed")
        return RunStatus::Failed;
    if (s == u"canceled" || s == u"cancelled")
        return RunStatus::Cancelled;
    if (s == u"input-required" || s == u"auth-required")
        return RunStatus::InputRequired;
    if (s == u"rejected")
        return RunStatus::Rejected;
    return RunStatus::Unknown;
}

bool isAuthState(QStringView wireState)
{
    return stripped(wireState) == u"auth-required";
}

QString partsText(const QJsonArray &parts)
{
    QString out;
    for (const QJsonValue &v : parts) {
        const QJsonObject part = v.toObject();
        const QString kind = part.value(u"kind"_s).toString();
        if (part.value(u"text"_s).isString()) {
            out += part.value(u"text"_s).toString();
        } else if (part.contains(u"data"_s) && (kind.isEmpty() || kind == u"data")) {
            out += jsonText(part.value(u"data"_s));
        } else if (part.contains(u"url"_s) || part.contains(u"raw"_s) || part.contains(u"file"_s)
                   || kind == u"file") {
            out += fileLabel(part);
        }
    }
    return out;
}

MessageInfo parseMessage(const QJsonObject &message)
{
    MessageInfo m;
    m.messageId = message.value(u"messageId"_s).toString();
    m.taskId = message.value(u"taskId"_s).toString();
    m.contextId = message.value(u"contextId"_s).toString();
    const QString role = message.value(u"role"_s).toString().toLower();
    m.fromUser = role == u"user" || role == u"role_user";
    const QJsonValue parts
        = message.contains(u"parts"_s) ? message.value(u"parts"_s) : message.value(u"content"_s);
    m.text = partsText(parts.toArray());
    return m;
}

StreamItem classify(const QJsonValue &result)
{
    StreamItem item;
    if (!result.isObject())
        return item;
    const QJsonObject o = result.toObject();
    // 1.0: exactly one member names the payload (StreamResponse / SendMessageResponse).
    static const std::array<std::pair<QLatin1StringView, StreamItem::Kind>, 4> members{{
        {"task"_L1, StreamItem::Kind::Task},
        {"message"_L1, StreamItem::Kind::Message},
        {"statusUpdate"_L1, StreamItem::Kind::StatusUpdate},
        {"artifactUpdate"_L1, StreamItem::Kind::ArtifactUpdate},
    }};
    for (const auto &[name, kind] : members) {
        const QJsonValue v = o.value(name);
        if (v.isObject()) {
            item.kind = kind;
            item.object = v.toObject();
            return item;
        }
    }
    // 0.x: `kind` discriminates a bare object.
    const QString kind = o.value(u"kind"_s).toString();
    item.object = o;
    if (kind == u"task") {
        item.kind = StreamItem::Kind::Task;
    } else if (kind == u"message") {
        item.kind = StreamItem::Kind::Message;
    } else if (kind == u"status-update") {
        item.kind = StreamItem::Kind::StatusUpdate;
    } else if (kind == u"artifact-update") {
        item.kind = StreamItem::Kind::ArtifactUpdate;
    } else if (!kind.isEmpty()) {
        item.kind = StreamItem::Kind::Unknown;
        // No discriminator at all: the bare Task of GetTask/CancelTask, or an event by its shape.
    } else if (o.value(u"artifact"_s).isObject()) {
        item.kind = StreamItem::Kind::ArtifactUpdate;
    } else if (o.value(u"taskId"_s).isString() && o.value(u"status"_s).isObject()) {
        item.kind = StreamItem::Kind::StatusUpdate;
    } else if (o.value(u"id"_s).isString() && o.value(u"status"_s).isObject()) {
        item.kind = StreamItem::Kind::Task;
    } else if (o.value(u"messageId"_s).isString()
               && (o.value(u"parts"_s).isArray() || o.value(u"content"_s).isArray())) {
        item.kind = StreamItem::Kind::Message;
    }
    if (item.kind == StreamItem::Kind::Unknown)
        item.object = {};
    return item;
}

} // namespace Runwatch::A2a

namespace Runwatch {

using namespace A2a;

// --- A2aMapper --------------------------------------------------------------------------------

bool A2aMapper::isEndState() const
{
    if (m_messageReply)
        return true;
    if (isTerminal(m_status))
        return true;
    return m_status == RunStatus::InputRequired && !isAuthState(m_rawState);
}

void A2aMapper::apply(const StreamItem &item, QList<RunEvent> &out)
{
    switch (item.kind) {
    case StreamItem::Kind::Task:
        applyTask(item.object, out);
        break;
    case StreamItem::Kind::Message:
        applyMessage(item.object, out);
        break;
    case StreamItem::Kind::StatusUpdate:
        applyStatusUpdate(statusUpdateOf(item.object), out);
        break;
    case StreamItem::Kind::ArtifactUpdate:
        applyArtifactChunk(artifactChunkOf(item.object), out);
        break;
    case StreamItem::Kind::Unknown:
        break;
    }
}

void A2aMapper::noteIds(const QString &taskId, const QString &contextId, QList<RunEvent> &out)
{
    if (m_taskId.isEmpty() && !taskId.isEmpty())
        m_taskId = taskId;
    if (m_contextId.isEmpty() && !contextId.isEmpty())
        m_contextId = contextId;
    if (!m_identified && !m_taskId.isEmpty()) {
        m_identified = true;
        RunEvent identity = RunEvent::identity(m_taskId, m_agentName, m_streamable);
        QJsonObject extra{{u"kind"_s, u"task"_s}};
        if (!m_contextId.isEmpty())
            extra.insert(u"contextId"_s, m_contextId);
        identity.tokenExtra = extra; // persisted: respond/resume after a restart need the contextId
        out << identity;
    }
}

void A2aMapper::secondaryFor(MessageInfo message, const QString &title, QList<RunEvent> &out)
{
    if (message.text.isEmpty())
        return;
    // The messageId keys the item: the same status message seen again in a later snapshot
    // (history) replaces itself instead of appearing twice.
    // Built in place: with a status update per item these are most of a batch, and a RunEvent is
    // large to move.
    RunEvent &e = out.emplaceBack();
    e.type = RunEvent::Type::SecondarySnapshot;
    e.kind = message.fromUser ? SecondaryKind::Log : SecondaryKind::Progress;
    // One allocation of the exact size: a QString literal + a QString copies the literal into a
    // string grown for appending (a tenth of a status update's cost, issue 25).
    if (!message.messageId.isEmpty())
        e.itemId = "a2a-msg:"_L1 + message.messageId;
    e.title = title;
    e.text = std::move(message.text);
}

void A2aMapper::applyStatus(TaskStatus status, bool answered, QList<RunEvent> &out)
{
    // ProtoJSON drops the default enum value.
    QString raw = status.state.isEmpty() ? u"TASK_STATE_UNSPECIFIED"_s : std::move(status.state);
    // The scanner hands back the last wire state itself when it is the same (ScanHints): one
    // look at the pointer, and no string copied or compared per status update.
    if (!sameText(raw, m_lastWireState) && raw != m_lastWireState) {
        m_lastWireState = raw;
        m_lastStateLabel = stripped(raw);
        m_lastUnified = mapState(raw);
    }
    RunStatus unified = m_lastUnified;
    std::optional<MessageInfo> &message = status.message;
    if (answered && unified == RunStatus::InputRequired) {
        // Our answer is in the history but the agent has not moved on yet (§7, the JS SDK
        // republishes the stored task first): it is working on it, not asking again.
        unified = RunStatus::InProgress;
        raw += u" (answered)"_s;
    }
    m_status = unified;
    if (!sameText(raw, m_rawState))
        m_rawState = raw;
    // What a question or a failure below reads of the message, before its text moves into the
    // item's event.
    QString messageText;
    QString messageId;
    if (message
        && (unified == RunStatus::InputRequired || unified == RunStatus::Failed
            || unified == RunStatus::Rejected)) {
        messageText = message->text;
        messageId = message->messageId;
    }
    // Unless answered, raw is the wire state, whose label is cached.
    if (message && !(answered && unified == RunStatus::InProgress))
        secondaryFor(std::move(*message), m_lastStateLabel, out);
    RunEvent &change = out.emplaceBack(); // in place, as in secondaryFor()
    change.type = RunEvent::Type::Status;
    change.status = unified;
    change.rawStatus = std::move(raw); // m_rawState has it too, for what follows
    if (unified == RunStatus::InputRequired) {
        InputRequest request;
        request.reason = isAuthState(m_rawState) ? InputReason::Auth : InputReason::Question;
        request.prompt = messageText;
        if (request.prompt.isEmpty()) {
            request.prompt = request.reason == InputReason::Auth
                                 ? Text::tr("The agent needs authorization to continue.")
                                 : Text::tr("The agent is waiting for input.");
        }
        request.raw.insert(u"taskId"_s, m_taskId);
        if (!m_contextId.isEmpty())
            request.raw.insert(u"contextId"_s, m_contextId);
        request.raw.insert(u"state"_s, m_rawState);
        if (!messageId.isEmpty())
            request.raw.insert(u"messageId"_s, messageId);
        out << RunEvent::inputRequired(request);
    } else if (unified == RunStatus::Failed || unified == RunStatus::Rejected) {
        RunError e;
        e.kind = ErrorKind::Run;
        e.code = stripped(m_rawState);
        e.message = !messageText.isEmpty()
                        ? messageText
                        : (unified == RunStatus::Failed ? Text::tr("The agent reported that the task failed.")
                                                        : Text::tr("The agent rejected the task."));
        out << RunEvent::failure(e);
    }
}

void A2aMapper::applyTask(const QJsonObject &task, QList<RunEvent> &out)
{
    syncEmitted(); // emitPrimary() below compares with what went out
    noteIds(task.value(u"id"_s).toString(), task.value(u"contextId"_s).toString(), out);
    // A snapshot: the artifacts as the agent has them now replace what we assembled.
    resetArtifacts();
    const QJsonArray artifacts = task.value(u"artifacts"_s).toArray();
    for (const QJsonValue &v : artifacts) {
        const QJsonObject a = v.toObject();
        bool created = false;
        // A server that lists chunks as separate entries: they add up.
        const qsizetype at
            = artifactFor(a.value(u"artifactId"_s).toString(), a.value(u"name"_s).toString(), &created);
        m_artifacts[at].text += partsText(a.value(u"parts"_s).toArray());
    }
    findLastWithText();
    // Status messages the stream may have missed (they move into history as the task advances).
    const QJsonArray history = task.value(u"history"_s).toArray();
    for (const QJsonValue &v : history) {
        MessageInfo m = parseMessage(v.toObject());
        if (!m.fromUser) {
            secondaryFor(std::move(m), u"agent"_s, out);
        } else if (m.messageId.startsWith(kAnswerIdPrefix)) {
            secondaryFor(std::move(m), u"answer"_s, out);
        } else if (m.messageId.startsWith(kFollowUpIdPrefix)) {
            secondaryFor(std::move(m), QString(kFollowUpItemTitle), out);
        }
    }
    const bool answered = lastHistoryMessageId(task).startsWith(kAnswerIdPrefix);
    if (task.value(u"status"_s).isObject())
        applyStatus(taskStatusOf(task.value(u"status"_s).toObject()), answered, out);
    emitPrimary(true, out);
}

void A2aMapper::applyMessage(const QJsonObject &message, QList<RunEvent> &out)
{
    MessageInfo m = parseMessage(message);
    if (m_taskId.isEmpty() && !m_messageReply && m.taskId.isEmpty()) {
        // A direct answer without a task: the run is complete at once (§6, 1.0 §3.1.2).
        m_messageReply = true;
        if (!m.messageId.isEmpty()) {
            RunEvent identity = RunEvent::identity(m.messageId, m_agentName, false);
            identity.tokenExtra = QJsonObject{{u"kind"_s, u"message"_s}};
            out << identity;
        }
        m_contextId = m.contextId;
        syncEmitted(); // emitPrimary() below compares with what went out
        resetArtifacts();
        bool created = false;
        Artifact &answer = m_artifacts[artifactFor(u"message"_s, {}, &created)];
        answer.text = m.text;
        answer.complete = true;
        findLastWithText();
        emitPrimary(false, out);
        m_status = RunStatus::Completed;
        m_rawState = u"message"_s;
        out << RunEvent::statusChange(RunStatus::Completed, m_rawState);
        return;
    }
    const QString title = m.fromUser ? u"user"_s : u"agent"_s;
    secondaryFor(std::move(m), title, out);
}

void A2aMapper::applyStatusUpdate(StatusUpdate update, QList<RunEvent> &out)
{
    noteIds(update.taskId, update.contextId, out);
    if (update.status)
        applyStatus(std::move(*update.status), false, out);
}

void A2aMapper::applyArtifactChunk(const ArtifactChunk &chunk, QList<RunEvent> &out)
{
    noteIds(chunk.taskId, chunk.contextId, out);
    const QString &name = chunk.name;
    const QString &text = chunk.text;
    const bool append = chunk.append;
    const bool last = chunk.lastChunk;
    bool created = false;
    const qsizetype at = artifactFor(chunk.artifactId, name, &created);
    Artifact &artifact = m_artifacts[at];
    m_lastArtifactId = artifact.id;
    m_lastArtifactAt = at;
    const bool hadText = !artifact.text.isEmpty();
    if (created || append) {
        if (!created && !name.isEmpty())
            artifact.name = name;
    } else if (hadText) {
        // A chunk without append replaces the artifact (§6): the text changes in place.
        syncEmitted(); // what went out, for emitPrimary()
        artifact.text = text;
        artifact.complete = last;
        findLastWithText();
        emitPrimary(true, out);
        return;
    }
    if (!text.isEmpty() && at < m_lastWithText)
        syncEmitted(); // the middle changes: emitPrimary() below compares with what went out
    // The artifact grows by `text` (a chunk without append on an empty artifact too).
    artifact.text += text;
    artifact.complete = last;
    if (text.isEmpty())
        return; // nothing changed: no event, as before
    if (at < m_lastWithText) {
        // An earlier artifact grows: the middle of the text changes, a snapshot.
        emitPrimary(false, out);
        return;
    }
    // The text grows at its end. A new artifact after others with text starts after a separator.
    const bool separated = !hadText && m_lastWithText >= 0;
    m_lastWithText = at;
    emitAppended(separated ? kArtifactSeparator.toString() + text : text, out);
}

qsizetype A2aMapper::artifactFor(const QString &id, const QString &name, bool *created)
{
    // The usual chunk extends the artifact the one before it did: found without hashing its id
    // (a QHash lookup, with what Qt 6.4's string hash costs the code after it, stringhash.h, was a
    // fifth of a chunk's cost, issue 25).
    if (m_lastArtifactAt >= 0 && m_artifacts.at(m_lastArtifactAt).id == id) {
        *created = false;
        return m_lastArtifactAt;
    }
    const auto it = m_artifactIndex.constFind(id);
    *created = it == m_artifactIndex.cend();
    if (!*created)
        return *it;
    m_artifactIndex.insert(id, m_artifacts.size());
    m_artifacts.append(Artifact{id, name, {}, false});
    return m_artifacts.size() - 1;
}

void A2aMapper::resetArtifacts()
{
    m_artifacts.clear();
    m_artifactIndex.clear();
    m_lastArtifactAt = -1;
    m_lastWithText = -1;
}

void A2aMapper::findLastWithText()
{
    m_lastWithText = -1;
    for (qsizetype i = m_artifacts.size() - 1; i >= 0; --i) {
        if (!m_artifacts.at(i).text.isEmpty()) {
            m_lastWithText = i;
            return;
        }
    }
}

QString A2aMapper::composedText() const
{
    QString text;
    bool first = true;
    for (const Artifact &a : m_artifacts) {
        if (a.text.isEmpty())
            continue;
        if (!first)
            text += kArtifactSeparator;
        text += a.text;
        first = false;
    }
    return text;
}

void A2aMapper::emitPrimary(bool snapshot, QList<RunEvent> &out)
{
    Q_ASSERT(!m_emittedBehind); // the caller composed what went out before changing artifacts
    const QString text = composedText();
    if (snapshot) {
        // Snapshots go out even when unchanged: after a reconnect the run may hold less than we
        // do (another process, an older store). Empty ones carry nothing.
        if (text != m_emitted && m_emitted.startsWith(text))
            m_shrank = true;
        if (!text.isEmpty())
            out << RunEvent::primarySnapshot(text);
        m_emitted = text;
        return;
    }
    if (text == m_emitted)
        return;
    if (m_emitted.startsWith(text))
        m_shrank = true;
    if (text.startsWith(m_emitted) && !m_shrank) {
        out << RunEvent::primaryDelta(text.mid(m_emitted.size()));
    } else {
        out << RunEvent::primarySnapshot(text);
    }
    m_emitted = text;
}

void A2aMapper::emitAppended(const QString &added, QList<RunEvent> &out)
{
    if (!m_shrank) {
        m_emittedBehind = true;
        out << RunEvent::primaryDelta(added);
        return;
    }
    // After a shrink the run holds text we no longer have: only snapshots reach it. m_emitted
    // is never behind then (emitPrimary() set it, and only this appends to it).
    m_emitted += added;
    out << RunEvent::primarySnapshot(m_emitted);
}

void A2aMapper::syncEmitted() const
{
    if (!m_emittedBehind)
        return;
    m_emitted = composedText();
    m_emittedBehind = false;
}

const QString &A2aMapper::primaryText() const
{
    syncEmitted();
    return m_emitted;
}

} // namespace Runwatch
