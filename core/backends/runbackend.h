// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runevent.h"

#include <QJsonValue>
#include <QObject>
#include <QPointer>
#include <QStringList>

#include <QCoroTask>

#include <optional>

namespace Runwatch {

struct StartRequest
{
    QString model;
    QString prompt;
    bool stream = true;
    QString clientRunId; // tags the run on the server where the protocol allows (dedupe)
    QString agent;       // the service's agent to run, where runs belong to one (Foundry assistant_id)
    // Structured input (a tool's arguments, a graph's input) for a connector with
    // Capability::StructuredInput; undefined for none. The prompt still titles the run.
    QJsonValue input{QJsonValue::Undefined};
    // The service's conversation the run is a turn of (Capability::Conversations): empty for the
    // connector's own choice (none, or one of its own where the service wants it), kNewConversation
    // to have one created first, else the id of one the service has.
    QString conversation;
};

// StartRequest::conversation: create a conversation for the run (`start --conversation new`).
inline constexpr QLatin1StringView kNewConversation{"new"};

// How a RunStream ended. The engine decides from this what to do next (reconnect, poll, stop).
struct StreamEnd
{
    enum class Reason {
        Terminal,      // the run reached a terminal state (or needs input): nothing more to follow
        Eof,           // the server closed the stream before a terminal event: reconnect
        Error,         // request or stream failed; `error` says how (retryable or not)
        ResumeRefused, // the server will not (re)stream this run: fall back to polling
        Aborted,       // abort() was called
    };
    Reason reason = Reason::Eof;
    RunError error;
    std::optional<qint64> retryAfterMs;
};

// One streaming (or one-shot) exchange with the server that yields RunEvents. Owned by whoever
// asked for it; abort() ends it with Reason::Aborted. Events are delivered in batches (one per
// network read) to keep per-event overhead off the GUI thread.
class RunStream : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~RunStream() override = default;

    virtual void abort() = 0;
    bool isFinished() const { return m_finished; }
    // Relaxed: nobody looks at this run closely (RunManager::setRunsInView), so its events may
    // come a few at a time, a few times a second, instead of every frame. A stream that has no
    // such pace ignores it.
    virtual void setRelaxed(bool /*relaxed*/) {}

Q_SIGNALS:
    void eventsReceived(const QList<Runwatch::RunEvent> &events);
    void finished(const Runwatch::StreamEnd &end);

protected:
    // Emits finished() once; later calls are ignored.
    void finish(StreamEnd end);

private:
    bool m_finished = false;
};

// A turn of a conversation the service keeps, before the turn a run follows (ActionResult::
// earlierTurns): the engine makes it a finished local run of its own.
struct EarlierTurn
{
    QString prompt;         // the message that started it
    QList<RunEvent> events; // its state as get() gives a run's; its Identity's tokenExtra names it
};

// Result of a one-shot request (poll, cancel, delete, respond).
struct ActionResult
{
    RunError error;         // isError() when the request failed
    QList<RunEvent> events; // what the reply told us about the run
    QString note;           // operator-facing remark, e.g. "already completed"
    std::optional<qint64> retryAfterMs;
    // get() of a run whose token names only the conversation (attached by the service's id of a
    // session, not of a turn): the conversation's turns before the one the run follows, oldest
    // first, and the message that started the followed turn. RunManager::attachRemoteRun() makes
    // each earlier turn a finished run, chained by Run::parentId before the attached run, so that
    // the conversation shows them all. Empty for every other read.
    QList<EarlierTurn> earlierTurns;
    QString prompt;

    bool ok() const { return !error.isError(); }
};

struct RemoteRunInfo
{
    QString remoteId;
    RunStatus status = RunStatus::Unknown;
    QString rawStatus;
    QString title;
    QDateTime createdAt;
};

struct ListResult
{
    RunError error;
    QList<RemoteRunInfo> runs;
};

// What a connection knows about the service behind it: an A2A agent's card, or the little a
// plain API can say. Shown by the connection panel and `runwatch-cli agent`.
struct ConnectionInfo
{
    RunError error; // the service could not be reached or described (e.g. no agent card)
    QString name;   // the service's or agent's name
    QString description;
    QString version;          // the service's own version, when it states one
    QString protocol;         // what Runwatch speaks with it, e.g. "A2A 1.0 (JSONRPC)"
    QString url;              // the endpoint requests go to
    QStringList skills;       // "name: description"
    QStringList capabilities; // what it offers, human-readable
    QStringList warnings;     // what will not work, or works only partly, and why

    bool ok() const { return !error.isError(); }
    QJsonObject toJson() const;
};

