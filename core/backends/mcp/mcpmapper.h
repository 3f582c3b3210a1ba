// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/runbackend.h"

#include <QByteArrayView>
#include <QJsonArray>
#include <QJsonObject>

#include <optional>

namespace Runwatch::Mcp {

// MCP tasks, revision 2025-11-25 (docs: shared/protocols/mcp-tasks.md §2–§6), mapped to RunEvents;
// McpBackend (mcpbackend.h) is the connector, mcpmapper2026.h the 2026-07-28 extension's mapping.

inline constexpr QLatin1StringView kRevision2025{"2025-11-25"};
inline constexpr QLatin1StringView kRevision2026{"2026-07-28"};

// The continuation token's extra: what a later process needs to go on with a task. A task is
// bound to the session that created it (the SDK's default store), and so is an elicitation.
inline constexpr QLatin1StringView kSessionId{"session_id"};
inline constexpr QLatin1StringView kProtocolVersion{"protocol_version"};
inline constexpr QLatin1StringView kTool{"tool"};
inline constexpr QLatin1StringView kTtlMs{"ttl_ms"};
inline constexpr QLatin1StringView kPollIntervalMs{"poll_interval_ms"};
inline constexpr QLatin1StringView kCreatedAt{"created_at"};
// The pending elicitation: {"id": the server's request id, "params", "session"}. Delivered once by
// the server (§5): once it is here, tasks/result is never asked for it again.
inline constexpr QLatin1StringView kElicitation{"elicitation"};
// The items the mapping writes.
inline constexpr QLatin1StringView kStatusItem{"status"};
inline constexpr QLatin1StringView kProgressItem{"progress"};
inline constexpr QLatin1StringView kStructuredItem{"structured_content"};
inline constexpr QLatin1StringView kTtlItem{"ttl"};

// One JSON-RPC 2.0 message as it arrived. A request or notification has a method; a response a
// result or an error; anything else is Invalid (never trusted, never fatal).
struct Message
{
    enum class Kind { Invalid, Request, Notification, Result, Error };
    Kind kind = Kind::Invalid;
    QJsonValue id; // requests and responses (a number or a string)
    QString method;
    QJsonObject params;
    QJsonValue result;
    qint64 errorCode = 0;
    QString errorMessage;
};
Message parseMessage(const QJsonObject &object);
// A JSON text: one message, or a batch (an array) of them.
QList<Message> parseMessages(QByteArrayView json);

// The RunError of a JSON-RPC error reply: code as text, the server's message; Client for a request
// the server refused (-32600…-32602), Server for an internal error, NotFound for "Task not found".
RunError rpcError(qint64 code, const QString &message);

// The unified status of a task status (§4); Unknown for anything else.
RunStatus runStatusFor(QStringView status);
bool isTerminalTaskStatus(QStringView status);

// What a Task object (tools/call's result.task, tasks/get, tasks/cancel, tasks/list) says: its
// statusMessage as the "status" progress item (it goes stale, §4: never the answer or the error)
// and its status. `elicitationKnown`: an input_required task whose request this run holds; without
// it the run is still working as far as the operator can tell (the request is to be collected).
QList<RunEvent> taskEvents(const QJsonObject &task, bool elicitationKnown = true);

// The text of a CallToolResult: its text content items, joined as they are.
QString resultText(const QJsonObject &callToolResult);

// A tasks/result reply for a task that ended `status` (completed or failed; §4): the answer as a
// primary snapshot (completed), structuredContent kept as an item, and for a failure (or an
// isError result) the error: the result text, else `statusMessage`, else a generic line.
QList<RunEvent> resultEvents(const QJsonObject &callToolResult, QStringView status,
                             const QString &statusMessage = {});

// notifications/progress ({progressToken, progress, total?, message?}) as the "progress" item.
std::optional<RunEvent> progressEvent(const QJsonObject &params);

// What an elicitation/create request (§5) asks: form mode → a Question with the requested schema
// (the Respond panel's typed form), url mode → Auth with the URL to open. raw keeps the request
// (id, params, session) for respond().
InputRequest inputRequestFor(const QJsonValue &requestId, const QJsonObject &params,
                             const QString &sessionId);
// The stored elicitation (kElicitation) of a token's extra as the run's request; nullopt when none.
std::optional<InputRequest> storedInputRequest(const QJsonObject &tokenExtra);
// The token extra's kElicitation entry for a request.
QJsonObject elicitationEntry(const QJsonValue &requestId, const QJsonObject &params,
                             const QString &sessionId);

// The ElicitResult answering `request` (§5): Value → accept with that object; Text → accept with
// the one string field of the form; Approve → accept (a URL, or a form whose defaults fill it);
// Reject → decline; Choice "accept"/"decline"/"cancel". nullopt with *problem when it does not fit.
std::optional<QJsonObject> elicitResult(const InputRequest &request, const InputAnswer &answer,
                                        QString *problem);

// tools/list: a tool's execution.taskSupport ("forbidden" when the tool says nothing, as the spec
// reads it), and the tool as a catalog entry (id and name the tool name, its description, its
// inputSchema, task_support for runwatch-cli agents).
QString taskSupportOf(const QJsonObject &tool);
CatalogEntry catalogEntryFor(const QJsonObject &tool);

// A tasks/list entry as a remote run (title: its statusMessage).
RemoteRunInfo remoteRunFor(const QJsonObject &task);

// The CreateTaskResult's task (`result.task`), empty when the result holds none.
QJsonObject createdTask(const QJsonValue &result);

// The token extra a task's identity carries: session and version, tool, ttl, poll interval, creation.
QJsonObject taskExtra(const QJsonObject &task);

// The item that says how long the server keeps the task: MCP has no delete (§6).
RunEvent ttlEvent(qint64 ttlMs);

} // namespace Runwatch::Mcp
