// SPDX-License-Identifier: GPL-3.0-or-later
// A2aBackend's transport half: agent card discovery, request building for the JSON-RPC and
// HTTP+JSON bindings, and one-shot calls. The run operations are in a2abackend.cpp.
#include "a2abackend.h"

#include "a2alog.h"
#include "backends/a2a/a2aconnector.h"
#include "backends/optionchecks.h"
#include "backends/requestauth.h"
#include "net/httppolicy.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUrlQuery>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "A2aConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(A2aConnector)
};
} // namespace

namespace A2a {

QString methodName(Operation operation, Version version)
{
    const bool v1 = version == Version::V10;
    switch (operation) {
    case Operation::SendMessage:
        return v1 ? u"SendMessage"_s : u"message/send"_s;
    case Operation::SendStreamingMessage:
        return v1 ? u"SendStreamingMessage"_s : u"message/stream"_s;
    case Operation::GetTask:
        return v1 ? u"GetTask"_s : u"tasks/get"_s;
    case Operation::CancelTask:
        return v1 ? u"CancelTask"_s : u"tasks/cancel"_s;
    case Operation::SubscribeToTask:
        return v1 ? u"SubscribeToTask"_s : u"tasks/resubscribe"_s;
    case Operation::ListTasks:
        return v1 ? u"ListTasks"_s : QString(); // 0.3 has no JSON-RPC listing (§4)
    }
    return {};
}

} // namespace A2a

using namespace A2a;

namespace {

// A task id as one URL path segment (HTTP+JSON binding).
QString encodedId(const QString &id)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(id));
}

// `url` lies at or under `base`: the same origin and `base`'s path as a whole-segment prefix.
bool isUnder(const QUrl &url, const QUrl &base)
{
    if (!sameOrigin(url, base))
        return false;
    QString prefix = base.path();
    if (prefix.endsWith(u".json"_s)) // the card's own URL was given: its folder
        prefix.truncate(prefix.lastIndexOf(u'/'));
    while (prefix.endsWith(u'/'))
        prefix.chop(1);
    const QString path = url.path();
    return prefix.isEmpty() || path == prefix || path.startsWith(prefix + u'/');
}

} // namespace

QList<QUrl> A2aBackend::cardUrls(const QUrl &baseUrl)
{
    QUrl base = baseUrl;
    base.setQuery(QString());
    base.setFragment(QString());
    if (base.path().endsWith(u".json"_s))
        return {base}; // the card's own URL was given
    QString path = base.path();
    while (path.endsWith(u'/'))
        path.chop(1);
    QList<QUrl> urls;
    const auto add = [&](const QString &prefix) {
        for (const QString &name : {u"/.well-known/agent-card.json"_s, u"/.well-known/agent.json"_s}) {
            QUrl u = base;
            u.setPath(prefix + name);
            if (!urls.contains(u))
                urls << u;
        }
    };
    add(path);
    // Well-known URIs live at the origin (RFC 8615), but agents mounted under a path often
    // serve their card there too: try both.
    if (!path.isEmpty())
        add(QString());
    return urls;
}

