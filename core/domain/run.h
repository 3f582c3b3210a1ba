// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runerror.h"
#include "runstatus.h"
#include "runtext.h"

#include <QDateTime>
#include <QFlags>
#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace Runwatch {

// What a backend can do. The UI enables actions from these *and* the run's status, never from
// the backend's type.
enum class Capability {
    Start = 0x01,
    Get = 0x02,
    Stream = 0x04,
    ResumeStream = 0x08,
    Cancel = 0x10,
    Delete = 0x20, // server-side delete
    Respond = 0x40,
    List = 0x80,
    // A new turn after a finished run, linked to it (Run::parentId): the seed's "Update"
    // (CanUpdateAsyncRun). Which states allow it: followUpAllowed().
    FollowUp = 0x100,
    // A follow-up may also go to a run that is still working, as a message the service folds into
    // that same run (A2A: a message with the task's taskId). No service says in advance whether
    // it will take one: the service's refusal comes back as an error on the run, which goes on.
    FollowUpWorking = 0x200,
    // The service lists what a run can be started on (its agents or assistants):
    // RunBackend::catalog().
    Catalog = 0x800,
    // The run can start from structured input (StartRequest::input): a job's JSON body, Responses
    // input items, an A2A data part. Without it a front end offers the prompt only.
    StructuredInput = 0x400,
    // A run can be a turn of one of the service's conversations (StartRequest::conversation): a
    // new one created for it, or one the service already has. Its follow-ups go to the same one.
    Conversations = 0x1000,
    // The service has a stronger cancel than Cancel (a forced termination), offered when a
    // cancel is not confirmed in time: RunBackend::forceCancel().
    ForceCancel = 0x2000,
};
Q_DECLARE_FLAGS(Capabilities, Capability)
Q_DECLARE_OPERATORS_FOR_FLAGS(Capabilities)

// Token counts a service reported for a run (OpenAI `usage`, Foundry `usage` when terminal); -1 where
// the service said nothing. Counts only grow within one response; a chain of responses adds up.
struct TokenUsage
{
    qint64 inputTokens = -1;
    qint64 outputTokens = -1;
    qint64 reasoningTokens = -1;

    bool isKnown() const { return inputTokens >= 0 || outputTokens >= 0 || reasoningTokens >= 0; }
    bool operator==(const TokenUsage &) const = default;

    // Field by field: a count either side reported counts, -1 only where neither did.
    TokenUsage plus(const TokenUsage &other) const;
    // {"input_tokens","output_tokens","reasoning_tokens"}, only the reported ones.
    QJsonObject toJson() const;
    // Tolerant: a missing, negative, fractional or non-number count is "not reported".
    static TokenUsage fromJson(const QJsonObject &object);
};

// Everything needed to reattach to a run after a drop or an app restart (design seed 004).
// Connector-neutral fields first; connector specifics go into `extra`.
struct ContinuationToken
{
    QString remoteId;
    qint64 sequence = -1;    // last applied sequence number (OpenAI sequence_number); -1: none yet
    QString eventId;         // last SSE id: (Last-Event-ID on reconnect)
    bool streamable = false; // the server can (re)stream this run from `sequence`/`eventId`
    // A run that goes on in a new remote object (an OpenAI response continued with
    // previous_response_id): the remote ids it went through, oldest first, and how much of the
    // run's text they produced. The current object's snapshots cover the text after that.
    QStringList previousRemoteIds;
    qint64 textBase = 0;
    // How much of Run::primaryText the stream had delivered at `sequence`/`eventId`; -1 for the
    // end of the text (a token stored before this was kept). A snapshot read meanwhile (`status`
    // polls the run) can be ahead of it: the deltas a resumed stream replays from the cursor are
    // then matched against that text instead of being appended to it a second time.
    qint64 textAtCursor = -1;
    // What the earlier remote objects of such a chain used: Run::usage is this plus the current
    // object's usage, so a restart mid-chain keeps the sum.
    TokenUsage usageBase;
    QJsonObject extra;

