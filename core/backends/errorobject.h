// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runerror.h"

#include <QJsonObject>

namespace Runwatch {

// Reads the error object of OpenAI-compatible services ({"code", "message", "type", "param"}),
// flat or nested under "error": the Responses API and Foundry's Agent Service (in HTTP bodies and
// in a run's last_error) send the same one. server_error and rate_limit_exceeded are retryable.
RunError mapErrorObject(const QJsonObject &object, ErrorKind kind);

} // namespace Runwatch
