// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/connector.h"

namespace Runwatch {

namespace McpOption {
// An MCP session to join instead of opening one (its Mcp-Session-Id): with the SDK's default task
// store a task is visible only from the session that created it, so attaching a task another
// client started, or listing its tasks, needs that client's session.
inline constexpr QLatin1StringView SessionId{"session_id"};
// The revision a new session speaks: auto (2026-07-28 where server/discover answers, else
// 2025-11-25), or one of the two.
inline constexpr QLatin1StringView ProtocolVersion{"protocol_version"};
} // namespace McpOption

// The registry row of the MCP tasks connector (core/backends/registry.cpp).
ConnectorDescriptor mcpConnector();

} // namespace Runwatch
