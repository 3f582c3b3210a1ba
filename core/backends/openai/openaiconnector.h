// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/connector.h"

namespace Runwatch {

// The options of an OpenAI Responses connection (OpenAI, Azure OpenAI, compatible servers).
namespace OpenAiOption {
inline constexpr QLatin1StringView Organization{"organization"}; // OpenAI-Organization header
inline constexpr QLatin1StringView Project{"project"};           // OpenAI-Project header
inline constexpr QLatin1StringView ApiVersion{"api_version"};    // ?api-version= (Azure)
inline constexpr QLatin1StringView MaxEventBytes{"max_event_bytes"};
} // namespace OpenAiOption

// The registry's row of the OpenAI Responses connector (registry.cpp).
ConnectorDescriptor openAiConnector();

} // namespace Runwatch
