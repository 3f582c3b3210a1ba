// SPDX-License-Identifier: GPL-3.0-or-later
// ClaudeAgentsBackend: what the account has — its agents (what a session starts on), its
// sessions (list --remote) and its environments (where a session runs).
#include "claudeagentsbackend.h"

#include "claudeagentsconnector.h"
#include "claudeagentsmapper.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "ClaudeAgentsConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(ClaudeAgentsConnector)
};

// Listings read at most this many pages of 100: far more than anyone pages through by hand.
constexpr int kMaxListPages = 100;

QUrlQuery pageOf(int limit)
{
    QUrlQuery query;
    query.addQueryItem(u"limit"_s, QString::number(limit));
    return query;
}

} // namespace

using namespace ClaudeAgents;

QCoro::Task<CatalogResult> ClaudeAgentsBackend::catalog()
{
    QPointer<ClaudeAgentsBackend> self = this;
    CatalogResult result;
    const Listed agents = co_await listAll(u"/v1/agents"_s, pageOf(100), kMaxListPages);
    if (!self) {
        result.error = RunError::cancelled();
        co_return result;
    }
    result.error = agents.error;
    for (const QJsonValue &value : agents.items) {
        const QJsonObject agent = value.toObject();
        const QString id = agent.value(u"id"_s).toString();
        // An archived agent starts no session.
        if (id.isEmpty() || agent.value(u"archived_at"_s).isString())
            continue;
        const QJsonValue model = agent.value(u"model"_s);
        const QJsonValue version = agent.value(u"version"_s);
        result.entries << CatalogEntry{
            .id = id,
            .name = agent.value(u"name"_s).toString(),
            .detail = model.isObject() ? model.toObject().value(u"id"_s).toString() : model.toString(),
            .version = version.isDouble() ? QString::number(version.toInteger()) : version.toString(),
            .model = false,
            .description = agent.value(u"description"_s).toString(),
            .inputSchema = {},
            .cliFields = {}};
    }
    co_return result;
}

QCoro::Task<ListResult> ClaudeAgentsBackend::list()
{
    QPointer<ClaudeAgentsBackend> self = this;
    ListResult result;
    const Listed sessions = co_await listAll(u"/v1/sessions"_s, pageOf(100), kMaxListPages);
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
        info.title = session.value(u"title"_s).toString();
        if (info.title.isEmpty())
            info.title = session.value(u"agent"_s).toObject().value(u"name"_s).toString();
        info.createdAt = QDateTime::fromString(session.value(u"created_at"_s).toString(), Qt::ISODateWithMs);
        result.runs << info;
    }
    co_return result;
}

QCoro::Task<ConnectionProbe> ClaudeAgentsBackend::probe()
{
    RetryPolicy policy = httpClient()->policy();
    policy.maxRetries = 0;
    policy.connectTimeout = std::chrono::milliseconds(8000);
    httpClient()->setPolicy(policy);
    const Listed sessions = co_await listAll(u"/v1/sessions"_s, pageOf(100), 1);
    ConnectionProbe probe;
    probe.ok = !sessions.error.isError();
    probe.kind = probe.ok ? ConnectionProbe::Kind::Listed : ConnectionProbe::Kind::Failed;
    probe.runsListed = int(sessions.items.size());
    probe.error = sessions.error;
    co_return probe;
}

QCoro::Task<ClaudeAgentsBackend::Fetched> ClaudeAgentsBackend::environment()
{
    QPointer<ClaudeAgentsBackend> self = this;
    Fetched found;
    const QString configured = connection().options.value(ClaudeAgentsOption::Environment).toString();
    if (!configured.isEmpty()) {
        found.object.insert(u"id"_s, configured);
        co_return found;
    }
    // The sensible default: the account's first environment (a session cannot start without one).
    const Listed environments = co_await listAll(u"/v1/environments"_s, pageOf(100), 1);
    if (!self) {
        found.error = RunError::cancelled();
        co_return found;
    }
    if (environments.error.isError()) {
        found.error = environments.error;
        co_return found;
    }
    for (const QJsonValue &value : environments.items) {
        const QJsonObject environment = value.toObject();
        if (!environment.value(u"id"_s).toString().isEmpty()
            && !environment.value(u"archived_at"_s).isString()) {
            found.object = environment;
            co_return found;
        }
    }
    found.error = RunError::client(
        u"no_environment"_s,
        Text::tr("The account has no environment for a session to run in: create one, or name one with "
                 "--environment."));
    co_return found;
}

} // namespace Runwatch
