// SPDX-License-Identifier: GPL-3.0-or-later
#include "credentialorigin.h"

#include "net/httppolicy.h"

namespace Runwatch {

namespace {
QString tokenCommandOf(const Connection &connection)
{
    return connection.options.value(ConnectionOption::TokenCommand).toString().trimmed();
}
} // namespace

CredentialMove credentialMove(const ConnectionProfile &saved, const Connection &edited, bool keyEntered)
{
    CredentialMove move;
    const QUrl &from = saved.connection.baseUrl;
    const QUrl &to = edited.baseUrl;
    if (saved.connection.name.isEmpty() || !to.isValid() || to.host().isEmpty() || sameOrigin(from, to))
        return move;
    move.key = saved.keyStorage != KeyStorage::None && !keyEntered;
    const QString command = tokenCommandOf(saved.connection);
    move.tokenCommand = !command.isEmpty() && command == tokenCommandOf(edited);
    if (move.any()) {
        move.from = originOf(from);
        move.to = originOf(to);
    }
    return move;
}

Connection withoutMovedCredential(Connection connection, const CredentialMove &move)
{
    if (move.key)
        connection.apiKey.clear();
    if (move.tokenCommand)
        connection.options.remove(ConnectionOption::TokenCommand);
    return connection;
}

} // namespace Runwatch
