// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The tools of the MCP simulator and the options of one call: the simulator's config, overridden
// by `key=value` words of the call's `topic` argument (as the other simulators read words of a
// prompt) and by its typed `steps` argument.
//
// TOOLS (tools/list; execution.taskSupport in brackets):
//   write      [required]  N steps, each a status message ("Writing part i of N"), a progress
//                          notification (when the call gave a progressToken) and a piece of the
//                          text; completed with the pieces as one text content, structuredContent
//                          {topic, parts}.
//   approve    [required]  a step, then input_required and a form elicitation (boolean approve,
//                          string reason, enum priority, number budget; approve required); accept
//                          → the rest of the steps, the text starting "Approved …"; decline /
//                          cancel → the tool finishes normally, "Declined." / "Cancelled.".
//   ask        [required]  the same with one string field, answer ("Answer: <answer>. …").
//   sign_in    [required]  a URL-mode elicitation (needs capabilities.elicitation.url).
//   fail       [required]  fail_after steps, then failed: the status message stays the last
//                          working one, the error text is only in tasks/result (isError).
//                          fail_mode=status: failed with only a status message (tasks/result →
//                          -32603 "has no result stored").
//   long_job   [required]  write with --long-steps steps (for cancel).
//   summarize  [optional]  write with half the steps; without params.task the call blocks and
//                          returns the result itself (the SDK's automatic polling).
//   echo       [forbidden] a plain tool: returns its `text` at once.
// Piece i (0-based) is "tok<i>" plus one of "", "é", "日本", "🎉" (by i % 4) and a space, or the
// reply words in turn: the text of a task is known from its options alone (mcpPieceText).
//
// PER-CALL OPTIONS, `key=value` words of `topic`:
//   steps, interval_ms, poll_ms, ask_after (steps before asking), fail_after, fail_mode
//   (result|status), input_timeout_ms, lose_session=1 (the server forgets the calling session
//   right after answering the call: 404 from then on), split, line_ending (lf|crlf|cr),
//   stream faults of the task's tasks/result streams: fault_connections, drop_after, drop_mode
//   (close|reset|mid), malformed_at, drip_ms; HTTP faults on requests naming the task:
//   http_error_status, http_error_count, http_error_on (tasks/get+tasks/result+…), retry_after.
// A bad value is an isError tool result (-32602 for a task call, as the SDK's input validation).

#include "mcpsimconfig.h"

#include "server/simoptions.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace RunwatchSim {

enum class McpTool { Write, Approve, Ask, SignIn, Fail, LongJob, Summarize, Echo };
enum class McpTaskSupport { Required, Optional, Forbidden };

QString mcpToolName(McpTool tool);
std::optional<McpTool> mcpToolFromName(QStringView name);
McpTaskSupport mcpTaskSupport(McpTool tool);
// "required", "optional", "forbidden".
QString mcpTaskSupportName(McpTaskSupport support);
// tools/list's `tools`: name, title, description, inputSchema (JSON Schema draft-07, as the SDK
// writes it), execution.taskSupport.
QJsonArray mcpToolsJson();
// One tool's inputSchema.
QJsonObject mcpToolInputSchema(McpTool tool);

struct McpCallOptions
{
    int steps = 6;
    int intervalMs = 20;
    int pollIntervalMs = 500;
    int askAfter = 1;
    int failAfter = 3;
    bool failStatusOnly = false;
    qint64 inputTimeoutMs = -1;
    bool loseSession = false;
    QStringList replyWords; // McpSimConfig::replyText's words; empty: tok<i>
    QByteArray lineEnding = QByteArrayLiteral("\n");
    int splitWrites = 0;
    StreamFaults streamFaults;
    std::optional<McpHttpFault> httpFault; // aimed at requests naming this task
};

// Later wins: config, the tool's defaults, the `steps` argument, words of the `topic` argument.
std::optional<SimOptionError> resolveCallOptions(const McpSimConfig &config, McpTool tool,
                                                 const QJsonObject &arguments, McpCallOptions *options);

// Checks `arguments` against the tool's inputSchema (required keys, primitive types, ranges):
// empty when they fit, else why not.
QString mcpCheckArguments(McpTool tool, const QJsonObject &arguments);

// The text of piece `index`: "tok<i>" + one of "", "é", "日本", "🎉" + " "; with reply words,
// word index (mod their number) + " ".
QString mcpPieceText(int index, const QStringList &replyWords = {});

// The tool and option documentation above, for --help.
QString mcpOptionsHelpText();

} // namespace RunwatchSim
