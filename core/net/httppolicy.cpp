// SPDX-License-Identifier: GPL-3.0-or-later
#include "httppolicy.h"

#include <QHostAddress>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTimeZone>

#include <algorithm>
#include <array>
#include <cmath>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// Seconds as in RFC 9110's delay-seconds, but SDKs also send fractions; reject nonsense.
std::optional<double> parseNonNegativeNumber(const QByteArray &raw)
{
    const QByteArray text = raw.trimmed();
    if (text.isEmpty())
        return std::nullopt;
    for (char c : text) {
        if (!(c >= '0' && c <= '9') && c != '.')
            return std::nullopt; // no signs, exponents, "inf" or "nan"
    }
    bool ok = false;
    const double value = text.toDouble(&ok);
    if (!ok || !std::isfinite(value) || value < 0)
        return std::nullopt;
    return value;
}

qint64 clampedMs(double ms)
{
    // A year is plenty; beyond that only overflow would happen.
    constexpr double kMax = 365.0 * 24 * 3600 * 1000;
    return static_cast<qint64>(std::ceil(std::min(ms, kMax)));
}

int monthFromName(QStringView name)
{
    static constexpr std::array<QLatin1StringView, 12> kMonths{"Jan"_L1, "Feb"_L1, "Mar"_L1, "Apr"_L1,
                                                               "May"_L1, "Jun"_L1, "Jul"_L1, "Aug"_L1,
                                                               "Sep"_L1, "Oct"_L1, "Nov"_L1, "Dec"_L1};
    for (size_t i = 0; i < kMonths.size(); ++i) {
        if (name.compare(kMonths[i], Qt::CaseInsensitive) == 0)
            return static_cast<int>(i) + 1;
    }
    return 0;
}

// HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms that
// recipients must still accept.
std::optional<QDateTime> parseHttpDate(const QByteArray &raw)
{
    const QString text = QString::fromLatin1(raw.trimmed());
    static const QRegularExpression imf(
        u"^[A-Za-z]{3}, (\\d{2}) ([A-Za-z]{3}) (\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$"_s);
    static const QRegularExpression rfc850(
        u"^[A-Za-z]{6,9}, (\\d{2})-([A-Za-z]{3})-(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$"_s);
    static const QRegularExpression asctime(
        u"^[A-Za-z]{3} ([A-Za-z]{3}) {1,2}(\\d{1,2}) (\\d{2}):(\\d{2}):(\\d{2}) (\\d{4})$"_s);
    int day = 0;
    int month = 0;
    int year = 0;
    int h = 0;
    int m = 0;
    int s = 0;
    if (const auto mt = imf.match(text); mt.hasMatch()) {
        day = mt.capturedView(1).toInt();
        month = monthFromName(mt.capturedView(2));
        year = mt.capturedView(3).toInt();
        h = mt.capturedView(4).toInt();
        m = mt.capturedView(5).toInt();
        s = mt.capturedView(6).toInt();
    } else if (const auto mt = rfc850.match(text); mt.hasMatch()) {
        day = mt.capturedView(1).toInt();
        month = monthFromName(mt.capturedView(2));
        year = mt.capturedView(3).toInt();
        year += year < 70 ? 2000 : 1900;
        h = mt.capturedView(4).toInt();
        m = mt.capturedView(5).toInt();
        s = mt.capturedView(6).toInt();
    } else if (const auto mt = asctime.match(text); mt.hasMatch()) {
        month = monthFromName(mt.capturedView(1));
        day = mt.capturedView(2).toInt();
        h = mt.capturedView(3).toInt();
        m = mt.capturedView(4).toInt();
        s = mt.capturedView(5).toInt();
        year = mt.capturedView(6).toInt();
    } else {
        return std::nullopt;
    }
    const QDate date(year, month, day);
    const QTime time(h, m, s);
    if (!date.isValid() || !time.isValid())
        return std::nullopt;
    return QDateTime(date, time, QTimeZone::utc());
}

