// SPDX-License-Identifier: GPL-3.0-or-later
// OpenAiAgentsBackend: requests, the saved history, and the operations on a session's turn (get,
// cancel, delete, answers); the listings (agents, sessions) are in openaiagentscatalog.cpp, the
// stream in openaiagentsrunstream.cpp.
#include "openaiagentsbackend.h"

#include "openaiagentsconnector.h"
#include "openaiagentslog.h"
#include "openaiagentsmapper.h"
#include "openaiagentsrunstream.h"

#include "backends/agentsessions/sessionretry.h"

#include <QCoreApplication>
#include <QCoroTimer>
#include <QJsonDocument>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace Runwatch {

Q_LOGGING_CATEGORY(lcOpenAiAgents, "runwatch.backend.openai-agents", QtInfoMsg)

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "OpenAiAgentsConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(OpenAiAgentsConnector)
};

// The most pages of a session's turns or items read (100 each): a long conversation is still
// read whole, an endless one is not followed for ever.
constexpr int kMaxHistoryPages = 1000;

using AgentSessions::isUnregisteredCall;
using AgentSessions::kUnregisteredRetries;

QUrlQuery ascending()
{
    QUrlQuery query;
    query.addQueryItem(u"limit"_s, u"100"_s);
    query.addQueryItem(u"order"_s, u"asc"_s);
    return query;
}

} // namespace

using namespace OpenAiAgents;

OpenAiAgentsBackend::OpenAiAgentsBackend(Connection connection, QObject *parent)
    : SessionBackend(std::move(connection), parent)
{}

QString OpenAiAgentsBackend::kind() const
{
    return u"openai-agents"_s;
}

Capabilities OpenAiAgentsBackend::capabilities() const
{
    return Capability::Start | Capability::Get | Capability::Stream | Capability::ResumeStream
           | Capability::Cancel | Capability::Delete | Capability::Respond | Capability::List
           | Capability::FollowUp | Capability::Catalog;
}

QString OpenAiAgentsBackend::sessionPath(const QString &sessionId)
{
    return u"/agents/sessions/"_s + QString::fromLatin1(QUrl::toPercentEncoding(sessionId));
}

HttpRequest OpenAiAgentsBackend::request(const QByteArray &method, const QString &path) const
{
    // The base names the version (https://api.openai.com/v1), as the client's baseURL does.
    QUrl url = connection().baseUrl;
    QString base = url.path(QUrl::FullyEncoded);
    while (base.endsWith(u'/'))
        base.chop(1);
    const qsizetype q = path.indexOf(u'?');
    url.setPath(base + path.left(q), QUrl::TolerantMode);
    url.setQuery(q < 0 ? QString() : path.mid(q + 1));
    HttpRequest r;
    r.method = method;
    r.url = url;
    r.headers.emplaceBack("User-Agent", "Runwatch/" RUNWATCH_VERSION_STRING);
    r.headers.emplaceBack("Accept", "application/json");
    // On every call, as the client sends it (§1.1).
    r.headers.emplaceBack("OpenAI-Beta", QByteArray(kBeta.data(), kBeta.size()));
    return r;
}

HttpRequest OpenAiAgentsBackend::streamRequest(const QString &sessionId) const
{
    HttpRequest r = request("GET", sessionPath(sessionId) + u"/events?include_obfuscation=false"_s);
    r.headers.removeIf([](const auto &header) { return header.first == "Accept"; });
    r.headers.emplaceBack("Accept", "text/event-stream");
    return r;
}

HttpRequest OpenAiAgentsBackend::createRequest(const QString &agent, const QString &prompt,
                                               const QString &clientRunId, bool stream) const
{
    // The environment the API requires: the connection's, else none (which then needs the input).
    QJsonObject environment{{u"type"_s, u"none"_s}};
    const QString configured
        = connection().options.value(OpenAiAgentsOption::Environment).toString().trimmed();
    if (!configured.isEmpty() && configured != "none"_L1) {
        const QJsonObject parsed = QJsonDocument::fromJson(configured.toUtf8()).object();
        environment = parsed.isEmpty() ? QJsonObject{{u"type"_s, configured}} : parsed;
    }
    QJsonObject body{{u"agent_id"_s, agent}, {u"environment"_s, environment}, {u"input"_s, prompt}};
    if (!clientRunId.isEmpty())
        body.insert(u"metadata"_s, QJsonObject{{u"runwatch_client_run_id"_s, clientRunId}});
    if (stream) {
        body.insert(u"stream"_s, true);
        body.insert(u"stream_options"_s, QJsonObject{{u"include_obfuscation"_s, false}});
    }
    HttpRequest r = jsonRequest("POST", u"/agents/sessions"_s, body);
    // A session created twice is a second conversation: never repeated blindly.
    r.idempotent = false;
    if (stream) {
        r.headers.removeIf([](const auto &header) { return header.first == "Accept"; });
        r.headers.emplaceBack("Accept", "text/event-stream");
    }
    return r;
}

