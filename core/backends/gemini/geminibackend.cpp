// SPDX-License-Identifier: GPL-3.0-or-later
// GeminiBackend: the interactions (create, resume, get, cancel, delete, answer); what a run can
// start on and the connection test are in geminicatalog.cpp.
#include "geminibackend.h"

#include "geminiconnector.h"
#include "geminilog.h"
#include "geminirunstream.h"

#include "backends/requestauth.h"
#include "net/transportoptions.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrlQuery>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

Q_LOGGING_CATEGORY(lcGemini, "runwatch.backend.gemini", QtInfoMsg)

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "GeminiConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(GeminiConnector)
};

// The REST reference's version; @google/genai 3.x defaults to v1, which the option chooses.
constexpr QLatin1StringView kDefaultApiVersion{"v1beta"};

// /interactions/{id}, the id as one path segment.
QString interactionPath(const QString &id)
{
    return u"/interactions/"_s + QString::fromLatin1(QUrl::toPercentEncoding(id));
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// The interaction a 2xx body holds, or nullopt when it holds none.
std::optional<QJsonObject> interactionIn(const HttpResponse &response)
{
    const QJsonObject object = QJsonDocument::fromJson(response.body).object();
    if (object.value(u"id"_s).toString().isEmpty())
        return std::nullopt;
    return object;
}

RunError notAnInteraction(const HttpResponse &response)
{
    return response.protocolError(u"not_an_interaction"_s,
                                  Text::tr("The service's answer is not an interaction."));
}

} // namespace

using namespace Gemini;

// --- request building --------------------------------------------------------------------------

QStringList Gemini::knownAgents()
{
    return {kDeepResearchAgent, u"deep-research-preview-04-2026"_s, u"deep-research-max-preview-04-2026"_s,
            u"antigravity-preview-05-2026"_s, u"antigravity-preview-09-2026"_s};
}

bool Gemini::isAgentName(const QString &name)
{
    return knownAgents().contains(name) || name.startsWith("deep-research"_L1)
           || name.startsWith("antigravity"_L1);
}

QJsonObject Gemini::agentConfigFor(const QString &agent)
{
    // Deep Research shows what it thinks only when asked to (§2 Create, agent_config).
    if (agent.startsWith("deep-research"_L1))
        return {{u"type"_s, u"deep-research"_s}, {u"thinking_summaries"_s, u"auto"_s}};
    return {};
}

QJsonObject Gemini::createBody(const Target &target, const QJsonValue &input, bool stream,
                               const QString &previousInteractionId)
{
    QJsonObject body;
    if (!target.agent.isEmpty()) {
        body.insert(u"agent"_s, target.agent);
        if (const QJsonObject config = agentConfigFor(target.agent); !config.isEmpty())
            body.insert(u"agent_config"_s, config);
    } else {
        body.insert(u"model"_s, target.model);
    }
    body.insert(u"input"_s, input);
    if (!previousInteractionId.isEmpty())
        body.insert(u"previous_interaction_id"_s, previousInteractionId);
    body.insert(u"background"_s, true);
    body.insert(u"store"_s, true);
    body.insert(u"stream"_s, stream);
    return body;
}

GeminiBackend::GeminiBackend(Connection connection, QObject *parent)
    : RunBackend(parent)
    , m_connection(std::move(connection))
    , m_http(new HttpClient(this))
{
    applyTransportOptions(m_http, m_connection);
    (new RequestAuth(m_connection, this))->attach(m_http);
}

QString GeminiBackend::kind() const
{
    return u"gemini"_s;
}

Capabilities GeminiBackend::capabilities() const
{
    return Capability::Start | Capability::Get | Capability::Stream | Capability::ResumeStream
           | Capability::Cancel | Capability::Delete | Capability::Respond | Capability::FollowUp
           | Capability::Catalog | Capability::StructuredInput;
}

QUrl GeminiBackend::apiRoot() const
{
    QUrl url = m_connection.baseUrl;
    QString path = url.path(QUrl::FullyEncoded);
    while (path.endsWith(u'/'))
        path.chop(1);
    // A base that names its version already (…/v1beta) is taken as it is.
    static const QRegularExpression versioned(u"/v[0-9]+(alpha|beta)?[0-9]*$"_s);
    if (!versioned.match(path).hasMatch()) {
        const QString version = m_connection.options.value(GeminiOption::ApiVersion).toString();
        path += u'/' + (version.isEmpty() ? QString(kDefaultApiVersion) : version);
    }
    url.setPath(path, QUrl::TolerantMode);
    return url;
}

