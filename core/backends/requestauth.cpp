// SPDX-License-Identifier: GPL-3.0-or-later
#include "requestauth.h"

namespace Runwatch {

void applyAuth(HttpRequest &request, const Connection &connection)
{
    if (connection.apiKey.isEmpty())
        return;
    const QByteArray key = connection.apiKey.toUtf8();
    switch (connection.auth) {
    case AuthStyle::Bearer:
        request.headers.emplaceBack("Authorization", "Bearer " + key);
        break;
    case AuthStyle::ApiKeyHeader:
        request.headers.emplaceBack("api-key", key);
        break;
    case AuthStyle::None:
        break;
    }
}

} // namespace Runwatch