    bool isValid() const { return !remoteId.isEmpty(); }
    QJsonObject toJson() const;
    // Tolerates missing or wrongly typed fields (a damaged store must not crash the app).
    static ContinuationToken fromJson(const QJsonObject &object);

    friend bool operator==(const ContinuationToken &, const ContinuationToken &) = default;
};

// Secondary output (seed 003): everything that is not the answer.
enum class SecondaryKind {
    Reasoning,
    ToolCall,
    Progress,
    Log,
    StatusChange,
};
QString secondaryKindName(SecondaryKind kind);
SecondaryKind secondaryKindFromName(QStringView name);

struct SecondaryItem
{
    QString id; // stable id from the server (item_id); deltas with the same id append
    SecondaryKind kind = SecondaryKind::Log;
    QString title; // e.g. the tool name
    QString text;
    QDateTime at;
    bool done = false;

    QJsonObject toJson() const;
    static SecondaryItem fromJson(const QJsonObject &object);
    friend bool operator==(const SecondaryItem &, const SecondaryItem &) = default;
};
} // namespace Runwatch
// Its members are all relocatable: a growing list of 80,000 items moves its buffer instead of
// copying every item (issue 25).
Q_DECLARE_TYPEINFO(Runwatch::SecondaryItem, Q_RELOCATABLE_TYPE);
namespace Runwatch {

// Where the secondary items sit by id, for the reducer: the item a delta or snapshot belongs to is
// one hash lookup away instead of a scan of every item (80,000 items took 15 s of CPU that way,
// issue 25). Derived from the list it is given and checked against it on every use: a list
// replaced or reloaded (another buffer), shortened, or whose last indexed item moved costs one
// rebuild, and a hit whose item no longer has the id is looked up again after one. What it cannot
// see is an item inserted into or renamed in the middle of the same buffer while that buffer keeps
// its length: nothing does that, the reducer only appends and edits items in place.
// Copies share it (implicitly shared, like the list), so a Run copied into the store costs nothing.
class SecondaryIndex
{
public:
    // The position of the last item with `id` (what a scan from the end finds), or -1 for none or
    // an empty id. Detaches `items` first, so that the position stays valid for writing to it.
    qsizetype find(QList<SecondaryItem> &items, const QString &id);

private:
    // An open-addressing table (linear probing) of positions, 8 bytes a slot: an item costs no
    // node and no key of its own (QHash<QString, qsizetype> was most of the reducer's time per
    // new item, issue 25). The hash is seeded per process: ids come from the server, which must
    // not be able to make them collide.
    struct Slot
    {
        quint32 tag = 0;  // the upper half of the id's hash; its low bits pick the slot
        quint32 next = 0; // the position + 1 (no list of 2^32 items fits in memory); 0: empty
    };

    void rebuild(const QList<SecondaryItem> &items);
    void extend(const QList<SecondaryItem> &items);
    void insert(const QList<SecondaryItem> &items, qsizetype position);
    void grow();
    // The position of `id`, -1 when not there; `stale` when a slot of the same hash held an item
    // of another id (moved or renamed since, or a rare collision).
    qsizetype lookup(const QList<SecondaryItem> &items, const QString &id, quint64 hash, bool &stale) const;

