// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Configuration of the MCP simulator (McpSimulator): pace and poll interval of tasks, the bearer
// token it expects, the task store's session rule, the revisions it speaks, SSE framing, injected
// HTTP and stream faults, limits.
//
// Written from docs/protocols/mcp-tasks.md (shared/protocols) and the published packages it names
// (@modelcontextprotocol/sdk 1.32.2, @modelcontextprotocol/ext-tasks 0.2.2) only: this target never
// includes or links client code (runwatch_core), so that a misunderstanding of the protocol shared
// by client and simulator cannot hide.
//
// Tools, scenarios and per-call options: mcpsimoptions.h.

#include "server/httpmessage.h"
#include "server/simfaults.h"

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringView>

#include <optional>

namespace RunwatchSim {

// What a request is: the JSON-RPC method of a POST, or the HTTP method of a GET / DELETE. Aims
// HTTP faults and names requests in the log.
enum class McpEndpoint {
    Initialize,   // POST initialize
    Initialized,  // POST notifications/initialized
    Notification, // POST any other notification
    Response,     // POST a JSON-RPC response (an answer to the server's elicitation/create)
    Stream,       // GET /mcp: the session's standalone SSE stream
    Delete,       // DELETE /mcp: end the session
    Discover,     // POST server/discover (2026-07-28)
    ToolsList,    // POST tools/list
    ToolsCall,    // POST tools/call
    TasksGet,     // POST tasks/get
    TasksResult,  // POST tasks/result (2025-11-25)
    TasksCancel,  // POST tasks/cancel
    TasksList,    // POST tasks/list (2025-11-25)
    TasksUpdate,  // POST tasks/update (2026-07-28)
    Ping,         // POST ping
    Unknown,      // anything else
};

// "initialize", "initialized", "notification", "response", "stream", "delete", "server/discover",
// "tools/list", "tools/call", "tasks/get", "tasks/result", "tasks/cancel", "tasks/list",
// "tasks/update", "ping", "unknown".
QString mcpEndpointName(McpEndpoint endpoint);
std::optional<McpEndpoint> mcpEndpointFromName(QStringView name);
// The endpoint of a POSTed message: `method` of a request or notification; a response has none.
McpEndpoint mcpEndpointOfMethod(const QString &method, bool isResponse);

// Answer the first `count` requests to `endpoints` (empty: all) with `status` instead of serving
// them: a JSON-RPC error body ({"jsonrpc":"2.0","error":{"code":-32000,"message"},"id":null}), as
// the SDK's routing writes its own, or a proxy's HTML page; Retry-After when set.
struct McpHttpFault
{
    QSet<McpEndpoint> endpoints;
    int count = 1; // -1: every matching request
    int status = 429;
    int retryAfterSeconds = 1; // Retry-After; -1: none
    bool htmlBody = false;

    bool aimsAt(McpEndpoint endpoint) const { return endpoints.isEmpty() || endpoints.contains(endpoint); }
};

// "status=503,count=2,on=tasks/get+tasks/result,retry-after=1,body=html|json"; every key optional
// (the shared fault spec of server/simfaults.h).
std::optional<McpHttpFault> mcpHttpFaultFromSpec(QStringView spec, QString *error = nullptr);

struct McpSimConfig : ServerLimits
{
    // Authorization: Bearer T every request must carry; empty: none checked.
    QString bearerToken;
    int intervalMs = 20;      // pace of a task's steps
    int pollIntervalMs = 500; // the pollInterval a task advertises
    int steps = 6;            // steps (text pieces) of a task's work
    int longSteps = 3000;     // steps of long_job
    // If set, a task's pieces are its words in turn (the demo's prose) instead of tok<i>.
    QString replyText;
    // false: the SDK's InMemoryTaskStore (a task is visible only to the session that created it,
    // and to calls without a session); true: its session-free subclass (every task visible from
    // every session). Answers to input requests stay bound to the session either way.
    bool sessionFreeStore = false;
    // Also speak the 2026-07-28 revision (tasks as the io.modelcontextprotocol/tasks extension,
    // found by server/discover). false: a 2025-11-25 server only, as SDK 1.32.2.
    bool serve2026 = true;
    // The ttl of a 2026 task (the server decides there) and the largest a 2025 call may ask for.
    qint64 ttl2026Ms = 3600000; // [guessed]
    qint64 maxTtlMs = 86400000; // [guessed]
    // A session not used for this long is forgotten (then 404); -1: kept while the server runs.
    qint64 sessionIdleMs = -1;
    // An input request not answered within this is a failed task ("Request timed out", the SDK's
    // 60 s default when a server keeps it); -1: waits for ever.
    qint64 inputTimeoutMs = -1;
    QByteArray lineEnding = QByteArrayLiteral("\n"); // SSE line ending: "\n", "\r\n" or "\r"
    int splitWrites = 0;            // > 0: every SSE event goes out in pieces of this many bytes
    QList<McpHttpFault> httpFaults; // checked in order, after auth
    // Faults of tasks/result streams (the connections counted per task): connections,
    // dropAfterEvents, dropMode, malformedAt (an event's index on its stream), dripIntervalMs.
    StreamFaults streamFaults;
    int maxSessions = 1000; // at the cap, initialize forgets the least recently used session
    int maxTasks = 10000;
};

} // namespace RunwatchSim
