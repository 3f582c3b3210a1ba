// SPDX-License-Identifier: GPL-3.0-or-later
#include "sessionbackend.h"

#include "backends/agentsessions/sessionretry.h"
#include "backends/requestauth.h"
#include "net/transportoptions.h"

#include <QCoreApplication>
#include <QCoroTimer>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Runwatch::AgentSessions {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "AgentSessions".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(AgentSessions)
};
} // namespace

SessionBackend::SessionBackend(Connection connection, QObject *parent)
    : RunBackend(parent)
    , m_connection(std::move(connection))
    , m_http(new HttpClient(this))
{
    applyTransportOptions(m_http, m_connection);
    (new RequestAuth(m_connection, this))->attach(m_http);
}

QCoro::Task<> SessionBackend::shutdown()
{
    return m_http->shutdown();
}

HttpRequest SessionBackend::jsonRequest(const QByteArray &method, const QString &path,
                                        const QJsonObject &body) const
{
    HttpRequest r = request(method, path);
    r.headers.emplaceBack("Content-Type", "application/json");
    r.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return r;
}

QCoro::Task<SessionBackend::Fetched> SessionBackend::fetch(QString path)
{
    QPointer<SessionBackend> self = this;
    Fetched fetched;
    const HttpResponse response = co_await m_http->send(request("GET", path));
    if (!self) {
        fetched.error = RunError::cancelled();
        co_return fetched;
    }
    fetched.retryAfterMs = response.retryAfterMs;
    if (!response.ok()) {
        fetched.error = errorOfReply(response);
        co_return fetched;
    }
    fetched.object = QJsonDocument::fromJson(response.body).object();
    if (fetched.object.isEmpty()) {
        fetched.error = response.protocolError(u"unexpected_reply"_s,
                                               Text::tr("The service's reply is not a JSON object."));
    }
    co_return fetched;
}

QCoro::Task<ActionResult> SessionBackend::cancel(ContinuationToken token)
{
    QPointer<SessionBackend> self = this;
    const SessionPlan plan = sessionPlan();
    ActionResult result;
    const QJsonArray stop{plan.stopEvent};
    const Fetched sent = co_await sendEvents(token.remoteId, stop);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (sent.error.isError()) {
        result.error = sent.error;
        result.retryAfterMs = sent.retryAfterMs;
        co_return result;
    }
    // Taken; the turn ends when the service says so.
    result.note = plan.cancelNote;
    result.events << RunEvent::statusChange(RunStatus::Cancelling, plan.cancellingRaw);
    co_return result;
}

QCoro::Task<ActionResult> SessionBackend::remove(ContinuationToken token)
{
    QPointer<SessionBackend> self = this;
    const SessionPlan plan = sessionPlan();
    ActionResult result;
    const QString path = pathOfSession(token.remoteId);
    Fetched session = co_await fetch(path);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    const auto running
        = [&plan](const Fetched &s) { return plan.running.contains(s.object.value(u"status"_s).toString()); };
    if (!session.error.isError() && running(session)) {
        // Running work is stopped first; the session is deleted once it no longer runs.
        const QJsonArray stop{plan.stopEvent};
        const Fetched sent = co_await sendEvents(token.remoteId, stop);
        if (!self) {
            result.error = RunError::cancelled();
            co_return result;
        }
        for (int i = 0; i < kStopChecks && !sent.error.isError() && running(session); ++i) {
            co_await QCoro::sleepFor(kStopCheckEvery);
            if (!self) {
                result.error = RunError::cancelled();
                co_return result;
            }
            session = co_await fetch(path);
            if (!self) {
                result.error = RunError::cancelled();
                co_return result;
            }
        }
    }
    const HttpResponse response = co_await m_http->send(request("DELETE", path));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (response.error.kind == ErrorKind::NotFound) {
        result.note = Text::tr("not found on the service (already deleted)");
    } else if (!response.ok()) {
        result.error = errorOfReply(response);
        result.retryAfterMs = response.retryAfterMs;
        co_return result;
    }
    result.events << RunEvent::statusChange(RunStatus::Deleted, u"deleted"_s);
    co_return result;
}

QCoro::Task<ActionResult> SessionBackend::respond(ContinuationToken token, InputAnswer answer)
{
    QPointer<SessionBackend> self = this;
    ActionResult result;
    const SavedTurn saved = co_await savedTurn(token);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (saved.error.isError()) {
        result.error = saved.error;
        result.retryAfterMs = saved.retryAfterMs;
        co_return result;
    }
    const std::optional<InputRequest> pending = saved.turn.pendingRequest();
    if (!pending || (pending->toolCalls.isEmpty() && pending->schema.isEmpty())) {
        result.error
            = RunError::client(u"not_waiting"_s, Text::tr("The session does not wait for an answer."));
        result.error.kind = ErrorKind::Conflict;
        result.events = saved.turn.historyEvents();
        co_return result;
    }
    QString why;
    const QJsonArray events = answerEventsFor(*pending, answer, saved.turn, &why);
    if (events.isEmpty()) {
        result.error = RunError::client(u"bad_answer"_s, why);
        co_return result;
    }
    const Fetched sent = co_await sendEvents(token.remoteId, events);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (sent.error.isError()) {
        result.error = sent.error;
        result.retryAfterMs = sent.retryAfterMs;
        co_return result;
    }
    // The session goes on in the same turn: the engine follows its stream again.
    result.events << RunEvent::statusChange(RunStatus::InProgress, sessionPlan().workingRaw);
    co_return result;
}

} // namespace Runwatch::AgentSessions
