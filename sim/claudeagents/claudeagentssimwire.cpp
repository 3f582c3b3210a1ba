// SPDX-License-Identifier: GPL-3.0-or-later
#include "claudeagentssimwire.h"

#include "server/httpmessage.h"

#include <QDateTime>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

QString newClaudeAgentsId(QStringView prefix)
{
    static quint64 counter = 0;
    ++counter;
    // Sortable in creation order, like the service's.
    return prefix + u"011"_s + QString::number(counter, 36).rightJustified(12, u'0');
}

QString claudeAgentsNow()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

QJsonObject claudeAgentsErrorJson(int status, const QString &message)
{
    QString type = u"api_error"_s;
    switch (status) {
    case 400:
        type = u"invalid_request_error"_s;
        break;
    case 401:
        type = u"authentication_error"_s;
        break;
    case 403:
        type = u"permission_error"_s;
        break;
    case 404:
        type = u"not_found_error"_s;
        break;
    case 413:
        type = u"request_too_large"_s;
        break;
    case 429:
        type = u"rate_limit_error"_s;
        break;
    case 529:
        type = u"overloaded_error"_s;
        break;
    default:
        break;
    }
    return {{u"type"_s, u"error"_s},
            {u"error"_s, QJsonObject{{u"type"_s, type}, {u"message"_s, message}}},
            {u"request_id"_s, QString::fromLatin1(newRequestId())}};
}

QJsonObject claudeAgentsAgentJson(const ClaudeAgentsSimAgent &agent)
{
    return {{u"id"_s, agent.id},
            {u"type"_s, u"agent"_s},
            {u"name"_s, agent.name},
            {u"description"_s, QJsonValue::Null},
            {u"model"_s, QJsonObject{{u"id"_s, agent.model}}},
            {u"tools"_s, QJsonArray()},
            {u"mcp_servers"_s, QJsonArray()},
            {u"metadata"_s, QJsonObject()},
            {u"version"_s, 1},
            {u"created_at"_s, u"2026-11-01T09:00:00.000Z"_s},
            {u"updated_at"_s, u"2026-11-01T09:00:00.000Z"_s},
            {u"archived_at"_s, QJsonValue::Null}};
}

QJsonObject claudeAgentsEnvironmentJson(const QString &id)
{
    return {{u"id"_s, id},
            {u"type"_s, u"environment"_s},
            {u"name"_s, u"runwatch-sim"_s},
            {u"created_at"_s, u"2026-11-01T09:00:00.000Z"_s},
            {u"archived_at"_s, QJsonValue::Null}};
}

std::optional<QJsonObject> claudeAgentsPage(const QJsonArray &all, const HttpRequest &request,
                                            int defaultLimit, int maxLimit, bool bidirectional,
                                            QString *error)
{
    int limit = defaultLimit;
    if (request.query.hasQueryItem(u"limit"_s)) {
        bool ok = false;
        limit = request.query.queryItemValue(u"limit"_s).toInt(&ok);
        if (!ok || limit < 1) {
            *error = u"limit: expected a positive integer"_s;
            return std::nullopt;
        }
    }
    limit = std::min(limit, std::max(1, maxLimit));
    qsizetype offset = 0;
    if (const QString page = request.query.queryItemValue(u"page"_s, QUrl::FullyDecoded); !page.isEmpty()) {
        const QByteArray decoded
            = QByteArray::fromBase64(page.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
        bool ok = decoded.startsWith("o:");
        offset = ok ? decoded.mid(2).toLongLong(&ok) : 0;
        if (!ok || offset < 0 || offset > all.size()) {
            *error = u"page: invalid page token"_s;
            return std::nullopt;
        }
    }
    const auto token = [](qsizetype at) {
        const QByteArray plain = QByteArrayLiteral("o:") + QByteArray::number(at);
        return QString::fromLatin1(plain.toBase64());
    };
    QJsonArray data;
    for (qsizetype i = offset; i < all.size() && i < offset + limit; ++i)
        data.append(all.at(i));
    QJsonObject page{{u"data"_s, data}};
    const qsizetype next = offset + limit;
    page.insert(u"next_page"_s, next < all.size() ? QJsonValue(token(next)) : QJsonValue(QJsonValue::Null));
    if (bidirectional) {
        page.insert(u"prev_page"_s, offset > 0 ? QJsonValue(token(std::max<qsizetype>(0, offset - limit)))
                                               : QJsonValue(QJsonValue::Null));
    }
    return page;
}

} // namespace RunwatchSim
