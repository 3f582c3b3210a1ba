// SPDX-License-Identifier: GPL-3.0-or-later
#include "openaibackend.h"
#include "openailog.h"

#include "backends/openai/openaiconnector.h"
#include "net/transportoptions.h"
#include "openairunstream.h"

#include "backends/requestauth.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrlQuery>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "OpenAiConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(OpenAiConnector)
};
} // namespace

Q_LOGGING_CATEGORY(lcOpenAi, "runwatch.backend.openai", QtInfoMsg)

namespace {

// Real events can exceed 8 MiB, hence the parser's generous default; a connection may lower it.
OpenAiRunStream *withEventLimit(OpenAiRunStream *stream, const Connection &c)
{
    const qint64 bytes = c.options.value(OpenAiOption::MaxEventBytes).toInteger(0);
    if (bytes > 0)
        stream->setMaxEventSize(qsizetype(bytes));
    return stream;
}

// /responses/{id}, the id as one path segment.
QString responsePath(const QString &remoteId)
{
    return u"/responses/"_s + QString::fromLatin1(QUrl::toPercentEncoding(remoteId));
}

QList<RunEvent> eventsFromBody(const QByteArray &body)
{
    const QJsonDocument doc = QJsonDocument::fromJson(body);
    return doc.isObject() ? OpenAi::mapResponseObject(doc.object()) : QList<RunEvent>{};
}

// What links the next turn to a response, from what the run keeps of it (its token's extra, or
// the response's echo: OpenAi::tokenExtraOf): in a conversation (a Foundry agent's), the
// conversation and the agent it names; otherwise previous_response_id. The two exclude each other.
QJsonObject nextTurn(const QJsonObject &extra, const QString &responseId)
{
    const QString conversation = extra.value(OpenAi::kConversation).toString();
    if (conversation.isEmpty())
        return {{u"previous_response_id"_s, responseId}};
    QJsonObject link{{OpenAi::kConversation, conversation}};
    if (const QJsonValue agent = extra.value(OpenAi::kAgentReference); agent.isObject())
        link.insert(OpenAi::kAgentReference, agent);
    return link;
}

// The next response that answers `response`'s pending calls with `input`, on its agent or its
// model.
QJsonObject answerBody(const QJsonObject &response, const QString &responseId, const QJsonArray &input,
                       const QString &defaultModel)
{
    QJsonObject body = nextTurn(OpenAi::tokenExtraOf(response), responseId);
    body.insert(u"input"_s, input);
    body.insert(u"background"_s, true);
    body.insert(u"store"_s, true);
    body.insert(u"stream"_s, false);
    if (!body.contains(OpenAi::kAgentReference)) {
        const QString model = response.value(u"model"_s).toString();
        body.insert(u"model"_s, model.isEmpty() ? defaultModel : model);
    }
    return body;
}

// POST /responses is not idempotent, but a 409 conversation_locked is the service refusing it
// before it does anything (one turn at a time in a conversation: foundry-agents-and-gemini.md §1.4;
// OpenAI's own clients repeat every request on a 409, openai-responses-and-foundry.md §3.3): the
// one answer after which the same request is safely sent again, once the turn in flight ended.
// HttpClient does the waiting (its waits end with abortAll() and shutdown()). Ten minutes: a tool
// answer must reach the service within its 10-minute window anyway, and a turn kept waiting longer
// is better told than left hanging.
constexpr std::chrono::minutes kConversationBusyPatience{10};

void waitOutBusyConversation(HttpRequest &r)
{
    r.busy = HttpRequest::BusyRefusal{
        .status = 409, .code = u"conversation_locked"_s, .patience = kConversationBusyPatience};
}

// The error for an answer that should have been a Response object and is not.
RunError notAResponse(const HttpResponse &response)
{
    return response.protocolError({}, Text::tr("The server's answer is not a Response object."));
}

} // namespace

