// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/agentsessions/sessionbackend.h"
#include "backends/agentsessions/sessionturn.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QUrlQuery>

namespace Runwatch {

namespace OpenAiAgents {

// The beta every call names (OpenAI-Beta), as the openai client 7.59.0 sends it.
inline constexpr QLatin1StringView kBeta{"agents=v1"};
// ContinuationToken::extra: the agent the session runs (a follow-up's run shows it).
inline constexpr QLatin1StringView kAgentKey{"agent"};

} // namespace OpenAiAgents

// The OpenAI Agents API (docs/protocols/agent-sessions.md §1; the truth is the openai client
// 7.59.0's beta.agents): a session is a conversation, each turn a local run (the shared model of
// core/backends/agentsessions). A start creates the session with the prompt as its input and reads
// the create call's own event stream, which is the session's from its first event; a follow-up
// opens the session's stream, reads the saved turns and items, then sends the message, and its turn
// is the next one the stream starts (the 202 names none). Answers and cancels are input events
// (POST …/events). Nothing is polled while the stream lives.
//
// Continuation token: remoteId = the session id; eventId = the last event or item id applied;
// extra = {turn: the run's turn id, agent}. A reattach opens the stream, then reads every page of
// the turns and items again and applies what it has not: each id counts once.
class OpenAiAgentsBackend final : public AgentSessions::SessionBackend
{
    Q_OBJECT
public:
    explicit OpenAiAgentsBackend(Connection connection, QObject *parent = nullptr);

    QString kind() const override;
    Capabilities capabilities() const override;

    RunStream *start(StartRequest request, QObject *parent) override;
    RunStream *follow(ContinuationToken token, QObject *parent) override;
    // The next turn: a message on the parent's session, a new local run.
    RunStream *followUp(ContinuationToken parentToken, StartRequest request, QObject *parent) override;

    QCoro::Task<ActionResult> get(ContinuationToken token) override;
    // cancel() and remove() are SessionBackend's: agent.session.input.cancel stops the running
    // turn (its cancelled event ends the run), and a delete sends it first (the API demands it).
    // respond() is SessionBackend's: tool results and approval decisions (answerEventsFor()) for
    // everything the session waits on, read from its turns and items first.
    // The sessions (GET /agents/sessions, every page; by agent when the connection names one).
    QCoro::Task<ListResult> list() override;
    // The account's agents (GET /agents, every page).
    QCoro::Task<CatalogResult> catalog() override;
    // One page of the sessions, without retries.
    QCoro::Task<ConnectionProbe> probe() override;

    // --- used by the connector's stream and its tests -------------------------------------------

    // A request to `path` (under the base, already encoded) with the beta's header.
    HttpRequest request(const QByteArray &method, const QString &path) const override;
    // The live stream of a session (GET …/events, no obfuscation padding).
    HttpRequest streamRequest(const QString &sessionId) const;
    // POST /agents/sessions with stream: true: the new session's own stream.
    HttpRequest createRequest(const QString &agent, const QString &prompt, const QString &clientRunId,
                              bool stream) const;
    // A request's error with the service's words ({error:{type, code, message}}).
    static RunError httpError(const HttpResponse &response);
    static QString sessionPath(const QString &sessionId);

    struct Listed
    {
        QJsonArray items;
        RunError error;
    };
    // Every page of a cursor-paged listing ({data, has_more}, the next asked for with
    // after=<the last item's id>), at most `maxPages`.
    QCoro::Task<Listed> listAll(QString path, QUrlQuery query, int maxPages);
    // POST …/events {events} with an Idempotency-Key: 202 and nothing else, or the refusal.
    QCoro::Task<Fetched> sendEvents(QString sessionId, QJsonArray events) override;
    // The saved history: the session, every page of its turns and of its items.
    struct History
    {
        QJsonObject session;
        QJsonArray turns;
        QJsonArray items;
        RunError error;
        std::optional<qint64> retryAfterMs;
    };
    QCoro::Task<History> history(QString sessionId);
    // The turn a token follows, from the history (history events, identity extra included).
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
