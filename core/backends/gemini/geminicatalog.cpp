// SPDX-License-Identifier: GPL-3.0-or-later
// GeminiBackend: what a run can start on (the service's models and agents, and the agents it
// does not list) and the connection test.
#include "geminibackend.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUrlQuery>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "GeminiConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(GeminiConnector)
};

// A model the Interactions API can run: one that generates content. A listing that does not say
// (a compatible server) lists only such models.
bool generatesContent(const QJsonObject &model)
{
    const QJsonValue methods = model.value(u"supportedGenerationMethods"_s);
    return !methods.isArray() || methods.toArray().contains(u"generateContent"_s);
}

} // namespace

using namespace Gemini;

QCoro::Task<GeminiBackend::Listed> GeminiBackend::listAll(QString path, QString itemsKey, bool snakeCase)
{
    QPointer<GeminiBackend> self = this;
    Listed listed;
    const QString sizeKey = snakeCase ? u"page_size"_s : u"pageSize"_s;
    const QString tokenKey = snakeCase ? u"page_token"_s : u"pageToken"_s;
    const QString nextKey = snakeCase ? u"next_page_token"_s : u"nextPageToken"_s;
    // Every page, bounded: a service that pages on for ever must not keep us listing.
    constexpr int kMaxPages = 20;
    QString pageToken;
    for (int page = 0; page < kMaxPages; ++page) {
        HttpRequest r = request("GET", path);
        QUrlQuery query;
        query.addQueryItem(sizeKey, u"1000"_s);
        if (!pageToken.isEmpty())
            query.addQueryItem(tokenKey, QString::fromLatin1(QUrl::toPercentEncoding(pageToken)));
        r.url.setQuery(query);
        const HttpResponse response = co_await m_http->send(std::move(r));
        if (!self) {
            listed.error = RunError::cancelled();
            co_return listed;
        }
        if (!response.ok()) {
            listed.error = httpError(response);
            co_return listed;
        }
        const QJsonObject list = QJsonDocument::fromJson(response.body).object();
        const QJsonValue items = list.value(itemsKey);
        // An empty listing may leave the list out.
        if (!items.isArray() && !(items.isUndefined() && list.size() <= 1)) {
            listed.error = response.protocolError(
                {}, Text::tr("The service's list of %1 is not a list.").arg(itemsKey));
            co_return listed;
        }
        for (const QJsonValue &item : items.toArray())
            listed.items.append(item);
        pageToken = list.value(nextKey).toString();
        if (pageToken.isEmpty())
            co_return listed;
    }
    co_return listed;
}

QCoro::Task<CatalogResult> GeminiBackend::catalog()
{
    QPointer<GeminiBackend> self = this;
    CatalogResult result;
    // A service without one of the listings still runs what is typed in and the known agents;
    // any other failure is said beside what could be listed.
    const auto failed = [&result](const RunError &error) {
        if (error.isError() && error.kind != ErrorKind::NotFound && !result.error.isError())
            result.error = error;
    };
    const Listed models = co_await listAll(u"/models"_s, u"models"_s, false);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    failed(models.error);
    for (const QJsonValue &value : models.items) {
        const QJsonObject model = value.toObject();
        CatalogEntry entry;
        entry.id = model.value(u"name"_s).toString();
        if (entry.id.isEmpty() || !generatesContent(model))
            continue;
        if (!entry.id.startsWith(kModelPrefix))
            entry.id.prepend(kModelPrefix);
        entry.name = model.value(u"displayName"_s).toString(entry.id.mid(kModelPrefix.size()));
        entry.detail = Text::tr("model");
        entry.model = true;
        result.entries << entry;
    }
    // The connection's default model first: what New Run picks unless told otherwise (an agent
    // such as Deep Research runs for many minutes and is chosen on purpose).
    const QString preferred
        = kModelPrefix + (m_connection.defaultModel.isEmpty() ? kDefaultModel : m_connection.defaultModel);
    const auto at = std::find_if(result.entries.begin(), result.entries.end(),
                                 [&preferred](const CatalogEntry &entry) { return entry.id == preferred; });
    if (at != result.entries.end())
        std::rotate(result.entries.begin(), at, at + 1);

    const Listed agents = co_await listAll(u"/agents"_s, u"agents"_s, true);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    failed(agents.error);
    QStringList listedAgents;
    for (const QJsonValue &value : agents.items) {
        const QString id = value.toObject().value(u"id"_s).toString();
        if (id.isEmpty() || listedAgents.contains(id))
            continue;
        listedAgents << id;
        result.entries << CatalogEntry{.id = id,
                                       .name = id,
                                       .detail = Text::tr("agent, runs in the background"),
                                       .version = {},
                                       .model = false,
                                       .description = {},
                                       .inputSchema = {},
                                       .cliFields = {}};
    }
    for (const QString &agent : knownAgents()) {
        if (!listedAgents.contains(agent)) {
            result.entries << CatalogEntry{.id = agent,
                                           .name = agent,
                                           .detail = Text::tr("agent, runs in the background"),
                                           .version = {},
                                           .model = false,
                                           .description = {},
                                           .inputSchema = {},
                                           .cliFields = {}};
        }
    }
    co_return result;
}

QCoro::Task<ConnectionProbe> GeminiBackend::probe()
{
    // A probe answers at once or not at all: no retries, a short connect timeout.
    RetryPolicy policy = m_http->policy();
    policy.maxRetries = 0;
    policy.connectTimeout = std::chrono::milliseconds(8000);
    m_http->setPolicy(policy);
    HttpRequest r = request("GET", u"/models"_s);
    r.url.setQuery(u"pageSize=1"_s);
    const HttpResponse response = co_await m_http->send(std::move(r));
    ConnectionProbe probe;
    probe.ok = response.ok();
    probe.kind = probe.ok ? ConnectionProbe::Kind::Models : ConnectionProbe::Kind::Failed;
    probe.httpStatus = response.status;
    probe.error = response.ok() ? RunError{} : httpError(response);
    co_return probe;
}

} // namespace Runwatch
