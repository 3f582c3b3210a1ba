// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

namespace Runwatch {

// runwatch.backend.mcp: the MCP connector's own log. It says which requests went to the server and
// on which session, never a key, a tool's arguments or a result.
// Debug lines are off by default: QT_LOGGING_RULES="runwatch.backend.mcp.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcMcp)

} // namespace Runwatch
