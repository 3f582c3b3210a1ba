// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Payload shapes of the Claude Managed Agents simulator on the wire (@anthropic-ai/sdk 1.14.0's
// types): ids, errors, agents, environments, pages.

#include "claudeagentssimconfig.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace RunwatchSim {

struct HttpRequest;

// "<prefix>011" + a counter in base 36, unique in the process: sesn_…, sevt_….
QString newClaudeAgentsId(QStringView prefix);
// The time now as the API writes it (RFC 3339, UTC, milliseconds).
QString claudeAgentsNow();

// {type:"error", error:{type, message}, request_id}; the type from the status (400
// invalid_request_error, 401 authentication_error, 403 permission_error, 404 not_found_error, 409
// conflict_error? — 429 rate_limit_error, 529 overloaded_error, other 5xx api_error).
QJsonObject claudeAgentsErrorJson(int status, const QString &message);

QJsonObject claudeAgentsAgentJson(const ClaudeAgentsSimAgent &agent);
QJsonObject claudeAgentsEnvironmentJson(const QString &id);

// One page of `all` for `request` (limit, page): {data, next_page} (+ prev_page when `bidirectional`).
// The page token is opaque (an offset, encoded). nullopt and *error for a bad limit or page.
std::optional<QJsonObject> claudeAgentsPage(const QJsonArray &all, const HttpRequest &request,
                                            int defaultLimit, int maxLimit, bool bidirectional,
                                            QString *error);

} // namespace RunwatchSim