// One thing a run can be started on (Capability::Catalog): an agent or assistant of the service,
// or one of its models.
struct CatalogEntry
{
    QString id;      // what StartRequest::agent takes
    QString name;    // the service's name for it (may be empty)
    QString detail;  // e.g. its model
    QString version; // the agent's current version, where the service versions its agents
    // A model of the service rather than an agent: a service whose runs start on either offers
    // both in one list (Gemini's models and agents), and the list is then where the model is picked.
    bool model = false;
    QString description; // what it does, in the service's words (a tool's description)
    // The JSON Schema of its structured input (StartRequest::input), where the service publishes
    // one (an MCP tool's inputSchema): New Run offers a form from it. Empty: none.
    QJsonObject inputSchema;
    // Further members of its `runwatch-cli agents` line, the connector's own (an MCP tool's
    // task_support); the CLI adds them as they are.
    QJsonObject cliFields;
};

struct CatalogResult
{
    RunError error;
    QList<CatalogEntry> entries;
};

// What "Test connection" found out. Which question each kind of service is asked is the
// connector's (RunBackend::probe()); the front end only words the result.
struct ConnectionProbe
{
    enum class Kind {
        UnknownBackend, // no connector of that name (ok is false)
        Models,         // an OpenAI-compatible service answered GET /models (httpStatus)
        Described,      // the service described itself (info: an A2A agent card)
        Listed,         // a plain service listed its runs (runsListed)
        Failed,         // error says why
    };
    Kind kind = Kind::Failed;
    bool ok = false;
    int httpStatus = 0;
    ConnectionInfo info;
    int runsListed = 0;
    RunError error;
};

// The seam every protocol implements (docs/architecture.md, the map). Coroutine methods take
// their parameters by value: they outlive the caller's arguments.
class RunBackend : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~RunBackend() override = default;

    virtual QString kind() const = 0;
    virtual Capabilities capabilities() const = 0;

    // Creates a run. The stream's first events identify it (RunEvent::Identity). With
    // request.stream == false the stream performs one request and finishes.
    virtual RunStream *start(StartRequest request, QObject *parent) = 0;
    // Continues following a run from the token's position (sequence / event id).
    virtual RunStream *follow(ContinuationToken token, QObject *parent) = 0;
    // Creates the next turn of a conversation after the finished run `parentToken` belongs to
    // (Capability::FollowUp): a run of its own, identified by its stream like start(). The
    // default, for backends without the capability, returns nullptr; the engine never calls it
    // without the capability.
    virtual RunStream *followUp(ContinuationToken parentToken, StartRequest request, QObject *parent);
    // A follow-up to a run that is still working (Capability::FollowUpWorking): `prompt` goes to
    // that run, which goes on and is followed as before (its stream carries what the service makes
    // of the message). The result's events record the message on the run; its error is the
    // service's refusal, after which the run goes on unchanged. The default refuses.
    virtual QCoro::Task<ActionResult> followUp(ContinuationToken token, QString prompt);

    virtual QCoro::Task<ActionResult> get(ContinuationToken token) = 0;
    virtual QCoro::Task<ActionResult> cancel(ContinuationToken token) = 0;
    // Capability::ForceCancel: the service's stronger cancel, for a run whose cancel it accepted
    // and has not confirmed. The default refuses (no connector's protocol has one yet).
    virtual QCoro::Task<ActionResult> forceCancel(ContinuationToken token);
    virtual QCoro::Task<ActionResult> remove(ContinuationToken token) = 0;
    virtual QCoro::Task<ActionResult> respond(ContinuationToken token, InputAnswer answer) = 0;
    virtual QCoro::Task<ListResult> list() = 0;
    // Describes the service. The default says only what every backend knows (kind and
    // capabilities); connectors with a self-description (the A2A agent card) override it.
    virtual QCoro::Task<ConnectionInfo> describe();
    // What the run can be started on (Capability::Catalog), every page of it. The default, for
    // backends without the capability, returns an empty list.
    virtual QCoro::Task<CatalogResult> catalog();
    // One cheap question that tells the operator the connection works, without retries. The
    // default asks a service that describes itself (an A2A agent card) for that, since its name
    // and skills tell the operator they reached the agent they meant, and other services for
    // their run list; a connector whose API has neither overrides it.
    virtual QCoro::Task<ConnectionProbe> probe();

    // For an orderly exit (RunManager::shutdown): ends every request in flight at once and refuses
    // new ones, so that each coroutine awaiting this backend completes (with Cancelled) on the
    // next event-loop turns instead of staying suspended for ever. The task completes when they
    // have: every coroutine that awaited one of this backend's requests has resumed and run to
    // its end (a request it makes meanwhile is refused at once). It may outlive the backend.
    // The default has nothing to end: a backend whose operations never suspend.
    virtual QCoro::Task<> shutdown();
};

// Whether runs on `backend` can start from structured input (StartRequest::input): the one
// question the New Run dialog and the CLI ask before they offer or send it.
inline bool takesStructuredInput(const RunBackend *backend)
{
    return backend && backend->capabilities().testFlag(Capability::StructuredInput);
}

} // namespace Runwatch

Q_DECLARE_METATYPE(Runwatch::StreamEnd)
Q_DECLARE_METATYPE(Runwatch::RunEvent)
Q_DECLARE_METATYPE(Runwatch::ActionResult)
