// SPDX-License-Identifier: GPL-3.0-or-later
#include "demomode.h"

#include "demosimulators.h"
#include "engine/runmanager.h"

#include <QJsonObject>
#include <QTimer>

#include <memory>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// The words the jobs simulator streams as the output of every demo job (so the jobs' prompts are
// all about the same cost report). Jobs that wait stop halfway, after 12 of the 24 words: each
// half reads as a sentence of its own.
const char *const kJobsReply = "Read the usage and cost figures of all 14 services for Q3. "
                               "Storage grew by 31 percent and two batch jobs run twice nightly.";

// How long the demo's timer run waits before it resumes by itself.
constexpr int kTimerMs = 5 * 60 * 1000;
// How much of its answer the cancelled run shows before it is cancelled.
constexpr qsizetype kCancelAfterChars = 60;

// The simulators pick a run's scenario from the first word of its prompt ("Fail:", "Timer:", …):
// the demo uses the same words a person can type into New Run to get the same behaviour. That
// word is the simulators' vocabulary, so only the rest of the prompt is translated.
QString scenario(QStringView keyword, const QString &task)
{
    return keyword.toString() + u": "_s + task;
}

struct SeedPlan
{
    DemoMode::Seed seed;
    QString connection;
    QString prompt;
};

SeedPlan planFor(DemoMode::Seed seed)
{
    using Seed = DemoMode::Seed;
    const QString openAi = DemoMode::localDemoName();
    const QString a2a = DemoMode::demoAgentName();
    const QString jobs = DemoMode::demoJobsName();
    const QString foundry = DemoMode::demoFoundryName();
    switch (seed) {
    case Seed::Completed:
        return {seed, jobs, DemoMode::tr("Summarise Q3 usage and costs")};
    case Seed::Failed:
        return {seed, openAi, scenario(u"Fail", DemoMode::tr("summarise this week's TLS advisories"))};
    case Seed::Cancelled:
        return {seed, openAi, scenario(u"Long", DemoMode::tr("check the TLS setup of every service"))};
    case Seed::Timer:
        return {seed, jobs, scenario(u"Timer", DemoMode::tr("export the Q3 billing data"))};
    case Seed::Webhook:
        return {seed, jobs, scenario(u"Webhook", DemoMode::tr("rebuild the Q3 cost dashboards"))};
    case Seed::Options:
        return {seed, jobs, scenario(u"Options", DemoMode::tr("analyse the Q3 cost drivers"))};
    case Seed::Question:
        return {seed, a2a, scenario(u"Input", DemoMode::tr("weather for Friday's offsite"))};
    case Seed::Approval:
        return {seed, jobs, scenario(u"Two-step", DemoMode::tr("approve the Q3 compute budget"))};
    case Seed::ToolOutput:
        return {seed, foundry, scenario(u"Tools", DemoMode::tr("plan Friday's offsite lunch"))};
    case Seed::Streaming:
        return {seed, openAi, scenario(u"Reasoning", DemoMode::tr("audit the TLS stacks we ship"))};
    }
    return {seed, {}, {}};
}

} // namespace

DemoMode::DemoMode(QObject *parent)
    : QObject(parent)
{}

// The simulators go with their QObject parent (this), after the RunManager has shut down (see
// AppController): no connector is left talking to them.
DemoMode::~DemoMode() = default;

QString DemoMode::localDemoName()
{
    return tr("Demo OpenAI");
}

QString DemoMode::demoAgentName()
{
    return tr("Demo agent");
}

QString DemoMode::demoJobsName()
{
    return tr("Demo jobs");
}

QString DemoMode::demoFoundryName()
{
    return tr("Demo Foundry");
}

bool DemoMode::startSimulators(QString *error)
{
    if (!m_sims)
        m_sims = new DemoSimulators(this);
    return m_sims->start(error);
}

QString DemoMode::modeNote() const
{
    return tr(
        "Demo mode · built-in OpenAI, A2A, jobs and Foundry simulators on 127.0.0.1 · runs are not saved");
}

