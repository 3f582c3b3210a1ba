// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

namespace Runwatch {

// runwatch.backend.gemini: the Gemini connector's own log. It says what the connector asked the
// Interactions API for, never a key, a prompt or an answer.
// Debug lines are off by default: QT_LOGGING_RULES="runwatch.backend.gemini.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcGemini)

} // namespace Runwatch
