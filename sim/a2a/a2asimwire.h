// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the A2A simulator puts on the wire besides its tasks' own JSON: task states, JSON-RPC
// envelopes, messages, and the 1.0 → 0.3 shapes (§5.2) a 0.3 agent sends instead.

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace RunwatchSim {

// Task states in the 1.0 spelling.
namespace A2aState {
inline const QString Submitted = QStringLiteral("TASK_STATE_SUBMITTED");
inline const QString Working = QStringLiteral("TASK_STATE_WORKING");
inline const QString InputRequired = QStringLiteral("TASK_STATE_INPUT_REQUIRED");
inline const QString AuthRequired = QStringLiteral("TASK_STATE_AUTH_REQUIRED");
inline const QString Completed = QStringLiteral("TASK_STATE_COMPLETED");
inline const QString Failed = QStringLiteral("TASK_STATE_FAILED");
inline const QString Canceled = QStringLiteral("TASK_STATE_CANCELED");
inline const QString Rejected = QStringLiteral("TASK_STATE_REJECTED");
} // namespace A2aState

bool isTerminalA2aState(const QString &state);
// Waiting for the client: input or authorization required.
bool isInterruptedA2aState(const QString &state);

QString a2aUuid();
// Now, ISO 8601 UTC with milliseconds.
QString a2aTimestamp();

// {"jsonrpc":"2.0","id":…,"result":…}
QJsonObject rpcResultEnvelope(const QJsonValue &id, const QJsonValue &result);
// {"jsonrpc":"2.0","id":…,"error":{code,message}}, with a google.rpc.ErrorInfo `data` naming
// `reason` (1.0 style) when it is not empty.
QJsonObject rpcErrorEnvelope(const QJsonValue &id, int code, const QString &message, const QString &reason);

// The user's text, from 1.0 ({text}) or 0.3 ({kind:"text",text}) parts.
QString a2aMessageText(const QJsonObject &message);
// A client message in the 1.0 shape the simulator stores.
QJsonObject storedUserMessage(const QJsonObject &in, const QString &taskId, const QString &contextId);

// 1.0 → 0.3.
QJsonObject taskV03(const QJsonObject &task);
// A 1.0 StreamResponse / SendMessageResponse as 0.3 sends it: bare, `kind`-discriminated.
QJsonObject responseV03(const QJsonObject &response);

} // namespace RunwatchSim
