// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

namespace RunwatchSim {

// runwatch.sim: the simulators (every routed request at debug level; --verbose keeps its own
// one-line-per-answer format on stderr).
// Debug lines are off by default: QT_LOGGING_RULES="runwatch.sim.debug=true" (README, "Logging").
Q_DECLARE_LOGGING_CATEGORY(lcSim)

} // namespace RunwatchSim
