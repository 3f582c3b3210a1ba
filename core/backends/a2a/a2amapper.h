// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "a2areply.h"
#include "domain/runevent.h"

#include <QByteArrayView>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

#include <optional>

// Pure A2A wire → RunEvent mapping (docs/protocols/a2a-and-agent-protocol.md §5–§9). No I/O here, so
// the fuzzer and the transcript tests drive exactly what the connector runs.
namespace Runwatch::A2a {

// Which A2A generation a peer speaks: method names, enum spellings and discriminators differ
// (§0, §1). 0.2.x uses the 0.3 shapes.
enum class Version {
    V03,
    V10,
};

// The HTTP binding of an interface (§3). gRPC is not supported.
enum class Binding {
    JsonRpc,
    HttpJson,
};

QString versionHeader(Version version); // "0.3" / "1.0" (Major.Minor only, spec §3.6)
QString bindingName(Binding binding);   // "JSONRPC" / "HTTP+JSON"

// Messages we send as answers carry this messageId prefix, so that a Task snapshot taken after
// our answer but before the agent moved on can be recognised as "answer received" (§7).
inline constexpr QLatin1StringView kAnswerIdPrefix{"runwatch-answer-"};
inline constexpr QLatin1StringView kPromptIdPrefix{"runwatch-prompt-"};
// A follow-up sent to a working task (RunBackend::followUp on the same run).
inline constexpr QLatin1StringView kFollowUpIdPrefix{"runwatch-followup-"};

// TaskState (0.3 kebab-case, 1.0 TASK_STATE_*, 0.3 proto TASK_STATE_CANCELLED) → unified
// status; unknown and missing labels are Unknown (§5.1).
RunStatus mapState(QStringView wireState);
// INPUT_REQUIRED / AUTH_REQUIRED in any spelling.
bool isAuthState(QStringView wireState);

// The readable text of a Part list: text parts concatenated as they are (chunks are split
// anywhere), structured data as compact JSON, files as "[file name]". Accepts 1.0
// member-discriminated parts and 0.3 kind-discriminated ones (file.bytes/uri and the legacy
// fileWithBytes/fileWithUri).
QString partsText(const QJsonArray &parts);

struct MessageInfo
{
    QString messageId;
    QString taskId;
    QString contextId;
    bool fromUser = false; // role "user" / "ROLE_USER"
    QString text;
};
// A Message object; `parts` (JSON-RPC) or `content` (0.3 proto JSON) both work.
MessageInfo parseMessage(const QJsonObject &message);

// One element of a stream or one reply, classified by member name (1.0), `kind` (0.x) or shape
// (bare Task/Message as GetTask and 0.3 message/send return them).
struct StreamItem
{
    enum class Kind {
        Task,
        Message,
        StatusUpdate,
        ArtifactUpdate,
        Unknown,
    };
    Kind kind = Kind::Unknown;
    QJsonObject object; // the Task / Message / event itself
};
StreamItem classify(const QJsonValue &result);

// An artifact-update event object (StreamItem::Kind::ArtifactUpdate) as a chunk: missing
// booleans are false (ProtoJSON omits defaults, §0.6), other types read as empty or false.
ArtifactChunk artifactChunkOf(const QJsonObject &event);

// What a TaskStatus object says: its state (empty when missing or not a string) and its message
// when that is an object.
struct TaskStatus
{
    QString state;
    std::optional<MessageInfo> message;
};
TaskStatus taskStatusOf(const QJsonObject &status);

// What a status-update event (StreamItem::Kind::StatusUpdate) says, whichever way it was read
// (a2ascan.h): its status when that is an object.
struct StatusUpdate
{
    QString taskId;
    QString contextId;
    std::optional<TaskStatus> status;
};
StatusUpdate statusUpdateOf(const QJsonObject &event);

} // namespace Runwatch::A2a

namespace Runwatch {

// Follows one task and turns what the agent sends into RunEvents. Keeps the artifacts (in order
// of first appearance, append/lastChunk applied as in §6) so that the primary text is always the
// text of the whole task: a change that extends what was emitted goes out as a PrimaryDelta, any
// other change (a replaced artifact, a Task snapshot) as a PrimarySnapshot. This is how a stream
// that resumes with SubscribeToTask's snapshot ends with the same text as one that never broke.
// A chunk that extends the last artifact with text (the usual stream) costs what it carries,
// never the whole text so far: the stream thread maps every stream's chunks (issue 25).
class A2aMapper
{
public:
    explicit A2aMapper(QString agentName = {}, bool streamable = false)
        : m_agentName(std::move(agentName))
        , m_streamable(streamable)
    {}

