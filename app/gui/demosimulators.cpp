// SPDX-License-Identifier: GPL-3.0-or-later
#include "demosimulators.h"

#include "a2a/a2asim.h"
#include "claudeagents/claudeagentssim.h"
#include "foundry/foundrysim.h"
#include "gemini/geminisim.h"
#include "jobs/jobssim.h"
#include "langgraph/langgraphsim.h"
#include "mcp/mcpsim.h"
#include "openai/openaisim.h"
#include "openaiagents/openaiagentssim.h"

#include <QThread>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// The OpenAI simulator streams these words as the demo answer (one delta per word).
const char *const kDemoReply
    = "Summary: three components ship their own TLS stack, and two of them need a patch this week.\n\n"
      "1. api-gateway bundles OpenSSL 3.0.11. The advisory from last Tuesday (a timing leak in RSA "
      "decryption) applies, because the gateway still accepts RSA key exchange for old clients. "
      "Upgrade to 3.0.13 and drop the legacy cipher list.\n\n"
      "2. The worker image inherits the distribution's GnuTLS, which is already fixed upstream; "
      "rebuilding the image on the current base picks it up. No code change is needed.\n\n"
      "3. The mobile SDK pins BoringSSL through the platform and is not affected.\n\n"
      "Suggested order: rebuild the worker image today, patch and canary the gateway tomorrow, then "
      "remove the RSA key-exchange fallback once traffic from clients older than version 4.2 has "
      "dropped below one percent. I have drafted the change requests and a short note for the "
      "on-call channel so the rollout can start as soon as you approve it.";

// What the demo's Deep Research run writes, word by word.
const char kDemoResearch[]
    = "Both regimes now require independent audits of the most capable models, but they reach them by "
      "different roads. The EU AI Act makes conformity assessment a legal duty for general-purpose "
      "models with systemic risk: providers must run and document adversarial testing, report serious "
      "incidents to the AI Office and keep technical documentation for ten years, with fines of up to "
      "three percent of worldwide turnover. The United States has no statute of that kind; audits follow "
      "from the NIST AI Risk Management Framework, sector regulators and procurement rules, and from "
      "voluntary commitments by the labs themselves. In practice a model sold in both markets is audited "
      "to the EU's rules, and the American evidence is reused where agencies accept it. Sources: the "
      "Official Journal text of the Act, NIST AI 600-1, and three agency guidance notes.";

// Paces a person can follow: the simulators' library defaults are made for tests (milliseconds).
RunwatchSim::OpenAiSimConfig openAiConfig()
{
    RunwatchSim::OpenAiSimConfig config;
    config.intervalMs = 160;
    config.queuedMs = 400;
    config.replyText = QString::fromUtf8(kDemoReply);
    return config;
}

RunwatchSim::A2aSimConfig a2aConfig()
{
    RunwatchSim::A2aSimConfig config;
    config.agentName = u"Runwatch demo agent"_s;
    config.intervalMs = 300;
    return config;
}

RunwatchSim::JobsSimConfig jobsConfig()
{
    RunwatchSim::JobsSimConfig config;
    config.intervalMs = 200;
    config.queuedMs = 600;
    config.deltas = 24; // the jobs suspend halfway, after about three seconds
    return config;
}

// The Foundry run waits for two tool outputs; the project's runs expire ten minutes after they
// are created, as the service's do, so the countdown is there to be seen.
RunwatchSim::FoundrySimConfig foundryConfig()
{
    RunwatchSim::FoundrySimConfig config;
    config.intervalMs = 200;
    config.queuedMs = 600;
    config.deltas = 12;
    config.replyText = u"Friday looks dry in Lisbon: 21 degrees at noon, light wind from the north-west, "
                       "so the terrace lunch can stay outside."_s;
    return config;
}

// The Gemini run is a Deep Research agent at work: it thinks, searches and writes for minutes, so
// that the demo shows a long agent run in progress.
RunwatchSim::GeminiSimConfig geminiConfig()
{
    RunwatchSim::GeminiSimConfig config;
    config.intervalMs = 400;
    config.replyText = QString::fromUtf8(kDemoResearch);
    // The report once, word by word: about a minute of writing after the thinking and searching.
    config.deltas = int(config.replyText.split(u' ', Qt::SkipEmptyParts).size());
    return config;
}

