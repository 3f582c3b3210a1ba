// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connections/connection.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace Runwatch {

class HttpClient;

// The options of a connection (Connection::options) that an operator sets, with the keys the
// connectors read. The GUI's Connections dialog and the CLI both write them; the rules of what
// applies to which backend and what is valid live here.
namespace ConnectionOption {
inline constexpr QLatin1StringView Organization{"organization"};  // openai: OpenAI-Organization header
inline constexpr QLatin1StringView Project{"project"};            // openai: OpenAI-Project header
inline constexpr QLatin1StringView ApiVersion{"api_version"};     // openai (Azure), foundry: ?api-version=
inline constexpr QLatin1StringView TokenCommand{"token_command"}; // every backend: prints a token
inline constexpr QLatin1StringView ProfileFile{"profile_file"};   // jobs: the connection profile (JSON)
inline constexpr QLatin1StringView CaBundle{"ca_bundle"};         // every backend: PEM CA certificates
inline constexpr QLatin1StringView Proxy{"proxy"};                // every backend: http:// or socks5:// proxy
inline constexpr QLatin1StringView DefaultTimeBudget{
    "default_time_budget"}; // every backend: "2h", a new run's deadline
} // namespace ConnectionOption

// Which of the options above apply to `backend` (the common ones included), in display order.
QStringList connectionOptionsFor(const QString &backend);

// One problem of a connection as entered: the option it is about ("base_url" for the URL and
// the plain-http opt-in) and an operator-facing message.
struct ConnectionOptionProblem
{
    QString option;
    QString message;
};

// Checks the connection's URL and options the way the connector would use them, without the
// network: a jobs profile file is read and parsed (its errors name the JSON pointer of the bad
// value), a CA bundle must hold PEM certificates, a proxy URL must name a scheme, host and port,
// header values must be one line, the key's header name ("auth_header") a valid one, plain http
// to a host that is not loopback needs the opt-in.
// Options that do not apply to the backend are reported too: they would be ignored.
QList<ConnectionOptionProblem> validateConnectionOptions(const Connection &connection);

// Sets up `client` for `connection`: the plain-http opt-in, its proxy and its CA bundle. An
// option that cannot be used (an unreadable bundle, a bad proxy URL) leaves the client on the
// system's defaults; validateConnectionOptions() explains it to the operator beforehand.
void applyTransportOptions(HttpClient *client, const Connection &connection);

// A proxy's password is a secret like the API key: ConnectionRegistry keeps it in the keychain
// and saves the proxy URL without it. These read it off the proxy option and put it back
// (an empty password removes it); the user name stays in the URL and marks that a password
// may be stored for it.
QString proxyPassword(const Connection &connection);
void setProxyPassword(Connection *connection, const QString &password);
bool proxyHasUser(const Connection &connection);

} // namespace Runwatch
