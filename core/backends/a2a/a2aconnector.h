// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/connector.h"

namespace Runwatch {

// The options of an A2A connection (set in a saved connection's JSON; no form rows).
namespace A2aOption {
inline constexpr QLatin1StringView Binding{"binding"};                  // "JSONRPC" / "HTTP+JSON"
inline constexpr QLatin1StringView ProtocolVersion{"protocol_version"}; // "1.0" / "0.3"
inline constexpr QLatin1StringView CancelTimeoutMs{"cancel_timeout_ms"};
inline constexpr QLatin1StringView HistoryLength{"history_length"};
// true: an agent card asking for the key in the URL query or a cookie gets it there (default: the
// key stays in a header: the connection's style).
inline constexpr QLatin1StringView CardKeyInQueryOrCookie{"card_key_in_query_or_cookie"};
} // namespace A2aOption

// The registry's row of the A2A connector (registry.cpp).
ConnectorDescriptor a2aConnector();

} // namespace Runwatch
