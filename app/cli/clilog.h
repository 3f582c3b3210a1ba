// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

namespace Runwatch::Cli {

// runwatch.cli: the command line's diagnostics, on stderr beside the command's own output
// (which is never logging: scripts parse it).
// Debug lines are off by default: QT_LOGGING_RULES="runwatch.cli.debug=true" (README, "Logging").
Q_DECLARE_LOGGING_CATEGORY(lcCli)

} // namespace Runwatch::Cli
