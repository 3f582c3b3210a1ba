// SPDX-License-Identifier: GPL-3.0-or-later
#include "httpmessage.h"

namespace Runwatch {

std::optional<QByteArray> findHeader(const HttpHeaders &headers, QByteArrayView name)
{
    for (const auto &h : headers) {
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return std::nullopt;
}

QByteArray HttpRequest::impliedContentType() const
{
    if (body.isEmpty() || findHeader(headers, "content-type"))
        return {};
    return QByteArrayLiteral("application/json");
}

QByteArray HttpResponse::header(QByteArrayView lowerName) const
{
    return findHeader(headers, lowerName).value_or(QByteArray());
}

namespace {
bool breaksLine(QByteArrayView v)
{
    return v.contains('\r') || v.contains('\n') || v.contains('\0');
}
} // namespace

bool isReservedHeader(QByteArrayView name)
{
    static const QByteArrayView reserved[]
        = {"host",       "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer",
           "keep-alive", "cookie",         "content-type",      "expect"};
    for (const QByteArrayView r : reserved) {
        if (name.compare(r, Qt::CaseInsensitive) == 0)
            return true;
    }
    return name.size() >= 6 && name.first(6).compare("proxy-", Qt::CaseInsensitive) == 0;
}

QString HttpRequest::unsafeField() const
{
    if (breaksLine(method) || method.contains(' '))
        return QStringLiteral("the method");
    if (breaksLine(url.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority | QUrl::RemoveFragment)))
        return QStringLiteral("the URL");
    for (const auto &h : headers) {
        if (h.first.isEmpty() || h.first.contains(':') || breaksLine(h.first))
            return QStringLiteral("a header name");
        if (breaksLine(h.second))
            return QStringLiteral("the value of header \"%1\"").arg(QString::fromLatin1(h.first));
    }
    return {};
}

RunError HttpResponse::protocolError(QString code, QString message) const
{
    RunError e = RunError::protocol(std::move(code), std::move(message));
    e.httpStatus = status;
    e.requestId = QString::fromUtf8(header("x-request-id"));
    return e;
}

} // namespace Runwatch