OpenAiBackend::OpenAiBackend(Connection connection, QObject *parent)
    : RunBackend(parent)
    , m_connection(std::move(connection))
    , m_http(new HttpClient(this))
{
    applyTransportOptions(m_http, m_connection);
    (new RequestAuth(m_connection, this))->attach(m_http);
}

QString OpenAiBackend::kind() const
{
    return u"openai"_s;
}

Capabilities OpenAiBackend::capabilities() const
{
    Capabilities caps = Capability::Start | Capability::Get | Capability::Stream | Capability::ResumeStream
                        | Capability::Cancel | Capability::Delete | Capability::Respond | Capability::FollowUp
                        | Capability::StructuredInput | Capability::Conversations;
    if (!foundryProject().isEmpty())
        caps |= Capability::Catalog; // the project's agents
    return caps;
}

QUrl OpenAiBackend::foundryProject() const
{
    static const QRegularExpression projectBase(u"^(.*/api/projects/[^/]+)/openai/v1/*$"_s);
    const QRegularExpressionMatch match = projectBase.match(m_connection.baseUrl.path());
    if (!match.hasMatch())
        return {};
    QUrl project = m_connection.baseUrl;
    project.setPath(match.captured(1));
    project.setQuery(QString());
    return project;
}

HttpRequest OpenAiBackend::request(const QByteArray &method, const QString &path) const
{
    HttpRequest r;
    r.method = method;
    QUrl url = m_connection.baseUrl;
    QString basePath = url.path();
    while (basePath.endsWith(u'/'))
        basePath.chop(1);
    url.setPath(basePath + path);
    // Azure "last generation" endpoints need ?api-version=…; v1 endpoints do not.
    const QString apiVersion = m_connection.options.value(OpenAiOption::ApiVersion).toString();
    if (!apiVersion.isEmpty()) {
        QUrlQuery q(url);
        q.addQueryItem(u"api-version"_s, apiVersion);
        url.setQuery(q);
    }
    r.url = url;
    const QString org = m_connection.options.value(OpenAiOption::Organization).toString();
    if (!org.isEmpty())
        r.headers.emplaceBack("OpenAI-Organization", org.toUtf8());
    const QString project = m_connection.options.value(OpenAiOption::Project).toString();
    if (!project.isEmpty())
        r.headers.emplaceBack("OpenAI-Project", project.toUtf8());
    r.headers.emplaceBack("User-Agent", "Runwatch/" RUNWATCH_VERSION_STRING);
    return r;
}

QCoro::Task<ConnectionProbe> OpenAiBackend::probe()
{
    // A probe answers at once or not at all: no retries, a short connect timeout.
    RetryPolicy policy = m_http->policy();
    policy.maxRetries = 0;
    policy.connectTimeout = std::chrono::milliseconds(8000);
    m_http->setPolicy(policy);
    const HttpResponse r = co_await m_http->send(request("GET", u"/models"_s));
    ConnectionProbe probe;
    probe.ok = r.ok();
    probe.kind = probe.ok ? ConnectionProbe::Kind::Models : ConnectionProbe::Kind::Failed;
    probe.httpStatus = r.status;
    probe.error = r.error;
    co_return probe;
}

QCoro::Task<> OpenAiBackend::shutdown()
{
    return m_http->shutdown();
}

RunStream *OpenAiBackend::start(StartRequest request, QObject *parent)
{
    return create(std::move(request), {}, parent);
}

RunStream *OpenAiBackend::followUp(ContinuationToken parentToken, StartRequest request, QObject *parent)
{
    return create(std::move(request), nextTurn(parentToken.extra, parentToken.remoteId), parent);
}

