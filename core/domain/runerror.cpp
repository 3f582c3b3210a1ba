// SPDX-License-Identifier: GPL-3.0-or-later
#include "runerror.h"

#include "enumnames.h"

#include <array>
#include <utility>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
constexpr std::array kKindNames{
    EnumName{ErrorKind::None, "none"_L1},
    EnumName{ErrorKind::Network, "network"_L1},
    EnumName{ErrorKind::Timeout, "timeout"_L1},
    EnumName{ErrorKind::Auth, "auth"_L1},
    EnumName{ErrorKind::NotFound, "not_found"_L1},
    EnumName{ErrorKind::Conflict, "conflict"_L1},
    EnumName{ErrorKind::RateLimited, "rate_limited"_L1},
    EnumName{ErrorKind::Server, "server"_L1},
    EnumName{ErrorKind::Client, "client"_L1},
    EnumName{ErrorKind::Protocol, "protocol"_L1},
    EnumName{ErrorKind::Run, "run"_L1},
    EnumName{ErrorKind::Cancelled, "cancelled"_L1},
};
} // namespace

QString errorKindName(ErrorKind kind)
{
    return nameOf(kKindNames, kind, "none"_L1);
}

ErrorKind errorKindFromName(QStringView name)
{
    return fromName(kKindNames, name).value_or(ErrorKind::None);
}

RunError RunError::client(QString code, QString message)
{
    RunError e;
    e.kind = ErrorKind::Client;
    e.code = std::move(code);
    e.message = std::move(message);
    return e;
}

RunError RunError::protocol(QString code, QString message, bool retryable)
{
    RunError e;
    e.kind = ErrorKind::Protocol;
    e.code = std::move(code);
    e.message = std::move(message);
    e.retryable = retryable;
    return e;
}

RunError RunError::unsupported(QString what)
{
    return client(u"unsupported"_s, std::move(what));
}

RunError RunError::cancelled(QString message)
{
    RunError e;
    e.kind = ErrorKind::Cancelled;
    e.code = u"aborted"_s;
    e.message = std::move(message);
    return e;
}

QString RunError::toString() const
{
    if (!isError())
        return {};
    QString out = errorKindName(kind).replace(u'_', u' ');
    QStringList detail;
    if (httpStatus > 0)
        detail << QString::number(httpStatus);
    if (!code.isEmpty())
        detail << code;
    if (!detail.isEmpty())
        out += u" ("_s + detail.join(u", "_s) + u')';
    if (!message.isEmpty())
        out += u": "_s + message;
    if (!requestId.isEmpty())
        out += u" [request "_s + requestId + u']';
    return out;
}

QJsonObject RunError::toJson() const
{
    QJsonObject o;
    o.insert(u"kind"_s, errorKindName(kind));
    if (!code.isEmpty())
        o.insert(u"code"_s, code);
    o.insert(u"message"_s, message);
    o.insert(u"retryable"_s, retryable);
    if (httpStatus > 0)
        o.insert(u"http_status"_s, httpStatus);
    if (!requestId.isEmpty())
        o.insert(u"request_id"_s, requestId);
    return o;
}

RunError RunError::fromJson(const QJsonObject &object)
{
    RunError e;
    e.kind = errorKindFromName(object.value(u"kind"_s).toString());
    e.code = object.value(u"code"_s).toString();
    e.message = object.value(u"message"_s).toString();
    e.retryable = object.value(u"retryable"_s).toBool();
    e.httpStatus = object.value(u"http_status"_s).toInt();
    e.requestId = object.value(u"request_id"_s).toString();
    return e;
}

} // namespace Runwatch
