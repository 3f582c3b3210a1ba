// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QUrl>

class QThread;

namespace RunwatchSim {
class A2aSimulator;
class ClaudeAgentsSimulator;
class FoundrySimulator;
class GeminiSimulator;
class McpSimulator;
class LangGraphSimulator;
class JobsSimulator;
class OpenAiSimulator;
class OpenAiAgentsSimulator;
} // namespace RunwatchSim

namespace Runwatch {

// The demo's servers: the OpenAI Responses, A2A, jobs, Foundry, LangGraph, Gemini, MCP, Claude
// Managed Agents and OpenAI Agents simulators of runwatch_sim, in this process but on a worker
// thread of their own ("runwatch-demo-sims"), each listening on
// 127.0.0.1 with a port the system picks. The GUI thread only ever talks to them over loopback
// HTTP, through the real connectors, exactly as it would to remote services; the one exception
// is finishResponse(), which lets the demo show finished OpenAI runs without waiting for them.
//
// stop() (and the destructor) deletes the simulators in their thread and joins it, so nothing of
// theirs is left running at exit. Stop them after the RunManager has shut down: a connector whose
// server vanishes mid-request would otherwise report errors and reconnect while the app quits.
class DemoSimulators final : public QObject
{
    Q_OBJECT
public:
    explicit DemoSimulators(QObject *parent = nullptr);
    ~DemoSimulators() override;

    // Starts the thread and the servers. False (with *error) when one cannot listen; then
    // nothing is left running.
    bool start(QString *error = nullptr);
    void stop();
    bool isRunning() const { return m_thread != nullptr; }
    // The thread the simulators live in (nullptr when stopped).
    QThread *workerThread() const { return m_thread; }

    QUrl openAiUrl() const { return m_openAiUrl; }       // http://127.0.0.1:P/v1
    QUrl a2aUrl() const { return m_a2aUrl; }             // http://127.0.0.1:P (agent card under /.well-known)
    QUrl jobsUrl() const { return m_jobsUrl; }           // http://127.0.0.1:P/api
    QUrl foundryUrl() const { return m_foundryUrl; }     // http://127.0.0.1:P/api/projects/runwatch-sim
    QUrl langGraphUrl() const { return m_langGraphUrl; } // http://127.0.0.1:P (the deployment)
    QUrl geminiUrl() const { return m_geminiUrl; }       // http://127.0.0.1:P (the API's origin)
    QUrl mcpUrl() const { return m_mcpUrl; }             // http://127.0.0.1:P/mcp (the endpoint)
    QUrl claudeAgentsUrl() const { return m_claudeAgentsUrl; } // http://127.0.0.1:P (the API's origin)
    QUrl openAiAgentsUrl() const { return m_openAiAgentsUrl; } // http://127.0.0.1:P/v1

    // The URL of the simulator that speaks `connector`'s protocol (ConnectorDescriptor::name);
    // empty when none does.
    QUrl urlFor(const QString &connector) const;

    // Plays an OpenAI response to its end at once (asynchronously, in the simulators' thread).
    void finishResponse(const QString &responseId);

private:
    QThread *m_thread = nullptr;
    // Lives in m_thread; the simulators are its children, so they are created, used and deleted
    // there only.
    QObject *m_host = nullptr;
    RunwatchSim::OpenAiSimulator *m_openAi = nullptr;
    RunwatchSim::A2aSimulator *m_a2a = nullptr;
    RunwatchSim::JobsSimulator *m_jobs = nullptr;
    RunwatchSim::FoundrySimulator *m_foundry = nullptr;
    RunwatchSim::LangGraphSimulator *m_langGraph = nullptr;
    RunwatchSim::GeminiSimulator *m_gemini = nullptr;
    RunwatchSim::McpSimulator *m_mcp = nullptr;
    RunwatchSim::ClaudeAgentsSimulator *m_claudeAgents = nullptr;
    RunwatchSim::OpenAiAgentsSimulator *m_openAiAgents = nullptr;
    QUrl m_openAiUrl;
    QUrl m_a2aUrl;
    QUrl m_jobsUrl;
    QUrl m_foundryUrl;
    QUrl m_langGraphUrl;
    QUrl m_geminiUrl;
    QUrl m_mcpUrl;
    QUrl m_claudeAgentsUrl;
    QUrl m_openAiAgentsUrl;
};

} // namespace Runwatch