RunStream *OpenAiBackend::create(StartRequest request, QJsonObject link, QObject *parent)
{
    HttpRequest r = this->request("POST", u"/responses"_s);
    // A Foundry agent (--agent NAME[:VERSION]) runs in a conversation, one of its own created first
    // unless one is named; it brings its own model (and refuses instructions, tools and the like
    // next to it). A plain model runs in a conversation when asked (start --conversation new|ID).
    std::optional<QJsonObject> agent;
    QString agentProblem;
    if (!request.agent.isEmpty()) {
        agent = OpenAi::agentReference(request.agent, &agentProblem);
    } else if (link.value(OpenAi::kAgentReference).isObject()) {
        agent = link.take(OpenAi::kAgentReference).toObject();
    }
    QJsonObject body = link;
    // A turn of a conversation the operator named (start --conversation ID); a follow-up's link
    // names its parent's instead.
    const bool linked = body.contains(OpenAi::kConversation) || body.contains(u"previous_response_id"_s);
    if (!linked && !request.conversation.isEmpty() && request.conversation != kNewConversation)
        body.insert(OpenAi::kConversation, request.conversation);
    if (agent) {
        body.insert(OpenAi::kAgentReference, *agent);
    } else {
        body.insert(u"model"_s, request.model.isEmpty() ? m_connection.defaultModel : request.model);
    }
    // Structured input is Responses input items: an array as given, one item as a one-item list.
    if (request.input.isArray()) {
        body.insert(u"input"_s, request.input);
    } else if (request.input.isObject()) {
        body.insert(u"input"_s, QJsonArray{request.input});
    } else {
        body.insert(u"input"_s, request.prompt);
    }
    body.insert(u"background"_s, true);
    // Background mode requires store:true; some org settings only retain it when sent explicitly.
    body.insert(u"store"_s, true);
    body.insert(u"stream"_s, request.stream);
    if (!request.clientRunId.isEmpty()) {
        QJsonObject metadata;
        metadata.insert(u"client_run_id"_s, request.clientRunId);
        body.insert(u"metadata"_s, metadata);
    }
    r.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    r.headers.emplaceBack("Content-Type", "application/json");
    // Creating is not idempotent (no idempotency key in this API): a retry after the server may
    // have accepted the request could start a duplicate run.
    r.idempotent = false;
    waitOutBusyConversation(r);
    const auto mode
        = request.stream ? OpenAiRunStream::Mode::CreateStreaming : OpenAiRunStream::Mode::CreateJson;
    if (request.stream)
        r.headers.emplaceBack("Accept", "text/event-stream");
    auto *stream = new OpenAiRunStream(m_http, std::move(r), mode, OpenAiMapper(request.stream, -1),
                                       SseRunStream::stallTimeoutFor(m_connection), parent);
    if (!agentProblem.isEmpty()) {
        stream->refuse(RunError::client(u"bad_agent"_s, agentProblem));
    } else if (!linked && !body.contains(OpenAi::kConversation)
               && (!request.agent.isEmpty() || request.conversation == kNewConversation)) {
        HttpRequest conversation = this->request("POST", u"/conversations"_s);
        QJsonObject conversationBody;
        if (!request.clientRunId.isEmpty())
            conversationBody.insert(u"metadata"_s, QJsonObject{{u"client_run_id"_s, request.clientRunId}});
        conversation.body = QJsonDocument(conversationBody).toJson(QJsonDocument::Compact);
        conversation.headers.emplaceBack("Content-Type", "application/json");
        // A conversation created twice is an empty one left over, nothing run: safe to retry.
        conversation.idempotent = true;
        stream->createConversationFirst(std::move(conversation));
    }
    return withEventLimit(stream, m_connection);
}

RunStream *OpenAiBackend::follow(ContinuationToken token, QObject *parent)
{
    qCDebug(lcOpenAi) << "follow" << token.remoteId << "after sequence" << token.sequence << "event id"
                      << token.eventId;
    HttpRequest r = this->request("GET", responsePath(token.remoteId));
    QUrlQuery q(r.url);
    q.addQueryItem(u"stream"_s, u"true"_s);
    if (token.sequence >= 0)
        q.addQueryItem(u"starting_after"_s, QString::number(token.sequence));
    r.url.setQuery(q);
    r.headers.emplaceBack("Accept", "text/event-stream");
    return withEventLimit(new OpenAiRunStream(m_http, std::move(r), OpenAiRunStream::Mode::Resume,
                                              OpenAiMapper(true, token.sequence),
                                              SseRunStream::stallTimeoutFor(m_connection), parent),
                          m_connection);
}

