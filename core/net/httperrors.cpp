// SPDX-License-Identifier: GPL-3.0-or-later
#include "httperrors.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QRegularExpression>

#include <array>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

constexpr qsizetype kMaxMessageChars = 2000;
constexpr qsizetype kMaxExcerptChars = 200;

struct Reason
{
    int status;
    QLatin1StringView phrase;
};
constexpr std::array kReasons{
    Reason{400, "Bad Request"_L1},
    Reason{401, "Unauthorized"_L1},
    Reason{403, "Forbidden"_L1},
    Reason{404, "Not Found"_L1},
    Reason{408, "Request Timeout"_L1},
    Reason{409, "Conflict"_L1},
    Reason{410, "Gone"_L1},
    Reason{413, "Content Too Large"_L1},
    Reason{415, "Unsupported Media Type"_L1},
    Reason{422, "Unprocessable Content"_L1},
    Reason{429, "Too Many Requests"_L1},
    Reason{500, "Internal Server Error"_L1},
    Reason{501, "Not Implemented"_L1},
    Reason{502, "Bad Gateway"_L1},
    Reason{503, "Service Unavailable"_L1},
    Reason{504, "Gateway Timeout"_L1},
};

QString reasonPhrase(int status)
{
    for (const auto &r : kReasons) {
        if (r.status == status)
            return r.phrase;
    }
    return {};
}

QString statusLine(int status)
{
    const QString reason = reasonPhrase(status);
    return reason.isEmpty() ? u"HTTP %1"_s.arg(status) : u"HTTP %1 %2"_s.arg(status).arg(reason);
}

QString truncated(QString text, qsizetype max)
{
    if (text.size() > max) {
        text.truncate(max);
        text += u'…';
    }
    return text;
}

// A one-line, tag-free excerpt of a non-JSON body: an HTML error page's <title> when it has
// one (proxies and CDNs put the useful words there), else its text.
QString plainExcerpt(const QByteArray &body)
{
    if (body.isEmpty())
        return {};
    QString text = QString::fromUtf8(body.left(64 * 1024));
    static const QRegularExpression title(u"<title[^>]*>(.*?)</title>"_s,
                                          QRegularExpression::CaseInsensitiveOption
                                              | QRegularExpression::DotMatchesEverythingOption);
    if (const auto m = title.match(text); m.hasMatch() && !m.captured(1).trimmed().isEmpty()) {
        text = m.captured(1);
    } else {
        static const QRegularExpression invisible(u"<(script|style)[^>]*>.*?</\\1>"_s,
                                                  QRegularExpression::CaseInsensitiveOption
                                                      | QRegularExpression::DotMatchesEverythingOption);
        static const QRegularExpression tag(u"<[^>]*>"_s);
        text.remove(invisible);
        text.replace(tag, u" "_s);
    }
    text = text.simplified();
    // Keep control characters out of log lines and tooltips.
    text.removeIf([](QChar c) { return c.category() == QChar::Other_Control; });
    return truncated(text, kMaxExcerptChars);
}

QString jsonScalarText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toDouble());
    return {};
}

ErrorKind kindForStatus(int status)
{
    if (status == 401 || status == 403)
        return ErrorKind::Auth;
    if (status == 404 || status == 410)
        return ErrorKind::NotFound;
    if (status == 408)
        return ErrorKind::Timeout;
    if (status == 409)
        return ErrorKind::Conflict;
    if (status == 429)
        return ErrorKind::RateLimited;
    if (status >= 500 && status <= 599)
        return ErrorKind::Server;
    if (status >= 400 && status <= 499)
        return ErrorKind::Client;
    return ErrorKind::Protocol;
}

// The message (and code) of an error body: OpenAI / Azure {"error":{"message","type","param",
// "code"}}, where code may be null, a string, or (Azure) a number-like string; {"error":"…"};
// or a top-level "message".
void readErrorBody(RunError &e, const QByteArray &body)
{
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject())
        return;
    const QJsonObject root = doc.object();
    const QJsonValue error = root.value(u"error"_s);
    if (error.isObject()) {
        const QJsonObject o = error.toObject();
        e.message = o.value(u"message"_s).toString();
        e.code = jsonScalarText(o.value(u"code"_s));
        if (e.code.isEmpty())
            e.code = o.value(u"type"_s).toString();
    } else if (error.isString()) {
        e.message = error.toString();
    }
    if (e.message.isEmpty())
        e.message = root.value(u"message"_s).toString();
}

} // namespace

