// SPDX-License-Identifier: GPL-3.0-or-later
#include "simcommandline.h"

#include "a2a/a2asimoptions.h"
#include "claudeagents/claudeagentssimoptions.h"
#include "foundry/foundrysimoptions.h"
#include "gemini/geminisimoptions.h"
#include "jobs/jobssimoptions.h"
#include "langgraph/langgraphsimoptions.h"
#include "mcp/mcpsimoptions.h"
#include "openai/openaisimoptions.h"

#include <QCommandLineParser>

#include <algorithm>
#include <limits>
#include <type_traits>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

CommandLineResult parseCommandLine(const QStringList &arguments)
{
    CommandLineResult result;
    ServerOptions &options = result.options;
    OpenAiSimConfig &config = options.config;

    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"runwatch-sim: an OpenAI Responses background-mode server on loopback, with fault "
        u"injection. Prints \"runwatch-sim listening on <base URL>\" once ready."_s);
    const auto value = [](const char *name, const char *description, const char *valueName) {
        return QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(description),
                                  QString::fromLatin1(valueName));
    };
    const auto flag = [](const char *name, const char *description) {
        return QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(description));
    };
    const QCommandLineOption helpOption = parser.addHelpOption();
    const QCommandLineOption versionOption = parser.addVersionOption();
    parser.addOptions({
        value("port", "TCP port; 0 picks a free one (default 0).", "N"),
        value("host", "Address to listen on (default 127.0.0.1).", "ADDRESS"),
        flag("allow-remote", "Allow a non-loopback --host."),
        value("key", "Require this API key (Authorization: Bearer K or api-key: K).", "K"),
        value("interval-ms", "Pace of deltas and terminal events (default 50).", "N"),
        value("queued-ms", "Time a background response stays queued (default: interval).", "N"),
        value("deltas", "Text deltas per response (default 8).", "N"),
        value("long-deltas", "Text deltas of the \"long\" scenario (default 100000).", "N"),
        value("huge-bytes", "Size of the single big delta of \"huge\" (default 4 MiB).", "N"),
        value("keepalive-events", "{\"type\":\"keepalive\"} events while queued.", "N"),
        value("comment-interval-ms", "Send \": keep-alive\" comments on open streams.", "N"),
        value("cancel-mode", "failed_event (default), close or flip.", "MODE"),
        value("reply", "Use the words of TEXT as deltas instead of tok<i>.", "TEXT"),
        value("model", "Model id listed by GET /v1/models (repeatable).", "ID"),
        flag("openai", "Serve the OpenAI Responses API (the default), also as an Azure AI Foundry project "
                       "at /api/projects/<project>/openai/v1 with agents and conversations."),
        value("agent",
              "A Foundry prompt agent of the OpenAI simulator (repeatable; replaces the default researcher "
              "and writer): name=N,version=3,model=M,description=D,instructions=I,refuses=background+stream "
              "(values without ','; refuses: 400 for a create naming the agent with that parameter true).",
              "SPEC"),
        flag("send-done", "Send \"data: [DONE]\" after the terminal event."),
        flag("obfuscation", "Add \"obfuscation\" padding to text deltas."),
        flag("fractional-timestamps", "Send created_at as a fractional number."),
        value("line-ending", "SSE line ending: lf (default), crlf or cr.", "LE"),
        value("resume-max-age-ms", "Refuse GET ?stream=true after this age; 0 = always.", "N"),
        flag("reject-inflight-delete", "DELETE of a running response answers 400."),
        value("http-fault",
              "Inject HTTP errors (repeatable): status=429,count=2,on=create+get,"
              "retry-after=1,retry-after-ms=500,body=error|html|empty.",
              "SPEC"),
        value("rate-limit", "Answer the first K requests 429 with Retry-After: 1.", "K"),
        value("unavailable", "Answer the first K requests 503 with Retry-After: 1.", "K"),
        value("fault-connections",
              "Stream faults hit only the first N stream connections of each response (default: "
              "all).",
              "N"),
        value("drop-after", "Drop each stream after N events.", "N"),
        value("drop-mode", "close (default), reset or mid.", "MODE"),
        value("malformed-at", "Send the event with this sequence number as broken JSON.", "SEQ"),
        value("invalid-utf8-at", "Put invalid UTF-8 into the event with this sequence number.", "SEQ"),
        value("endless-line-at", "At this sequence number start a data line that never ends.", "SEQ"),
        value("drip-ms", "Send stream bytes one at a time, one per N ms.", "N"),
        value("max-body-bytes", "Largest request body accepted (default 16 MiB).", "N"),
        value("max-header-bytes", "Largest request head accepted (default 64 KiB).", "N"),
        flag("no-keep-alive", "Close the connection after every response."),
        flag("close-delimited-streams",
             "Send SSE bodies without chunked coding, ended by closing the connection."),
        flag("verbose", "Log every request to stderr."),
        flag("a2a", "Serve an A2A agent (JSON-RPC at /a2a, card at /.well-known/agent-card.json) "
                    "instead of the OpenAI API."),
        value("a2a-version", "A2A protocol of --a2a: 1.0 (default) or 0.3.", "V"),
        flag("a2a-no-streaming", "The --a2a agent does not stream (clients poll GetTask)."),
        flag("jobs", "Serve a generic HTTP job API (base URL .../api) instead of the OpenAI API."),
        value("jobs-shape", "Paths and field names of --jobs: standard (default) or alternate.", "SHAPE"),
        flag("jobs-no-events", "--jobs jobs offer no event stream (clients poll)."),
        value("jobs-retry-after", "Retry-After of --jobs status replies: seconds, date:N or none.", "S"),
        value("jobs-fault",
              "Inject --jobs HTTP faults (repeatable): status=503,count=2,on=kickoff+status,"
              "retry-after=1,body=html; status=0 serves the request and loses the reply.",
              "SPEC"),
        flag("foundry", "Serve an Azure AI Foundry Agent Service project (endpoint "
                        ".../api/projects/<project>) instead of the OpenAI API; --key is the Bearer token."),
        value("foundry-project",
              "Project name of --foundry and of the OpenAI simulator's Foundry layout (default "
              "runwatch-sim).",
              "NAME"),
        value("foundry-expires-s", "--foundry runs expire this long after creation (default 600).", "S"),
        value("foundry-split", "--foundry events go out in pieces of N bytes.", "N"),
        value("foundry-fault",
              "Inject --foundry HTTP faults (repeatable): status=429,count=1,on=create+get,"
              "retry-after=1,body=html.",
              "SPEC"),
        flag("langgraph", "Serve a LangGraph Agent Server (graphs echo, approval, question, fail, slow) "
                          "instead of the OpenAI API; --key is the X-Api-Key it expects."),
        value("langgraph-close-ms",
              "--langgraph streams close this long after their run stopped (default 500).", "N"),
        value("langgraph-split", "--langgraph events go out in pieces of N bytes.", "N"),
        value("langgraph-fault",
              "Inject --langgraph HTTP faults (repeatable): status=503,count=1,on=create+join,"
              "retry-after=1,body=html.",
              "SPEC"),
        flag("gemini", "Serve the Gemini Interactions API (/v1/interactions, /v1beta/interactions) instead "
                       "of the OpenAI API; --key is the x-goog-api-key it expects, --model its models."),
        value("gemini-agent",
              "An agent of --gemini (repeatable; replaces deep-research-pro-preview-12-2025 and "
              "deep-research-preview-04-2026).",
              "ID"),
        value("gemini-cut-after",
              "--gemini streams are cut by the service (error gateway_timeout) after N deltas each.", "N"),
        value("gemini-expires-ms", "--gemini interactions are forgotten this long after they ended.", "N"),
        value("gemini-split", "--gemini events go out in pieces of N bytes.", "N"),
        value("gemini-fault",
              "Inject --gemini HTTP faults (repeatable): status=429,count=1,on=create+stream,"
              "retry-after=1,body=html|json.",
              "SPEC"),
        flag("mcp",
             "Serve an MCP server (Streamable HTTP at /mcp) whose tools run as tasks, 2025-11-25 and the "
             "2026-07-28 tasks extension, instead of the OpenAI API; --key is the Bearer token it expects."),
        value("mcp-poll-ms", "The pollInterval --mcp tasks advertise (default 500).", "N"),
        flag("mcp-session-free",
             "--mcp tasks are visible from every session (default: only from their own, as "
             "the SDK's InMemoryTaskStore)."),
        flag("mcp-no-2026", "--mcp speaks 2025-11-25 only (no server/discover, no tasks extension)."),
        value("mcp-session-idle-ms", "--mcp forgets a session unused this long (then 404).", "N"),
        value("mcp-input-timeout-ms", "--mcp tasks fail when their input request is not answered in time.",
              "N"),
        value("mcp-split", "--mcp SSE events go out in pieces of N bytes.", "N"),
        value("mcp-fault",
              "Inject --mcp HTTP faults (repeatable): status=503,count=1,on=tasks/get+tasks/result,"
              "retry-after=1,body=html|json.",
              "SPEC"),
        flag("claude-agents", "Serve Claude Managed Agents (/v1/agents, /v1/sessions, beta "
                              "managed-agents-2026-04-01) instead of the OpenAI API; --key is the key it "
                              "expects (Authorization: Bearer or x-api-key)."),
        value("claude-agents-page-size", "--claude-agents listings give at most N items a page.", "N"),
        value("claude-agents-heartbeat-ms",
              "--claude-agents streams send event: ping this often (default 5000).", "N"),
        value("claude-agents-fault",
              "Inject --claude-agents HTTP faults (repeatable): status=429,count=1,on=send+stream,"
              "retry-after=1,body=html|json.",
              "SPEC"),
        flag("openai-agents", "Serve the OpenAI Agents API (/v1/agents, /v1/agents/sessions, beta "
                              "agents=v1) instead of the Responses API; --key is the key it expects "
                              "(Authorization: Bearer)."),
        value("openai-agents-page-size", "--openai-agents listings give at most N items a page.", "N"),
        value("openai-agents-heartbeat-ms",
              "--openai-agents streams send a keep-alive comment this often (default 5000).", "N"),
        value("openai-agents-fault",
              "Inject --openai-agents HTTP faults (repeatable): status=429,count=1,on=send+stream,"
              "retry-after=1,body=html|json.",
              "SPEC"),
    });

    const auto fail = [&result](const QString &message) {
        result.action = CommandLineResult::Action::Error;
        result.message = message;
        return result;
    };
    if (!parser.parse(arguments))
        return fail(parser.errorText());
    if (parser.isSet(helpOption)) {
        result.action = CommandLineResult::Action::Help;
        result.message = parser.helpText() + u'\n' + openAiOptionsHelpText() + u'\n' + a2aOptionsHelpText()
                         + u'\n' + jobsOptionsHelpText() + u'\n' + foundryOptionsHelpText() + u'\n'
                         + langGraphOptionsHelpText() + u'\n' + geminiOptionsHelpText() + u'\n'
                         + mcpOptionsHelpText() + claudeAgentsOptionsHelpText() + u'\n'
                         + openAiAgentsOptionsHelpText();
        return result;
    }
    if (parser.isSet(versionOption)) {
        result.action = CommandLineResult::Action::Version;
        return result;
    }
    if (!parser.positionalArguments().isEmpty())
        return fail(u"Unexpected argument: "_s + parser.positionalArguments().first());

    // Standalone and demo use are watched by people: a slower default pace than the library's.
    config.intervalMs = 50;

    QString error;
    const auto integer = [&](QLatin1StringView name, qint64 min, qint64 max, auto *target) {
        if (!error.isEmpty() || !parser.isSet(QString(name)))
            return;
        bool ok = false;
        const qint64 number = parser.value(QString(name)).toLongLong(&ok);
        if (!ok || number < min || number > max) {
            error = u"--%1 expects an integer from %2 to %3"_s.arg(name).arg(min).arg(max);
            return;
        }
        *target = static_cast<std::remove_pointer_t<decltype(target)>>(number);
    };
    constexpr qint64 kBig = std::numeric_limits<qint64>::max();
    qint64 port = 0;
    integer("port"_L1, 0, 65535, &port);
    integer("interval-ms"_L1, 0, 3600000, &config.intervalMs);
    integer("queued-ms"_L1, 0, 3600000, &config.queuedMs);
    integer("deltas"_L1, 0, 1000000, &config.deltas);
    integer("long-deltas"_L1, 0, 1000000, &config.longDeltas);
    integer("huge-bytes"_L1, 1, qint64(512) << 20, &config.hugeDeltaBytes);
    integer("keepalive-events"_L1, 0, 100000, &config.keepaliveEvents);
    integer("comment-interval-ms"_L1, 0, 3600000, &config.commentIntervalMs);
    integer("resume-max-age-ms"_L1, -1, kBig, &config.resumeMaxAgeMs);
    integer("fault-connections"_L1, -1, 1000000, &config.streamFaults.connections);
    integer("drop-after"_L1, -1, kBig, &config.streamFaults.dropAfterEvents);
    integer("malformed-at"_L1, -1, kBig, &config.streamFaults.malformedAt);
    integer("invalid-utf8-at"_L1, -1, kBig, &config.streamFaults.invalidUtf8At);
    integer("endless-line-at"_L1, -1, kBig, &config.streamFaults.endlessLineAt);
    integer("drip-ms"_L1, 0, 60000, &config.streamFaults.dripIntervalMs);
    integer("max-body-bytes"_L1, 0, qint64(1) << 30, &config.maxBodyBytes);
    integer("max-header-bytes"_L1, 256, 16 << 20, &config.maxHeaderBytes);
    int rateLimited = 0;
    int unavailable = 0;
    integer("rate-limit"_L1, 0, 1000000, &rateLimited);
    integer("unavailable"_L1, 0, 1000000, &unavailable);
    if (!error.isEmpty())
        return fail(error);
    options.port = quint16(port);

    const QString host = parser.isSet(u"host"_s) ? parser.value(u"host"_s) : u"127.0.0.1"_s;
    if (host.compare("localhost"_L1, Qt::CaseInsensitive) == 0) {
        options.address = QHostAddress(QHostAddress::LocalHost);
    } else if (!options.address.setAddress(host)) {
        return fail(u"--host expects an IP address, got \"%1\""_s.arg(host));
    }
    if (!options.address.isLoopback() && !parser.isSet(u"allow-remote"_s)) {
        return fail(u"Refusing to listen on non-loopback address %1: the simulator has no real "
                    u"security. Pass --allow-remote to do it anyway."_s.arg(host));
    }

    config.apiKey = parser.value(u"key"_s);
    config.replyText = parser.value(u"reply"_s);
    if (parser.isSet(u"model"_s))
        config.modelIds = parser.values(u"model"_s);
    config.sendDoneSentinel = parser.isSet(u"send-done"_s);
    config.obfuscation = parser.isSet(u"obfuscation"_s);
    config.fractionalTimestamps = parser.isSet(u"fractional-timestamps"_s);
    config.rejectInflightDelete = parser.isSet(u"reject-inflight-delete"_s);
    config.keepAlive = !parser.isSet(u"no-keep-alive"_s);
    config.closeDelimitedStreams = parser.isSet(u"close-delimited-streams"_s);
    options.verbose = parser.isSet(u"verbose"_s);
    options.a2a = parser.isSet(u"a2a"_s);
    options.a2aStreaming = !parser.isSet(u"a2a-no-streaming"_s);
    if (parser.isSet(u"a2a-version"_s)) {
        const QString version = parser.value(u"a2a-version"_s);
        if (version != "1.0"_L1 && version != "0.3"_L1)
            return fail(u"--a2a-version expects 1.0 or 0.3"_s);
        options.a2aLegacy = version == "0.3"_L1;
    }
    if (parser.isSet(u"cancel-mode"_s)) {
        const auto mode = openAiCancelModeFromName(parser.value(u"cancel-mode"_s));
        if (!mode)
            return fail(u"--cancel-mode expects failed_event, close or flip"_s);
        config.cancelMode = *mode;
    }
    if (parser.isSet(u"drop-mode"_s)) {
        const auto mode = dropModeFromName(parser.value(u"drop-mode"_s));
        if (!mode)
            return fail(u"--drop-mode expects close, reset or mid"_s);
        config.streamFaults.dropMode = *mode;
    }
    if (parser.isSet(u"line-ending"_s)) {
        const QString ending = parser.value(u"line-ending"_s).toLower();
        if (ending == "lf"_L1) {
            config.lineEnding = QByteArrayLiteral("\n");
        } else if (ending == "crlf"_L1) {
            config.lineEnding = QByteArrayLiteral("\r\n");
        } else if (ending == "cr"_L1) {
            config.lineEnding = QByteArrayLiteral("\r");
        } else {
            return fail(u"--line-ending expects lf, crlf or cr"_s);
        }
    }
    for (const QString &spec : parser.values(u"http-fault"_s)) {
        QString specError;
        const auto fault = openAiHttpFaultFromSpec(spec, &specError);
        if (!fault)
            return fail(u"--http-fault: "_s + specError);
        config.httpFaults.append(*fault);
    }
    QList<OpenAiSimAgent> agents;
    for (const QString &spec : parser.values(u"agent"_s)) {
        QString specError;
        const auto agent = openAiAgentFromSpec(spec, &specError);
        if (!agent)
            return fail(u"--agent: "_s + specError);
        // An agent's versions are one entry (1 to `version`): a name given twice is a mistake.
        if (std::any_of(agents.cbegin(), agents.cend(),
                        [&agent](const OpenAiSimAgent &a) { return a.name == agent->name; }))
            return fail(u"--agent: \"%1\" is given twice"_s.arg(agent->name));
        agents.append(*agent);
    }
    if (!agents.isEmpty())
        config.agents = agents;
    if (rateLimited > 0)
        config.httpFaults.append(OpenAiHttpFault{{}, rateLimited, 429, 1, -1, OpenAiFaultBody::Error});
    if (unavailable > 0)
        config.httpFaults.append(OpenAiHttpFault{{}, unavailable, 503, 1, -1, OpenAiFaultBody::Error});
    options.jobs = parser.isSet(u"jobs"_s);
    JobsSimConfig &jobs = options.jobsConfig;
    jobs.apiKey = config.apiKey;
    jobs.intervalMs = config.intervalMs;
    jobs.queuedMs = config.queuedMs;
    jobs.deltas = config.deltas;
    jobs.longDeltas = config.longDeltas;
    jobs.commentIntervalMs = config.commentIntervalMs;
    jobs.keepAlive = config.keepAlive;
    jobs.streamFaults = config.streamFaults; // the jobs simulator applies what it knows of them
    jobs.offerEvents = !parser.isSet(u"jobs-no-events"_s);
    if (parser.isSet(u"jobs-shape"_s)) {
        const QString shape = parser.value(u"jobs-shape"_s);
        if (shape != "standard"_L1 && shape != "alternate"_L1)
            return fail(u"--jobs-shape expects standard or alternate"_s);
        jobs.shape = shape == "alternate"_L1 ? JobsShape::Alternate : JobsShape::Standard;
    }
    if (parser.isSet(u"jobs-retry-after"_s)) {
        const QString value = parser.value(u"jobs-retry-after"_s);
        bool ok = false;
        const double seconds = value.toDouble(&ok);
        ok = ok && seconds >= 0;
        if (!ok && value != "none"_L1 && !value.startsWith("date:"_L1))
            return fail(u"--jobs-retry-after expects seconds, date:N or none"_s);
        jobs.pollRetryAfter = value == "none"_L1 ? QByteArray() : value.toLatin1();
    }
    for (const QString &spec : parser.values(u"jobs-fault"_s)) {
        QString specError;
        const auto fault = jobsHttpFaultFromSpec(spec, &specError);
        if (!fault)
            return fail(u"--jobs-fault: "_s + specError);
        jobs.httpFaults.append(*fault);
    }

    options.foundry = parser.isSet(u"foundry"_s);
    FoundrySimConfig &foundry = options.foundryConfig;
    foundry.token = config.apiKey;
    foundry.intervalMs = config.intervalMs;
    foundry.queuedMs = config.queuedMs;
    foundry.deltas = config.deltas;
    foundry.longDeltas = config.longDeltas;
    foundry.lineEnding = config.lineEnding;
    foundry.replyText = config.replyText;
    foundry.keepAlive = config.keepAlive;
    foundry.closeDelimitedStreams = config.closeDelimitedStreams;
    foundry.maxBodyBytes = config.maxBodyBytes;
    foundry.maxHeaderBytes = config.maxHeaderBytes;
    foundry.streamFaults = config.streamFaults; // the Foundry simulator applies what it knows of them
    if (parser.isSet(u"foundry-project"_s)) {
        foundry.project = parser.value(u"foundry-project"_s);
        if (foundry.project.isEmpty() || foundry.project.contains(u'/'))
            return fail(u"--foundry-project expects a name without '/'"_s);
        config.foundryProject = foundry.project;
    }
    integer("foundry-expires-s"_L1, 1, 86400, &foundry.expiresSeconds);
    integer("foundry-split"_L1, 0, 1 << 20, &foundry.splitWrites);
    if (!error.isEmpty())
        return fail(error);
    for (const QString &spec : parser.values(u"foundry-fault"_s)) {
        QString specError;
        const auto fault = foundryHttpFaultFromSpec(spec, &specError);
        if (!fault)
            return fail(u"--foundry-fault: "_s + specError);
        foundry.httpFaults.append(*fault);
    }
    if (rateLimited > 0)
        foundry.httpFaults.append(FoundryHttpFault{{}, rateLimited, 429, 1, false});
    if (unavailable > 0)
        foundry.httpFaults.append(FoundryHttpFault{{}, unavailable, 503, 1, false});

    options.langgraph = parser.isSet(u"langgraph"_s);
    options.gemini = parser.isSet(u"gemini"_s);
    options.mcp = parser.isSet(u"mcp"_s);
    options.claudeAgents = parser.isSet(u"claude-agents"_s);
    options.openAiAgents = parser.isSet(u"openai-agents"_s);
    if (parser.isSet(u"openai"_s)
        && (options.a2a || options.jobs || options.foundry || options.langgraph || options.gemini
            || options.mcp || options.claudeAgents || options.openAiAgents)) {
        return fail(u"--openai cannot be combined with --a2a, --jobs, --foundry, --langgraph, --gemini, "
                    u"--mcp, --claude-agents or --openai-agents"_s);
    }
    LangGraphSimConfig &langgraph = options.langgraphConfig;
    langgraph.apiKey = config.apiKey;
    langgraph.intervalMs = config.intervalMs;
    langgraph.queuedMs = config.queuedMs;
    // The graphs' own token counts (echo 6, slow 300) stay unless asked otherwise.
    if (parser.isSet(u"deltas"_s))
        langgraph.tokens = qMax(1, config.deltas);
    if (parser.isSet(u"long-deltas"_s))
        langgraph.slowTokens = qMax(1, config.longDeltas);
    langgraph.keepAlive = config.keepAlive;
    langgraph.closeDelimitedStreams = config.closeDelimitedStreams;
    langgraph.maxBodyBytes = config.maxBodyBytes;
    langgraph.maxHeaderBytes = config.maxHeaderBytes;
    langgraph.streamFaults = config.streamFaults; // the LangGraph simulator applies what it knows of them
    integer("langgraph-close-ms"_L1, 0, 3600000, &langgraph.closeDelayMs);
    integer("langgraph-split"_L1, 0, 1 << 20, &langgraph.splitWrites);
    if (!error.isEmpty())
        return fail(error);
    for (const QString &spec : parser.values(u"langgraph-fault"_s)) {
        QString specError;
        const auto fault = langGraphHttpFaultFromSpec(spec, &specError);
        if (!fault)
            return fail(u"--langgraph-fault: "_s + specError);
        langgraph.httpFaults.append(*fault);
    }
    if (rateLimited > 0)
        langgraph.httpFaults.append(LangGraphHttpFault{{}, rateLimited, 429, 1, false});
    if (unavailable > 0)
        langgraph.httpFaults.append(LangGraphHttpFault{{}, unavailable, 503, 1, false});

    GeminiSimConfig &gemini = options.geminiConfig;
    gemini.apiKey = config.apiKey;
    gemini.intervalMs = config.intervalMs;
    if (parser.isSet(u"deltas"_s))
        gemini.deltas = qMax(1, config.deltas);
    if (parser.isSet(u"long-deltas"_s))
        gemini.longDeltas = qMax(1, config.longDeltas);
    gemini.lineEnding = config.lineEnding;
    gemini.keepAlive = config.keepAlive;
    gemini.closeDelimitedStreams = config.closeDelimitedStreams;
    gemini.maxBodyBytes = config.maxBodyBytes;
    gemini.maxHeaderBytes = config.maxHeaderBytes;
    gemini.streamFaults = config.streamFaults; // the Gemini simulator applies what it knows of them
    if (parser.isSet(u"model"_s))
        gemini.modelIds = parser.values(u"model"_s);
    if (parser.isSet(u"gemini-agent"_s))
        gemini.agentIds = parser.values(u"gemini-agent"_s);
    integer("gemini-cut-after"_L1, 1, 1 << 30, &gemini.cutAfterDeltas);
    integer("gemini-expires-ms"_L1, 0, kBig, &gemini.expiresMs);
    integer("gemini-split"_L1, 0, 1 << 20, &gemini.splitWrites);
    if (!error.isEmpty())
        return fail(error);
    for (const QString &spec : parser.values(u"gemini-fault"_s)) {
        QString specError;
        const auto fault = geminiHttpFaultFromSpec(spec, &specError);
        if (!fault)
            return fail(u"--gemini-fault: "_s + specError);
        gemini.httpFaults.append(*fault);
    }
    if (rateLimited > 0)
        gemini.httpFaults.append(GeminiHttpFault{{}, rateLimited, 429, 1, false});
    if (unavailable > 0)
        gemini.httpFaults.append(GeminiHttpFault{{}, unavailable, 503, 1, false});

    McpSimConfig &mcp = options.mcpConfig;
    mcp.bearerToken = config.apiKey;
    mcp.intervalMs = config.intervalMs;
    if (parser.isSet(u"deltas"_s))
        mcp.steps = qMax(1, config.deltas);
    if (parser.isSet(u"long-deltas"_s))
        mcp.longSteps = qMax(1, config.longDeltas);
    mcp.replyText = config.replyText;
    mcp.lineEnding = config.lineEnding;
    mcp.keepAlive = config.keepAlive;
    mcp.closeDelimitedStreams = config.closeDelimitedStreams;
    mcp.maxBodyBytes = config.maxBodyBytes;
    mcp.maxHeaderBytes = config.maxHeaderBytes;
    mcp.streamFaults = config.streamFaults; // the MCP simulator applies them to tasks/result streams
    mcp.sessionFreeStore = parser.isSet(u"mcp-session-free"_s);
    mcp.serve2026 = !parser.isSet(u"mcp-no-2026"_s);
    integer("mcp-poll-ms"_L1, 1, 3600000, &mcp.pollIntervalMs);
    integer("mcp-session-idle-ms"_L1, -1, kBig, &mcp.sessionIdleMs);
    integer("mcp-input-timeout-ms"_L1, -1, kBig, &mcp.inputTimeoutMs);
    integer("mcp-split"_L1, 0, 1 << 20, &mcp.splitWrites);
    if (!error.isEmpty())
        return fail(error);
    for (const QString &spec : parser.values(u"mcp-fault"_s)) {
        QString specError;
        const auto fault = mcpHttpFaultFromSpec(spec, &specError);
        if (!fault)
            return fail(u"--mcp-fault: "_s + specError);
        mcp.httpFaults.append(*fault);
    }
    if (rateLimited > 0)
        mcp.httpFaults.append(McpHttpFault{{}, rateLimited, 429, 1, false});
    if (unavailable > 0)
        mcp.httpFaults.append(McpHttpFault{{}, unavailable, 503, 1, false});
    ClaudeAgentsSimConfig &claude = options.claudeAgentsConfig;
    claude.apiKey = config.apiKey;
    claude.intervalMs = config.intervalMs;
    if (parser.isSet(u"deltas"_s))
        claude.deltas = qMax(1, config.deltas);
    if (parser.isSet(u"long-deltas"_s))
        claude.longDeltas = qMax(1, config.longDeltas);
    claude.keepAlive = config.keepAlive;
    claude.closeDelimitedStreams = config.closeDelimitedStreams;
    claude.maxBodyBytes = config.maxBodyBytes;
    claude.maxHeaderBytes = config.maxHeaderBytes;
    claude.streamFaults = config.streamFaults; // the Claude simulator applies what it knows of them
    integer("claude-agents-page-size"_L1, 1, 1000, &claude.maxPageSize);
    integer("claude-agents-heartbeat-ms"_L1, 0, 3600000, &claude.heartbeatMs);
    if (!error.isEmpty())
        return fail(error);
    for (const QString &spec : parser.values(u"claude-agents-fault"_s)) {
        QString specError;
        const auto fault = claudeAgentsHttpFaultFromSpec(spec, &specError);
        if (!fault)
            return fail(u"--claude-agents-fault: "_s + specError);
        claude.httpFaults.append(*fault);
    }
    if (rateLimited > 0)
        claude.httpFaults.append(ClaudeAgentsHttpFault{{}, rateLimited, 429, 1, false});
    if (unavailable > 0)
        claude.httpFaults.append(ClaudeAgentsHttpFault{{}, unavailable, 503, 1, false});
    OpenAiAgentsSimConfig &sessions = options.openAiAgentsConfig;
    sessions.apiKey = config.apiKey;
    sessions.intervalMs = config.intervalMs;
    if (parser.isSet(u"deltas"_s))
        sessions.deltas = qMax(1, config.deltas);
    if (parser.isSet(u"long-deltas"_s))
        sessions.longDeltas = qMax(1, config.longDeltas);
    sessions.keepAlive = config.keepAlive;
    sessions.closeDelimitedStreams = config.closeDelimitedStreams;
    sessions.maxBodyBytes = config.maxBodyBytes;
    sessions.maxHeaderBytes = config.maxHeaderBytes;
    sessions.streamFaults = config.streamFaults;
    integer("openai-agents-page-size"_L1, 1, 100, &sessions.maxPageSize);
    integer("openai-agents-heartbeat-ms"_L1, 0, 3600000, &sessions.heartbeatMs);
    if (!error.isEmpty())
        return fail(error);
    for (const QString &spec : parser.values(u"openai-agents-fault"_s)) {
        QString specError;
        const auto fault = openAiAgentsHttpFaultFromSpec(spec, &specError);
        if (!fault)
            return fail(u"--openai-agents-fault: "_s + specError);
        sessions.httpFaults.append(*fault);
    }
    if (rateLimited > 0)
        sessions.httpFaults.append(OpenAiAgentsHttpFault{{}, rateLimited, 429, 1, false});
    if (unavailable > 0)
        sessions.httpFaults.append(OpenAiAgentsHttpFault{{}, unavailable, 503, 1, false});
    return result;
}

} // namespace RunwatchSim