    QList<Slot> m_slots; // a power of two long, at most three quarters full
    qsizetype m_used = 0;
    const SecondaryItem *m_buffer = nullptr; // the list's buffer when indexed
    qsizetype m_covered = 0;                 // items[0, m_covered) are in m_slots
    QString m_tailId;                        // the id of items[m_covered - 1]
    QString m_missedId;                      // the id find() missed last, and its hash
    quint64 m_missedHash = 0;
};

// What a run that waits for a person asks for.
enum class InputReason {
    Question,
    Approval,
    Options,
    ToolOutput,
    Auth,
    Timer,
    Webhook,
};
QString inputReasonName(InputReason reason);
InputReason inputReasonFromName(QStringView name);

// One call a run waits on: a function tool whose output the operator supplies, or a (MCP) tool
// call the operator approves or rejects. Protocol-neutral: Foundry's required_action and OpenAI's
// function_call / mcp_approval_request items both map onto it.
struct ToolCallRequest
{
    QString id;            // the call id the answer must name
    QString name;          // function or tool name
    QString arguments;     // as the service sent them (usually JSON text)
    QString serverLabel;   // MCP server, when the call goes to one
    bool approval = false; // approve/reject instead of an output
    // A reject may say why, and the service passes it to the agent (a LangGraph review's message,
    // an OpenAI MCP approval's reason); Foundry's approvals carry no such text.
    bool reasonOnReject = false;
    // The decisions the service takes for this call (a LangGraph review's allowed_decisions);
    // another one fails the run, so the front ends never offer or send it.
    bool approveAllowed = true;
    bool rejectAllowed = true;

    QJsonObject toJson() const;
    static ToolCallRequest fromJson(const QJsonObject &object);
    friend bool operator==(const ToolCallRequest &, const ToolCallRequest &) = default;
};

struct InputRequest
{
    InputReason reason = InputReason::Question;
    QString prompt;
    QStringList options;
    QDateTime deadline;               // timers, expiring approvals, tool outputs due before the run expires
    QString callbackUrl;              // webhooks
    QList<ToolCallRequest> toolCalls; // ToolOutput / Approval requests that name their calls
    // A JSON Schema the answer must fit (a typed form: MCP elicitation, a job's form, a graph's
    // interrupt); empty when the service asks for no typed answer. Answered with Kind::Value.
    QJsonObject schema;
    // How a typed form may be turned down instead of filled in, where the service has such
    // answers (an MCP elicitation's `decline` and `cancel`): `declinable`, Kind::Reject says no;
    // `dismissChoice`, the Choice answer that closes the request without any answer. The front
    // ends offer only these; false / empty: the form can only be sent.
    bool declinable = false;
    QString dismissChoice;
    QJsonObject raw; // what the server sent, for the connector's respond()

