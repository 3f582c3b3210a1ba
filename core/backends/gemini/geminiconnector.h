// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/connector.h"

namespace Runwatch {

// The options of a Gemini connection (the Interactions API).
namespace GeminiOption {
// The version in every request's path: v1beta (the REST reference's, the default) or v1 (the
// default of @google/genai 3.x). The same key and flag as the OpenAI connection's ?api-version=.
inline constexpr QLatin1StringView ApiVersion{"api_version"};
} // namespace GeminiOption

// The registry row of the Gemini Interactions connector (core/backends/registry.cpp).
ConnectorDescriptor geminiConnector();

} // namespace Runwatch
