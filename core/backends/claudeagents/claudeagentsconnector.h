// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/connector.h"

namespace Runwatch {

// The options of a Claude Managed Agents connection.
namespace ClaudeAgentsOption {
// The environment (environment_id) new sessions run in; empty: the account's first environment.
inline constexpr QLatin1StringView Environment{"environment"};
} // namespace ClaudeAgentsOption

// The registry row of the Claude Managed Agents connector (core/backends/registry.cpp).
ConnectorDescriptor claudeAgentsConnector();

} // namespace Runwatch
