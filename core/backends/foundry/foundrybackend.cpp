// SPDX-License-Identifier: GPL-3.0-or-later
#include "foundrybackend.h"
#include "foundrylog.h"

#include "backends/foundry/foundryconnector.h"
#include "backends/requestauth.h"
#include "foundrymapper.h"
#include "foundryrunstream.h"
#include "net/transportoptions.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUrlQuery>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "FoundryConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(FoundryConnector)
};
} // namespace

Q_LOGGING_CATEGORY(lcFoundry, "runwatch.backend.foundry", QtInfoMsg)

namespace {

// The service's largest page: fewer round trips for long answers.
constexpr int kPageLimit = 100;

QString segment(const QString &id)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(id));
}

QString runPath(const QString &threadId, const QString &runId)
{
    return u"/threads/%1/runs/%2"_s.arg(segment(threadId), segment(runId));
}

QString threadOf(const ContinuationToken &token)
{
    return token.extra.value(u"thread_id"_s).toString();
}

RunError noThread()
{
    return RunError::client(u"no_thread"_s,
                            Text::tr("The run's thread id is unknown: it cannot be reached again."));
}

std::optional<QJsonObject> objectOf(const HttpResponse &response)
{
    const QJsonDocument doc = QJsonDocument::fromJson(response.body);
    if (!doc.isObject())
        return std::nullopt;
    return doc.object();
}

} // namespace

FoundryBackend::FoundryBackend(Connection connection, QObject *parent)
    : RunBackend(parent)
    , m_connection(std::move(connection))
    , m_http(new HttpClient(this))
{
    applyTransportOptions(m_http, m_connection);
    (new RequestAuth(m_connection, this))->attach(m_http);
}

FoundryBackend::~FoundryBackend() = default;

QString FoundryBackend::kind() const
{
    return u"foundry"_s;
}

Capabilities FoundryBackend::capabilities() const
{
    // No ResumeStream (a dropped stream is followed by polling) and no server-side Delete.
    return Capability::Start | Capability::Get | Capability::Stream | Capability::Cancel | Capability::Respond
           | Capability::FollowUp | Capability::Catalog;
}

HttpRequest FoundryBackend::request(const QByteArray &method, const QString &path) const
{
    HttpRequest r;
    r.method = method;
    QUrl url = m_connection.baseUrl;
    QString basePath = url.path();
    while (basePath.endsWith(u'/'))
        basePath.chop(1);
    const qsizetype query = path.indexOf(u'?');
    url.setPath(basePath + (query < 0 ? path : path.left(query)));
    QUrlQuery q(query < 0 ? QString() : path.mid(query + 1));
    const QString apiVersion = m_connection.options.value(FoundryOption::ApiVersion).toString();
    q.addQueryItem(u"api-version"_s, apiVersion.isEmpty() ? QString(kDefaultApiVersion) : apiVersion);
    url.setQuery(q);
    r.url = url;
    r.headers.emplaceBack("User-Agent", "Runwatch/" RUNWATCH_VERSION_STRING);
    return r;
}

QCoro::Task<HttpResponse> FoundryBackend::send(HttpRequest request)
{
    return m_http->send(std::move(request));
}

QCoro::Task<OpenedStream> FoundryBackend::openStream(HttpRequest request, StreamDecoderFactory makeDecoder)
{
    return m_http->openStream(std::move(request), std::move(makeDecoder));
}

QCoro::Task<> FoundryBackend::shutdown()
{
    return m_http->shutdown();
}

HttpRequest FoundryBackend::runCreation(const QString &path, const QString &agent,
                                        const StartRequest &request, QJsonObject body) const
{
    HttpRequest r = this->request("POST", path);
    body.insert(u"assistant_id"_s, agent);
    body.insert(u"stream"_s, request.stream);
    if (!request.model.isEmpty())
        body.insert(u"model"_s, request.model);
    if (!request.clientRunId.isEmpty())
        body.insert(u"metadata"_s, QJsonObject{{u"client_run_id"_s, request.clientRunId}});
    r.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    r.headers.emplaceBack("Content-Type", "application/json");
    // Creating is not idempotent: a retry after the service may have accepted it would start a
    // second run. The HTTP client still retries what cannot have been processed (429, 503, …).
    r.idempotent = false;
    if (request.stream)
        r.headers.emplaceBack("Accept", "text/event-stream");
    return r;
}

