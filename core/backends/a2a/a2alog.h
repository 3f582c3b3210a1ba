// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

namespace Runwatch {

// runwatch.backend.a2a: the a2a connector's own log, declared in its folder like everything of it.
// It says what the connector asked the service for, never a key, a prompt or an answer.
// Debug lines are off by default: QT_LOGGING_RULES="runwatch.backend.a2a.debug=true" (README, "Logging").
Q_DECLARE_LOGGING_CATEGORY(lcA2a)

} // namespace Runwatch
