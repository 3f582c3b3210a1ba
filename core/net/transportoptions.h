// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/connection.h"

#include <QNetworkProxy>
#include <QUrl>

#include <optional>

namespace Runwatch {

class HttpClient;

// The proxy a proxy option names (http://host:port or socks5://host:port, with user and password
// when given); nullopt for anything else.
std::optional<QNetworkProxy> proxyFromUrl(const QUrl &url);

// Sets up `client` for `connection`: the plain-http opt-in, its proxy and its CA bundle. An
// option that cannot be used (an unreadable bundle, a bad proxy URL) leaves the client on the
// system's defaults; validateConnectionOptions() explains it to the operator beforehand.
void applyTransportOptions(HttpClient *client, const Connection &connection);

} // namespace Runwatch