HttpRequest GeminiBackend::request(const QByteArray &method, const QString &path) const
{
    HttpRequest r;
    r.method = method;
    r.url = apiRoot();
    r.url.setPath(r.url.path(QUrl::FullyEncoded) + path, QUrl::TolerantMode);
    r.headers.emplaceBack("User-Agent", "Runwatch/" RUNWATCH_VERSION_STRING);
    return r;
}

HttpRequest GeminiBackend::resumeRequest(const QString &interactionId, const QString &lastEventId) const
{
    HttpRequest r = request("GET", interactionPath(interactionId));
    QUrlQuery q(r.url);
    q.addQueryItem(u"stream"_s, u"true"_s);
    if (!lastEventId.isEmpty())
        q.addQueryItem(u"last_event_id"_s, QString::fromLatin1(QUrl::toPercentEncoding(lastEventId)));
    r.url.setQuery(q);
    r.headers.emplaceBack("Accept", "text/event-stream");
    return r;
}

Target GeminiBackend::targetFor(const StartRequest &request) const
{
    Target target;
    QString agent = request.agent;
    QString model = request.model;
    // The catalog offers models and agents in one list; a model is picked by its API name.
    if (agent.startsWith(kModelPrefix)) {
        model = agent;
        agent.clear();
    }
    if (agent.isEmpty() && model.isEmpty()) {
        const QString preferred = m_connection.options.value(ConnectionOption::Agent).toString();
        if (preferred.startsWith(kModelPrefix)) {
            model = preferred;
        } else {
            agent = preferred;
        }
    }
    if (!agent.isEmpty()) {
        target.agent = agent;
        return target;
    }
    if (model.isEmpty())
        model = m_connection.defaultModel.isEmpty() ? kDefaultModel : m_connection.defaultModel;
    if (model.startsWith(kModelPrefix))
        model = model.mid(kModelPrefix.size());
    target.model = model;
    return target;
}

QList<RunEvent> GeminiBackend::interactionEvents(const QJsonObject &interaction)
{
    QList<RunEvent> events = mapInteraction(interaction);
    const QString id = interaction.value(u"id"_s).toString();
    const QString agent = interaction.value(u"agent"_s).toString();
    const bool hasText = !outputText(interaction).isEmpty();
    for (RunEvent &e : events) {
        if (e.type != RunEvent::Type::Identity)
            continue;
        if (!agent.isEmpty())
            e.tokenExtra.insert(kAgent, agent);
        if (hasText)
            e.tokenExtra.insert(kAnswerIn, id);
    }
    return events;
}

RunError GeminiBackend::httpError(const HttpResponse &response)
{
    RunError e = response.error;
    // Google's error body: {"error":{"code":400,"message":"…","status":"INVALID_ARGUMENT"}}. The
    // status says what went wrong; the code only repeats the HTTP status.
    const QJsonObject error = QJsonDocument::fromJson(response.body).object().value(u"error"_s).toObject();
    if (const QString status = error.value(u"status"_s).toString(); !status.isEmpty())
        e.code = status;
    return e;
}

GeminiMapper GeminiBackend::mapperFor(const ContinuationToken &token) const
{
    if (const auto it = m_mappers.constFind(token.remoteId); it != m_mappers.cend())
        return *it;
    // This process never streamed it (the app restarted): what the token says is enough, since
    // the resume starts after its last event id.
    GeminiMapper mapper(token.remoteId, true);
    if (token.extra.value(kAnswerIn).toString() == token.remoteId) {
        // Where the answer's text got to: the resumed deltas may go on with that step.
        const QJsonValue step = token.extra.value(kAnswerStep);
        if (step.isDouble()) {
            mapper.resumeAnswerAt(qint64(step.toDouble()));
        } else {
            mapper.setAnswerHasText(true);
        }
    }
    return mapper;
}

void GeminiBackend::keepMapper(const GeminiMapper &mapper)
{
    if (!mapper.interactionId().isEmpty())
        m_mappers.insert(mapper.interactionId(), mapper);
}

// --- runs --------------------------------------------------------------------------------------

RunStream *GeminiBackend::start(StartRequest request, QObject *parent)
{
    const Target target = targetFor(request);
    return create(target, std::move(request), {}, parent);
}

