// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Payload shapes of MCP on the wire (docs/protocols/mcp-tasks.md, checked against the published
// @modelcontextprotocol/sdk 1.32.2 and ext-tasks 0.2.2): versions and _meta keys, ids and times,
// JSON-RPC messages and the SDK's error wording, tool results, the forms the tools ask with and
// how an answer is checked against them. A task's own JSON is McpSimTask::json2025() / json2026().

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QLatin1StringView>
#include <QString>
#include <QStringList>

namespace RunwatchSim {

inline constexpr QLatin1StringView kMcpVersion2025{"2025-11-25"};
inline constexpr QLatin1StringView kMcpVersion2026{"2026-07-28"};
inline constexpr QLatin1StringView kMcpRelatedTaskKey{"io.modelcontextprotocol/related-task"};
inline constexpr QLatin1StringView kMcpTasksExtension{"io.modelcontextprotocol/tasks"};
inline constexpr QLatin1StringView kMcpClientCapabilitiesKey{"io.modelcontextprotocol/clientCapabilities"};
inline constexpr QLatin1StringView kMcpProtocolVersionKey{"io.modelcontextprotocol/protocolVersion"};
inline constexpr QLatin1StringView kMcpServerInfoKey{"io.modelcontextprotocol/serverInfo"};

// What `initialize` negotiates and the MCP-Protocol-Version header may name (the SDK's
// SUPPORTED_PROTOCOL_VERSIONS, newest first).
const QStringList &mcpSupportedVersions();

qint64 mcpNowMs();
// "2026-11-27T20:37:27.831Z": ISO-8601 in UTC with milliseconds, as the SDK's task store writes it.
QString mcpTime(qint64 epochMs);
// 32 lower-case hex digits (16 random bytes), as the SDK's task ids.
QString newMcpTaskId();
// A UUID, as the SDK example's sessionIdGenerator (randomUUID).
QString newMcpSessionId();

// JSON-RPC 2.0 messages. `id` undefined is written as null (the SDK's transport-level errors).
QJsonObject mcpResultMessage(const QJsonValue &id, const QJsonObject &result);
QJsonObject mcpErrorMessage(const QJsonValue &id, int code, const QString &message);
QJsonObject mcpNotificationMessage(const QString &method, const QJsonObject &params);
QJsonObject mcpRequestMessage(qint64 id, const QString &method, const QJsonObject &params);
// "MCP error <code>: <message>": the SDK's McpError puts this before every message it throws, and
// the wire carries it (observed: "MCP error -32602: Failed to retrieve task: Task not found").
QString mcpErrorText(int code, const QString &message);

// JSON-RPC error codes the SDK uses.
enum McpErrorCode {
    kMcpParseError = -32700,
    kMcpInvalidRequest = -32600,
    kMcpMethodNotFound = -32601,
    kMcpInvalidParams = -32602,
    kMcpInternalError = -32603,
    kMcpConnectionClosed = -32000,  // also the routing's "Bad Request" errors
    kMcpRequestTimeout = -32001,    // also the routing's "Session not found"
    kMcpExtensionRequired = -32021, // 2026: a task method without the tasks extension declared
};

// {"content":[{"type":"text","text"}], "isError"?}.
QJsonObject mcpTextResult(const QString &text, bool isError = false);
// The text content items of a CallToolResult, joined.
QString mcpResultText(const QJsonObject &callToolResult);
// {"io.modelcontextprotocol/related-task":{"taskId"}}, to merge into a `_meta`.
QJsonObject mcpRelatedTaskMeta(const QString &taskId);
// What the SDK server answers a task call its tool cannot turn into a task (a forbidden or unknown
// tool, invalid arguments): zod's dump of the CreateTaskResult check, as observed.
QString mcpInvalidTaskCreationText();

QJsonObject mcpServerInfo();
// initialize's capabilities: tools and tasks {list, cancel, requests.tools.call}.
QJsonObject mcpServerCapabilities2025();
// server/discover's capabilities: tools and the tasks extension.
QJsonObject mcpServerCapabilities2026();

// The forms the tools ask with (a flat object of primitive properties and `required`).
QJsonObject mcpApprovalSchema();
QJsonObject mcpQuestionSchema();
// Why `value` does not fit the object `schema` (required keys; string with enum, boolean, number,
// integer with minimum / maximum), or empty.
QString mcpCheckAgainstSchema(const QJsonObject &schema, const QJsonObject &value);

} // namespace RunwatchSim