QCoro::Task<ActionResult> OpenAiBackend::get(ContinuationToken token)
{
    QPointer<OpenAiBackend> self = this;
    HttpRequest r = request("GET", responsePath(token.remoteId));
    const HttpResponse response = co_await m_http->send(std::move(r));
    ActionResult result;
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    result.retryAfterMs = response.retryAfterMs;
    if (!response.ok()) {
        result.error = response.error;
        co_return result;
    }
    result.events = eventsFromBody(response.body);
    if (result.events.isEmpty())
        result.error = notAResponse(response);
    co_return result;
}

QCoro::Task<ActionResult> OpenAiBackend::cancel(ContinuationToken token)
{
    qCDebug(lcOpenAi) << "cancel" << token.remoteId;
    QPointer<OpenAiBackend> self = this;
    HttpRequest r = request("POST", responsePath(token.remoteId) + u"/cancel"_s);
    const HttpResponse response = co_await m_http->send(std::move(r));
    ActionResult result;
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (response.ok()) {
        result.events = eventsFromBody(response.body);
        co_return result;
    }
    // "Cannot cancel a completed response." — the run already ended; nothing changes. Ask the
    // server which terminal state it is in (protocol reference §1.5).
    if (response.status == 400 && response.error.message.startsWith(u"Cannot cancel a"_s)) {
        QString state = response.error.message.mid(int(qstrlen("Cannot cancel a")));
        state = state.trimmed();
        if (state.startsWith(u"n "_s))
            state = state.mid(2);
        state = state.section(u' ', 0, 0);
        result.note = state.isEmpty() ? Text::tr("already finished") : Text::tr("already ") + state;
        ActionResult current = co_await get(token);
        if (!self)
            co_return result;
        result.events = current.events;
        co_return result;
    }
    result.error = response.error;
    co_return result;
}

QCoro::Task<ActionResult> OpenAiBackend::remove(ContinuationToken token)
{
    QPointer<OpenAiBackend> self = this;
    HttpRequest r = request("DELETE", responsePath(token.remoteId));
    r.headers.emplaceBack("Accept", "*/*");
    const HttpResponse response = co_await m_http->send(std::move(r));
    ActionResult result;
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    // The delete body differs between servers; any 2xx is success and is not parsed.
    if (response.ok()) {
        result.events << RunEvent::statusChange(RunStatus::Deleted, u"deleted"_s);
        co_return result;
    }
    if (response.error.kind == ErrorKind::NotFound) {
        result.note = Text::tr("not found on the server (already deleted or expired)");
        result.events << RunEvent::statusChange(RunStatus::Deleted, u"deleted"_s);
        co_return result;
    }
    result.error = response.error;
    co_return result;
}

QCoro::Task<ActionResult> OpenAiBackend::respond(ContinuationToken token, InputAnswer answer)
{
    QPointer<OpenAiBackend> self = this;
    ActionResult result;
    // The pending calls come from the server, not from what we stored: it is the truth about
    // which calls the next request must answer, and it names the model to continue with.
    const HttpResponse current = co_await m_http->send(request("GET", responsePath(token.remoteId)));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (!current.ok()) {
        result.error = current.error;
        co_return result;
    }
    const QJsonDocument doc = QJsonDocument::fromJson(current.body);
    if (!doc.isObject()) {
        result.error = notAResponse(current);
        co_return result;
    }
    const QJsonObject response = doc.object();
    const std::optional<InputRequest> pending = OpenAi::inputRequestOf(response);
    if (!pending) {
        result.error = RunError::client(
            u"not_waiting"_s, Text::tr("The response does not wait for input (it is %1).")
                                  .arg(response.value(u"status"_s).toString(Text::tr("without a status"))));
        result.events = OpenAi::mapResponseObject(response);
        co_return result;
    }
    QString why;
    const QJsonArray input = OpenAi::answerItems(*pending, answer, &why);
    if (input.isEmpty()) {
        result.error = RunError::client(u"bad_answer"_s, why);
        co_return result;
    }
    // The next response of the chain, with every answer in one request (§1.8). Created without a
    // stream: its reply is the Response object with the new id, and the engine follows it by
    // polling.
    const QJsonObject body = answerBody(response, token.remoteId, input, m_connection.defaultModel);
    HttpRequest r = request("POST", u"/responses"_s);
    r.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    r.headers.emplaceBack("Content-Type", "application/json");
    // Not idempotent: a retry after the server took the request would answer twice.
    r.idempotent = false;
    waitOutBusyConversation(r);
    const HttpResponse created = co_await m_http->send(std::move(r));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (!created.ok()) {
        result.error = created.error;
        result.retryAfterMs = created.retryAfterMs;
        co_return result;
    }
    result.events = eventsFromBody(created.body);
    const auto identity = std::find_if(result.events.begin(), result.events.end(), [](const RunEvent &e) {
        return e.type == RunEvent::Type::Identity && !e.remoteId.isEmpty();
    });
    if (identity == result.events.end()) {
        result.events.clear();
        result.error = notAResponse(created);
        co_return result;
    }
    identity->continuation = true;
    co_return result;
}