// What the demo's Claude agent answers after it has searched the web, word by word.
const char kDemoClaudeReply[]
    = "OpenSSL 3.0.13 fixes three low-severity issues over 3.0.12: a timing leak in RSA decryption, a "
      "crash on malformed PKCS#12 files and slow checks of very large DH keys. Our build uses none of "
      "the affected paths except RSA, so the upgrade is worth taking with the next release.";

// What the demo's OpenAI agent answers, word by word (the approval run says it before it asks).
const char kDemoOpenAiAgentReply[]
    = "The branch old-feature was merged into main in March and has had no commits since. Its two "
      "pull requests are closed and no workflow or release tag refers to it, so it is safe to delete.";

// The agents' turns take a few seconds each: the demo starts them all at once, and the finished
// ones are meant to be history by the time the window has settled.
RunwatchSim::ClaudeAgentsSimConfig claudeAgentsConfig()
{
    RunwatchSim::ClaudeAgentsSimConfig config;
    config.intervalMs = 80;
    config.replyText = QString::fromUtf8(kDemoClaudeReply);
    config.deltas = int(config.replyText.split(u' ', Qt::SkipEmptyParts).size());
    return config;
}

RunwatchSim::OpenAiAgentsSimConfig openAiAgentsConfig()
{
    RunwatchSim::OpenAiAgentsSimConfig config;
    config.intervalMs = 80;
    config.replyText = QString::fromUtf8(kDemoOpenAiAgentReply);
    config.deltas = int(config.replyText.split(u' ', Qt::SkipEmptyParts).size());
    return config;
}

} // namespace

DemoSimulators::DemoSimulators(QObject *parent)
    : QObject(parent)
{}

DemoSimulators::~DemoSimulators()
{
    stop();
}

QUrl DemoSimulators::urlFor(const QString &connector) const
{
    const std::pair<QLatin1StringView, QUrl> urls[] = {
        {RunwatchSim::OpenAiSimulator::kProtocol, m_openAiUrl},
        {RunwatchSim::A2aSimulator::kProtocol, m_a2aUrl},
        {RunwatchSim::JobsSimulator::kProtocol, m_jobsUrl},
        {RunwatchSim::FoundrySimulator::kProtocol, m_foundryUrl},
        {RunwatchSim::LangGraphSimulator::kProtocol, m_langGraphUrl},
        {RunwatchSim::GeminiSimulator::kProtocol, m_geminiUrl},
        {RunwatchSim::McpSimulator::kProtocol, m_mcpUrl},
        {RunwatchSim::ClaudeAgentsSimulator::kProtocol, m_claudeAgentsUrl},
        {RunwatchSim::OpenAiAgentsSimulator::kProtocol, m_openAiAgentsUrl},
    };
    for (const auto &[protocol, url] : urls) {
        if (connector == protocol)
            return url;
    }
    return {};
}