QList<Connection> DemoMode::connections() const
{
    if (!m_sims || !m_sims->isRunning())
        return {};
    Connection openAi;
    openAi.name = localDemoName();
    openAi.backend = u"openai"_s;
    openAi.baseUrl = m_sims->openAiUrl();
    openAi.auth = AuthStyle::None;
    openAi.defaultModel = u"runwatch-sim-1"_s;

    Connection agent;
    agent.name = demoAgentName();
    agent.backend = u"a2a"_s;
    agent.baseUrl = m_sims->a2aUrl();
    agent.auth = AuthStyle::None;

    // A jobs profile that only adds fixed kickoff metadata: the simulator reads from it the words
    // to stream and how long the timer waits (a connection profile is how a real service would
    // get fixed members too, see docs/jobs-profile.md).
    Connection jobs;
    jobs.name = demoJobsName();
    jobs.backend = u"jobs"_s;
    jobs.baseUrl = m_sims->jobsUrl();
    jobs.auth = AuthStyle::None;
    const QJsonObject metadata{{u"reply"_s, QString::fromUtf8(kJobsReply)},
                               {u"timer_ms"_s, QString::number(kTimerMs)}};
    jobs.options.insert(
        u"profile"_s,
        QJsonObject{{u"name"_s, u"demo-jobs"_s},
                    {u"request"_s, QJsonObject{{u"body"_s, QJsonObject{{u"metadata"_s, metadata}}}}}});
    // The project's weather agent; no token (the simulator asks for none).
    Connection foundry;
    foundry.name = demoFoundryName();
    foundry.backend = u"foundry"_s;
    foundry.baseUrl = m_sims->foundryUrl();
    foundry.auth = AuthStyle::None;
    foundry.options.insert(u"agent"_s, u"asst_sim_weather"_s);
    return {openAi, agent, jobs, foundry};
}

QList<DemoMode::Seed> DemoMode::seeds()
{
    return {Seed::Completed, Seed::Failed,   Seed::Cancelled, Seed::Timer,      Seed::Webhook,
            Seed::Options,   Seed::Question, Seed::Approval,  Seed::ToolOutput, Seed::Streaming};
}

RunStatus DemoMode::intendedStatus(Seed seed)
{
    switch (seed) {
    case Seed::Completed:
        return RunStatus::Completed;
    case Seed::Failed:
        return RunStatus::Failed;
    case Seed::Cancelled:
        return RunStatus::Cancelled;
    case Seed::Streaming:
        return RunStatus::InProgress;
    case Seed::Timer:
    case Seed::Webhook:
    case Seed::Options:
    case Seed::Question:
    case Seed::Approval:
    case Seed::ToolOutput:
        return RunStatus::InputRequired;
    }
    return RunStatus::Unknown;
}

std::optional<InputReason> DemoMode::intendedReason(Seed seed)
{
    switch (seed) {
    case Seed::Timer:
        return InputReason::Timer;
    case Seed::Webhook:
        return InputReason::Webhook;
    case Seed::Options:
        return InputReason::Options;
    case Seed::Question:
        return InputReason::Question;
    case Seed::Approval:
        return InputReason::Approval;
    case Seed::ToolOutput:
        return InputReason::ToolOutput;
    default:
        return std::nullopt;
    }
}

void DemoMode::when(RunManager *manager, const QString &runId, std::function<bool(const Run &)> ready,
                    std::function<void(const Run &)> then)
{
    // The slot owns the handle: it goes when the slot is disconnected here or when `this` goes
    // first (a run that never gets there must not leak it).
    auto conn = std::make_shared<QMetaObject::Connection>();
    *conn = connect(manager, &RunManager::runChanged, this,
                    [manager, runId, ready = std::move(ready), then = std::move(then),
                     conn](const QString &id, RunChanges) {
                        const Run *run = manager->run(id);
                        if (id != runId || !run || !ready(*run))
                            return;
                        const Run now = *run;
                        // Copies: disconnecting destroys this lambda and what it captured.
                        const auto next = then;
                        disconnect(*conn);
                        next(now);
                    });
}

void DemoMode::seed(RunManager *manager)
{
    // Finished runs first and a few milliseconds apart, so "newest first" lists the live ones on
    // top in a stable order.
    m_plan = seeds();
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
    const SeedPlan plan = planFor(m_plan.takeFirst());
    StartRequest r;
    r.prompt = plan.prompt;
    const QString id = manager->startRun(plan.connection, r);
    m_ids.insert(plan.seed, id);
    m_seeded.append(id);
    switch (plan.seed) {
    case Seed::Failed:
        // Let the simulator play the whole response at once: this run is history.
        when(
            manager, id, [](const Run &run) { return !run.remoteId.isEmpty(); },
            [sims = QPointer<DemoSimulators>(m_sims)](const Run &run) {
                if (sims)
                    sims->finishResponse(run.remoteId);
            });
        break;
    case Seed::Cancelled:
        // Cancelled once it has said something, as a person would.
        when(
            manager, id, [](const Run &run) { return run.primaryText.size() >= kCancelAfterChars; },
            [manager, id](const Run &) { manager->cancelRun(id); });
        break;
    default:
        break;
    }
    QTimer::singleShot(15, this, &DemoMode::seedNext);
}

} // namespace Runwatch
