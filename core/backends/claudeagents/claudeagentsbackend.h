// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/agentsessions/sessionbackend.h"
#include "backends/agentsessions/sessionturn.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QUrlQuery>

namespace Runwatch {

namespace ClaudeAgents {

// The beta every call names (anthropic-beta), and the API version @anthropic-ai/sdk 1.14.0 sends
// (anthropic-version; the docs' curl examples send 2023-06-01).
inline constexpr QLatin1StringView kBeta{"managed-agents-2026-04-01"};
inline constexpr QLatin1StringView kApiVersion{"2026-10-21"};
// ContinuationToken::extra: the agent the session runs (a follow-up's run shows it).
inline constexpr QLatin1StringView kAgentKey{"agent"};

} // namespace ClaudeAgents

// Claude Managed Agents (docs/protocols/agent-sessions.md §2; the truth is @anthropic-ai/sdk
// 1.14.0's beta.sessions): a session is a conversation, each turn a local run (the shared model of
// core/backends/agentsessions). A start creates a session on the agent (in the connection's
// environment), opens its stream, sends the prompt as its first user.message, then reads the event
// log; a follow-up sends the next user.message on the same session as a new local run. Answers,
// interrupts and messages are events (POST …/events). Nothing is polled while the stream lives.
//
// Continuation token: remoteId = the session id; eventId = the last event id applied; extra =
// {turn: the user.message that started the run's turn, agent}. A reattach reads the event log
// again from its start (every page, as the SDK's SessionToolRunner does) and applies what it has
// not: the turn's state is rebuilt from it, and each event id counts once.
class ClaudeAgentsBackend final : public AgentSessions::SessionBackend
{
    Q_OBJECT
public:
    explicit ClaudeAgentsBackend(Connection connection, QObject *parent = nullptr);

    QString kind() const override;
    Capabilities capabilities() const override;

    RunStream *start(StartRequest request, QObject *parent) override;
    RunStream *follow(ContinuationToken token, QObject *parent) override;
    // The next turn: a user.message on the parent's session, a new local run.
    RunStream *followUp(ContinuationToken parentToken, StartRequest request, QObject *parent) override;

    QCoro::Task<ActionResult> get(ContinuationToken token) override;
    // cancel() and remove() are SessionBackend's: user.interrupt stops the running work (the idle
    // that follows ends the turn as cancelled), and a delete sends it first (§3).
    // respond() is SessionBackend's: user.tool_confirmation / user.custom_tool_result
    // (answerEventsFor()) for every call the turn waits on, read from the event log first.
    // The sessions (GET /v1/sessions, every page).
    QCoro::Task<ListResult> list() override;
    // The account's agents (GET /v1/agents, every page).
    QCoro::Task<CatalogResult> catalog() override;
    // One page of the sessions, without retries: "Test connection" answers at once, and an
    // account with thousands of sessions is not paged through for it.
    QCoro::Task<ConnectionProbe> probe() override;

    // --- used by the connector's stream and its tests -------------------------------------------

    // A request to `path` (under /v1, already encoded) with the beta's headers.
    HttpRequest request(const QByteArray &method, const QString &path) const override;
    // The live stream of a session, with the answer's previews (event_deltas[]=agent.message).
    HttpRequest streamRequest(const QString &sessionId) const;
    // A request's error with the service's words ({type:"error", error:{type, message}}).
    static RunError httpError(const HttpResponse &response);
    // /v1/sessions/{id}, the id as one path segment.
    static QString sessionPath(const QString &sessionId);

    struct Listed
    {
        QJsonArray items;
        RunError error;
    };
    // Every page of a cursor-paged listing (data + next_page, the next asked for with page=),
    // at most `maxPages`.
    QCoro::Task<Listed> listAll(QString path, QUrlQuery query, int maxPages);
    // The session's whole event log, oldest first.
    QCoro::Task<Listed> eventLog(QString sessionId);
    // POST …/events {events}: the service's echo of them (each with its id), or the refusal.
    QCoro::Task<Fetched> sendEvents(QString sessionId, QJsonArray events) override;
    // The environment new sessions run in: the connection's, else the account's first.
    QCoro::Task<Fetched> environment();
    // The turn a token follows, from the event log (history events, identity extra included).
    QCoro::Task<ActionResult> turnState(ContinuationToken token);

protected:
    SessionPlan sessionPlan() const override;
    QCoro::Task<SavedTurn> savedTurn(ContinuationToken token) override;
    QJsonArray answerEventsFor(const InputRequest &request, const InputAnswer &answer,
                               const AgentSessions::SessionTurn &turn, QString *error) const override;
    QString pathOfSession(const QString &sessionId) const override { return sessionPath(sessionId); }
    RunError errorOfReply(const HttpResponse &response) const override { return httpError(response); }
};

} // namespace Runwatch