RunStream *GeminiBackend::followUp(ContinuationToken parentToken, StartRequest request, QObject *parent)
{
    // On what the parent ran on: the engine gives its model, which names the agent for an agent's
    // run (an interaction names one or the other).
    Target target;
    const QString agent = parentToken.extra.value(kAgent).toString();
    if (!agent.isEmpty() || isAgentName(request.model)) {
        target.agent = agent.isEmpty() ? request.model : agent;
    } else {
        target = targetFor(request);
    }
    return create(target, std::move(request), parentToken.remoteId, parent);
}

RunStream *GeminiBackend::create(const Target &target, StartRequest request, QString previousInteractionId,
                                 QObject *parent)
{
    qCDebug(lcGemini) << "create on" << (target.agent.isEmpty() ? target.model : target.agent) << "after"
                      << previousInteractionId << "stream" << request.stream;
    // Structured input is the interaction's input as given (text, content or steps).
    const QJsonValue input = request.input.isUndefined() ? QJsonValue(request.prompt) : request.input;
    HttpRequest r = this->request("POST", u"/interactions"_s);
    r.body = compact(createBody(target, input, request.stream, previousInteractionId));
    r.headers.emplaceBack("Content-Type", "application/json");
    r.headers.emplaceBack("Accept", request.stream ? "text/event-stream" : "application/json");
    // Not idempotent: a create repeated after the service took it would start a second
    // interaction (the API has no idempotency key).
    r.idempotent = false;
    QJsonObject extra;
    if (!target.agent.isEmpty())
        extra.insert(kAgent, target.agent);
    const auto mode
        = request.stream ? GeminiRunStream::Mode::CreateStreaming : GeminiRunStream::Mode::CreateJson;
    return new GeminiRunStream(this, std::move(r), mode, GeminiMapper({}, request.stream), extra, parent);
}

RunStream *GeminiBackend::follow(ContinuationToken token, QObject *parent)
{
    qCDebug(lcGemini) << "resume" << token.remoteId << "after event" << token.eventId;
    QJsonObject extra;
    if (const QJsonValue agent = token.extra.value(kAgent); agent.isString())
        extra.insert(kAgent, agent);
    return new GeminiRunStream(this, resumeRequest(token.remoteId, token.eventId),
                               GeminiRunStream::Mode::Resume, mapperFor(token), extra, parent);
}

QCoro::Task<ActionResult> GeminiBackend::get(ContinuationToken token)
{
    QPointer<GeminiBackend> self = this;
    const HttpResponse response = co_await m_http->send(request("GET", interactionPath(token.remoteId)));
    ActionResult result;
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    result.retryAfterMs = response.retryAfterMs;
    if (!response.ok()) {
        result.error = httpError(response);
        co_return result;
    }
    const std::optional<QJsonObject> interaction = interactionIn(response);
    if (!interaction) {
        result.error = notAnInteraction(response);
        co_return result;
    }
    result.events = interactionEvents(*interaction);
    co_return result;
}

QCoro::Task<ActionResult> GeminiBackend::cancel(ContinuationToken token)
{
    qCDebug(lcGemini) << "cancel" << token.remoteId;
    QPointer<GeminiBackend> self = this;
    HttpRequest r = request("POST", interactionPath(token.remoteId) + u"/cancel"_s);
    r.headers.emplaceBack("Accept", "application/json");
    const HttpResponse response = co_await m_http->send(std::move(r));
    ActionResult result;
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (response.ok()) {
        // The interaction as cancelled: the service's confirmation.
        if (const std::optional<QJsonObject> interaction = interactionIn(response)) {
            result.events = interactionEvents(*interaction);
            co_return result;
        }
    } else if (response.error.kind != ErrorKind::Client && response.error.kind != ErrorKind::Conflict) {
        result.error = httpError(response);
        result.retryAfterMs = response.retryAfterMs;
        co_return result;
    }
    // Refused (FAILED_PRECONDITION: it is not running any more), or a reply without the
    // interaction: how it is now decides.
    const ActionResult current = co_await get(token);
    if (!self)
        co_return current;
    if (!current.ok()) {
        result.error = response.ok() ? current.error : httpError(response);
        co_return result;
    }
    result.events = current.events;
    if (!response.ok()) {
        QString raw;
        RunStatus status = RunStatus::Unknown;
        for (const RunEvent &e : current.events) {
            if (e.type == RunEvent::Type::Status) {
                raw = e.rawStatus;
                status = e.status;
            }
        }
        if (!isTerminal(status)) {
            result.error = httpError(response);
            co_return result;
        }
        result.note = Text::tr("already %1").arg(raw);
    }
    co_return result;
}

