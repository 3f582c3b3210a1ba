// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/connector.h"

namespace RunwatchTest {

// A connector that lives in tests/ only: proof that a connector is one folder and one registry
// row. registerEchoConnector() adds its row; nothing else in the product learns of it, yet
// runwatch-cli lists and validates it and the Connections dialog shows its options.
namespace EchoOption {
inline constexpr QLatin1StringView Depth{"echo_depth"};   // 1–9, checked by the row
inline constexpr QLatin1StringView Script{"echo_script"}; // a file
} // namespace EchoOption

Runwatch::ConnectorDescriptor echoConnector();
void registerEchoConnector();

} // namespace RunwatchTest
