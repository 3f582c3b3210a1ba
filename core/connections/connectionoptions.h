// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/connection.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace Runwatch {

// The keys of the options that apply to `backend`'s connections (its registry row's, then the
// common ones), in display order.
QStringList connectionOptionsFor(const QString &backend);

// One problem of a connection as entered: the option it is about ("base_url" for the URL and
// the plain-http opt-in) and an operator-facing message.
struct ConnectionOptionProblem
{
    QString option;
    QString message;
};

// Checks the connection's URL and options the way the connector would use them, without the
// network: each option by its registry row's check (a file the connector reads is read and parsed,
// a CA bundle must hold PEM certificates, a proxy URL must name a scheme, host and port, header
// values must be one line), the key's header name ("auth_header") must be a valid one, and plain
// http to a host that is not loopback needs the opt-in.
// Another connector's options are reported too: they would be ignored.
QList<ConnectionOptionProblem> validateConnectionOptions(const Connection &connection);

// A proxy's password is a secret like the API key: ConnectionRegistry keeps it in the keychain
// and saves the proxy URL without it. These read it off the proxy option and put it back
// (an empty password removes it); the user name stays in the URL and marks that a password
// may be stored for it.
QString proxyPassword(const Connection &connection);
void setProxyPassword(Connection *connection, const QString &password);
bool proxyHasUser(const Connection &connection);
// Whether both connections name the same proxy (scheme, host, port and user; the password aside):
// a stored proxy password belongs to that proxy and goes to no other, as an API key goes only to
// its connection's origin.
bool sameProxy(const Connection &a, const Connection &b);

} // namespace Runwatch
