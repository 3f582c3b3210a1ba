// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/runbackend.h"
#include "domain/connection.h"
#include "mcptransport.h"
#include "net/httpclient.h"

namespace Runwatch {

// MCP tasks (shared/protocols/mcp-tasks.md): a run is a tool call made a task — `--agent` the tool,
// `--input` its arguments — followed by tasks/get at the server's pollInterval, its result read
// with tasks/result, its elicitation answered with a JSON-RPC response on the session that started
// it. Revision 2025-11-25 (the official SDK's) is the main path; 2026-07-28 (the tasks extension,
// sessionless) is negotiated by server/discover and kept apart in mcpmapper2026 and the *2026
// steps below.
//
// Sessions are state: the session a task was created on is stored with the run (token extra
// session_id + protocol_version) and every later request for that run, from any process, goes on
// it; a process opens a session of its own only for what no run names (new runs, the catalog, the
// task list), or joins the connection's `session_id` option. After a 404 it opens a new one and the
// run says the server lost the session. A session is never DELETEd: closing it would fail a pending
// elicitation (§5), and the server expires it.
//
// Continuation token: remoteId = the task id; extra = {session_id, protocol_version, tool, ttl_ms,
// poll_interval_ms, created_at, elicitation (the pending request, §5)}.
//
// Split by role: mcpbackend.cpp (the run operations), mcpsession.cpp (sessions and the calls made
// on a run's own session), mcplistings.cpp (tools/list, tasks/list, the description).
class McpBackend final : public RunBackend
{
    Q_OBJECT
public:
    explicit McpBackend(Connection connection, QObject *parent = nullptr);

    QString kind() const override;
    Capabilities capabilities() const override;

    RunStream *start(StartRequest request, QObject *parent) override;
    RunStream *follow(ContinuationToken token, QObject *parent) override;

    QCoro::Task<ActionResult> get(ContinuationToken token) override;
    QCoro::Task<ActionResult> cancel(ContinuationToken token) override;
    QCoro::Task<ActionResult> remove(ContinuationToken token) override;
    QCoro::Task<ActionResult> respond(ContinuationToken token, InputAnswer answer) override;
    QCoro::Task<ListResult> list() override;
    QCoro::Task<ConnectionInfo> describe() override;
    QCoro::Task<CatalogResult> catalog() override;
    QCoro::Task<ConnectionProbe> probe() override;
    QCoro::Task<> shutdown() override;

    // --- used by the connector's stream ---------------------------------------------------------

    const Connection &connection() const { return m_connection; }
    Mcp::Transport *transport() const { return m_transport; }
    HttpClient *httpClient() const { return m_http; }

    struct Opened
    {
        Mcp::Session session;
        QJsonObject capabilities; // empty for a stored session (its server said them to another process)
        RunError error;
        bool ok() const { return !error.isError(); }
    };
    // The session for a request: the run's stored one (tokenExtra), else this process's, opened on
    // first use (or the connection's session_id option, joined without a handshake).
    QCoro::Task<Opened> sessionFor(QJsonObject tokenExtra);
    // A new session in place of `lost` (HTTP 404): this process's next requests go on it.
    QCoro::Task<Opened> replaceSession(Mcp::Session lost);
    // The session a token names, if any.
    static Mcp::Session storedSession(const QJsonObject &tokenExtra);
    // The token extra that names `session`.
    static QJsonObject sessionExtra(const Mcp::Session &session);

    struct Tools
    {
        QList<QJsonObject> tools;
        RunError error;
    };
    // tools/list, every page (nextCursor), bounded.
    QCoro::Task<Tools> listTools(Mcp::Session session);

    // One call on the run's session; a lost session is replaced once and the call made again on
    // the new one, with *lostSession set (the caller tells the run).
    QCoro::Task<Mcp::Reply> callForRun(QString method, QJsonObject params, QJsonObject tokenExtra,
                                       Mcp::Session *used, bool *lostSession);

    // What a finished task leaves (tasks/result read whole): its text, structured content, error.
    QCoro::Task<ActionResult> finalEvents(ContinuationToken token, Mcp::Session session, QJsonObject task);

    // The event that tells the run its session was lost and which one replaces it.
    static QList<RunEvent> sessionLostEvents(const ContinuationToken &token, const Mcp::Session &now);

private:
    QCoro::Task<ActionResult> respond2026(ContinuationToken token, InputAnswer answer, InputRequest request);

    Connection m_connection;
    HttpClient *m_http;
    Mcp::Transport *m_transport;
    Mcp::Session m_session; // this process's, once opened
    QJsonObject m_capabilities;
    QJsonObject m_serverInfo;
};

} // namespace Runwatch
