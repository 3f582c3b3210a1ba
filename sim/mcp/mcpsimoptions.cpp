// SPDX-License-Identifier: GPL-3.0-or-later
#include "mcpsimoptions.h"

#include "mcpsimwire.h"
#include "server/simnames.h"

#include <limits>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

constexpr qint64 kMaxSteps = 10000000;
constexpr qint64 kMaxIntervalMs = 3600 * 1000;

const std::array kTools{
    std::pair{McpTool::Write, "write"_L1},
    std::pair{McpTool::Approve, "approve"_L1},
    std::pair{McpTool::Ask, "ask"_L1},
    std::pair{McpTool::SignIn, "sign_in"_L1},
    std::pair{McpTool::Fail, "fail"_L1},
    std::pair{McpTool::LongJob, "long_job"_L1},
    std::pair{McpTool::Summarize, "summarize"_L1},
    std::pair{McpTool::Echo, "echo"_L1},
};

const std::array kTaskSupport{
    std::pair{McpTaskSupport::Required, "required"_L1},
    std::pair{McpTaskSupport::Optional, "optional"_L1},
    std::pair{McpTaskSupport::Forbidden, "forbidden"_L1},
};

const QStringList &optionKeys()
{
    static const QStringList keys{
        u"steps"_s,
        u"interval_ms"_s,
        u"poll_ms"_s,
        u"ask_after"_s,
        u"fail_after"_s,
        u"fail_mode"_s,
        u"input_timeout_ms"_s,
        u"lose_session"_s,
        u"split"_s,
        u"line_ending"_s,
        u"fault_connections"_s,
        u"drop_after"_s,
        u"drop_mode"_s,
        u"malformed_at"_s,
        u"drip_ms"_s,
        u"http_error_status"_s,
        u"http_error_count"_s,
        u"http_error_on"_s,
        u"retry_after"_s,
    };
    return keys;
}

bool noScenario(QStringView)
{
    return false;
}

QJsonObject stringProperty(const QString &title, const QString &description)
{
    return QJsonObject{{u"type"_s, u"string"_s}, {u"title"_s, title}, {u"description"_s, description}};
}

// The SDK writes a tool's inputSchema as draft-07 JSON Schema (zod-to-json-schema).
QJsonObject inputSchema(const QJsonObject &properties, const QStringList &required)
{
    return QJsonObject{{u"$schema"_s, u"http://json-schema.org/draft-07/schema#"_s},
                       {u"type"_s, u"object"_s},
                       {u"properties"_s, properties},
                       {u"required"_s, QJsonArray::fromStringList(required)}};
}

QJsonObject topicSchema(bool withSteps)
{
    QJsonObject properties{
        {u"topic"_s, stringProperty(u"Topic"_s, u"What the tool works on; key=value words set simulator "
                                                u"options (runwatch-sim --help)"_s)}};
    if (withSteps) {
        properties.insert(u"steps"_s, QJsonObject{{u"type"_s, u"integer"_s},
                                                  {u"title"_s, u"Steps"_s},
                                                  {u"description"_s, u"How many pieces the text has"_s},
                                                  {u"minimum"_s, 1},
                                                  {u"maximum"_s, 100000}});
    }
    return inputSchema(properties, {u"topic"_s});
}

struct ToolText
{
    McpTool tool;
    const char16_t *title;
    const char16_t *description;
};

const ToolText kToolTexts[] = {
    {McpTool::Write, u"Write a report",
     u"Writes a short report on a topic, piece by piece, with status messages "
     u"and progress."},
    {McpTool::Approve, u"Ask for approval",
     u"Asks for approval (a form: approve, reason, priority, budget), "
     u"then writes the report."},
    {McpTool::Ask, u"Ask a question",
     u"Asks one question (a form with one text field), then writes the report."},
    {McpTool::SignIn, u"Sign in",
     u"Asks the user to open a sign-in page (URL elicitation), then writes the "
     u"report."},
    {McpTool::Fail, u"Fail", u"Works a few steps, then fails; the error is in the task's result."},
    {McpTool::LongJob, u"Long job", u"Writes for a long time (for cancel)."},
    {McpTool::Summarize, u"Summarize", u"A short report; runs as a task or, without one, blocks until done."},
    {McpTool::Echo, u"Echo", u"A plain tool: returns its text at once. Cannot run as a task."},
};

} // namespace

