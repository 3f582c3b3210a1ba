// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

namespace Runwatch {

// runwatch.backend.openai-agents: the OpenAI Agents API connector's own log. It says what the
// connector asked the sessions API for, never a key, a prompt or an answer.
// Debug lines are off by default: QT_LOGGING_RULES="runwatch.backend.openai-agents.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcOpenAiAgents)

} // namespace Runwatch
