// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "mcpmapper.h"
#include "net/httpclient.h"

#include <QObject>
#include <QPointer>
#include <QUrl>

namespace Runwatch::Mcp {

// The MCP session a request goes on: its Mcp-Session-Id (empty on a server that issues none, and
// always on 2026-07-28, which has no sessions) and the negotiated protocol version. Stored with
// every run (token extra), since a task and its elicitation belong to the session that made them.
struct Session
{
    QString id;
    QString version;
    bool isValid() const { return !version.isEmpty(); }
    bool is2026() const { return version == kRevision2026; }
    friend bool operator==(const Session &, const Session &) = default;
};

// One JSON-RPC exchange's outcome.
struct Reply
{
    QJsonValue result;
    RunError error;
    int httpStatus = 0;
    // HTTP 404 to a request that named a session: the server no longer knows it (§8).
    bool sessionLost = false;
    std::optional<qint64> retryAfterMs;
    // The server's own requests and notifications that came on the reply's stream (progress,
    // an elicitation), in order.
    QList<Message> serverMessages;
    bool ok() const { return !error.isError(); }
};

// What opening a session found out.
struct Handshake
{
    Session session;
    QJsonObject capabilities; // the server's
    QJsonObject serverInfo;
    Reply reply; // its error when the server could not be reached or refused
    bool ok() const { return reply.ok() && session.isValid(); }
};

// JSON-RPC 2.0 over MCP's Streamable HTTP transport (§2, §9): every message is a POST to the one
// endpoint, answered with JSON or an SSE stream (read whole here; the long tasks/result stream is
// McpRunStream's). Client request ids are strings ("rw-1", …) and the server's are its own
// counter (0, 1, …, §5): the two never meet.
class Transport final : public QObject
{
    Q_OBJECT
public:
    Transport(HttpClient *http, QUrl endpoint, QObject *parent);

    // Which revision a new session speaks: "auto" (a 2026 server answers server/discover, else the
    // 2025 handshake), or one of the two.
    void setPreferredVersion(QString version) { m_preferred = std::move(version); }

    // Opens a session: server/discover (2026-07-28) or initialize + notifications/initialized
    // (2025-11-25), declaring elicitation (form, url) and tasks.
    QCoro::Task<Handshake> open();
    // A request on `session`; the reply (JSON or a finished SSE stream) is read whole.
    QCoro::Task<Reply> call(QString method, QJsonObject params, Session session);
    // The answer to the server's request `id` (an elicitation, §6): 202 expected.
    QCoro::Task<Reply> answer(QJsonValue id, QJsonObject result, Session session);

    // A POST of `message` with the session's headers (and, on 2026, Mcp-Method / Mcp-Name).
    HttpRequest post(const QJsonObject &message, const Session &session) const;
    // A request message with a fresh client id (params given the 2026 _meta envelope when due).
    QJsonObject request(const QString &method, QJsonObject params, const Session &session);
    // The reply to request `id` read from a buffered response: JSON or SSE, errors in either.
    static Reply readReply(const HttpResponse &response, const QJsonValue &id, bool namedSession);
    // The HTTP error of a failed response, in the server's JSON-RPC words where it gave any.
    static RunError httpError(const HttpResponse &response);
    // What this client declares at initialize (2025) or in every request's _meta (2026).
    static QJsonObject clientCapabilities(bool revision2026);
    static QJsonObject clientInfo();

    QUrl endpoint() const { return m_endpoint; }

private:
    QCoro::Task<Handshake> discover();
    QCoro::Task<Handshake> initialize();

    QPointer<HttpClient> m_http;
    QUrl m_endpoint;
    QString m_preferred = QStringLiteral("auto");
    quint64 m_nextId = 0;
};

} // namespace Runwatch::Mcp
