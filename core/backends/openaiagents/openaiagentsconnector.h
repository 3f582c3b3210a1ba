// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/connector.h"

namespace Runwatch {

// The options of an OpenAI Agents API connection.
namespace OpenAiAgentsOption {
// The environment new sessions run in (the create call's `environment`): "none" (the default), or
// the JSON of an environment object ({"type":"openai_hosted", …}).
inline constexpr QLatin1StringView Environment{"environment"};
} // namespace OpenAiAgentsOption

// The registry row of the OpenAI Agents API connector (core/backends/registry.cpp).
ConnectorDescriptor openAiAgentsConnector();

} // namespace Runwatch