bool isLoopbackHost(const QString &host)
{
    if (host.compare(u"localhost"_s, Qt::CaseInsensitive) == 0
        || host.compare(u"localhost."_s, Qt::CaseInsensitive) == 0)
        return true;
    QHostAddress address;
    if (!address.setAddress(host))
        return false;
    if (address.isLoopback())
        return true;
    // ::ffff:127.x.y.z is loopback too; QHostAddress 6.4 does not say so for the mapped form.
    bool isV4 = false;
    const quint32 v4 = address.toIPv4Address(&isV4);
    return isV4 && (v4 >> 24) == 127;
}

} // namespace

std::optional<qint64> parseRetryAfter(const HttpHeaders &lowerCaseHeaders, const QDateTime &now)
{
    if (const auto ms = findHeader(lowerCaseHeaders, "retry-after-ms")) {
        if (const auto value = parseNonNegativeNumber(*ms))
            return clampedMs(*value);
    }
    const auto raw = findHeader(lowerCaseHeaders, "retry-after");
    if (!raw)
        return std::nullopt;
    if (const auto seconds = parseNonNegativeNumber(*raw))
        return clampedMs(*seconds * 1000.0);
    if (const auto when = parseHttpDate(*raw))
        return std::max<qint64>(0, now.msecsTo(*when));
    return std::nullopt;
}

std::chrono::milliseconds retryDelay(const RetryPolicy &policy, int retryIndex,
                                     std::optional<qint64> serverDelayMs)
{
    if (serverDelayMs && *serverDelayMs > 0)
        return std::chrono::milliseconds(*serverDelayMs);
    const int n = std::clamp(retryIndex, 0, 30);
    const double initial = static_cast<double>(std::max<qint64>(0, policy.initialDelay.count()));
    const double cap = static_cast<double>(std::max<qint64>(0, policy.maxDelay.count()));
    const double base = std::min(initial * std::ldexp(1.0, n), cap);
    const double jitter = std::clamp(policy.jitter, 0.0, 1.0);
    const double factor = 1.0 - jitter * QRandomGenerator::global()->generateDouble();
    return std::chrono::milliseconds(static_cast<qint64>(std::floor(base * factor)));
}

bool cannotHaveBeenProcessed(const RunError &error)
{
    if (error.kind == ErrorKind::Network)
        return error.code == u"connection_refused"_s || error.code == u"host_not_found"_s;
    return error.httpStatus == 408 || error.httpStatus == 429 || error.httpStatus == 503;
}

RunError checkTransportSecurity(const QUrl &url, bool allowInsecureHttp)
{
    if (!url.isValid() || url.host().isEmpty())
        return RunError::client(u"invalid_url"_s, u"invalid URL: "_s + url.toDisplayString());
    const QString scheme = url.scheme().toLower();
    if (scheme == u"https"_s)
        return {};
    if (scheme == u"http"_s) {
        if (allowInsecureHttp || isLoopbackHost(url.host()))
            return {};
        return RunError::client(
            u"insecure_transport"_s,
            u"refusing plain http:// to %1: credentials would travel unencrypted "
            u"(use https:// or allow insecure HTTP for this connection)"_s.arg(url.host()));
    }
    return RunError::client(u"invalid_url"_s,
                            u"unsupported URL scheme \"%1\" (only https:// and http://)"_s.arg(url.scheme()));
}

QString originOf(const QUrl &url)
{
    return url.adjusted(QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment | QUrl::RemoveUserInfo)
        .toString();
}

bool sameOrigin(const QUrl &a, const QUrl &b)
{
    const auto port = [](const QUrl &u) {
        return u.port(u.scheme().compare(u"https"_s, Qt::CaseInsensitive) == 0 ? 443 : 80);
    };
    return a.scheme().compare(b.scheme(), Qt::CaseInsensitive) == 0
           && a.host().compare(b.host(), Qt::CaseInsensitive) == 0 && port(a) == port(b);
}

} // namespace Runwatch
