// SPDX-License-Identifier: GPL-3.0-or-later
// ClaudeAgentsBackend: requests, the event log, and the operations on a session's turn (get,
// cancel, delete, answers); the listings (agents, sessions, environments) are in
// claudeagentscatalog.cpp, the stream in claudeagentsrunstream.cpp.
#include "claudeagentsbackend.h"

#include "claudeagentsconnector.h"
#include "claudeagentslog.h"
#include "claudeagentsmapper.h"
#include "claudeagentsrunstream.h"

#include "backends/agentsessions/sessionretry.h"

#include <QCoreApplication>
#include <QCoroTimer>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Runwatch {

Q_LOGGING_CATEGORY(lcClaudeAgents, "runwatch.backend.claude-agents", QtInfoMsg)

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "ClaudeAgentsConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(ClaudeAgentsConnector)
};

// The most pages of an event log read (1000 events each, the API's default): a session of a
// million events is still read whole, an endless one is not followed for ever.
constexpr int kMaxLogPages = 1000;

using AgentSessions::isUnregisteredCall;
using AgentSessions::kUnregisteredRetries;

} // namespace

using namespace ClaudeAgents;

ClaudeAgentsBackend::ClaudeAgentsBackend(Connection connection, QObject *parent)
    : SessionBackend(std::move(connection), parent)
{}

QString ClaudeAgentsBackend::kind() const
{
    return u"claude-agents"_s;
}

Capabilities ClaudeAgentsBackend::capabilities() const
{
    return Capability::Start | Capability::Get | Capability::Stream | Capability::ResumeStream
           | Capability::Cancel | Capability::Delete | Capability::Respond | Capability::List
           | Capability::FollowUp | Capability::Catalog;
}

QString ClaudeAgentsBackend::sessionPath(const QString &sessionId)
{
    return u"/v1/sessions/"_s + QString::fromLatin1(QUrl::toPercentEncoding(sessionId));
}

HttpRequest ClaudeAgentsBackend::request(const QByteArray &method, const QString &path) const
{
    QUrl url = connection().baseUrl;
    QString base = url.path(QUrl::FullyEncoded);
    while (base.endsWith(u'/'))
        base.chop(1);
    // A base that names the version already (…/v1) is taken as it is.
    if (base.endsWith("/v1"_L1))
        base.chop(3);
    const qsizetype q = path.indexOf(u'?');
    url.setPath(base + path.left(q), QUrl::TolerantMode);
    url.setQuery(q < 0 ? QString() : path.mid(q + 1));
    HttpRequest r;
    r.method = method;
    r.url = url;
    r.headers.emplaceBack("User-Agent", "Runwatch/" RUNWATCH_VERSION_STRING);
    r.headers.emplaceBack("Accept", "application/json");
    // On every call, as the SDK sends them (§2.1).
    r.headers.emplaceBack("anthropic-version", QByteArray(kApiVersion.data(), kApiVersion.size()));
    r.headers.emplaceBack("anthropic-beta", QByteArray(kBeta.data(), kBeta.size()));
    return r;
}

HttpRequest ClaudeAgentsBackend::streamRequest(const QString &sessionId) const
{
    HttpRequest r
        = request("GET", sessionPath(sessionId) + u"/events/stream?event_deltas%5B%5D=agent.message"_s);
    r.headers.removeIf([](const auto &header) { return header.first == "Accept"; });
    r.headers.emplaceBack("Accept", "text/event-stream");
    return r;
}

RunError ClaudeAgentsBackend::httpError(const HttpResponse &response)
{
    return errorOf(QJsonDocument::fromJson(response.body).object(), response.error);
}

QCoro::Task<ClaudeAgentsBackend::Listed> ClaudeAgentsBackend::listAll(QString path, QUrlQuery query,
                                                                      int maxPages)
{
    QPointer<ClaudeAgentsBackend> self = this;
    Listed listed;
    QString page;
    for (int n = 0; n < maxPages; ++n) {
        QUrlQuery q = query;
        if (!page.isEmpty())
            q.addQueryItem(u"page"_s, QString::fromLatin1(QUrl::toPercentEncoding(page)));
        const QString query = q.toString(QUrl::FullyEncoded);
        HttpRequest r = request("GET", query.isEmpty() ? path : path + u'?' + query);
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
        for (const QJsonValue &item : data.toArray())
            listed.items.append(item);
        // Follow the cursor whatever the page's size (§7: never trust one page).
        page = body.value(u"next_page"_s).toString();
        if (page.isEmpty())
            co_return listed;
    }
    co_return listed;
}

QCoro::Task<ClaudeAgentsBackend::Listed> ClaudeAgentsBackend::eventLog(QString sessionId)
{
    QUrlQuery query;
    query.addQueryItem(u"limit"_s, u"1000"_s);
    co_return co_await listAll(sessionPath(sessionId) + u"/events"_s, query, kMaxLogPages);
}

