// SPDX-License-Identifier: GPL-3.0-or-later
#include "connections/connectionoptions.h"

#include "backends/registry.h"
#include "net/httppolicy.h"

#include <QCoreApplication>

#include <algorithm>

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

} // namespace

QStringList connectionOptionsFor(const QString &backend)
{
    QStringList keys;
    for (const ConnectorOption &option : connectionOptions(backend))
        keys << option.key;
    return keys;
}

QList<ConnectionOptionProblem> validateConnectionOptions(const Connection &connection)
{
    QList<ConnectionOptionProblem> problems;
    const QUrl &url = connection.baseUrl;
    if (url.isValid() && !url.host().isEmpty()) {
        if (checkTransportSecurity(url, connection.allowInsecureHttp).isError()) {
            problems.append(
                {u"base_url"_s, Text::tr("Plain http:// to %1 sends the key and the runs unencrypted: use "
                                         "https://, or allow plain http for this connection.")
                                    .arg(url.host())});
        }
    }
    if (!url.password().isEmpty()) {
        // Stored with the connection and every run, printed by `connections`, exported: a
        // password has no place there (the proxy's is moved to the keychain; this one is not).
        problems.append({u"base_url_password"_s,
                         Text::tr("The URL holds a password (user:password@host): it would be stored "
                                  "and shown with every run. Remove it from the URL and give the "
                                  "secret as the connection's key.")});
    }
    const QList<ConnectorOption> applicable = connectionOptions(connection.backend);
    auto applies = [&applicable](QStringView key) {
        return std::any_of(applicable.cbegin(), applicable.cend(),
                           [key](const ConnectorOption &option) { return option.key == key; });
    };
    // Another connector's option would be ignored: say so rather than let it look used.
    for (auto it = connection.options.constBegin(); it != connection.options.constEnd(); ++it) {
        if (anyConnectionOption(it.key()) && !applies(it.key()) && !it.value().toString().isEmpty())
            problems.append({it.key(), Text::tr("Not used by the %1 backend.").arg(connection.backend)});
    }
    if (connection.auth == AuthStyle::Header && !isHeaderName(connection.authHeader)) {
        problems.append({u"auth_header"_s, Text::tr("\"%1\" is not a header name: letters, digits and "
                                                    "!#$%&'*+-.^_`|~ only, e.g. x-api-key.")
                                               .arg(connection.authHeader)});
    }
    for (const ConnectorOption &option : applicable) {
        const QString value = optionText(connection, option.key);
        if (value.isEmpty() || !option.validate)
            continue;
        if (const QString problem = option.validate(value); !problem.isEmpty())
            problems.append({option.key, problem});
    }
    return problems;
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

bool sameProxy(const Connection &a, const Connection &b)
{
    const QUrl x(optionText(a, ConnectionOption::Proxy));
    const QUrl y(optionText(b, ConnectionOption::Proxy));
    return x.scheme() == y.scheme() && x.host() == y.host() && x.port() == y.port()
           && x.userName() == y.userName();
}

} // namespace Runwatch
