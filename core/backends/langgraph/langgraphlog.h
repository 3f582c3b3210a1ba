// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

namespace Runwatch {

// runwatch.backend.langgraph: the LangGraph connector's own log. It says what the connector asked
// the Agent Server for, never a key, a prompt or an answer.
// Debug lines are off by default: QT_LOGGING_RULES="runwatch.backend.langgraph.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcLangGraph)

} // namespace Runwatch