RunError classifyHttpError(int status, const QByteArray &body, const QByteArray &requestId)
{
    RunError e;
    e.httpStatus = status;
    e.requestId = QString::fromLatin1(requestId);
    e.kind = kindForStatus(status);
    readErrorBody(e, body);
    if (e.message.isEmpty()) {
        const QString excerpt = plainExcerpt(body);
        e.message = excerpt.isEmpty() ? statusLine(status) : statusLine(status) + u": "_s + excerpt;
    }
    if (e.kind == ErrorKind::Protocol && status >= 300 && status <= 399)
        e.message = u"unexpected redirect not followed ("_s + statusLine(status) + u"): "_s + e.message;
    e.message = truncated(e.message, kMaxMessageChars);
    e.retryable = isRetryable(e);
    return e;
}

RunError classifyTransportError(QNetworkReply::NetworkError error, const QString &errorString,
                                const QUrl &url, const RetryPolicy &policy)
{
    RunError e;
    const QString where = hostForMessage(url);
    switch (error) {
    case QNetworkReply::OperationCanceledError:
        // Only QNAM's transfer timeout aborts without one of our own flags being set.
        e.kind = ErrorKind::Timeout;
        e.code = u"inactivity_timeout"_s;
        e.message = u"%1: no data for %2 s"_s.arg(where, formatSeconds(policy.inactivityTimeout.count()));
        break;
    case QNetworkReply::TimeoutError:
        e.kind = ErrorKind::Timeout;
        e.code = u"timeout"_s;
        break;
    case QNetworkReply::ConnectionRefusedError:
        e.kind = ErrorKind::Network;
        e.code = u"connection_refused"_s;
        break;
    case QNetworkReply::HostNotFoundError:
        e.kind = ErrorKind::Network;
        e.code = u"host_not_found"_s;
        break;
    case QNetworkReply::RemoteHostClosedError:
        e.kind = ErrorKind::Network;
        e.code = u"connection_closed"_s;
        break;
    case QNetworkReply::ContentReSendError:
        // Our ReadOnceBody refused QNAM's transparent re-send of a non-idempotent request.
        e.kind = ErrorKind::Network;
        e.code = u"connection_closed"_s;
        e.message = where
                    + u": connection closed before a response; not re-sent because the "
                      u"request may already have been processed"_s;
        break;
    case QNetworkReply::SslHandshakeFailedError:
        e.kind = ErrorKind::Network;
        e.code = u"tls_error"_s;
        break;
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::ProxyNotFoundError:
    case QNetworkReply::ProxyTimeoutError:
        e.kind = ErrorKind::Network;
        e.code = u"proxy_error"_s;
        break;
    case QNetworkReply::ProxyAuthenticationRequiredError:
        e.kind = ErrorKind::Auth;
        e.code = u"proxy_auth"_s;
        break;
    case QNetworkReply::ProtocolUnknownError:
    case QNetworkReply::ProtocolInvalidOperationError:
    case QNetworkReply::ProtocolFailure:
    case QNetworkReply::InsecureRedirectError:
    case QNetworkReply::TooManyRedirectsError:
        e.kind = ErrorKind::Protocol;
        e.code = u"protocol_failure"_s;
        break;
    default:
        e.kind = ErrorKind::Network;
        e.code = u"network_error"_s;
        break;
    }
    if (e.message.isEmpty())
        e.message = where + u": "_s + errorString;
    e.retryable = isRetryable(e);
    return e;
}

bool isRetryable(const RunError &error)
{
    switch (error.kind) {
    case ErrorKind::Network:
        // A certificate problem will not fix itself between attempts.
        return error.code != u"tls_error"_s;
    case ErrorKind::Timeout:
    case ErrorKind::Conflict:
    case ErrorKind::RateLimited:
    case ErrorKind::Server:
        return true;
    default:
        return false;
    }
}

QString hostForMessage(const QUrl &url)
{
    const int port = url.port();
    return port < 0 ? url.host() : url.host() + u':' + QString::number(port);
}

QString formatSeconds(qint64 ms)
{
    return QString::number(static_cast<double>(ms) / 1000.0);
}

QList<QByteArray> credentialsOf(const HttpHeaders &headers)
{
    QList<QByteArray> secrets;
    for (const auto &h : headers) {
        const QByteArray name = h.first.toLower();
        if (name != "authorization" && name != "proxy-authorization" && name != "api-key"
            && name != "x-api-key")
            continue;
        QByteArray value = h.second.trimmed();
        if (const qsizetype space = value.indexOf(' '); space > 0 && name.endsWith("authorization"))
            value = value.mid(space + 1).trimmed();
        // Short values would only blank out ordinary words.
        if (value.size() >= 8)
            secrets.append(value);
    }
    return secrets;
}

void redactCredentials(HttpResponse &response, const QList<QByteArray> &secrets)
{
    if (!response.error.isError())
        return;
    for (const QByteArray &secret : secrets) {
        const QString text = QString::fromUtf8(secret);
        response.error.message.replace(text, u"[redacted]"_s);
        response.error.code.replace(text, u"[redacted]"_s);
        response.body.replace(secret, QByteArrayLiteral("[redacted]"));
    }
}

} // namespace Runwatch