QCoro::Task<Discovery> A2aBackend::discover(bool refresh)
{
    Discovery d;
    if (m_card && m_interface && !refresh) {
        d.card = m_card;
        d.interface = m_interface;
        co_return d;
    }
    QPointer<A2aBackend> self = this;
    const QUrl base = m_connection.baseUrl;
    if (!base.isValid() || base.host().isEmpty()) {
        d.error = RunError::client(
            u"invalid_url"_s, Text::tr("The agent URL \"%1\" is not valid.").arg(base.toDisplayString()));
        co_return d;
    }
    QStringList missing;
    for (const QUrl &url : cardUrls(base)) {
        HttpRequest r;
        r.method = "GET";
        r.url = url;
        // A 1.0 server with 0.3 compatibility serves the 1.0 card only with this header (§2.1).
        r.headers.emplaceBack("A2A-Version", "1.0");
        r.headers.emplaceBack("Accept", "application/json");
        r.headers.emplaceBack("User-Agent", "Runwatch/" RUNWATCH_VERSION_STRING);
        // The public card, asked for before the agent says which credentials it takes.
        r.withCredentials = false;
        const HttpResponse response = co_await m_http->send(std::move(r));
        if (!self) {
            d.error = RunError::cancelled(kConnectionClosed);
            co_return d;
        }
        if (!response.ok()) {
            if (response.error.kind == ErrorKind::NotFound) {
                missing << url.toDisplayString();
                continue;
            }
            d.error = response.error;
            d.error.message = Text::tr("Cannot fetch the agent card at %1: %2")
                                  .arg(url.toDisplayString(), response.error.message);
            co_return d;
        }
        const CardParse parsed = parseAgentCard(response.body, url);
        if (!parsed.card) {
            d.error = RunError::protocol(u"agent_card_invalid"_s, parsed.error);
            d.error.httpStatus = response.status;
            co_return d;
        }
        const QString binding = m_connection.options.value(A2aOption::Binding).toString();
        const QString version = m_connection.options.value(A2aOption::ProtocolVersion).toString();
        const std::optional<AgentInterface> iface = selectInterface(*parsed.card, binding, version);
        if (!iface) {
            d.error = RunError::protocol(
                u"no_usable_interface"_s,
                Text::tr("The agent card at %1 offers no interface for %2.")
                    .arg(url.toDisplayString(), QStringList{binding, version}.join(u' ').trimmed()));
            co_return d;
        }
        // A card read at the origin's root for an agent mounted under a path may be another
        // agent's: take it only when its interface is the agent the connection names.
        if (!isUnder(url, base) && !isUnder(iface->url, base)) {
            d.error = RunError::protocol(
                u"agent_card_mismatch"_s,
                Text::tr("No agent card under %1; the card at %2 describes the agent at %3, not this one.")
                    .arg(base.toDisplayString(), url.toDisplayString(), iface->url.toDisplayString()));
            co_return d;
        }
        // The card names where requests go; the key goes only to the connection's own origin.
        if (!sameOrigin(iface->url, base) && m_auth->hasCredential()) {
            d.error = RunError::client(
                u"credential_origin"_s,
                Text::tr("The agent card at %1 sends requests to %2, another origin than the connection's "
                         "%3: Runwatch does not send the connection's key there. If you trust %2, point a "
                         "connection at it.")
                    .arg(url.toDisplayString(), originOf(iface->url), originOf(base)));
            co_return d;
        }
        m_card = parsed.card;
        m_interface = iface;
        d.card = m_card;
        d.interface = m_interface;
        Q_EMIT agentCardChanged();
        co_return d;
    }
    d.error.kind = ErrorKind::NotFound;
    d.error.code = u"agent_card_missing"_s;
    d.error.httpStatus = 404;
    d.error.message = Text::tr("No A2A agent card found (HTTP 404 at %1). Is %2 the agent's base URL?")
                          .arg(missing.join(u", "_s), base.toDisplayString());
    co_return d;
}

bool A2aBackend::applyAgentAuth(HttpRequest &request, const QByteArray &credential) const
{
    const AuthScheme::Kind kind = m_card ? m_card->auth.kind : AuthScheme::Kind::None;
    const QByteArray name = m_card ? m_card->auth.name.toUtf8() : QByteArray();
    switch (kind) {
    case AuthScheme::Kind::Bearer:
        request.headers.emplaceBack("Authorization", "Bearer " + credential);
        return true;
    case AuthScheme::Kind::Basic:
        request.headers.emplaceBack("Authorization", "Basic " + credential.toBase64());
        return true;
    case AuthScheme::Kind::ApiKeyHeader:
        // A header the card names, but not one that frames the request or carries other state.
        if (!isHeaderName(QString::fromUtf8(name)) || isReservedHeader(name)) {
            qCWarning(lcA2a) << "agent card asks for the key in header" << name
                             << "- refused; the connection's own style is used";
            return false;
        }
        request.headers.emplaceBack(name, credential);
        return true;
    case AuthScheme::Kind::ApiKeyQuery:
    case AuthScheme::Kind::ApiKeyCookie:
        // A key in the URL ends up in server and proxy logs, one in a cookie in cookie jars: only
        // where the connection allows it, not because a card says so.
        if (!optionIsYes(m_connection.options.value(A2aOption::CardKeyInQueryOrCookie))) {
            qCWarning(lcA2a) << "agent card asks for the key in the"
                             << (kind == AuthScheme::Kind::ApiKeyQuery ? "URL query" : "cookie") << name
                             << "- not allowed by the connection; its own style is used";
            return false;
        }
        if (kind == AuthScheme::Kind::ApiKeyCookie) {
            request.headers.emplaceBack("Cookie", name + '=' + credential);
        } else {
            QUrlQuery q(request.url);
            q.addQueryItem(QString::fromUtf8(name), QString::fromUtf8(credential));
            request.url.setQuery(q);
        }
        return true;
    case AuthScheme::Kind::None:
        break;
    }
    // The card asks for nothing we recognise: the connection's own style.
    return false;
}

