// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/connector.h"

namespace Runwatch {

// The options of a jobs API connection.
namespace JobsOption {
inline constexpr QLatin1StringView ProfileFile{"profile_file"}; // the connection profile (a JSON file)
inline constexpr QLatin1StringView Profile{"profile"};          // the profile inline (a JSON object)
} // namespace JobsOption

// The registry's row of the generic jobs API connector (registry.cpp).
ConnectorDescriptor jobsConnector();

} // namespace Runwatch