RunStream *FoundryBackend::start(StartRequest request, QObject *parent)
{
    QString agent = request.agent;
    if (agent.isEmpty())
        agent = m_connection.options.value(ConnectionOption::Agent).toString();
    const QJsonObject message{{u"role"_s, u"user"_s}, {u"content"_s, request.prompt}};
    HttpRequest r
        = runCreation(u"/threads/runs"_s, agent, request,
                      QJsonObject{{u"thread"_s, QJsonObject{{u"messages"_s, QJsonArray{message}}}}});
    const auto mode
        = request.stream ? FoundryRunStream::Mode::CreateStreaming : FoundryRunStream::Mode::CreateJson;
    if (agent.isEmpty()) {
        return new FoundryRunStream(
            this, std::move(r), mode, SseRunStream::stallTimeoutFor(m_connection), parent,
            RunError::client(u"no_agent"_s,
                             Text::tr("Choose the agent to run (its assistant id, e.g. asst_…).")));
    }
    return new FoundryRunStream(this, std::move(r), mode, SseRunStream::stallTimeoutFor(m_connection),
                                parent);
}

RunStream *FoundryBackend::followUp(ContinuationToken parentToken, StartRequest request, QObject *parent)
{
    const QString thread = parentToken.extra.value(u"thread_id"_s).toString();
    const QString threadPath = u"/threads/%1"_s.arg(segment(thread));
    QString agent = parentToken.extra.value(u"assistant_id"_s).toString();
    if (agent.isEmpty())
        agent = request.agent;
    if (agent.isEmpty())
        agent = m_connection.options.value(ConnectionOption::Agent).toString();

    HttpRequest message = this->request("POST", threadPath + u"/messages"_s);
    message.body = QJsonDocument(QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, request.prompt}})
                       .toJson(QJsonDocument::Compact);
    message.headers.emplaceBack("Content-Type", "application/json");
    // A retry after the service took it would add the message twice.
    message.idempotent = false;

    HttpRequest r = runCreation(threadPath + u"/runs"_s, agent, request, {});
    const auto mode
        = request.stream ? FoundryRunStream::Mode::CreateStreaming : FoundryRunStream::Mode::CreateJson;
    RunError refused;
    if (thread.isEmpty()) {
        refused = RunError::client(u"no_thread"_s,
                                   Text::tr("The run's thread is not known: there is nothing to follow up."));
    } else if (agent.isEmpty()) {
        refused = RunError::client(u"no_agent"_s,
                                   Text::tr("Choose the agent to run (its assistant id, e.g. asst_…)."));
    }
    auto *stream = new FoundryRunStream(this, std::move(r), mode, SseRunStream::stallTimeoutFor(m_connection),
                                        parent, refused);
    stream->sendFirst(std::move(message));
    return stream;
}

RunStream *FoundryBackend::follow(ContinuationToken token, QObject *parent)
{
    qCDebug(lcFoundry) << "follow" << token.remoteId << "after sequence" << token.sequence << "event id"
                       << token.eventId;
    // Never used by the engine (no ResumeStream), but a caller gets a one-shot poll, not nothing.
    return new FoundryRunStream(this, std::move(token), SseRunStream::stallTimeoutFor(m_connection), parent);
}

QCoro::Task<FoundryListResult> FoundryBackend::listAll(QString path)
{
    QPointer<FoundryBackend> self = this;
    FoundryListResult result;
    const QString separator = path.contains(u'?') ? u"&"_s : u"?"_s;
    QString after;
    // Bounded in pages, items and bytes: a service that always says has_more must not keep us
    // here for ever, nor fill the memory.
    Foundry::ListPages pages(m_listLimits);
    const auto cut = [&] {
        result.items = pages.items();
        result.truncation = pages.error();
        if (result.truncation.isError())
            qCWarning(lcFoundry) << "list" << path << "cut after" << result.items.size() << "items";
    };
    for (;;) {
        QString pagePath = path + separator + u"order=asc&limit=%1"_s.arg(kPageLimit);
        if (!after.isEmpty())
            pagePath += u"&after="_s + segment(after);
        const HttpResponse response = co_await send(request("GET", pagePath));
        if (!self) {
            result.error = RunError::cancelled(Text::tr("The connection was closed."));
            co_return result;
        }
        if (!response.ok()) {
            result.error = response.error;
            result.retryAfterMs = response.retryAfterMs;
            cut();
            co_return result;
        }
        const auto list = objectOf(response);
        if (!list || !list->value(u"data"_s).isArray()) {
            result.error = response.protocolError(u"unexpected_body"_s,
                                                  Text::tr("The service's answer is not a list."));
            cut();
            co_return result;
        }
        const QJsonArray data = list->value(u"data"_s).toArray();
        const bool hasMore = list->value(u"has_more"_s).toBool() && !data.isEmpty();
        const QString last = list->value(u"last_id"_s).toString();
        if (!pages.add(data, response.body.size(), hasMore) || !hasMore) {
            cut();
            co_return result;
        }
        if (last.isEmpty() || last == after) {
            result.error = response.protocolError(
                u"bad_paging"_s, Text::tr("The list says has_more but gives no next cursor."));
            cut();
            co_return result;
        }
        after = last;
    }
}