QString mcpToolName(McpTool tool)
{
    return nameOfValue(kTools, tool);
}

std::optional<McpTool> mcpToolFromName(QStringView name)
{
    return valueOfName(kTools, name, Qt::CaseSensitive);
}

McpTaskSupport mcpTaskSupport(McpTool tool)
{
    switch (tool) {
    case McpTool::Summarize:
        return McpTaskSupport::Optional;
    case McpTool::Echo:
        return McpTaskSupport::Forbidden;
    default:
        return McpTaskSupport::Required;
    }
}

QString mcpTaskSupportName(McpTaskSupport support)
{
    return nameOfValue(kTaskSupport, support);
}

QJsonObject mcpToolInputSchema(McpTool tool)
{
    switch (tool) {
    case McpTool::Write:
    case McpTool::LongJob:
    case McpTool::Summarize:
        return topicSchema(true);
    case McpTool::Echo:
        return inputSchema(QJsonObject{{u"text"_s, stringProperty(u"Text"_s, u"What to return"_s)}},
                           {u"text"_s});
    default:
        return topicSchema(false);
    }
}

QJsonArray mcpToolsJson()
{
    QJsonArray tools;
    for (const ToolText &text : kToolTexts) {
        tools.append(
            QJsonObject{{u"name"_s, mcpToolName(text.tool)},
                        {u"title"_s, QString::fromUtf16(text.title)},
                        {u"description"_s, QString::fromUtf16(text.description)},
                        {u"inputSchema"_s, mcpToolInputSchema(text.tool)},
                        {u"execution"_s,
                         QJsonObject{{u"taskSupport"_s, mcpTaskSupportName(mcpTaskSupport(text.tool))}}}});
    }
    return tools;
}

QString mcpCheckArguments(McpTool tool, const QJsonObject &arguments)
{
    return mcpCheckAgainstSchema(mcpToolInputSchema(tool), arguments);
}

QString mcpPieceText(int index, const QStringList &replyWords)
{
    if (!replyWords.isEmpty())
        return replyWords.at(index % replyWords.size()) + u' ';
    // Multi-byte words on purpose: a client that splits UTF-8 at chunk borders shows it.
    static const QStringList suffixes{u""_s, u"é"_s, u"日本"_s, u"🎉"_s};
    return u"tok%1"_s.arg(index) + suffixes.at(index % suffixes.size()) + u' ';
}

