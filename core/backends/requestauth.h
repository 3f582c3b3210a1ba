// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/connection.h"
#include "net/httpmessage.h"

namespace Runwatch {

// Puts the connection's key on a request the way Connection::auth says: "Authorization: Bearer
// <key>", "api-key: <key>" (Azure OpenAI), or nothing; nothing either without a key. Every
// connector authenticates this way, an A2A agent whose card names no scheme we know included.
void applyAuth(HttpRequest &request, const Connection &connection);

} // namespace Runwatch