    // Maps one item; appends to `out`.
    void apply(const A2a::StreamItem &item, QList<RunEvent> &out);
    // Maps one artifact-update event (what apply() does with one, from scanStreamEvent()).
    void applyArtifactChunk(const A2a::ArtifactChunk &chunk, QList<RunEvent> &out);
    // Maps one status-update event (what apply() does with one, from scanStreamEvent()). Taken by
    // value: its message's text moves into the item's event.
    void applyStatusUpdate(A2a::StatusUpdate update, QList<RunEvent> &out);
    // Whether the next event's task and context ids can change anything: once both are known
    // they never do, and the scanner need not decode them (scanStreamEvent's `withIds`).
    bool needsIds() const { return !m_identified || m_contextId.isEmpty(); }

    const QString &taskId() const { return m_taskId; }
    const QString &contextId() const { return m_contextId; }
    bool sawTask() const { return !m_taskId.isEmpty(); }
    bool isMessageReply() const { return m_messageReply; }
    // The unified status of the last state seen (Unknown before any).
    RunStatus status() const { return m_status; }
    const QString &rawState() const { return m_rawState; }
    // A stream ends here: terminal, or waiting for a person (an answered question does not count;
    // AUTH_REQUIRED may continue on the same stream, so it does not count either).
    bool isEndState() const;
    // Primary text as the events emitted so far built it.
    const QString &primaryText() const;
    // What the scanner may reuse instead of decoding (a2ascan.h, ScanHints): the last wire
    // state and the id of the artifact the last chunk went to.
    const QString &lastWireState() const { return m_lastWireState; }
    const QString &lastArtifactId() const { return m_lastArtifactId; }
    int artifactCount() const { return int(m_artifacts.size()); }
    // The text got shorter while still a prefix of what was emitted (an artifact replaced by
    // less). The reducer keeps the longer text it has, so from here on only snapshots go out:
    // a delta would be appended to text the agent no longer has.
    bool shrank() const { return m_shrank; }

private:
    struct Artifact
    {
        QString id;
        QString name;
        QString text;
        bool complete = false;
    };

    void applyTask(const QJsonObject &task, QList<RunEvent> &out);
    void applyMessage(const QJsonObject &message, QList<RunEvent> &out);
    void noteIds(const QString &taskId, const QString &contextId, QList<RunEvent> &out);
    void applyStatus(A2a::TaskStatus status, bool answered, QList<RunEvent> &out);
    void secondaryFor(A2a::MessageInfo message, const QString &title, QList<RunEvent> &out);
    // The position of the artifact `id` is, or of a new one at the end (`created`).
    qsizetype artifactFor(const QString &id, const QString &name, bool *created);
    void resetArtifacts();
    // m_emitted as the composition again, when appends left it behind.
    void syncEmitted() const;
    void findLastWithText();
    QString composedText() const;
    void emitPrimary(bool snapshot, QList<RunEvent> &out);
    // The text grew at its end by `added` (already in the artifacts): a delta, costing what was
    // added and not the whole text.
    void emitAppended(const QString &added, QList<RunEvent> &out);

    QString m_agentName;
    bool m_streamable;
    QString m_taskId;
    QString m_contextId;
    bool m_identified = false;
    bool m_messageReply = false;
    RunStatus m_status = RunStatus::Unknown;
    QString m_rawState;
    // The last wire state and what it maps to: a task reports the same state over and over
    // (one status update per progress message), and normalising it costs several strings.
    QString m_lastWireState;
    QString m_lastStateLabel; // stripped(): the title of a status message's item
    RunStatus m_lastUnified = RunStatus::Unknown;
    QList<Artifact> m_artifacts;
    // artifactId → position in m_artifacts: a chunk finds its artifact without a scan, so that a
    // task with many artifacts does not make every chunk cost their number.
    QHash<QString, qsizetype> m_artifactIndex;
    // The last artifact with text (-1: none). A chunk for it or for one after it extends the
    // primary text at its end, which m_emitted takes without being composed again.
    qsizetype m_lastWithText = -1;
    // The composition of m_artifacts after an apply(), unless m_emittedBehind: a chunk appended
    // at the end leaves it behind instead of copying its text a second time (the artifact has
    // it); whatever compares with it or hands it out composes it again first (syncEmitted()).
    mutable QString m_emitted;
    mutable bool m_emittedBehind = false;
    QString m_lastArtifactId;
    qsizetype m_lastArtifactAt = -1; // its position, while m_artifacts has it
    bool m_shrank = false;
};

} // namespace Runwatch