    QJsonObject toJson() const;
    static InputRequest fromJson(const QJsonObject &object);
    friend bool operator==(const InputRequest &, const InputRequest &) = default;
};

// The answer to one ToolCallRequest.
struct ToolCallAnswer
{
    QString callId;
    QString output;        // tool output; for a rejected approval, why (ToolCallRequest::reasonOnReject)
    bool approved = false; // for approval calls
};

struct InputAnswer
{
    // Value: a JSON value for a request with a schema (InputRequest::schema), the typed form's
    // answer.
    enum class Kind { Text, Approve, Reject, Choice, Value };
    Kind kind = Kind::Text;
    QString text;
    QString comment;
    QString choice;
    QJsonValue value;
    // For a request with toolCalls: one answer per call, all sent in one submit (the kind is
    // then ignored). When empty, Text answers a request with exactly one output call, and
    // Approve/Reject apply to every approval call.
    QList<ToolCallAnswer> toolAnswers;
};

// The answer to each call of `request`, from `answer`: its toolAnswers, or (when those are empty)
// Text for a request with exactly one output call, Approve/Reject for every approval call. Every
// pending call must be answered exactly once, by its id, in the same submit. nullopt, with the
// operator-facing reason in *error, when the answer does not fit (several calls for one text, an
// unknown or repeated id, a call left out). Shared by the connectors and the front ends, which
// check an answer before anything is sent.
std::optional<QList<ToolCallAnswer>> answersForToolCalls(const InputRequest &request,
                                                         const InputAnswer &answer, QString *error);

// How a tool call reads in the timeline, export and CLI: `name(arguments)`, or the arguments
// alone when the name is unknown.
QString toolCallText(const QString &name, const QString &arguments);

struct Run
{
    QString localId;
    QString connection; // connection name
    QString backend;    // the connector's name (Connection::backend)
    QString baseUrl;    // where the run lives, so another process can reattach without the profile
    QString remoteId;
    QDateTime createdAt;
    QDateTime updatedAt; // last event applied
    QDateTime finishedAt;
    QString model;
    QString title; // prompt summary
    QString prompt;
    // The structured input the run was started with (StartRequest::input); undefined when none.
    QJsonValue startInput{QJsonValue::Undefined};
    RunStatus status = RunStatus::Queued;
    QString rawStatus;
    RunText primaryText;
    QList<SecondaryItem> secondary;
    // The reducer's lookup of `secondary` by item id; not stored, rebuilt when needed.
    SecondaryIndex secondaryIndex;
    RunError error;
    Capabilities capabilities;
    ContinuationToken token;
    std::optional<InputRequest> input;
    bool connectionLost = false; // following is interrupted and a reconnect is pending
    // While connectionLost (shown as "reconnecting, next try in N s"): when the next try is due,
    // how many tries in a row have failed and why the last one did. Not stored: they describe
    // this process's following, and the engine clears them with connectionLost.
    QDateTime nextTryAt;
    int failedTries = 0;
    QString lostReason;
    // The cancel ladder: the service accepted a cancel and has not confirmed it within
    // FollowPolicy::cancelConfirmAfter. Set by the engine while the run is Cancelling; the front
    // ends then offer the next step (RunActionState::forceCancel / stopWatching). Not stored: it
    // describes this process's wait.
    bool cancelUnconfirmed = false;
    int reconciliations = 0; // times a server snapshot disagreed with the streamed text
    TokenUsage usage;
    QString parentId; // local id of the run this one follows up (a conversation), empty for a first run
    // The operator's time budget: warned before, cancelled at the deadline when cancelAtDeadline.
    QDateTime deadlineAt;
    bool cancelAtDeadline = false;
    // False for a summary loaded without its output (big histories load fast that way); such a
    // run must be reloaded in full before its output is shown, followed or saved.
    bool outputLoaded = true;
    // The store's bookkeeping, so that a write sends only what this process changed and never
    // undoes what another process wrote in between (RunStore). `inStore`: the run was read from
    // or written to the store, so a write updates its row and never brings back a row another
    // process deleted. `stored`: the run as this process last read or wrote it, the baseline a
    // write is compared with; null for a new run, and for a finished run listed as a summary
    // (100,000 baselines would double a big history's memory), whose few writes go whole.
    bool inStore = false;
    std::shared_ptr<const Run> stored;

    bool isTerminal() const { return Runwatch::isTerminal(status); }
    static QString summarize(const QString &prompt, int maxChars = 80);
};

// Whether the operator may follow `run` up now: its backend has Capability::FollowUp and the run
// is a finished, completed turn the service knows (OpenAI: a completed response for
// previous_response_id; A2A: a completed task whose contextId a new task joins; Foundry: a
// completed run on its thread). Shared by the engine, which refuses anything else before a
// request is sent, and the front ends, which enable the action from it.
// With Capability::FollowUpWorking also a working (in-progress) run: the follow-up is then a
// message to that run, not a new one (followUpContinuesRun()).
bool followUpAllowed(const Run &run);
// Whether a follow-up of `run` (allowed by followUpAllowed()) continues the same run instead of
// starting the next turn: the run has not finished.
bool followUpContinuesRun(const Run &run);
// The title of the secondary item (SecondaryKind::Log) that records a follow-up sent to a working
// run: the conversation view and export show these items as the operator's messages in the turn.
inline constexpr QLatin1StringView kFollowUpItemTitle{"follow-up"};
// Whether `item` records such a follow-up (the operator's words, not the service's).
inline bool isFollowUpItem(const SecondaryItem &item)
{
    return item.kind == SecondaryKind::Log && item.title == kFollowUpItemTitle;
}

} // namespace Runwatch