RunError OpenAiAgentsBackend::httpError(const HttpResponse &response)
{
    return errorOf(QJsonDocument::fromJson(response.body).object(), response.error);
}

QCoro::Task<OpenAiAgentsBackend::Listed> OpenAiAgentsBackend::listAll(QString path, QUrlQuery query,
                                                                      int maxPages)
{
    QPointer<OpenAiAgentsBackend> self = this;
    Listed listed;
    QString after;
    for (int n = 0; n < maxPages; ++n) {
        QUrlQuery q = query;
        if (!after.isEmpty())
            q.addQueryItem(u"after"_s, QString::fromLatin1(QUrl::toPercentEncoding(after)));
        const QString encoded = q.toString(QUrl::FullyEncoded);
        HttpRequest r = request("GET", encoded.isEmpty() ? path : path + u'?' + encoded);
        const HttpResponse response = co_await httpClient()->send(std::move(r));
        if (!self) {
            listed.error = RunError::cancelled();
            co_return listed;
        }
        if (!response.ok()) {
            listed.error = httpError(response);
            co_return listed;
        }
        const QJsonObject body = QJsonDocument::fromJson(response.body).object();
        const QJsonValue data = body.value(u"data"_s);
        if (!data.isArray()) {
            listed.error
                = response.protocolError(u"not_a_page"_s, Text::tr("The service's answer is not a page."));
            co_return listed;
        }
        const QJsonArray page = data.toArray();
        for (const QJsonValue &item : page)
            listed.items.append(item);
        // Follow the cursor whatever the page's size (never trust one page): the next page starts
        // after the last item (a ConversationCursorPage names it as last_id).
        const QString last = body.value(u"last_id"_s).toString();
        after = last.isEmpty() ? page.last().toObject().value(u"id"_s).toString() : last;
        if (!body.value(u"has_more"_s).toBool() || page.isEmpty() || after.isEmpty())
            co_return listed;
    }
    co_return listed;
}

QCoro::Task<OpenAiAgentsBackend::Fetched> OpenAiAgentsBackend::sendEvents(QString sessionId,
                                                                          QJsonArray events)
{
    QPointer<OpenAiAgentsBackend> self = this;
    Fetched sent;
    const QJsonObject body{{u"events"_s, events}};
    // One key for every attempt of this submit: a retry the service already took is not taken twice.
    const QByteArray key = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
    for (std::size_t attempt = 0;; ++attempt) {
        HttpRequest r = jsonRequest("POST", sessionPath(sessionId) + u"/events"_s, body);
        r.headers.emplaceBack("Idempotency-Key", key);
        r.idempotent = true;
        const HttpResponse response = co_await httpClient()->send(std::move(r));
        if (!self) {
            sent.error = RunError::cancelled();
            co_return sent;
        }
        if (isUnregisteredCall(response) && attempt < kUnregisteredRetries.size()) {
            qCDebug(lcOpenAiAgents) << "answer before its call was registered; again in"
                                    << kUnregisteredRetries.at(attempt).count() << "ms";
            co_await QCoro::sleepFor(kUnregisteredRetries.at(attempt));
            if (!self) {
                sent.error = RunError::cancelled();
                co_return sent;
            }
            continue;
        }
        sent.retryAfterMs = response.retryAfterMs;
        if (!response.ok())
            sent.error = httpError(response);
        // 202 with an empty body: accepted, and nothing more is said (§1.2).
        co_return sent;
    }
}

QCoro::Task<OpenAiAgentsBackend::History> OpenAiAgentsBackend::history(QString sessionId)
{
    QPointer<OpenAiAgentsBackend> self = this;
    History history;
    const Fetched session = co_await fetch(sessionPath(sessionId));
    if (!self) {
        history.error = RunError::cancelled();
        co_return history;
    }
    if (session.error.isError()) {
        history.error = session.error;
        history.retryAfterMs = session.retryAfterMs;
        co_return history;
    }
    history.session = session.object;
    const Listed turns
        = co_await listAll(sessionPath(sessionId) + u"/turns"_s, ascending(), kMaxHistoryPages);
    if (!self) {
        history.error = RunError::cancelled();
        co_return history;
    }
    if (turns.error.isError()) {
        history.error = turns.error;
        co_return history;
    }
    history.turns = turns.items;
    const Listed items
        = co_await listAll(sessionPath(sessionId) + u"/items"_s, ascending(), kMaxHistoryPages);
    if (!self) {
        history.error = RunError::cancelled();
        co_return history;
    }
    history.error = items.error;
    history.items = items.items;
    co_return history;
}

