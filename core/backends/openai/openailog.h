// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

namespace Runwatch {

// runwatch.backend.openai: the openai connector's own log, declared in its folder like everything of it.
// It says what the connector asked the service for, never a key, a prompt or an answer.
// Debug lines are off by default: QT_LOGGING_RULES="runwatch.backend.openai.debug=true" (README, "Logging").
Q_DECLARE_LOGGING_CATEGORY(lcOpenAi)

} // namespace Runwatch