QCoro::Task<CatalogResult> OpenAiBackend::catalog()
{
    QPointer<OpenAiBackend> self = this;
    CatalogResult result;
    const QUrl project = foundryProject();
    if (project.isEmpty()) {
        result.error = RunError::unsupported(Text::tr(
            "Only an Azure AI Foundry project's endpoint (…/api/projects/NAME/openai/v1) lists agents."));
        co_return result;
    }
    // Every page: the agent wanted may not be on the first (the SDK pages by has_more + last_id).
    // Bounded: a service that pages on for ever must not keep us listing.
    constexpr int kMaxPages = 50;
    QString after;
    for (int page = 0; page < kMaxPages; ++page) {
        HttpRequest r;
        r.method = "GET";
        r.url = project;
        r.url.setPath(project.path() + u"/agents"_s);
        QUrlQuery query;
        query.addQueryItem(u"api-version"_s, u"v1"_s); // /agents needs it, /openai/v1 takes none
        query.addQueryItem(u"limit"_s, u"100"_s);
        if (!after.isEmpty())
            query.addQueryItem(u"after"_s, after);
        r.url.setQuery(query);
        r.headers.emplaceBack("User-Agent", "Runwatch/" RUNWATCH_VERSION_STRING);
        const HttpResponse response = co_await m_http->send(std::move(r));
        if (!self) {
            result.error = RunError::cancelled();
            co_return result;
        }
        if (!response.ok()) {
            result.error = response.error;
            co_return result;
        }
        const QJsonObject list = QJsonDocument::fromJson(response.body).object();
        if (!list.value(u"data"_s).isArray()) {
            result.error = response.protocolError({}, Text::tr("The project's agent list is not a list."));
            co_return result;
        }
        const QJsonArray agents = list.value(u"data"_s).toArray();
        for (const QJsonValue &value : agents) {
            const QJsonObject agent = value.toObject();
            const QJsonObject latest = agent.value(u"versions"_s).toObject().value(u"latest"_s).toObject();
            CatalogEntry entry;
            // New agents are named, not numbered: the name is what agent_reference takes.
            entry.name = agent.value(u"name"_s).toString(agent.value(u"id"_s).toString());
            entry.id = entry.name;
            entry.version = latest.value(u"version"_s).toString();
            entry.detail = latest.value(u"definition"_s).toObject().value(u"model"_s).toString();
            if (!entry.id.isEmpty())
                result.entries << entry;
        }
        after = list.value(u"last_id"_s).toString();
        if (!list.value(u"has_more"_s).toBool() || after.isEmpty())
            co_return result;
    }
    co_return result;
}

QCoro::Task<ListResult> OpenAiBackend::list()
{
    ListResult result;
    result.error = RunError::unsupported(Text::tr("The Responses API has no listing of responses."));
    co_return result;
}

} // namespace Runwatch
