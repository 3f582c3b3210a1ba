// SPDX-License-Identifier: GPL-3.0-or-later
// OpenAiAgentsBackend: what the account has — its agents (what a session starts on) and its
// sessions (list --remote, by the connection's agent when it names one).
#include "openaiagentsbackend.h"

#include "openaiagentsmapper.h"

#include <QDateTime>
#include <QTimeZone>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// Listings read at most this many pages of 100: far more than anyone pages through by hand.
constexpr int kMaxListPages = 100;

QUrlQuery pageOf(int limit)
{
    QUrlQuery query;
    query.addQueryItem(u"limit"_s, QString::number(limit));
    return query;
}

// The API's times are Unix seconds.
QDateTime timeOf(const QJsonValue &value)
{
    return value.isDouble() ? QDateTime::fromSecsSinceEpoch(value.toInteger(), QTimeZone::utc())
                            : QDateTime();
}

} // namespace

using namespace OpenAiAgents;

QCoro::Task<CatalogResult> OpenAiAgentsBackend::catalog()
{
    QPointer<OpenAiAgentsBackend> self = this;
    CatalogResult result;
    const Listed agents = co_await listAll(u"/agents"_s, pageOf(100), kMaxListPages);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    result.error = agents.error;
    for (const QJsonValue &value : agents.items) {
        const QJsonObject agent = value.toObject();
        const QString id = agent.value(u"id"_s).toString();
        if (id.isEmpty())
            continue;
        result.entries << CatalogEntry{.id = id,
                                       .name = agent.value(u"name"_s).toString(),
                                       .detail = agent.value(u"model"_s).toString(),
                                       .version = {},
                                       .model = false,
                                       .description = agent.value(u"instructions"_s).toString().left(200),
                                       .inputSchema = {},
                                       .cliFields = {}};
    }
    co_return result;
}

QCoro::Task<ListResult> OpenAiAgentsBackend::list()
{
    QPointer<OpenAiAgentsBackend> self = this;
    ListResult result;
    QUrlQuery query = pageOf(100);
    if (const QString agent = connection().options.value(ConnectionOption::Agent).toString();
        !agent.isEmpty())
        query.addQueryItem(u"agent_id"_s, QString::fromLatin1(QUrl::toPercentEncoding(agent)));
    const Listed sessions = co_await listAll(u"/agents/sessions"_s, query, kMaxListPages);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    result.error = sessions.error;
    for (const QJsonValue &value : sessions.items) {
        const QJsonObject session = value.toObject();
        RemoteRunInfo info;
        info.remoteId = session.value(u"id"_s).toString();
        if (info.remoteId.isEmpty())
            continue;
        info.rawStatus = session.value(u"status"_s).toString();
        info.status = sessionStatusFor(info.rawStatus);
        const QJsonObject agent = session.value(u"agent"_s).toObject();
        info.title = agent.value(u"name"_s).toString();
        if (info.title.isEmpty())
            info.title = agent.value(u"id"_s).toString();
        info.createdAt = timeOf(session.value(u"created_at"_s));
        result.runs << info;
    }
    co_return result;
}

QCoro::Task<ConnectionProbe> OpenAiAgentsBackend::probe()
{
    RetryPolicy policy = httpClient()->policy();
    policy.maxRetries = 0;
    policy.connectTimeout = std::chrono::milliseconds(8000);
    httpClient()->setPolicy(policy);
    const Listed sessions = co_await listAll(u"/agents/sessions"_s, pageOf(100), 1);
    ConnectionProbe probe;
    probe.ok = !sessions.error.isError();
    probe.kind = probe.ok ? ConnectionProbe::Kind::Listed : ConnectionProbe::Kind::Failed;
    probe.runsListed = int(sessions.items.size());
    probe.error = sessions.error;
    co_return probe;
}

} // namespace Runwatch