QCoro::Task<ActionResult> GeminiBackend::remove(ContinuationToken token)
{
    QPointer<GeminiBackend> self = this;
    ActionResult result;
    // Every interaction of the run: the current one, then those its answers continued.
    QStringList ids{token.remoteId};
    for (auto it = token.previousRemoteIds.crbegin(); it != token.previousRemoteIds.crend(); ++it)
        ids << *it;
    for (qsizetype i = 0; i < ids.size(); ++i) {
        HttpRequest r = request("DELETE", interactionPath(ids.at(i)));
        r.headers.emplaceBack("Accept", "application/json");
        const HttpResponse response = co_await m_http->send(std::move(r));
        if (!self) {
            result.error = RunError::cancelled();
            co_return result;
        }
        forgetMapper(ids.at(i));
        if (response.error.kind == ErrorKind::NotFound) {
            if (i == 0)
                result.note = Text::tr("not found on the service (already deleted or expired)");
        } else if (!response.ok()) {
            result.error = httpError(response);
            result.retryAfterMs = response.retryAfterMs;
            co_return result;
        }
    }
    result.events << RunEvent::statusChange(RunStatus::Deleted, u"deleted"_s);
    co_return result;
}

QCoro::Task<ActionResult> GeminiBackend::respond(ContinuationToken token, InputAnswer answer)
{
    QPointer<GeminiBackend> self = this;
    ActionResult result;
    // The pending calls come from the service, not from what we stored: it is the truth about
    // which calls the next interaction must answer, and it names the model or agent.
    const HttpResponse current = co_await m_http->send(request("GET", interactionPath(token.remoteId)));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (!current.ok()) {
        result.error = httpError(current);
        co_return result;
    }
    const std::optional<QJsonObject> interaction = interactionIn(current);
    if (!interaction) {
        result.error = notAnInteraction(current);
        co_return result;
    }
    const std::optional<InputRequest> pending = inputRequestOf(*interaction);
    if (!pending) {
        result.error = RunError::client(
            u"not_waiting"_s,
            Text::tr("The interaction does not wait for function results (it is %1).")
                .arg(interaction->value(u"status"_s).toString(Text::tr("without a status"))));
        result.events = interactionEvents(*interaction);
        co_return result;
    }
    QString why;
    const QJsonArray input = functionResults(*pending, answer, &why);
    if (input.isEmpty()) {
        result.error = RunError::client(u"bad_answer"_s, why);
        co_return result;
    }
    Target target;
    target.agent = interaction->value(u"agent"_s).toString(token.extra.value(kAgent).toString());
    if (target.agent.isEmpty()) {
        target.model = interaction->value(u"model"_s).toString();
        if (target.model.isEmpty())
            target = targetFor({});
    }
    // The next interaction, every result in one request (§2 Function calls), created without a
    // stream: its reply names the new id, and the engine follows it as the run was followed.
    HttpRequest r = request("POST", u"/interactions"_s);
    r.body = compact(createBody(target, input, false, token.remoteId));
    r.headers.emplaceBack("Content-Type", "application/json");
    r.headers.emplaceBack("Accept", "application/json");
    // Not idempotent: a repeat after the service took it would answer twice.
    r.idempotent = false;
    const HttpResponse created = co_await m_http->send(std::move(r));
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    if (!created.ok()) {
        result.error = httpError(created);
        result.retryAfterMs = created.retryAfterMs;
        co_return result;
    }
    const std::optional<QJsonObject> next = interactionIn(created);
    if (!next) {
        result.error = notAnInteraction(created);
        co_return result;
    }
    forgetMapper(token.remoteId);
    result.events = interactionEvents(*next);
    for (RunEvent &e : result.events) {
        if (e.type != RunEvent::Type::Identity)
            continue;
        // The same local run goes on in the new interaction, streamed if the run was.
        e.continuation = true;
        e.streamable = token.streamable;
        if (!target.agent.isEmpty())
            e.tokenExtra.insert(kAgent, target.agent);
        break;
    }
    co_return result;
}

QCoro::Task<ListResult> GeminiBackend::list()
{
    ListResult result;
    result.error = RunError::unsupported(Text::tr("The Interactions API has no listing of interactions."));
    co_return result;
}

QCoro::Task<> GeminiBackend::shutdown()
{
    return m_http->shutdown();
}

} // namespace Runwatch