HttpRequest A2aBackend::buildRequest(const AgentInterface &iface, Operation operation,
                                     const QJsonObject &params, bool useGet)
{
    HttpRequest r;
    const bool streaming
        = operation == Operation::SendStreamingMessage || operation == Operation::SubscribeToTask;
    const bool v1 = iface.version == Version::V10;
    if (iface.binding == Binding::JsonRpc) {
        r.method = "POST";
        r.url = iface.url;
        QJsonObject p = params;
        if (v1 && !iface.tenant.isEmpty())
            p.insert(u"tenant"_s, iface.tenant);
        const QJsonObject body{{u"jsonrpc"_s, u"2.0"_s},
                               {u"id"_s, m_nextRpcId++},
                               {u"method"_s, methodName(operation, iface.version)},
                               {u"params"_s, p}};
        r.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
        // Exactly application/json: the JS SDK rejects anything else on JSON-RPC (§0.3).
        r.headers.emplaceBack("Content-Type", "application/json");
        r.headers.emplaceBack("Accept", streaming ? "text/event-stream" : "application/json");
    } else {
        QString prefix = iface.url.path();
        while (prefix.endsWith(u'/'))
            prefix.chop(1);
        if (!iface.tenant.isEmpty())
            prefix += u'/' + encodedId(iface.tenant);
        if (!v1)
            prefix += u"/v1"_s; // the 0.3 REST paths; 1.0 dropped the prefix (§1)
        const QString id = encodedId(params.value(u"id"_s).toString());
        QUrlQuery query;
        QJsonObject body = params;
        body.remove(u"id"_s);
        QString path;
        bool hasBody = true;
        switch (operation) {
        case Operation::SendMessage:
            path = u"/message:send"_s;
            r.method = "POST";
            break;
        case Operation::SendStreamingMessage:
            path = u"/message:stream"_s;
            r.method = "POST";
            break;
        case Operation::GetTask:
            path = u"/tasks/"_s + id;
            r.method = "GET";
            hasBody = false;
            if (params.contains(u"historyLength"_s)) {
                query.addQueryItem(u"historyLength"_s,
                                   QString::number(params.value(u"historyLength"_s).toInt()));
            }
            break;
        case Operation::CancelTask:
            path = u"/tasks/"_s + id + u":cancel"_s;
            r.method = "POST";
            break;
        case Operation::SubscribeToTask:
            path = u"/tasks/"_s + id + u":subscribe"_s;
            r.method = useGet ? "GET" : "POST";
            hasBody = !useGet;
            break;
        case Operation::ListTasks:
            path = u"/tasks"_s;
            r.method = "GET";
            hasBody = false;
            for (auto it = params.begin(); it != params.end(); ++it) {
                const QJsonValue v = it.value();
                query.addQueryItem(it.key(), v.isString() ? v.toString()
                                             : v.isBool() ? (v.toBool() ? u"true"_s : u"false"_s)
                                                          : QString::number(v.toInteger()));
            }
            break;
        }
        r.url = iface.url;
        r.url.setPath(prefix + path);
        if (!query.isEmpty())
            r.url.setQuery(query);
        if (hasBody) {
            r.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
            r.headers.emplaceBack("Content-Type", v1 ? "application/a2a+json" : "application/json");
        }
        r.headers.emplaceBack("Accept",
                              streaming ? "text/event-stream" : "application/a2a+json, application/json");
    }
    // Every request says which version it speaks; a 1.0 server takes a missing header as 0.3.
    r.headers.emplaceBack("A2A-Version", versionHeader(iface.version).toLatin1());
    r.headers.emplaceBack("User-Agent", "Runwatch/" RUNWATCH_VERSION_STRING);
    // The credential goes on as the request leaves (RequestAuth, applyAgentAuth).
    return r;
}