QCoro::Task<FoundryTextResult> FoundryBackend::runText(QString threadId, QString runId)
{
    QPointer<FoundryBackend> self = this;
    const FoundryListResult messages
        = co_await listAll(u"/threads/%1/messages?run_id=%2"_s.arg(segment(threadId), segment(runId)));
    FoundryTextResult result;
    if (!self) {
        result.error = RunError::cancelled(Text::tr("The connection was closed."));
        co_return result;
    }
    result.error = messages.error;
    result.retryAfterMs = messages.retryAfterMs;
    result.truncation = messages.truncation;
    if (!result.error.isError())
        result.text = Foundry::assistantText(messages.items);
    co_return result;
}

QCoro::Task<ActionResult> FoundryBackend::get(ContinuationToken token)
{
    QPointer<FoundryBackend> self = this;
    ActionResult result;
    const QString threadId = threadOf(token);
    if (threadId.isEmpty()) {
        result.error = noThread();
        co_return result;
    }
    const HttpResponse response = co_await send(request("GET", runPath(threadId, token.remoteId)));
    if (!self) {
        result.error = RunError::cancelled(Text::tr("The connection was closed."));
        co_return result;
    }
    result.retryAfterMs = response.retryAfterMs;
    if (!response.ok()) {
        result.error = response.error;
        co_return result;
    }
    const auto run = objectOf(response);
    if (!run || run->value(u"status"_s).toString().isEmpty()) {
        result.error = response.protocolError(u"unexpected_body"_s,
                                              Text::tr("The service's answer is not a run object."));
        co_return result;
    }
    const QList<RunEvent> runEvents = Foundry::mapRunObject(*run);
    const RunStatus status = Foundry::mapStatus(run->value(u"status"_s).toString());
    // The answer lives in the thread's messages: read them whenever the run may have written
    // some, so the text becomes the service's own (nothing lost, nothing doubled after a drop).
    if (status != RunStatus::Queued && status != RunStatus::Unknown) {
        const FoundryTextResult text = co_await runText(threadId, token.remoteId);
        if (!self) {
            result.error = RunError::cancelled(Text::tr("The connection was closed."));
            co_return result;
        }
        if (text.error.isError()) {
            result.error = text.error;
            result.retryAfterMs = text.retryAfterMs;
            co_return result;
        }
        const FoundryListResult steps = co_await listAll(
            u"/threads/%1/runs/%2/steps"_s.arg(segment(threadId), segment(token.remoteId)));
        if (!self) {
            result.error = RunError::cancelled(Text::tr("The connection was closed."));
            co_return result;
        }
        if (steps.error.isError()) {
            result.error = steps.error;
            result.retryAfterMs = steps.retryAfterMs;
            co_return result;
        }
        if (!runEvents.isEmpty() && runEvents.first().type == RunEvent::Type::Identity)
            result.events << runEvents.first();
        for (const QJsonValue &step : steps.items)
            result.events << Foundry::mapRunStep(step.toObject());
        // A cut list still gives the beginning of the answer (ascending order), so it is applied
        // (the reducer keeps longer text it has) and the run says what is missing, unless the
        // run object carries an error of its own: that one is the run's.
        result.events << RunEvent::primarySnapshot(text.text);
        const RunError cut = text.truncation.isError() ? text.truncation : steps.truncation;
        const bool runError = std::any_of(runEvents.cbegin(), runEvents.cend(),
                                          [](const RunEvent &e) { return e.type == RunEvent::Type::Error; });
        if (cut.isError() && !runError)
            result.events << RunEvent::failure(cut);
        result.events << runEvents.mid(
            runEvents.isEmpty() || runEvents.first().type != RunEvent::Type::Identity ? 0 : 1);
        co_return result;
    }
    result.events = runEvents;
    co_return result;
}

