// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QString>
#include <QUrl>

namespace Runwatch {

// The options every connection may have, whatever its connector (Connection::options). Each
// connector's own options are declared in its folder (core/backends/<name>/<name>connector.h) and
// described, with these, by the registry's rows (core/backends/registry.h).
namespace ConnectionOption {
inline constexpr QLatin1StringView TokenCommand{"token_command"};            // prints an access token
inline constexpr QLatin1StringView CaBundle{"ca_bundle"};                    // PEM CA certificates
inline constexpr QLatin1StringView Proxy{"proxy"};                           // http:// or socks5:// proxy
inline constexpr QLatin1StringView DefaultTimeBudget{"default_time_budget"}; // "2h", a new run's deadline
inline constexpr QLatin1StringView Agent{"agent"}; // the agent new runs start on, by default
inline constexpr QLatin1StringView StallTimeoutMs{"stall_timeout_ms"}; // a stream's silence limit
} // namespace ConnectionOption

// How a connection's credential (its key, or its token command's token) goes on a request.
enum class AuthStyle {
    None,   // nothing
    Bearer, // Authorization: Bearer <key>
    Header, // <Connection::authHeader>: <key> (api-key for Azure OpenAI, x-api-key, x-goog-api-key, …)
};

// A configured place where runs live. The API key is runtime-only: it is filled in from the
// environment (CLI) or the keychain (GUI) and never serialised by toJson().
struct Connection
{
    QString name;
    QString backend; // the connector's name (core/backends/registry.h)
    QUrl baseUrl;    // e.g. https://api.openai.com/v1
    AuthStyle auth = AuthStyle::Bearer;
    QString authHeader; // the header's name with AuthStyle::Header
    QString apiKey;
    // Plain http:// to a host that is not loopback is refused unless this is set (and then the
    // UI shows a warning).
    bool allowInsecureHttp = false;
    QString defaultModel;
    QJsonObject options; // backend specific

    QJsonObject toJson() const; // never includes apiKey
    static Connection fromJson(const QJsonObject &object);
};

// The auth style as saved and as the CLI takes it: "none", "bearer", "header:NAME".
QString authStyleName(AuthStyle style, const QString &header = {});
// Reads authStyleName()'s names, and "api-key" (what saved connections and stored runs from
// before named headers hold) as header:api-key. False for anything else, leaving both alone.
// The header name is not checked here (isHeaderName).
bool authStyleFromName(QStringView name, AuthStyle *style, QString *header);
// An HTTP header name (RFC 7230 token: letters, digits and !#$%&'*+-.^_`|~), not empty.
bool isHeaderName(QStringView name);
// A header value that cannot smuggle a second header or line: no CR, LF or other control character.
bool isHeaderValue(QStringView value);

} // namespace Runwatch