QCoro::Task<ActionResult> OpenAiAgentsBackend::turnState(ContinuationToken token)
{
    QPointer<OpenAiAgentsBackend> self = this;
    ActionResult result;
    const History saved = co_await history(token.remoteId);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (saved.error.isError()) {
        result.error = saved.error;
        result.retryAfterMs = saved.retryAfterMs;
        co_return result;
    }
    OpenAiAgentsMapper mapper(token.extra.value(AgentSessions::kTurnKey).toString());
    mapper.history(saved.session, saved.turns, saved.items);
    const QJsonObject agent = saved.session.value(u"agent"_s).toObject();
    RunEvent identity = RunEvent::identity(token.remoteId, agent.value(u"model"_s).toString(), true);
    if (const QString id = agent.value(u"id"_s).toString(); !id.isEmpty())
        identity.tokenExtra.insert(kAgentKey, id);
    AgentSessions::putTurnState(mapper.turn(), identity, result);
    co_return result;
}

RunStream *OpenAiAgentsBackend::start(StartRequest request, QObject *parent)
{
    OpenAiAgentsRunStream::Kickoff kickoff;
    kickoff.agent = request.agent.isEmpty() ? connection().options.value(ConnectionOption::Agent).toString()
                                            : request.agent;
    kickoff.prompt = request.prompt;
    kickoff.clientRunId = request.clientRunId;
    kickoff.stream = request.stream;
    return new OpenAiAgentsRunStream(this, std::move(kickoff), parent);
}

RunStream *OpenAiAgentsBackend::followUp(ContinuationToken parentToken, StartRequest request, QObject *parent)
{
    OpenAiAgentsRunStream::Kickoff kickoff;
    kickoff.sessionId = parentToken.remoteId;
    kickoff.agent = parentToken.extra.value(kAgentKey).toString();
    kickoff.prompt = request.prompt;
    kickoff.stream = request.stream;
    return new OpenAiAgentsRunStream(this, std::move(kickoff), parent);
}

RunStream *OpenAiAgentsBackend::follow(ContinuationToken token, QObject *parent)
{
    qCDebug(lcOpenAiAgents) << "follow session" << token.remoteId << "turn"
                            << token.extra.value(AgentSessions::kTurnKey).toString() << "after"
                            << token.eventId;
    return new OpenAiAgentsRunStream(this, std::move(token), parent);
}

QCoro::Task<ActionResult> OpenAiAgentsBackend::get(ContinuationToken token)
{
    co_return co_await turnState(std::move(token));
}

OpenAiAgentsBackend::SessionPlan OpenAiAgentsBackend::sessionPlan() const
{
    return {.stopEvent = QJsonObject{{u"type"_s, u"agent.session.input.cancel"_s}},
            .running = {u"in_progress"_s, u"requires_action"_s},
            .cancellingRaw = u"cancelling"_s,
            .cancelNote = Text::tr("cancel sent; waiting for the turn to stop"),
            .workingRaw = u"in_progress"_s};
}

QCoro::Task<OpenAiAgentsBackend::SavedTurn> OpenAiAgentsBackend::savedTurn(ContinuationToken token)
{
    QPointer<OpenAiAgentsBackend> self = this;
    const History saved = co_await history(token.remoteId);
    OpenAiAgentsMapper mapper(token.extra.value(AgentSessions::kTurnKey).toString());
    SavedTurn turn{
        .turn = AgentSessions::SessionTurn(), .error = saved.error, .retryAfterMs = saved.retryAfterMs};
    if (!self) {
        turn.error = RunError::cancelled();
        co_return turn;
    }
    mapper.history(saved.session, saved.turns, saved.items);
    turn.turn = mapper.turn();
    co_return turn;
}

QJsonArray OpenAiAgentsBackend::answerEventsFor(const InputRequest &request, const InputAnswer &answer,
                                                const AgentSessions::SessionTurn &turn, QString *error) const
{
    return answerEvents(request, answer, turn.turnId(), error);
}

} // namespace Runwatch
