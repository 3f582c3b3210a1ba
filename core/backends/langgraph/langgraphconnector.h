// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/connector.h"

namespace Runwatch {

// The registry row of the LangGraph Agent Server connector (core/backends/registry.cpp).
ConnectorDescriptor langGraphConnector();

} // namespace Runwatch
