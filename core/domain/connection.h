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

enum class AuthStyle {
    None,
    Bearer,       // Authorization: Bearer <key>
    ApiKeyHeader, // api-key: <key> (Azure OpenAI)
};

// A configured place where runs live. The API key is runtime-only: it is filled in from the
// environment (CLI) or the keychain (GUI) and never serialised by toJson().
struct Connection
{
    QString name;
    QString backend; // the connector's name (core/backends/registry.h)
    QUrl baseUrl;    // e.g. https://api.openai.com/v1
    AuthStyle auth = AuthStyle::Bearer;
    QString apiKey;
    // Plain http:// to a host that is not loopback is refused unless this is set (and then the
    // UI shows a warning).
    bool allowInsecureHttp = false;
    QString defaultModel;
    QJsonObject options; // backend specific

    QJsonObject toJson() const; // never includes apiKey
    static Connection fromJson(const QJsonObject &object);
};

QString authStyleName(AuthStyle style);
AuthStyle authStyleFromName(QStringView name);

} // namespace Runwatch