QCoro::Task<ActionResult> FoundryBackend::cancel(ContinuationToken token)
{
    qCDebug(lcFoundry) << "cancel" << token.remoteId;
    QPointer<FoundryBackend> self = this;
    ActionResult result;
    const QString threadId = threadOf(token);
    if (threadId.isEmpty()) {
        result.error = noThread();
        co_return result;
    }
    const HttpResponse response
        = co_await send(request("POST", runPath(threadId, token.remoteId) + u"/cancel"_s));
    if (!self) {
        result.error = RunError::cancelled(Text::tr("The connection was closed."));
        co_return result;
    }
    if (response.ok()) {
        if (const auto run = objectOf(response))
            result.events = Foundry::mapRunObject(*run);
        co_return result;
    }
    if (response.status == 400) {
        // "Cannot cancel run with status 'completed'.": it ended first. Show what the service says.
        ActionResult current = co_await get(token);
        if (!self)
            co_return result;
        if (current.ok()) {
            result.note = Text::tr("already finished");
            result.events = current.events;
            co_return result;
        }
    }
    result.error = response.error;
    co_return result;
}

QCoro::Task<ActionResult> FoundryBackend::remove(ContinuationToken token)
{
    Q_UNUSED(token)
    ActionResult result;
    result.error
        = RunError::unsupported(Text::tr("The Foundry Agent Service cannot delete runs: delete locally."));
    co_return result;
}

QCoro::Task<ActionResult> FoundryBackend::respond(ContinuationToken token, InputAnswer answer)
{
    QPointer<FoundryBackend> self = this;
    ActionResult result;
    const QString threadId = threadOf(token);
    if (threadId.isEmpty()) {
        result.error = noThread();
        co_return result;
    }
    // The pending calls come from the service, not from what we stored: it is the truth about
    // which calls an answer must name.
    const HttpResponse current = co_await send(request("GET", runPath(threadId, token.remoteId)));
    if (!self) {
        result.error = RunError::cancelled(Text::tr("The connection was closed."));
        co_return result;
    }
    if (!current.ok()) {
        result.error = current.error;
        co_return result;
    }
    const auto run = objectOf(current);
    if (!run) {
        result.error = current.protocolError(u"unexpected_body"_s,
                                             Text::tr("The service's answer is not a run object."));
        co_return result;
    }
    const std::optional<InputRequest> pending = Foundry::inputRequestOf(*run);
    if (!pending || run->value(u"status"_s).toString() != u"requires_action") {
        result.error = RunError::client(
            u"not_waiting"_s,
            Text::tr("The run does not wait for input (it is %1).").arg(run->value(u"status"_s).toString()));
        result.events = Foundry::mapRunObject(*run);
        co_return result;
    }
    QString why;
    QJsonObject body = Foundry::submitBody(*pending, answer, &why);
    if (body.isEmpty()) {
        result.error = RunError::client(u"bad_answer"_s, why);
        co_return result;
    }
    body.insert(u"stream"_s, false);
    HttpRequest r = request("POST", runPath(threadId, token.remoteId) + u"/submit_tool_outputs"_s);
    r.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    r.headers.emplaceBack("Content-Type", "application/json");
    // A repeated submit is refused by the service (the run no longer requires action); it is
    // still not repeated blindly.
    r.idempotent = false;
    const HttpResponse response = co_await send(std::move(r));
    if (!self) {
        result.error = RunError::cancelled(Text::tr("The connection was closed."));
        co_return result;
    }
    if (!response.ok()) {
        result.error = response.error;
        co_return result;
    }
    if (const auto submitted = objectOf(response))
        result.events = Foundry::mapRunObject(*submitted);
    co_return result;
}

QCoro::Task<ListResult> FoundryBackend::list()
{
    ListResult result;
    result.error = RunError::unsupported(Text::tr("The Foundry Agent Service lists runs only per thread."));
    co_return result;
}

QCoro::Task<CatalogResult> FoundryBackend::catalog()
{
    QPointer<FoundryBackend> self = this;
    const FoundryListResult list = co_await listAll(u"/assistants"_s);
    CatalogResult result;
    if (!self) {
        result.error = RunError::cancelled(Text::tr("The connection was closed."));
        co_return result;
    }
    result.error = list.error;
    for (const QJsonValue &value : list.items) {
        const QJsonObject agent = value.toObject();
        result.entries << CatalogEntry{.id = agent.value(u"id"_s).toString(),
                                       .name = agent.value(u"name"_s).toString(),
                                       .detail = agent.value(u"model"_s).toString(),
                                       .version = {},
                                       .model = false,
                                       .description = {},
                                       .inputSchema = {},
                                       .cliFields = {}};
    }
    co_return result;
}

} // namespace Runwatch
