// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

namespace Runwatch {

// runwatch.connections: saved connections and their keys (which store, what failed), never a
// key or a password.
// Debug lines are off by default: QT_LOGGING_RULES="runwatch.connections.debug=true" (README, "Logging").
Q_DECLARE_LOGGING_CATEGORY(lcConnections)

} // namespace Runwatch
