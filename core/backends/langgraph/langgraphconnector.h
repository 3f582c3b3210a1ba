// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/connector.h"

namespace Runwatch {

namespace LangGraphOption {
// "yes": deleting a run deletes its thread on the server (the conversation, every run on it).
inline constexpr QLatin1StringView DeleteThread{"delete_thread"};
} // namespace LangGraphOption

// The registry row of the LangGraph Agent Server connector (core/backends/registry.cpp).
ConnectorDescriptor langGraphConnector();

} // namespace Runwatch
