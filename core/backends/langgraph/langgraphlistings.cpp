// SPDX-License-Identifier: GPL-3.0-or-later
// The deployment's listings: its threads (list --remote, the Needs-me view), its assistants (New
// Run's picker, `agents`) and what "Test connection" shows (/info).
#include "langgraphbackend.h"

#include "langgraphmapper.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Runwatch {

using namespace LangGraph;

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "LangGraphConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(LangGraphConnector)
};

// Listing bounds: a deployment's threads and assistants are paged by offset; a server whose pages
// never end must not keep us paging.
constexpr int kPageSize = 100;
constexpr int kMaxPages = 20;

QJsonObject pageBody(int page)
{
    return {{u"limit"_s, kPageSize}, {u"offset"_s, page * kPageSize}};
}

// The deployment's threads, the latest first.
QJsonObject searchBody(int page)
{
    QJsonObject body = pageBody(page);
    body.insert(u"sort_by"_s, u"updated_at"_s);
    body.insert(u"sort_order"_s, u"desc"_s);
    return body;
}

// The first user message of a thread's values, as its title in a listing.
QString threadTitle(const QJsonObject &thread)
{
    const QJsonObject metadata = thread.value(u"metadata"_s).toObject();
    if (QString title = metadata.value(u"title"_s).toString(); !title.isEmpty())
        return title;
    for (const QJsonValue &m : thread.value(u"values"_s).toObject().value(u"messages"_s).toArray()) {
        const QJsonObject message = m.toObject();
        const QString type = message.value(u"type"_s).toString(message.value(u"role"_s).toString());
        if (type == "human"_L1 || type == "user"_L1)
            return contentText(message.value(u"content"_s)).left(200);
    }
    return {};
}

} // namespace

QCoro::Task<LangGraphBackend::Searched> LangGraphBackend::searchAll(QString path, bool latestFirst)
{
    QPointer<LangGraphBackend> self = this;
    Searched searched;
    for (int page = 0; page < kMaxPages; ++page) {
        HttpRequest search = jsonRequest("POST", path, latestFirst ? searchBody(page) : pageBody(page));
        const HttpResponse response = co_await m_http->send(std::move(search));
        if (!self) {
            searched.error = RunError::cancelled();
            co_return searched;
        }
        if (!response.ok()) {
            searched.error = httpError(response);
            co_return searched;
        }
        const QJsonDocument doc = QJsonDocument::fromJson(response.body);
        if (!doc.isArray()) {
            searched.error = response.protocolError(
                u"unexpected_reply"_s, Text::tr("The search %1 did not answer with a list.").arg(path));
            co_return searched;
        }
        const QJsonArray items = doc.array();
        for (const QJsonValue &item : items)
            searched.items.append(item);
        if (items.size() < kPageSize)
            break;
    }
    co_return searched;
}

QCoro::Task<ListResult> LangGraphBackend::list()
{
    QPointer<LangGraphBackend> self = this;
    ListResult result;
    const Searched threads = co_await searchAll(u"/threads/search"_s, true);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    result.error = threads.error;
    for (const QJsonValue &v : threads.items) {
        const QJsonObject thread = v.toObject();
        RemoteRunInfo info;
        info.remoteId = thread.value(u"thread_id"_s).toString();
        if (info.remoteId.isEmpty())
            continue;
        info.rawStatus = thread.value(u"status"_s).toString();
        info.status = threadStatusFor(info.rawStatus);
        info.title = threadTitle(thread);
        info.createdAt = QDateTime::fromString(thread.value(u"created_at"_s).toString(), Qt::ISODateWithMs);
        result.runs << info;
    }
    co_return result;
}

QCoro::Task<CatalogResult> LangGraphBackend::catalog()
{
    QPointer<LangGraphBackend> self = this;
    CatalogResult result;
    const Searched assistants = co_await searchAll(u"/assistants/search"_s, false);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    result.error = assistants.error;
    for (const QJsonValue &v : assistants.items) {
        const QJsonObject a = v.toObject();
        CatalogEntry entry;
        entry.id = a.value(u"assistant_id"_s).toString();
        if (entry.id.isEmpty())
            continue;
        entry.name = a.value(u"name"_s).toString(a.value(u"graph_id"_s).toString());
        const QString graph = a.value(u"graph_id"_s).toString();
        const QString description = a.value(u"description"_s).toString();
        // The graph only where it is not the name already (a deployment's system assistants
        // are named after their graph).
        entry.detail = !description.isEmpty() ? description
                       : graph != entry.name  ? Text::tr("graph %1").arg(graph)
                                              : QString();
        result.entries << entry;
    }
    co_return result;
}

QCoro::Task<ConnectionInfo> LangGraphBackend::describe()
{
    QPointer<LangGraphBackend> self = this;
    ConnectionInfo info;
    info.url = m_connection.baseUrl.adjusted(QUrl::RemoveUserInfo).toString();
    const Fetched server = co_await fetchObject(u"/info"_s);
    if (!self) {
        info.error = RunError::cancelled();
        co_return info;
    }
    if (!server.ok()) {
        info.error = server.error;
        co_return info;
    }
    info.name = Text::tr("LangGraph Agent Server");
    info.version = server.object.value(u"version"_s).toString();
    const QString context = server.object.value(u"context"_s).toString();
    info.protocol = context.isEmpty() ? Text::tr("LangGraph Agent Server API")
                                      : Text::tr("LangGraph Agent Server API (%1 server)").arg(context);
    const CatalogResult assistants = co_await catalog();
    if (!self) {
        info.error = RunError::cancelled();
        co_return info;
    }
    if (assistants.error.isError()) {
        info.warnings << Text::tr("The assistants could not be listed: %1").arg(assistants.error.message);
    }
    for (const CatalogEntry &entry : assistants.entries)
        info.skills << u"%1: %2 (%3)"_s.arg(entry.name, entry.detail, entry.id);
    info.capabilities << Text::tr("background runs with resumable streams")
                      << Text::tr("interrupts answered by resume") << Text::tr("cancel (interrupt)")
                      << Text::tr("thread search");
    co_return info;
}

} // namespace Runwatch
