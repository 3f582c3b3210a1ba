// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

namespace Runwatch {

// runwatch.ui: the desktop app (widgets, notifications, the screenshot plan). Its info lines
// are on by default, as the plain qInfo() they replace were.
// Debug lines are off by default: QT_LOGGING_RULES="runwatch.ui.debug=true" (README, "Logging").
Q_DECLARE_LOGGING_CATEGORY(lcUi)

} // namespace Runwatch
