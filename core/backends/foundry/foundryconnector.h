// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/connector.h"

namespace Runwatch {

// The options of an Azure AI Foundry Agent Service connection.
namespace FoundryOption {
inline constexpr QLatin1StringView ApiVersion{"api_version"}; // ?api-version= (default 2025-05-01)
} // namespace FoundryOption

// The registry's row of the Foundry Agent Service (classic threads/runs) connector (registry.cpp).
ConnectorDescriptor foundryConnector();

} // namespace Runwatch
