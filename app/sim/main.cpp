// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-sim: the standalone simulator. All logic is in sim/ (runwatch_sim).

#include "a2a/a2asim.h"
#include "claudeagents/claudeagentssim.h"
#include "foundry/foundrysim.h"
#include "gemini/geminisim.h"
#include "jobs/jobssim.h"
#include "langgraph/langgraphsim.h"
#include "mcp/mcpsim.h"
#include "openai/openaisim.h"
#include "openaiagents/openaiagentssim.h"
#include "simcommandline.h"

#include <QCoreApplication>
#include <QSocketNotifier>

#include <cstdio>
#include <functional>

#ifdef Q_OS_UNIX
#include <csignal>
#include <unistd.h>
#endif

using namespace Qt::StringLiterals;

namespace {

#ifdef Q_OS_UNIX
int g_signalPipe[2] = {-1, -1};

void onSignal(int)
{
    // Only async-signal-safe work here: the event loop picks the byte up and quits.
    const char byte = 1;
    [[maybe_unused]] const auto written = ::write(g_signalPipe[1], &byte, 1);
}

void installSignalHandlers(QCoreApplication *app)
{
    if (::pipe(g_signalPipe) != 0)
        return;
    auto *notifier = new QSocketNotifier(g_signalPipe[0], QSocketNotifier::Read, app);
    QObject::connect(notifier, &QSocketNotifier::activated, app, [] {
        char byte = 0;
        [[maybe_unused]] const auto got = ::read(g_signalPipe[0], &byte, 1);
        QCoreApplication::quit();
    });
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
}
#endif

void print(FILE *stream, const QString &text)
{
    std::fputs(text.toLocal8Bit().constData(), stream);
    std::fflush(stream);
}

// Listens, wires --verbose logging, announces the URL and runs: the same for every protocol.
// `logRequests` connects the simulator's own request signal to stderr; `moreUrls`, when given,
// returns lines announced after the first one.
template<typename Sim, typename LogRequests>
int serve(QCoreApplication &app, Sim &simulator, const RunwatchSim::ServerOptions &options,
          LogRequests logRequests, const std::function<QString()> &moreUrls = {})
{
    if (!simulator.listen(options.address, options.port)) {
        print(stderr, u"runwatch-sim: cannot listen on %1:%2: %3\n"_s.arg(options.address.toString())
                          .arg(options.port)
                          .arg(simulator.errorString()));
        return 1;
    }
    if (options.verbose)
        logRequests(simulator);
#ifdef Q_OS_UNIX
    installSignalHandlers(&app);
#else
    Q_UNUSED(app)
#endif
    // Scripts read this line to learn the URL, so it goes out (and is flushed) only when ready.
    print(stdout, u"runwatch-sim listening on "_s + simulator.baseUrl().toString() + u'\n');
    if (moreUrls)
        print(stdout, moreUrls());
    return QCoreApplication::exec();
}

int runA2a(QCoreApplication &app, const RunwatchSim::ServerOptions &options)
{
    RunwatchSim::A2aSimConfig config;
    config.protocol = options.a2aLegacy ? RunwatchSim::A2aSimConfig::Protocol::V03
                                        : RunwatchSim::A2aSimConfig::Protocol::V10;
    config.streaming = options.a2aStreaming;
    config.apiKey = options.config.apiKey;
    config.intervalMs = options.config.intervalMs;
    config.chunks = options.config.deltas;
    config.longChunks = options.config.longDeltas;
    config.streamFaults = options.config.streamFaults;
    RunwatchSim::A2aSimulator simulator(config);
    // The announced URL is the agent's base URL.
    return serve(app, simulator, options, [](RunwatchSim::A2aSimulator &sim) {
        QObject::connect(&sim, &RunwatchSim::A2aSimulator::requestReceived, &sim,
                         [](const RunwatchSim::A2aRequestRecord &record) {
                             print(stderr, u"%1 %2 %3\n"_s.arg(QString::fromLatin1(record.method),
                                                               record.path, record.rpcMethod));
                         });
    });
}

// One stderr line per answered request: method, target, status, and whether a fault was injected.
template<typename Record>
void printAnswered(const Record &record)
{
    const QString target = record.query.isEmpty() ? record.path : record.path + u'?' + record.query;
    print(stderr, u"%1 %2 -> %3%4\n"_s.arg(QString::fromLatin1(record.method), target)
                      .arg(record.status)
                      .arg(record.faulted ? u" (injected)"_s : QString()));
}

int runJobs(QCoreApplication &app, const RunwatchSim::ServerOptions &options)
{
    RunwatchSim::JobsSimulator simulator(options.jobsConfig);
    return serve(app, simulator, options, [](RunwatchSim::JobsSimulator &sim) {
        QObject::connect(&sim, &RunwatchSim::JobsSimulator::requestAnswered, &sim,
                         &printAnswered<RunwatchSim::JobsRequestRecord>);
    });
}

int runFoundry(QCoreApplication &app, const RunwatchSim::ServerOptions &options)
{
    RunwatchSim::FoundrySimulator simulator(options.foundryConfig);
    // The announced URL is the project endpoint.
    return serve(app, simulator, options, [](RunwatchSim::FoundrySimulator &sim) {
        QObject::connect(&sim, &RunwatchSim::FoundrySimulator::requestAnswered, &sim,
                         &printAnswered<RunwatchSim::FoundryRequestRecord>);
    });
}

int runLangGraph(QCoreApplication &app, const RunwatchSim::ServerOptions &options)
{
    RunwatchSim::LangGraphSimulator simulator(options.langgraphConfig);
    // The announced URL is the server's root (the SDK's apiUrl).
    return serve(app, simulator, options, [](RunwatchSim::LangGraphSimulator &sim) {
        QObject::connect(&sim, &RunwatchSim::LangGraphSimulator::requestAnswered, &sim,
                         &printAnswered<RunwatchSim::LangGraphRequestRecord>);
    });
}

int runGemini(QCoreApplication &app, const RunwatchSim::ServerOptions &options)
{
    RunwatchSim::GeminiSimulator simulator(options.geminiConfig);
    // The announced URL is the service's root (the client's httpOptions.baseUrl; it adds /v1 itself).
    return serve(app, simulator, options, [](RunwatchSim::GeminiSimulator &sim) {
        QObject::connect(&sim, &RunwatchSim::GeminiSimulator::requestAnswered, &sim,
                         &printAnswered<RunwatchSim::GeminiRequestRecord>);
    });
}

int runMcp(QCoreApplication &app, const RunwatchSim::ServerOptions &options)
{
    RunwatchSim::McpSimulator simulator(options.mcpConfig);
    // The announced URL is the MCP endpoint itself (http://HOST:PORT/mcp).
    return serve(app, simulator, options, [](RunwatchSim::McpSimulator &sim) {
        QObject::connect(&sim, &RunwatchSim::McpSimulator::requestAnswered, &sim,
                         [](const RunwatchSim::McpRequestRecord &record) {
                             print(stderr,
                                   u"%1 %2 %3 -> %4%5\n"_s
                                       .arg(QString::fromLatin1(record.method), record.path, record.rpcMethod)
                                       .arg(record.status)
                                       .arg(record.faulted ? u" (injected)"_s : QString()));
                         });
    });
}

int runClaudeAgents(QCoreApplication &app, const RunwatchSim::ServerOptions &options)
{
    RunwatchSim::ClaudeAgentsSimulator simulator(options.claudeAgentsConfig);
    // The announced URL is the service's origin (the client's baseURL; the paths start with /v1).
    return serve(app, simulator, options, [](RunwatchSim::ClaudeAgentsSimulator &sim) {
        QObject::connect(&sim, &RunwatchSim::ClaudeAgentsSimulator::requestAnswered, &sim,
                         &printAnswered<RunwatchSim::ClaudeAgentsRequestRecord>);
    });
}

int runOpenAiAgents(QCoreApplication &app, const RunwatchSim::ServerOptions &options)
{
    RunwatchSim::OpenAiAgentsSimulator simulator(options.openAiAgentsConfig);
    // The announced URL is the client's baseURL (…/v1).
    return serve(app, simulator, options, [](RunwatchSim::OpenAiAgentsSimulator &sim) {
        QObject::connect(&sim, &RunwatchSim::OpenAiAgentsSimulator::requestAnswered, &sim,
                         &printAnswered<RunwatchSim::OpenAiAgentsRequestRecord>);
    });
}

int runOpenAi(QCoreApplication &app, const RunwatchSim::ServerOptions &options)
{
    RunwatchSim::OpenAiSimulator simulator(options.config);
    // The same API as an Azure AI Foundry project: the openai client's base URL, then the project
    // endpoint that @azure/ai-projects takes (it adds /openai/v1 itself).
    const auto foundryUrls = [&simulator]() -> QString {
        return u"runwatch-sim Foundry project at "_s + simulator.foundryBaseUrl().toString()
               + u" (project endpoint "_s + simulator.foundryProjectUrl().toString() + u")\n"_s;
    };
    return serve(
        app, simulator, options,
        [](RunwatchSim::OpenAiSimulator &sim) {
            QObject::connect(
                &sim, &RunwatchSim::OpenAiSimulator::requestAnswered, &sim,
                [](const RunwatchSim::OpenAiRequestRecord &record) {
                    QString target = record.path;
                    if (!record.query.isEmpty())
                        target += u'?' + record.query;
                    print(stderr, u"%1 %2 -> %3%4 [%5]\n"_s.arg(QString::fromLatin1(record.method), target)
                                      .arg(record.status)
                                      .arg(record.faulted ? u" (injected)"_s : QString())
                                      .arg(QString::fromLatin1(record.requestId)));
                });
        },
        foundryUrls);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(u"runwatch-sim"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(RUNWATCH_VERSION_STRING));

    const RunwatchSim::CommandLineResult parsed
        = RunwatchSim::parseCommandLine(QCoreApplication::arguments());
    switch (parsed.action) {
    case RunwatchSim::CommandLineResult::Action::Help:
        print(stdout, parsed.message);
        return 0;
    case RunwatchSim::CommandLineResult::Action::Version:
        print(stdout, u"runwatch-sim "_s + QCoreApplication::applicationVersion() + u'\n');
        return 0;
    case RunwatchSim::CommandLineResult::Action::Error:
        print(stderr, u"runwatch-sim: "_s + parsed.message + u"\nTry --help.\n"_s);
        return 2;
    case RunwatchSim::CommandLineResult::Action::Run:
        break;
    }

    const RunwatchSim::ServerOptions &options = parsed.options;
    if (options.a2a)
        return runA2a(app, options);
    if (options.jobs)
        return runJobs(app, options);
    if (options.foundry)
        return runFoundry(app, options);
    if (options.langgraph)
        return runLangGraph(app, options);
    if (options.gemini)
        return runGemini(app, options);
    if (options.mcp)
        return runMcp(app, options);
    if (options.claudeAgents)
        return runClaudeAgents(app, options);
    if (options.openAiAgents)
        return runOpenAiAgents(app, options);
    return runOpenAi(app, options);
}