std::optional<SimOptionError> resolveCallOptions(const McpSimConfig &config, McpTool tool,
                                                 const QJsonObject &arguments, McpCallOptions *options)
{
    McpCallOptions o;
    o.steps = tool == McpTool::LongJob     ? config.longSteps
              : tool == McpTool::Summarize ? qMax(1, config.steps / 2)
                                           : config.steps;
    o.intervalMs = config.intervalMs;
    o.pollIntervalMs = config.pollIntervalMs;
    o.inputTimeoutMs = config.inputTimeoutMs;
    o.lineEnding = config.lineEnding;
    o.splitWrites = config.splitWrites;
    o.streamFaults = config.streamFaults;
    o.replyWords = config.replyText.split(u' ', Qt::SkipEmptyParts);
    if (arguments.value("steps"_L1).isDouble())
        o.steps = arguments.value("steps"_L1).toInt();

    const SimOptionValues raw(arguments.value("topic"_L1).toString(), QJsonObject(), optionKeys(),
                              &noScenario);
    std::optional<SimOptionError> error;
    if ((error = raw.integer(u"steps"_s, 1, kMaxSteps, &o.steps))
        || (error = raw.integer(u"interval_ms"_s, 0, kMaxIntervalMs, &o.intervalMs))
        || (error = raw.integer(u"poll_ms"_s, 1, kMaxIntervalMs, &o.pollIntervalMs))
        || (error
            = raw.integer(u"input_timeout_ms"_s, -1, std::numeric_limits<qint64>::max(), &o.inputTimeoutMs))
        || (error = raw.integer(u"split"_s, 0, 1 << 20, &o.splitWrites))
        || (error = raw.boolean(u"lose_session"_s, &o.loseSession)))
        return error;
    o.askAfter = qMin(1, o.steps);
    o.failAfter = o.steps / 2;
    if ((error = raw.integer(u"ask_after"_s, 0, o.steps, &o.askAfter))
        || (error = raw.integer(u"fail_after"_s, 0, o.steps, &o.failAfter)))
        return error;
    if (raw.contains(u"fail_mode"_s)) {
        const QString mode = raw.value(u"fail_mode"_s).toLower();
        if (mode != "result"_L1 && mode != "status"_L1)
            return SimOptionValues::bad(u"fail_mode"_s, u"expected result or status"_s);
        o.failStatusOnly = mode == "status"_L1;
    }
    if ((error = raw.lineEnding(&o.lineEnding)))
        return error;
    if ((error = raw.streamFaults(&o.streamFaults)))
        return error;

    if (raw.contains(u"http_error_status"_s) || raw.contains(u"http_error_count"_s)
        || raw.contains(u"http_error_on"_s)) {
        McpHttpFault fault;
        fault.endpoints = {McpEndpoint::TasksGet, McpEndpoint::TasksResult};
        if ((error = raw.integer(u"http_error_status"_s, 100, 599, &fault.status))
            || (error = raw.integer(u"http_error_count"_s, -1, 1000000, &fault.count))
            || (error = raw.integer(u"retry_after"_s, -1, 86400, &fault.retryAfterSeconds)))
            return error;
        if (raw.contains(u"http_error_on"_s)) {
            const auto parsed
                = mcpHttpFaultFromSpec(QString(u"on="_s + raw.value(u"http_error_on"_s).replace(u',', u'+')));
            if (!parsed) {
                return SimOptionValues::bad(u"http_error_on"_s,
                                            u"expected tasks/get, tasks/result, tasks/cancel or "
                                            u"tasks/update joined by '+'"_s);
            }
            fault.endpoints = parsed->endpoints;
        }
        o.httpFault = fault;
    }
    *options = o;
    return std::nullopt;
}

QString mcpOptionsHelpText()
{
    return uR"(MCP (--mcp) tools, all at POST/GET/DELETE /mcp (tools/list says the same):
  write      [task required]  N steps: status message, progress, a text piece "tok<i>" + "" | "é" | "日本" | "🎉" + " "
  approve    [task required]  input_required: a form (approve boolean, reason string, priority enum, budget
                              number); accept → "Approved …" + the text; decline/cancel → finishes normally
  ask        [task required]  the same with one string field, answer
  sign_in    [task required]  a URL-mode elicitation (the client must declare elicitation.url)
  fail       [task required]  fails after fail_after steps; the error only in tasks/result
  long_job   [task required]  write with --mcp-long-steps steps (for cancel)
  summarize  [task optional]  write with half the steps; without params.task the call blocks for the result
  echo       [task forbidden] a plain tool returning its text
Revisions: 2025-11-25 (initialize, Mcp-Session-Id, tasks/get|result|cancel|list, elicitation on the
tasks/result stream) and 2026-07-28 (server/discover, no sessions, the io.modelcontextprotocol/tasks
extension: tasks/get|update|cancel, inputRequests/inputResponses); --mcp-no-2026 turns the latter off.

Per-call options, key=value words of the `topic` argument:
  steps interval_ms poll_ms ask_after fail_after fail_mode=result|status input_timeout_ms
  lose_session=1 (the session is forgotten right after the call is answered: 404 afterwards)
  split line_ending=lf|crlf|cr
  tasks/result stream faults: fault_connections drop_after drop_mode=close|reset|mid malformed_at drip_ms
  HTTP faults on this task: http_error_status http_error_count http_error_on=tasks/get+tasks/result retry_after
  Endpoints (--mcp-fault on=...): initialize initialized notification response stream delete server/discover
             tools/list tools/call tasks/get tasks/result tasks/cancel tasks/list tasks/update ping unknown
Example: tools/call write {"topic":"batteries steps=20 interval_ms=100"}, or approve {"topic":"plan drop_after=1"}.
)"_s;
}

} // namespace RunwatchSim