QJsonObject A2aBackend::messageParams(Version version, const QString &text, const QString &taskId,
                                      const QString &contextId, QLatin1StringView idPrefix,
                                      bool returnImmediately, const QString &clientRunId,
                                      const QJsonValue &data) const
{
    const bool v1 = version == Version::V10;
    const bool rest03 = !v1 && m_interface && m_interface->binding == Binding::HttpJson;
    // A data part holds any JSON value in 1.0 but an object in 0.x: anything else goes in as
    // {"value": …} there.
    const QJsonObject dataObject = data.isObject() ? data.toObject() : QJsonObject{{u"value"_s, data}};
    QJsonObject message;
    message.insert(u"messageId"_s, QString(idPrefix + QUuid::createUuid().toString(QUuid::WithoutBraces)));
    if (v1 || rest03) {
        message.insert(u"role"_s, u"ROLE_USER"_s);
        QJsonArray parts{QJsonObject{{u"text"_s, text}}};
        // 1.0: Part.data is a Value; 0.3 proto JSON: a DataPart message around a Struct.
        if (!data.isUndefined()) {
            parts.append(
                QJsonObject{{u"data"_s, rest03 ? QJsonValue(QJsonObject{{u"data"_s, dataObject}}) : data}});
        }
        // 0.3 REST used proto JSON: Message.content instead of parts (§12.6).
        message.insert(rest03 ? u"content"_s : u"parts"_s, parts);
    } else {
        message.insert(u"kind"_s, u"message"_s);
        message.insert(u"role"_s, u"user"_s);
        QJsonArray parts{QJsonObject{{u"kind"_s, u"text"_s}, {u"text"_s, text}}};
        if (!data.isUndefined())
            parts.append(QJsonObject{{u"kind"_s, u"data"_s}, {u"data"_s, dataObject}});
        message.insert(u"parts"_s, parts);
    }
    if (!taskId.isEmpty())
        message.insert(u"taskId"_s, taskId);
    if (!contextId.isEmpty())
        message.insert(u"contextId"_s, contextId);
    if (!clientRunId.isEmpty())
        message.insert(u"metadata"_s, QJsonObject{{u"runwatch_run_id"_s, clientRunId}});
    QJsonObject params{{u"message"_s, message}};
    if (returnImmediately) {
        params.insert(u"configuration"_s,
                      v1 ? QJsonObject{{u"returnImmediately"_s, true}} : QJsonObject{{u"blocking"_s, false}});
    }
    return params;
}

QCoro::Task<CallResult> A2aBackend::call(Operation operation, QJsonObject params)
{
    return callWith(m_http, operation, std::move(params));
}

QCoro::Task<CallResult> A2aBackend::callWith(HttpClient *client, Operation operation, QJsonObject params)
{
    QPointer<A2aBackend> self = this;
    CallResult result;
    const Discovery d = co_await discover();
    if (std::optional<RunError> failed = discoveryFailure(!self.isNull(), d)) {
        result.error = std::move(*failed);
        co_return result;
    }
    const AgentInterface iface = *d.interface;
    if (iface.binding == Binding::JsonRpc && methodName(operation, iface.version).isEmpty()) {
        result.error
            = RunError::unsupported(Text::tr("A2A %1 has no such method.").arg(versionHeader(iface.version)));
        co_return result;
    }
    HttpRequest r = buildRequest(iface, operation, params);
    // SendMessage creates a task or a turn: never repeated once it may have arrived.
    r.idempotent = operation != Operation::SendMessage;
    const HttpResponse response = co_await client->send(std::move(r));
    if (!self) {
        result.error = RunError::cancelled(kConnectionClosed);
        co_return result;
    }
    result.retryAfterMs = response.retryAfterMs;
    if (!response.ok()) {
        // JSON-RPC -32603 comes with HTTP 500; REST errors with their HTTP status: keep the
        // A2A code when the body has one. 401/403 stay auth errors whatever the body says.
        if (response.status != 401 && response.status != 403 && !response.body.isEmpty()) {
            if (auto pe = parseErrorBody(response.body, response.status)) {
                result.protocolError = pe;
                result.error = toRunError(*pe);
                result.error.requestId = response.error.requestId;
                co_return result;
            }
        }
        result.error = response.error;
        co_return result;
    }
    const Reply reply = decodeReply(iface.binding, response.body, response.status);
    if (reply.error) {
        result.protocolError = reply.error;
        result.error = toRunError(*reply.error);
        result.error.httpStatus = response.status;
    } else if (!reply.malformed.isEmpty()) {
        result.error = RunError::protocol(u"malformed_reply"_s, reply.malformed);
        result.error.httpStatus = response.status;
    } else {
        result.result = reply.result;
    }
    co_return result;
}

} // namespace Runwatch
