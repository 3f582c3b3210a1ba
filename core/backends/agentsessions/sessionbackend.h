// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/agentsessions/sessionturn.h"
#include "backends/runbackend.h"
#include "domain/connection.h"
#include "net/httpclient.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

namespace Runwatch::AgentSessions {

// What the backends of the managed agent session connectors share (issue 29): the connection and
// its HTTP client, reading one object, and the operations that are the same on every vendor's
// sessions: cancel, delete and answering what a turn waits for. They differ only in the event that
// stops a session's running work, the statuses in which it works and the words for it
// (sessionPlan()), in how the saved history is read and in the answer's events; the requests
// themselves (the vendor's headers, paths and error bodies) are each connector's.
class SessionBackend : public RunBackend
{
public:
    SessionBackend(Connection connection, QObject *parent);

    // The stop event (sessionPlan()) sent; the run is cancelling until the service ends the turn,
    // which ends the run (its stream or the next read of the history says so).
    QCoro::Task<ActionResult> cancel(ContinuationToken token) final;
    // The session on the service: running work stopped first and waited for (both APIs refuse to
    // delete a session that runs), then deleted; one already gone counts as deleted.
    QCoro::Task<ActionResult> remove(ContinuationToken token) final;
    // The answer to everything the turn waits for, as the service's saved history has it now (not
    // as stored: an answer another client gave first is not sent again); the turn goes on, and
    // the engine follows its stream again.
    QCoro::Task<ActionResult> respond(ContinuationToken token, InputAnswer answer) final;
    QCoro::Task<> shutdown() final;

    const Connection &connection() const { return m_connection; }
    HttpClient *httpClient() const { return m_http; }

    // A request to `path` (under the service's base, already encoded) with the vendor's headers.
    virtual HttpRequest request(const QByteArray &method, const QString &path) const = 0;
    HttpRequest jsonRequest(const QByteArray &method, const QString &path, const QJsonObject &body) const;

    struct Fetched
    {
        QJsonObject object;
        RunError error;
        std::optional<qint64> retryAfterMs;
    };
    // GET `path`: its JSON object, or the refusal in the service's words.
    QCoro::Task<Fetched> fetch(QString path);
    // POST …/events {events} on the session: what the service answers, or its refusal.
    virtual QCoro::Task<Fetched> sendEvents(QString sessionId, QJsonArray events) = 0;

protected:
    // The service's words for a session's work: how running work is stopped, and what a run's raw
    // status is while it is stopped and once an answer set it going again.
    struct SessionPlan
    {
        QJsonObject stopEvent; // the input event that stops running work
        QStringList running;   // the session statuses in which it works
        QString cancellingRaw; // the run's raw status until the service confirms a stop
        QString cancelNote;    // the operator is told this once the stop is taken
        QString workingRaw;    // the run's raw status once an answer was taken
    };
    virtual SessionPlan sessionPlan() const = 0;
    // The turn `token` follows, as the saved history has it now.
    struct SavedTurn
    {
        SessionTurn turn;
        RunError error;
        std::optional<qint64> retryAfterMs;
    };
    virtual QCoro::Task<SavedTurn> savedTurn(ContinuationToken token) = 0;
    // The input events that answer `request` of `turn`; empty, with why in *error, when the answer
    // does not fit.
    virtual QJsonArray answerEventsFor(const InputRequest &request, const InputAnswer &answer,
                                       const SessionTurn &turn, QString *error) const = 0;
    // The session's own path (under the base, the id one encoded segment).
    virtual QString pathOfSession(const QString &sessionId) const = 0;
    // A failed response as the service words it (its error body).
    virtual RunError errorOfReply(const HttpResponse &response) const = 0;

private:
    Connection m_connection;
    HttpClient *m_http;
};

} // namespace Runwatch::AgentSessions