QCoro::Task<ClaudeAgentsBackend::Fetched> ClaudeAgentsBackend::sendEvents(QString sessionId,
                                                                          QJsonArray events)
{
    QPointer<ClaudeAgentsBackend> self = this;
    Fetched sent;
    const QJsonObject body{{u"events"_s, events}};
    for (std::size_t attempt = 0;; ++attempt) {
        HttpRequest r = jsonRequest("POST", sessionPath(sessionId) + u"/events"_s, body);
        // Never repeated by the client once it may have arrived: a message sent twice is two turns.
        r.idempotent = false;
        const HttpResponse response = co_await httpClient()->send(std::move(r));
        if (!self) {
            sent.error = RunError::cancelled();
            co_return sent;
        }
        if (isUnregisteredCall(response) && attempt < kUnregisteredRetries.size()) {
            qCDebug(lcClaudeAgents) << "answer before its call was registered; again in"
                                    << kUnregisteredRetries.at(attempt).count() << "ms";
            co_await QCoro::sleepFor(kUnregisteredRetries.at(attempt));
            if (!self) {
                sent.error = RunError::cancelled();
                co_return sent;
            }
            continue;
        }
        sent.retryAfterMs = response.retryAfterMs;
        if (!response.ok()) {
            sent.error = httpError(response);
            co_return sent;
        }
        sent.object = QJsonDocument::fromJson(response.body).object();
        co_return sent;
    }
}

QCoro::Task<ActionResult> ClaudeAgentsBackend::turnState(ContinuationToken token)
{
    QPointer<ClaudeAgentsBackend> self = this;
    ActionResult result;
    const Fetched session = co_await fetch(sessionPath(token.remoteId));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (session.error.isError()) {
        result.error = session.error;
        result.retryAfterMs = session.retryAfterMs;
        co_return result;
    }
    const Listed log = co_await eventLog(token.remoteId);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (log.error.isError()) {
        result.error = log.error;
        co_return result;
    }
    ClaudeAgentsMapper mapper(token.extra.value(AgentSessions::kTurnKey).toString());
    for (const QJsonValue &event : log.items)
        mapper.history(event.toObject());
    RunEvent identity = RunEvent::identity(
        token.remoteId,
        session.object.value(u"agent"_s).toObject().value(u"model"_s).toObject().value(u"id"_s).toString(),
        true);
    if (const QString agent = session.object.value(u"agent"_s).toObject().value(u"id"_s).toString();
        !agent.isEmpty())
        identity.tokenExtra.insert(kAgentKey, agent);
    AgentSessions::putTurnState(mapper.turn(), identity, result);
    // A session the service terminated ends a turn its log left open.
    if (session.object.value(u"status"_s).toString() == "terminated"_L1 && !mapper.turn().ended()) {
        RunError e = RunError::client(u"terminated"_s, Text::tr("The session was terminated."));
        e.kind = ErrorKind::Run;
        result.events << RunEvent::failure(e) << RunEvent::statusChange(RunStatus::Failed, u"terminated"_s);
    }
    co_return result;
}

RunStream *ClaudeAgentsBackend::start(StartRequest request, QObject *parent)
{
    ClaudeAgentsRunStream::Kickoff kickoff;
    kickoff.agent = request.agent.isEmpty() ? connection().options.value(ConnectionOption::Agent).toString()
                                            : request.agent;
    kickoff.prompt = request.prompt;
    kickoff.clientRunId = request.clientRunId;
    kickoff.stream = request.stream;
    return new ClaudeAgentsRunStream(this, std::move(kickoff), parent);
}

RunStream *ClaudeAgentsBackend::followUp(ContinuationToken parentToken, StartRequest request, QObject *parent)
{
    ClaudeAgentsRunStream::Kickoff kickoff;
    kickoff.sessionId = parentToken.remoteId;
    kickoff.agent = parentToken.extra.value(kAgentKey).toString();
    kickoff.prompt = request.prompt;
    kickoff.stream = request.stream;
    return new ClaudeAgentsRunStream(this, std::move(kickoff), parent);
}

RunStream *ClaudeAgentsBackend::follow(ContinuationToken token, QObject *parent)
{
    qCDebug(lcClaudeAgents) << "follow session" << token.remoteId << "turn"
                            << token.extra.value(AgentSessions::kTurnKey).toString() << "after"
                            << token.eventId;
    return new ClaudeAgentsRunStream(this, std::move(token), parent);
}

QCoro::Task<ActionResult> ClaudeAgentsBackend::get(ContinuationToken token)
{
    co_return co_await turnState(std::move(token));
}

ClaudeAgentsBackend::SessionPlan ClaudeAgentsBackend::sessionPlan() const
{
    return {.stopEvent = QJsonObject{{u"type"_s, u"user.interrupt"_s}},
            .running = {u"running"_s, u"rescheduling"_s},
            .cancellingRaw = u"interrupting"_s,
            .cancelNote = Text::tr("interrupt sent; waiting for the session to stop"),
            .workingRaw = u"running"_s};
}

QCoro::Task<ClaudeAgentsBackend::SavedTurn> ClaudeAgentsBackend::savedTurn(ContinuationToken token)
{
    QPointer<ClaudeAgentsBackend> self = this;
    const Listed log = co_await eventLog(token.remoteId);
    ClaudeAgentsMapper mapper(token.extra.value(AgentSessions::kTurnKey).toString());
    SavedTurn turn{.turn = AgentSessions::SessionTurn(), .error = log.error, .retryAfterMs = std::nullopt};
    if (!self) {
        turn.error = RunError::cancelled();
        co_return turn;
    }
    for (const QJsonValue &event : log.items)
        mapper.history(event.toObject());
    turn.turn = mapper.turn();
    co_return turn;
}

QJsonArray ClaudeAgentsBackend::answerEventsFor(const InputRequest &request, const InputAnswer &answer,
                                                const AgentSessions::SessionTurn &, QString *error) const
{
    return answerEvents(request, answer, error);
}

} // namespace Runwatch
