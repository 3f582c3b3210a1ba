// SPDX-License-Identifier: GPL-3.0-or-later
#include "mcptransport.h"

#include "mcplog.h"
#include "net/sseparser.h"

#include <QCoreApplication>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Runwatch::Mcp {

namespace {
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(McpConnector)
};

// The _meta keys of the 2026-07-28 request envelope (§9).
constexpr auto kMetaVersion = "io.modelcontextprotocol/protocolVersion"_L1;
constexpr auto kMetaClientInfo = "io.modelcontextprotocol/clientInfo"_L1;
constexpr auto kMetaCapabilities = "io.modelcontextprotocol/clientCapabilities"_L1;
constexpr auto kTasksExtension = "io.modelcontextprotocol/tasks"_L1;

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// The messages of a buffered reply: a JSON body, or the data of each SSE event.
QList<Message> messagesOf(const HttpResponse &response, bool *malformed)
{
    QList<Message> messages;
    if (isEventStream(response)) {
        SseParser parser;
        parser.feed(response.body, [&](const SseEvent &event) {
            if (event.data.trimmed().isEmpty())
                return;
            messages << parseMessages(event.data);
        });
        // A stream cut before its last event ended is what the last (incomplete) event was.
        if (parser.hasError())
            *malformed = true;
        return messages;
    }
    if (!response.body.trimmed().isEmpty())
        messages << parseMessages(response.body);
    return messages;
}

} // namespace

Transport::Transport(HttpClient *http, QUrl endpoint, QObject *parent)
    : QObject(parent)
    , m_http(http)
    , m_endpoint(std::move(endpoint))
{}

QJsonObject Transport::clientCapabilities(bool revision2026)
{
    // Without elicitation a task that asks for input fails (§5); url mode is answered by opening
    // the URL after asking. The tasks capability says the client polls tasks.
    QJsonObject capabilities{
        {u"elicitation"_s, QJsonObject{{u"form"_s, QJsonObject{}}, {u"url"_s, QJsonObject{}}}},
        {u"tasks"_s, QJsonObject{{u"list"_s, QJsonObject{}}, {u"cancel"_s, QJsonObject{}}}},
    };
    if (revision2026)
        capabilities.insert(u"extensions"_s, QJsonObject{{kTasksExtension, QJsonObject{}}});
    return capabilities;
}

QJsonObject Transport::clientInfo()
{
    return {{u"name"_s, u"Runwatch"_s}, {u"version"_s, QStringLiteral(RUNWATCH_VERSION_STRING)}};
}

QJsonObject Transport::request(const QString &method, QJsonObject params, const Session &session)
{
    if (session.is2026()) {
        QJsonObject meta = params.value(u"_meta"_s).toObject();
        meta.insert(kMetaVersion, QString(kRevision2026));
        meta.insert(kMetaClientInfo, clientInfo());
        meta.insert(kMetaCapabilities, clientCapabilities(true));
        params.insert(u"_meta"_s, meta);
    }
    QJsonObject message{
        {u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, u"rw-%1"_s.arg(++m_nextId)}, {u"method"_s, method}};
    if (!params.isEmpty())
        message.insert(u"params"_s, params);
    return message;
}

HttpRequest Transport::post(const QJsonObject &message, const Session &session) const
{
    HttpRequest r;
    r.method = "POST";
    r.url = m_endpoint;
    r.headers.emplaceBack("User-Agent", "Runwatch/" RUNWATCH_VERSION_STRING);
    r.headers.emplaceBack("Accept", "application/json, text/event-stream");
    r.headers.emplaceBack("Content-Type", "application/json");
    if (!session.id.isEmpty())
        r.headers.emplaceBack("Mcp-Session-Id", session.id.toUtf8());
    if (!session.version.isEmpty())
        r.headers.emplaceBack("MCP-Protocol-Version", session.version.toUtf8());
    if (session.is2026()) {
        // 2026 servers route by these headers (§9); server-chosen values never reach them.
        const QString method = message.value(u"method"_s).toString();
        if (!method.isEmpty())
            r.headers.emplaceBack("Mcp-Method", method.toUtf8());
        const QJsonObject params = message.value(u"params"_s).toObject();
        const QString name = method == "tools/call"_L1 ? params.value(u"name"_s).toString()
                                                       : params.value(u"taskId"_s).toString();
        if (!name.isEmpty())
            r.headers.emplaceBack("Mcp-Name", name.toUtf8());
    }
    r.body = compact(message);
    return r;
}

RunError Transport::httpError(const HttpResponse &response)
{
    RunError e = response.error;
    bool malformed = false;
    for (const Message &m : messagesOf(response, &malformed)) {
        if (m.kind == Message::Kind::Error && !m.errorMessage.isEmpty()) {
            e.message = m.errorMessage;
            break;
        }
    }
    return e;
}

Reply Transport::readReply(const HttpResponse &response, const QJsonValue &id, bool namedSession)
{
    Reply reply;
    reply.httpStatus = response.status;
    reply.retryAfterMs = response.retryAfterMs;
    if (!response.ok()) {
        reply.error = httpError(response);
        reply.sessionLost = namedSession && response.status == 404;
        return reply;
    }
    bool malformed = false;
    bool answered = false;
    for (Message &m : messagesOf(response, &malformed)) {
        const bool ours = (m.kind == Message::Kind::Result || m.kind == Message::Kind::Error) && m.id == id;
        if (ours && !answered) {
            answered = true;
            if (m.kind == Message::Kind::Error) {
                reply.error = rpcError(m.errorCode, m.errorMessage);
            } else {
                reply.result = m.result;
            }
        } else if (m.kind == Message::Kind::Request || m.kind == Message::Kind::Notification) {
            reply.serverMessages << std::move(m);
        }
    }
    if (!answered) {
        // A reply stream cut before the answer: the request may have been done, or not.
        reply.error = response.protocolError(
            u"no_reply"_s, malformed ? Text::tr("The MCP server's reply broke off before it answered.")
                                     : Text::tr("The MCP server's reply holds no answer to the request."));
        reply.error.retryable = true;
    }
    return reply;
}

