// SPDX-License-Identifier: GPL-3.0-or-later
// McpBackend: the MCP session a request goes on (stored with each run, opened per process, replaced
// after a 404), and the calls made for a run on its own session.
#include "mcpbackend.h"

#include "mcpconnector.h"
#include "mcplog.h"

#include <QCoreApplication>
#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "McpConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(McpConnector)
};
} // namespace

using namespace Mcp;

Session McpBackend::storedSession(const QJsonObject &tokenExtra)
{
    return Session{tokenExtra.value(kSessionId).toString(), tokenExtra.value(kProtocolVersion).toString()};
}

QJsonObject McpBackend::sessionExtra(const Session &session)
{
    return {{kSessionId, session.id}, {kProtocolVersion, session.version}};
}

QCoro::Task<McpBackend::Opened> McpBackend::sessionFor(QJsonObject tokenExtra)
{
    QPointer<McpBackend> self = this;
    Opened opened;
    if (const Session stored = storedSession(tokenExtra); stored.isValid()) {
        opened.session = stored;
        co_return opened;
    }
    if (m_session.isValid()) {
        opened.session = m_session;
        opened.capabilities = m_capabilities;
        co_return opened;
    }
    if (const QString joined = m_connection.options.value(McpOption::SessionId).toString();
        !joined.isEmpty()) {
        // Joining another client's session (to see its tasks, §1): as the SDK client's
        // StreamableHTTPClientTransport({sessionId}) does, without a handshake.
        const QString version = m_connection.options.value(McpOption::ProtocolVersion).toString();
        m_session
            = Session{joined, version.isEmpty() || version == "auto"_L1 ? QString(kRevision2025) : version};
        opened.session = m_session;
        co_return opened;
    }
    const Handshake handshake = co_await m_transport->open();
    if (!self) {
        opened.error = RunError::cancelled();
        co_return opened;
    }
    if (!handshake.ok()) {
        opened.error
            = handshake.reply.error.isError()
                  ? handshake.reply.error
                  : RunError::protocol(u"no_session"_s, Text::tr("The MCP server opened no session."));
        co_return opened;
    }
    m_session = handshake.session;
    m_capabilities = handshake.capabilities;
    m_serverInfo = handshake.serverInfo;
    opened.session = m_session;
    opened.capabilities = m_capabilities;
    co_return opened;
}

QCoro::Task<McpBackend::Opened> McpBackend::replaceSession(Session lost)
{
    QPointer<McpBackend> self = this;
    if (m_session.isValid() && m_session != lost) {
        // Another request replaced it already.
        Opened opened;
        opened.session = m_session;
        opened.capabilities = m_capabilities;
        co_return opened;
    }
    qCWarning(lcMcp) << "the server lost session" << lost.id << "- opening a new one";
    m_session = {};
    m_capabilities = {};
    // The option's session is gone too: a new one is the only way on.
    const Handshake handshake = co_await m_transport->open();
    Opened opened;
    if (!self) {
        opened.error = RunError::cancelled();
        co_return opened;
    }
    if (!handshake.ok()) {
        opened.error = handshake.reply.error;
        co_return opened;
    }
    m_session = handshake.session;
    m_capabilities = handshake.capabilities;
    opened.session = m_session;
    opened.capabilities = m_capabilities;
    co_return opened;
}

QList<RunEvent> McpBackend::sessionLostEvents(const ContinuationToken &token, const Session &now)
{
    QList<RunEvent> events;
    RunEvent identity = RunEvent::identity(token.remoteId, {}, true);
    identity.tokenExtra = sessionExtra(now);
    const bool pending = token.extra.value(kElicitation).isObject();
    identity.tokenExtra.insert(kElicitation, QJsonValue::Null);
    events << identity;
    const QString text
        = pending ? Text::tr("The MCP server lost the session %1 (it restarted or closed it). Its pending "
                             "question can no longer be answered; the task is followed on a new session.")
                        .arg(storedSession(token.extra).id)
                  : Text::tr("The MCP server lost the session %1 (it restarted or closed it); the task is "
                             "followed on a new session.")
                        .arg(storedSession(token.extra).id);
    events << RunEvent::secondarySnapshot(SecondaryKind::Log, u"session_lost"_s, Text::tr("session lost"),
                                          text);
    return events;
}

QCoro::Task<Reply> McpBackend::callForRun(QString method, QJsonObject params, QJsonObject tokenExtra,
                                          Session *used, bool *lostSession)
{
    QPointer<McpBackend> self = this;
    Reply reply;
    const Opened opened = co_await sessionFor(tokenExtra);
    if (!self) {
        reply.error = RunError::cancelled();
        co_return reply;
    }
    if (!opened.ok()) {
        reply.error = opened.error;
        co_return reply;
    }
    reply = co_await m_transport->call(method, params, opened.session);
    if (!self) {
        reply.error = RunError::cancelled();
        co_return reply;
    }
    *used = opened.session;
    if (!reply.sessionLost)
        co_return reply;
    *lostSession = true;
    const Opened fresh = co_await replaceSession(opened.session);
    if (!self) {
        reply.error = RunError::cancelled();
        co_return reply;
    }
    if (!fresh.ok()) {
        reply.error = fresh.error;
        co_return reply;
    }
    *used = fresh.session;
    reply = co_await m_transport->call(method, params, fresh.session);
    if (!self) {
        reply.error = RunError::cancelled();
        co_return reply;
    }
    if (reply.error.kind == ErrorKind::NotFound) {
        // The default task store binds a task to its session: gone with it (§1).
        reply.error.message
            = Text::tr("The MCP server lost the session this task was started on, and the task "
                       "with it (the server's task store is bound to sessions): %1")
                  .arg(reply.error.message);
        reply.error.retryable = false;
    }
    co_return reply;
}

} // namespace Runwatch
