// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runevent.h"

#include <QJsonObject>
#include <QStringList>

namespace Runwatch::Mcp2026 {

// The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, shared/protocols/mcp-tasks.md §9)
// mapped to RunEvents. No official server implements it yet: this path is written from the spec
// and proven against runwatch-sim only. What differs from 2025-11-25 (mcpmapper.h):
// - tools/call carries no `task`; the server answers a flat task ({resultType:"task", taskId,
//   status, ttlMs, pollIntervalMs, …}) or a plain result;
// - tasks/get returns the result inline (completed), a JSON-RPC error (failed) and the open input
//   requests ({key: {method:"elicitation/create", params}}, repeated until answered);
// - an answer is tasks/update {taskId, inputResponses:{key: ElicitResult}}, from any process;
// - no sessions, no tasks/result, no tasks/list.

// The token extra's list of input keys already answered (the server repeats a request until it
// has taken the answer, which is eventual).
inline constexpr QLatin1StringView kAnsweredKeys{"answered_input_keys"};

// Whether a tools/call result is a task ({resultType:"task"}) rather than the tool's result.
bool isTask(const QJsonObject &result);
// The task of a tasks/get or tools/call reply: the reply itself, or its `task` member.
QJsonObject taskOf(const QJsonObject &result);
// The token extra of a task: ttl, poll interval, creation time (the 2025 keys, from the 2026 names).
QJsonObject taskExtra(const QJsonObject &task);
// A DetailedTask as events: the status line, and by status the inline result (completed, with
// isError a failure), the error (failed), or the first input request whose key is not in
// `answered` (input_required; with none left the run shows working until the server moves on).
QList<RunEvent> detailedTaskEvents(const QJsonObject &task, const QStringList &answered);
// tasks/update's params answering input `key` with an ElicitResult.
QJsonObject updateParams(const QString &taskId, const QString &key, const QJsonObject &elicitResult);
// The input key an InputRequest made by detailedTaskEvents() answers (or one read back from the
// token, whose stored id is the key); empty for a 2025 request.
QString inputKeyOf(const InputRequest &request);
// `events` (of detailedTaskEvents()) with the input request they carry stored with the run first
// (token extra, as a 2025 elicitation is), so that respond() finds it in any process.
QList<RunEvent> withStoredRequest(const QString &taskId, QList<RunEvent> events);

} // namespace Runwatch::Mcp2026
