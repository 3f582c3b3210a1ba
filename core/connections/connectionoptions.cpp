// SPDX-License-Identifier: GPL-3.0-or-later
#include "connections/connectionoptions.h"

#include "backends/jobs/jobsbackend.h"
#include "domain/timebudget.h"
#include "net/httpclient.h"
#include "net/httppolicy.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QNetworkProxy>
#include <QProcess>
#include <QRegularExpression>
#include <QSslCertificate>

#include <optional>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// The messages' translation context (lupdate reads Text::tr() under "ConnectionOptions").
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(ConnectionOptions)
};

QString optionText(const Connection &c, QLatin1StringView key)
{
    return c.options.value(key).toString().trimmed();
}

// A value that goes into a header verbatim: one line of printable characters.
bool isHeaderSafe(const QString &value)
{
    for (const QChar ch : value) {
        if (ch.unicode() < 0x20 || ch.unicode() == 0x7f)
            return false;
    }
    return true;
}

std::optional<QNetworkProxy> proxyFromUrl(const QUrl &url)
{
    const QString scheme = url.scheme().toLower();
    QNetworkProxy::ProxyType type = QNetworkProxy::NoProxy;
    if (scheme == u"http")
        type = QNetworkProxy::HttpProxy;
    else if (scheme == u"socks5")
        type = QNetworkProxy::Socks5Proxy;
    if (type == QNetworkProxy::NoProxy || url.host().isEmpty() || url.port() <= 0)
        return std::nullopt;
    return QNetworkProxy(type, url.host(), quint16(url.port()), url.userName(), url.password());
}

} // namespace

QStringList connectionOptionsFor(const QString &backend)
{
    QStringList out;
    if (backend == u"openai")
        out << ConnectionOption::Organization << ConnectionOption::Project << ConnectionOption::ApiVersion;
    else if (backend == u"foundry")
        out << ConnectionOption::ApiVersion;
    else if (backend == u"jobs")
        out << ConnectionOption::ProfileFile;
    out << ConnectionOption::TokenCommand << ConnectionOption::CaBundle << ConnectionOption::Proxy
        << ConnectionOption::DefaultTimeBudget;
    return out;
}

