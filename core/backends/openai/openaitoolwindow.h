// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runerror.h"

#include <QDateTime>
#include <QJsonObject>

namespace Runwatch::OpenAi {

// A Foundry agent's tool calls are answered within the service's window: "Runs expire 10 minutes
// after creation. Submit your tool outputs before they expire." (foundry-agents-and-gemini.md
// §1.6). Plain OpenAI states no such window.
inline constexpr qint64 kAgentToolWindowSecs = 600;

// When the window of a response that waits for tool calls ends: its created_at plus the window,
// for a response on an agent (agent_reference); invalid for any other response, or one without a
// readable created_at.
QDateTime agentToolWindowEnd(const QJsonObject &response);

// The run's error once that window has passed unanswered.
RunError agentToolWindowExpired();

} // namespace Runwatch::OpenAi