QCoro::Task<Reply> Transport::call(QString method, QJsonObject params, Session session)
{
    QPointer<Transport> self = this;
    const QJsonObject message = request(method, std::move(params), session);
    const QJsonValue id = message.value(u"id"_s);
    HttpRequest r = post(message, session);
    // Creating a task twice would run the tool twice; everything else only reads or is
    // idempotent (a second cancel of a cancelled task is refused, not repeated).
    r.idempotent = method != "tools/call"_L1;
    qCDebug(lcMcp) << "request" << method << "on session" << session.id;
    if (!m_http) {
        Reply gone;
        gone.error = RunError::cancelled();
        co_return gone;
    }
    const HttpResponse response = co_await m_http->send(std::move(r));
    if (!self) {
        Reply gone;
        gone.error = RunError::cancelled();
        co_return gone;
    }
    co_return readReply(response, id, !session.id.isEmpty());
}

QCoro::Task<Reply> Transport::answer(QJsonValue id, QJsonObject result, Session session)
{
    QPointer<Transport> self = this;
    const QJsonObject message{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"result"_s, result}};
    HttpRequest r = post(message, session);
    Reply reply;
    if (!m_http) {
        reply.error = RunError::cancelled();
        co_return reply;
    }
    const HttpResponse response = co_await m_http->send(std::move(r));
    if (!self) {
        reply.error = RunError::cancelled();
        co_return reply;
    }
    reply.httpStatus = response.status;
    reply.retryAfterMs = response.retryAfterMs;
    if (!response.ok()) {
        reply.error = httpError(response);
        reply.sessionLost = !session.id.isEmpty() && response.status == 404;
    }
    co_return reply;
}

QCoro::Task<Handshake> Transport::open()
{
    QPointer<Transport> self = this;
    if (m_preferred != kRevision2025) {
        Handshake found = co_await discover();
        if (!self)
            co_return found;
        // Pinned to 2026, or auto and the server speaks it: done. Otherwise the 2025 handshake
        // (the SDK 1.32.2 server refuses server/discover without a session with 400).
        if (found.ok() || m_preferred == kRevision2026)
            co_return found;
    }
    co_return co_await initialize();
}

QCoro::Task<Handshake> Transport::discover()
{
    QPointer<Transport> self = this;
    Handshake handshake;
    Session probe{QString(), QString(kRevision2026)};
    const QJsonObject none;
    handshake.reply = co_await call(u"server/discover"_s, none, probe);
    if (!self)
        co_return handshake;
    if (!handshake.reply.ok())
        co_return handshake;
    const QJsonObject result = handshake.reply.result.toObject();
    const QJsonArray versions = result.value(u"supportedVersions"_s).toArray();
    if (!versions.contains(QJsonValue(kRevision2026))) {
        handshake.reply.error
            = RunError::protocol(u"unsupported_version"_s,
                                 Text::tr("The MCP server does not offer revision %1.").arg(kRevision2026));
        co_return handshake;
    }
    handshake.session = probe;
    handshake.capabilities = result.value(u"capabilities"_s).toObject();
    handshake.serverInfo
        = result.value(u"_meta"_s).toObject().value(u"io.modelcontextprotocol/serverInfo"_s).toObject();
    co_return handshake;
}

QCoro::Task<Handshake> Transport::initialize()
{
    QPointer<Transport> self = this;
    Handshake handshake;
    const QJsonObject params{{u"protocolVersion"_s, QString(kRevision2025)},
                             {u"capabilities"_s, clientCapabilities(false)},
                             {u"clientInfo"_s, clientInfo()}};
    const QJsonObject message = request(u"initialize"_s, params, Session{});
    const QJsonValue id = message.value(u"id"_s);
    if (!m_http) {
        handshake.reply.error = RunError::cancelled();
        co_return handshake;
    }
    HttpRequest r = post(message, Session{});
    const HttpResponse response = co_await m_http->send(std::move(r));
    if (!self) {
        handshake.reply.error = RunError::cancelled();
        co_return handshake;
    }
    handshake.reply = readReply(response, id, false);
    if (!handshake.reply.ok())
        co_return handshake;
    const QJsonObject result = handshake.reply.result.toObject();
    const QString version = result.value(u"protocolVersion"_s).toString();
    if (version.isEmpty()) {
        handshake.reply.error = response.protocolError(
            u"no_protocol_version"_s,
            Text::tr("The MCP server's initialize reply names no protocol version."));
        co_return handshake;
    }
    // A stateless server issues no session id: requests then go without one (§2).
    handshake.session = Session{QString::fromUtf8(response.header("mcp-session-id")), version};
    handshake.capabilities = result.value(u"capabilities"_s).toObject();
    handshake.serverInfo = result.value(u"serverInfo"_s).toObject();
    const QJsonObject initialized{{u"jsonrpc"_s, u"2.0"_s}, {u"method"_s, u"notifications/initialized"_s}};
    HttpRequest note = post(initialized, handshake.session);
    const HttpResponse noted = co_await m_http->send(std::move(note));
    if (!self) {
        handshake.reply.error = RunError::cancelled();
        co_return handshake;
    }
    if (!noted.ok()) {
        handshake.reply.error = httpError(noted);
        handshake.session = {};
    }
    qCInfo(lcMcp) << "opened session" << handshake.session.id << "version" << version;
    co_return handshake;
}

} // namespace Runwatch::Mcp
