// SPDX-License-Identifier: GPL-3.0-or-later
#include "demomode.h"

#include <memory>

#include "demoagentbackend.h"
#include "engine/runmanager.h"
#include "openai/openaisim.h"

#include <QThread>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// The simulator streams these words as the demo answer (one delta per word).
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

} // namespace

DemoMode::DemoMode(QObject *parent)
    : QObject(parent)
{}

DemoMode::~DemoMode()
{
    if (m_sim) {
        // The simulator and its sockets must die in their own thread.
        QMetaObject::invokeMethod(
            m_sim, [sim = m_sim] { delete sim; }, Qt::BlockingQueuedConnection);
        m_sim = nullptr;
    }
    if (m_thread) {
        m_thread->quit();
        m_thread->wait();
        delete m_thread;
    }
}

QString DemoMode::localDemoName()
{
    return tr("Local demo");
}

QString DemoMode::demoAgentName()
{
    return tr("Demo agent");
}

bool DemoMode::startSimulator(QString *error)
{
    if (m_sim)
        return true;
    RunwatchSim::OpenAiSimConfig config;
    config.intervalMs = 160;
    config.queuedMs = 400;
    config.replyText = QString::fromUtf8(kDemoReply);
    m_thread = new QThread;
    m_thread->setObjectName(u"runwatch-sim"_s);
    m_sim = new RunwatchSim::OpenAiSimulator(config);
    m_sim->moveToThread(m_thread);
    m_thread->start();
    bool ok = false;
    QMetaObject::invokeMethod(
        m_sim, [this, &ok] { ok = m_sim->listen(QHostAddress::LocalHost, 0); }, Qt::BlockingQueuedConnection);
    if (!ok) {
        QString why;
        QMetaObject::invokeMethod(
            m_sim, [this, &why] { why = m_sim->errorString(); }, Qt::BlockingQueuedConnection);
        if (error)
            *error = tr("The demo simulator could not listen on 127.0.0.1: %1").arg(why);
        return false;
    }
    QMetaObject::invokeMethod(
        m_sim, [this] { m_url = m_sim->baseUrl(); }, Qt::BlockingQueuedConnection);
    return true;
}

QList<Connection> DemoMode::connections() const
{
    Connection sim;
    sim.name = localDemoName();
    sim.backend = u"openai"_s;
    sim.baseUrl = m_url;
    sim.auth = AuthStyle::None;
    sim.defaultModel = u"runwatch-sim-1"_s;
    Connection agent;
    agent.name = demoAgentName();
    agent.backend = QString::fromLatin1(DemoAgentBackend::kKind);
    agent.baseUrl = QUrl(u"demo-agent:local"_s);
    agent.auth = AuthStyle::None;
    agent.defaultModel = u"demo-agent-1"_s;
    return {sim, agent};
}

void DemoMode::whenIdentified(RunManager *manager, const QString &runId,
                              std::function<void(const QString &)> then)
{
    // The slot owns the handle: it goes when the slot is disconnected here or when `this` goes
    // first (a run that is never identified must not leak it).
    auto conn = std::make_shared<QMetaObject::Connection>();
    *conn = connect(manager, &RunManager::runChanged, this,
                    [manager, runId, then = std::move(then), conn](const QString &id, RunChanges) {
                        const Run *run = manager->run(id);
                        if (id != runId || !run || run->remoteId.isEmpty())
                            return;
                        const QString remoteId = run->remoteId;
                        // Copies: disconnecting destroys this lambda and what it captured.
                        const auto next = then;
                        disconnect(*conn);
                        next(remoteId);
                    });
}

void DemoMode::advanceToEnd(const QString &remoteId)
{
    if (m_sim)
        QMetaObject::invokeMethod(m_sim, [sim = m_sim, remoteId] { sim->advanceToEnd(remoteId); });
}

void DemoMode::seed(RunManager *manager)
{
    if (auto *b = qobject_cast<DemoAgentBackend *>(manager->backend(demoAgentName())))
        b->setStepIntervalMs(350);
    // Finished runs first and a few milliseconds apart, so "newest first" lists the live ones on
    // top in a stable order.
    m_plan = {
        {Seed::Completed, tr("Draft release notes for version 4.2 from the merged pull requests")},
        {Seed::Failed, tr("Fail: rebuild the Q3 incident timeline from the on-call logs")},
        {Seed::Cancelled, tr("Reindex the staging search cluster")},
        {Seed::Options, tr("Choose a rollout strategy for the patched base image")},
        {Seed::Approval, tr("Patch the TLS library in api-gateway and restart production (approval needed)")},
        {Seed::Streaming, tr("Reasoning: audit the TLS stacks we ship and say what must be patched first")},
    };
    m_seedManager = manager;
    seedNext();
}

void DemoMode::seedNext()
{
    RunManager *manager = m_seedManager;
    if (!manager || m_plan.isEmpty()) {
        Q_EMIT seeded();
        return;
    }
    const auto [kind, prompt] = m_plan.takeFirst();
    const bool onSim = kind == Seed::Completed || kind == Seed::Failed || kind == Seed::Streaming;
    StartRequest r;
    r.prompt = prompt;
    r.model = onSim ? u"runwatch-sim-1"_s : u"demo-agent-1"_s;
    const QString id = manager->startRun(onSim ? localDemoName() : demoAgentName(), r);
    m_seeded.append(id);
    switch (kind) {
    case Seed::Completed:
    case Seed::Failed:
        // Let the simulator play the whole response at once: these runs are history.
        whenIdentified(manager, id, [this](const QString &remote) { advanceToEnd(remote); });
        break;
    case Seed::Cancelled:
        whenIdentified(manager, id, [manager, id](const QString &) { manager->cancelRun(id); });
        break;
    case Seed::Approval:
        m_approval = id;
        break;
    case Seed::Streaming:
        m_streaming = id;
        break;
    case Seed::Options:
        break;
    }
    QTimer::singleShot(15, this, &DemoMode::seedNext);
}

} // namespace Runwatch