QList<ConnectionOptionProblem> validateConnectionOptions(const Connection &connection)
{
    QList<ConnectionOptionProblem> problems;
    const QUrl &url = connection.baseUrl;
    if (url.isValid() && !url.host().isEmpty()) {
        if (checkTransportSecurity(url, connection.allowInsecureHttp).isError())
            problems.append(
                {u"base_url"_s, Text::tr("Plain http:// to %1 sends the key and the runs unencrypted: use "
                                         "https://, or allow plain http for this connection.")
                                    .arg(url.host())});
    }
    const QStringList applicable = connectionOptionsFor(connection.backend);
    for (auto it = connection.options.constBegin(); it != connection.options.constEnd(); ++it) {
        const QString key = it.key();
        const bool known = connectionOptionsFor(u"openai"_s).contains(key)
                           || connectionOptionsFor(u"foundry"_s).contains(key)
                           || connectionOptionsFor(u"jobs"_s).contains(key);
        if (known && !applicable.contains(key) && !it.value().toString().isEmpty())
            problems.append({key, Text::tr("Not used by the %1 backend.").arg(connection.backend)});
    }
    if (connection.auth == AuthStyle::Header && !isHeaderName(connection.authHeader))
        problems.append({u"auth_header"_s, Text::tr("\"%1\" is not a header name: letters, digits and "
                                                    "!#$%&'*+-.^_`|~ only, e.g. x-api-key.")
                                               .arg(connection.authHeader)});
    for (const QLatin1StringView header : {ConnectionOption::Organization, ConnectionOption::Project}) {
        if (applicable.contains(header) && !isHeaderSafe(optionText(connection, header)))
            problems.append({header, Text::tr("Must be a single line.")});
    }
    const QString apiVersion = optionText(connection, ConnectionOption::ApiVersion);
    if (applicable.contains(ConnectionOption::ApiVersion) && !apiVersion.isEmpty()) {
        static const QRegularExpression versionSyntax(u"^[A-Za-z0-9._-]+$"_s);
        if (!versionSyntax.match(apiVersion).hasMatch())
            problems.append(
                {ConnectionOption::ApiVersion,
                 Text::tr("An API version looks like 2025-04-01-preview (letters, digits, '.', '-').")});
    }
    const QString tokenCommand = optionText(connection, ConnectionOption::TokenCommand);
    if (applicable.contains(ConnectionOption::TokenCommand) && !tokenCommand.isEmpty()) {
        // QProcess::splitCommand() would take an unclosed quote to the end of the line.
        if (tokenCommand.count(u'"') % 2 != 0 || QProcess::splitCommand(tokenCommand).isEmpty())
            problems.append({ConnectionOption::TokenCommand, Text::tr("Unbalanced quotes in the command.")});
    }
    const QString profile = optionText(connection, ConnectionOption::ProfileFile);
    if (applicable.contains(ConnectionOption::ProfileFile) && !profile.isEmpty()) {
        if (!QFileInfo(profile).isAbsolute()) {
            problems.append({ConnectionOption::ProfileFile, Text::tr("Give the profile file's full path.")});
        } else {
            // The connector's own reading of it: the same errors, with the JSON pointer of the value.
            Connection probe;
            probe.options.insert(ConnectionOption::ProfileFile, profile);
            QString error;
            if (!JobsBackend::profileFor(probe, &error))
                problems.append({ConnectionOption::ProfileFile, error});
        }
    }
    const QString bundle = optionText(connection, ConnectionOption::CaBundle);
    if (!bundle.isEmpty()) {
        if (!QFileInfo(bundle).isReadable())
            problems.append({ConnectionOption::CaBundle, Text::tr("Cannot read %1.").arg(bundle)});
        else if (QSslCertificate::fromPath(bundle, QSsl::Pem).isEmpty())
            problems.append({ConnectionOption::CaBundle, Text::tr("No PEM certificate in %1.").arg(bundle)});
    }
    const QString proxy = optionText(connection, ConnectionOption::Proxy);
    if (!proxy.isEmpty() && !proxyFromUrl(QUrl(proxy)))
        problems.append({ConnectionOption::Proxy,
                         Text::tr("A proxy is given as http://host:port or socks5://host:port.")});
    const QString budget = optionText(connection, ConnectionOption::DefaultTimeBudget);
    if (!budget.isEmpty() && !parseTimeBudgetMs(budget))
        problems.append({ConnectionOption::DefaultTimeBudget,
                         Text::tr("A time budget is given as 90s, 45m, 2h, 1h30m or 1d (a year at most).")});
    return problems;
}

void applyTransportOptions(HttpClient *client, const Connection &connection)
{
    client->setAllowInsecureHttp(connection.allowInsecureHttp);
    if (const QString proxy = optionText(connection, ConnectionOption::Proxy); !proxy.isEmpty()) {
        if (const auto p = proxyFromUrl(QUrl(proxy)))
            client->setProxy(*p);
    }
    if (const QString bundle = optionText(connection, ConnectionOption::CaBundle); !bundle.isEmpty())
        client->setCaCertificates(QSslCertificate::fromPath(bundle, QSsl::Pem));
}

QString proxyPassword(const Connection &connection)
{
    return QUrl(optionText(connection, ConnectionOption::Proxy)).password();
}

void setProxyPassword(Connection *connection, const QString &password)
{
    const QString proxy = optionText(*connection, ConnectionOption::Proxy);
    if (proxy.isEmpty())
        return;
    QUrl url(proxy);
    if (url.password() == password)
        return;
    url.setPassword(password.isEmpty() ? QString() : password);
    connection->options.insert(ConnectionOption::Proxy, url.toString());
}

bool proxyHasUser(const Connection &connection)
{
    return !QUrl(optionText(connection, ConnectionOption::Proxy)).userName().isEmpty();
}

} // namespace Runwatch
