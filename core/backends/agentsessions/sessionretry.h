// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "net/httpmessage.h"

#include <array>
#include <chrono>

namespace Runwatch::AgentSessions {

// An answer sent before the service registered its call is refused; the SDKs' helpers send it
// again after 100, 300 and 600 ms (agent-sessions.md §1.5).
inline constexpr std::array<std::chrono::milliseconds, 3> kUnregisteredRetries{
    std::chrono::milliseconds(100), std::chrono::milliseconds(300), std::chrono::milliseconds(600)};

// Whether `response` is that refusal (400 "Unknown pending tool call: …", or a "not yet
// registered" wording).
bool isUnregisteredCall(const HttpResponse &response);

// How long a delete waits for a cancelled session to stop running, asking every 250 ms: both APIs
// refuse to delete a session while it runs.
inline constexpr int kStopChecks = 40;
inline constexpr std::chrono::milliseconds kStopCheckEvery{250};

} // namespace Runwatch::AgentSessions