bool DemoSimulators::start(QString *error)
{
    if (m_thread)
        return true;
    m_thread = new QThread;
    m_thread->setObjectName(u"runwatch-demo-sims"_s);
    m_host = new QObject;
    m_host->moveToThread(m_thread);
    m_thread->start();
    QString why;
    // Created in their thread, so that their sockets and timers belong to it from the start.
    QMetaObject::invokeMethod(
        m_host,
        [this, &why] {
            m_openAi = new RunwatchSim::OpenAiSimulator(openAiConfig(), m_host);
            m_a2a = new RunwatchSim::A2aSimulator(a2aConfig(), m_host);
            m_jobs = new RunwatchSim::JobsSimulator(jobsConfig(), m_host);
            m_foundry = new RunwatchSim::FoundrySimulator(foundryConfig(), m_host);
            m_langGraph = new RunwatchSim::LangGraphSimulator(m_host);
            m_gemini = new RunwatchSim::GeminiSimulator(geminiConfig(), m_host);
            m_mcp = new RunwatchSim::McpSimulator(m_host);
            m_claudeAgents = new RunwatchSim::ClaudeAgentsSimulator(claudeAgentsConfig(), m_host);
            m_openAiAgents = new RunwatchSim::OpenAiAgentsSimulator(openAiAgentsConfig(), m_host);
            if (!m_openAi->listen(QHostAddress::LocalHost, 0)) {
                why = tr("OpenAI simulator: %1").arg(m_openAi->errorString());
            } else if (!m_a2a->listen(QHostAddress::LocalHost, 0)) {
                why = tr("A2A simulator: %1").arg(m_a2a->errorString());
            } else if (!m_jobs->listen(QHostAddress::LocalHost, 0)) {
                why = tr("jobs simulator: %1").arg(m_jobs->errorString());
            } else if (!m_foundry->listen(QHostAddress::LocalHost, 0)) {
                why = tr("Foundry simulator: %1").arg(m_foundry->errorString());
            } else if (!m_langGraph->listen(QHostAddress::LocalHost, 0)) {
                why = tr("LangGraph simulator: %1").arg(m_langGraph->errorString());
            } else if (!m_gemini->listen(QHostAddress::LocalHost, 0)) {
                why = tr("Gemini simulator: %1").arg(m_gemini->errorString());
            } else if (!m_mcp->listen(QHostAddress::LocalHost, 0)) {
                why = tr("MCP simulator: %1").arg(m_mcp->errorString());
            } else if (!m_claudeAgents->listen(QHostAddress::LocalHost, 0)) {
                why = tr("Claude Managed Agents simulator: %1").arg(m_claudeAgents->errorString());
            } else if (!m_openAiAgents->listen(QHostAddress::LocalHost, 0)) {
                why = tr("OpenAI Agents simulator: %1").arg(m_openAiAgents->errorString());
            }
            m_openAiUrl = m_openAi->baseUrl();
            m_a2aUrl = m_a2a->baseUrl();
            m_jobsUrl = m_jobs->baseUrl();
            m_foundryUrl = m_foundry->baseUrl();
            m_langGraphUrl = m_langGraph->baseUrl();
            m_geminiUrl = m_gemini->baseUrl();
            m_mcpUrl = m_mcp->baseUrl();
            m_claudeAgentsUrl = m_claudeAgents->baseUrl();
            m_openAiAgentsUrl = m_openAiAgents->baseUrl();
        },
        Qt::BlockingQueuedConnection);
    if (why.isEmpty())
        return true;
    stop();
    if (error)
        *error = tr("The demo simulators could not listen on 127.0.0.1: %1").arg(why);
    return false;
}

void DemoSimulators::stop()
{
    if (!m_thread)
        return;
    // The simulators, their sockets and their timers must go in their own thread; the host then
    // comes back to ours, so that it can be deleted here once the thread has ended.
    QThread *home = thread();
    QMetaObject::invokeMethod(
        m_host,
        [this, home] {
            delete m_openAiAgents;
            delete m_claudeAgents;
            delete m_mcp;
            delete m_gemini;
            delete m_langGraph;
            delete m_foundry;
            delete m_jobs;
            delete m_a2a;
            delete m_openAi;
            m_host->moveToThread(home);
        },
        Qt::BlockingQueuedConnection);
    m_openAiAgents = nullptr;
    m_claudeAgents = nullptr;
    m_mcp = nullptr;
    m_gemini = nullptr;
    m_langGraph = nullptr;
    m_foundry = nullptr;
    m_jobs = nullptr;
    m_a2a = nullptr;
    m_openAi = nullptr;
    m_thread->quit();
    m_thread->wait();
    delete m_host;
    m_host = nullptr;
    delete m_thread;
    m_thread = nullptr;
    m_openAiUrl.clear();
    m_a2aUrl.clear();
    m_jobsUrl.clear();
    m_foundryUrl.clear();
    m_langGraphUrl.clear();
    m_geminiUrl.clear();
    m_mcpUrl.clear();
    m_claudeAgentsUrl.clear();
    m_openAiAgentsUrl.clear();
}

void DemoSimulators::finishResponse(const QString &responseId)
{
    if (!m_openAi)
        return;
    // Queued behind anything already sent to the thread, and ahead of stop()'s deletion.
    QMetaObject::invokeMethod(m_host, [sim = m_openAi, responseId] { sim->advanceToEnd(responseId); });
}

} // namespace Runwatch
