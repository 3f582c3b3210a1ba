// SPDX-License-Identifier: GPL-3.0-or-later
#include "demomode.h"

#include "backends/registry.h"
#include "demosimulators.h"
#include "engine/runmanager.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QMetaEnum>
#include <QTimer>

#include <memory>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// How much of its answer the cancelled run shows before it is cancelled.
constexpr qsizetype kCancelAfterChars = 60;

struct SeedPlan
{
    DemoMode::Seed seed;
    QString connection;
    QString prompt;
    QString agent;
    QJsonValue input{QJsonValue::Undefined};
};

// The run a connector's demo row starts for `seed`: on that row's demo connection. The
// simulators pick a run's scenario from the first word of its prompt ("Fail:", "Timer:", …): the
// demo uses the same words a person can type into New Run to get the same behaviour. That word is
// the simulators' vocabulary, so only the rest of the prompt is translated.
SeedPlan planFor(DemoMode::Seed seed)
{
    for (const ConnectorDescriptor &row : connectors()) {
        for (const ConnectorDemo::DemoRun &run : row.demo.runs) {
            if (run.seed != seed)
                continue;
            const QString task = DemoMode::tr(run.task);
            QJsonValue input(QJsonValue::Undefined);
            if (!run.input.isEmpty())
                input = QJsonDocument::fromJson(QByteArray(run.input.data(), run.input.size())).object();
            return {seed, DemoMode::tr(row.demo.connectionName),
                    run.keyword.isEmpty() ? task : QString(run.keyword) + u": "_s + task, QString(run.agent),
                    input};
        }
    }
    return {seed, {}, {}, {}, QJsonValue::Undefined};
}

} // namespace

DemoMode::DemoMode(QObject *parent)
    : QObject(parent)
{}

// The simulators go with their QObject parent (this), after the RunManager has shut down (see
// AppController): no connector is left talking to them.
DemoMode::~DemoMode() = default;

QString DemoMode::connectionName(const QString &connector)
{
    const ConnectorDescriptor *row = Runwatch::connector(connector);
    return row && row->demo.connectionName ? tr(row->demo.connectionName) : QString();
}

bool DemoMode::startSimulators(QString *error)
{
    if (!m_sims)
        m_sims = new DemoSimulators(this);
    return m_sims->start(error);
}

QString DemoMode::modeNote() const
{
    return tr("Demo mode · a built-in simulator for each connector on 127.0.0.1 · runs are not saved");
}

QList<Connection> DemoMode::connections() const
{
    if (!m_sims || !m_sims->isRunning())
        return {};
    QList<Connection> out;
    for (const ConnectorDescriptor &row : connectors()) {
        if (!row.demo.connectionName)
            continue;
        Connection c;
        c.name = tr(row.demo.connectionName);
        c.backend = row.name;
        c.baseUrl = m_sims->urlFor(QString(row.name));
        if (!row.demo.urlPath.isEmpty())
            c.baseUrl.setPath(QString(row.demo.urlPath));
        c.auth = AuthStyle::None; // the simulators ask for no key
        c.defaultModel = row.demo.defaultModel;
        if (row.demo.options)
            c.options = row.demo.options();
        out << c;
    }
    return out;
}

QList<DemoMode::Seed> DemoMode::seeds()
{
    // Every seed some connector's demo starts, in the enum's order: finished runs first.
    QList<Seed> out;
    const QMetaEnum all = QMetaEnum::fromType<Seed>();
    for (int i = 0; i < all.keyCount(); ++i) {
        const auto seed = Seed(all.value(i));
        if (!planFor(seed).connection.isEmpty())
            out << seed;
    }
    return out;
}

RunStatus DemoMode::intendedStatus(Seed seed)
{
    switch (seed) {
    case Seed::Completed:
    case Seed::Agent:
    case Seed::AgentTurn:
    case Seed::AgentTools:
        return RunStatus::Completed;
    case Seed::Failed:
        return RunStatus::Failed;
    case Seed::Cancelled:
        return RunStatus::Cancelled;
    case Seed::Streaming:
    case Seed::Research:
        return RunStatus::InProgress;
    case Seed::Timer:
    case Seed::Webhook:
    case Seed::Options:
    case Seed::Question:
    case Seed::Approval:
    case Seed::ToolOutput:
    case Seed::Review:
    case Seed::Form:
    case Seed::Elicitation:
    case Seed::ToolConfirmation:
    case Seed::CallApproval:
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
    case Seed::Form: // a question with a JSON Schema: the Respond panel's typed form
    case Seed::Elicitation:
        return InputReason::Question;
    case Seed::Approval:
    case Seed::Review:
    case Seed::ToolConfirmation:
    case Seed::CallApproval:
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
    r.agent = plan.agent;
    r.input = plan.input;
    const QString id = manager->startRun(plan.connection, r);
    m_ids.insert(plan.seed, id);
    m_seeded.append(id);
    switch (plan.seed) {
    case Seed::Failed:
    case Seed::Agent:
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
