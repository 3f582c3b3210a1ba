// SPDX-License-Identifier: GPL-3.0-or-later
// The demo itself: its simulators listen on loopback in a thread of their own and are gone
// after stop(); its connections are transient and use the real openai / a2a / jobs connectors;
// every seeded run reaches the state it is meant to show; answering the question, the two-step
// approval and the options, and calling the webhook, complete those runs.
#include "backends/registry.h"
#include "connections/connectionregistry.h"
#include "connections/keystore.h"
#include "demomode.h"
#include "demosimulators.h"
#include "engine/runmanager.h"
#include "net/httpclient.h"
#include "store/runstore.h"

#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

constexpr int kWait = 30000;
using Seed = DemoMode::Seed;

// What each demo run must show, written down here independently of DemoMode's own table.
struct Expected
{
    QString connection;
    QString backend;
    RunStatus status;
    std::optional<InputReason> reason;
};

Expected expected(Seed seed)
{
    const QString openAi = DemoMode::connectionName(u"openai"_s);
    const QString a2a = DemoMode::connectionName(u"a2a"_s);
    const QString jobs = DemoMode::connectionName(u"jobs"_s);
    const QString foundry = DemoMode::connectionName(u"foundry"_s);
    const QString langGraph = DemoMode::connectionName(u"langgraph"_s);
    const QString gemini = DemoMode::connectionName(u"gemini"_s);
    const QString mcp = DemoMode::connectionName(u"mcp"_s);
    const QString claude = DemoMode::connectionName(u"claude-agents"_s);
    const QString agents = DemoMode::connectionName(u"openai-agents"_s);
    switch (seed) {
    case Seed::Completed:
        return {jobs, u"jobs"_s, RunStatus::Completed, std::nullopt};
    case Seed::Failed:
        return {openAi, u"openai"_s, RunStatus::Failed, std::nullopt};
    case Seed::Cancelled:
        return {openAi, u"openai"_s, RunStatus::Cancelled, std::nullopt};
    case Seed::Agent:
        return {openAi, u"openai"_s, RunStatus::Completed, std::nullopt};
    case Seed::AgentTurn:
        return {agents, u"openai-agents"_s, RunStatus::Completed, std::nullopt};
    case Seed::AgentTools:
        return {claude, u"claude-agents"_s, RunStatus::Completed, std::nullopt};
    case Seed::Timer:
        return {jobs, u"jobs"_s, RunStatus::InputRequired, InputReason::Timer};
    case Seed::Webhook:
        return {jobs, u"jobs"_s, RunStatus::InputRequired, InputReason::Webhook};
    case Seed::Options:
        return {jobs, u"jobs"_s, RunStatus::InputRequired, InputReason::Options};
    case Seed::Question:
        return {a2a, u"a2a"_s, RunStatus::InputRequired, InputReason::Question};
    case Seed::Approval:
        return {jobs, u"jobs"_s, RunStatus::InputRequired, InputReason::Approval};
    case Seed::ToolOutput:
        return {foundry, u"foundry"_s, RunStatus::InputRequired, InputReason::ToolOutput};
    case Seed::Form:
        return {jobs, u"jobs"_s, RunStatus::InputRequired, InputReason::Question};
    case Seed::Review:
        return {langGraph, u"langgraph"_s, RunStatus::InputRequired, InputReason::Approval};
    case Seed::Elicitation:
        return {mcp, u"mcp"_s, RunStatus::InputRequired, InputReason::Question};
    case Seed::ToolConfirmation:
        return {claude, u"claude-agents"_s, RunStatus::InputRequired, InputReason::Approval};
    case Seed::CallApproval:
        return {agents, u"openai-agents"_s, RunStatus::InputRequired, InputReason::Approval};
    case Seed::Streaming:
        return {openAi, u"openai"_s, RunStatus::InProgress, std::nullopt};
    case Seed::Research:
        return {gemini, u"gemini"_s, RunStatus::InProgress, std::nullopt};
    }
    return {};
}

// The demo as the app wires it: simulators, transient connections in a registry backed by a
// store, and a RunManager that shuts down before the simulators stop.
struct Rig
{
    QTemporaryDir dir;
    RunStore store;
    DemoMode demo;
    RunManager manager;
    std::unique_ptr<ConnectionRegistry> registry;

    Rig()
    {
        QVERIFY(dir.isValid());
        QVERIFY(store.open(dir.filePath(u"profiles.sqlite"_s)));
        QString why;
        QVERIFY2(demo.startSimulators(&why), qPrintable(why));
        auto *keys = new SessionKeyStore;
        registry = std::make_unique<ConnectionRegistry>(&manager, keys, &store);
        keys->setParent(registry.get());
        for (const Connection &c : demo.connections())
            registry->addTransient(c);
    }

    ~Rig()
    {
        manager.shutdown();
        QCOMPARE(HttpClient::liveRequests(), 0);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }

    void seed()
    {
        QSignalSpy seeded(&demo, &DemoMode::seeded);
        demo.seed(&manager);
        QTRY_COMPARE_WITH_TIMEOUT(seeded.count(), 1, kWait);
        QCOMPARE(demo.seededRunIds().size(), DemoMode::seeds().size());
    }

    const Run *run(Seed seed) const { return manager.run(demo.runId(seed)); }

    bool settled(Seed seed) const
    {
        const Run *r = run(seed);
        if (!r || r->status != expected(seed).status)
            return false;
        if (seed == Seed::Streaming)
            return !r->primaryText.isEmpty();
        return !expected(seed).reason || (r->input && r->input->reason == *expected(seed).reason);
    }

    bool allSettled() const
    {
        const QList<Seed> seeds = DemoMode::seeds();
        return std::all_of(seeds.cbegin(), seeds.cend(), [this](Seed s) { return settled(s); });
    }

    QString describe() const
    {
        QStringList out;
        for (const Seed seed : DemoMode::seeds()) {
            const Run *r = run(seed);
            out << u"%1=%2"_s.arg(QString::fromLatin1(QMetaEnum::fromType<Seed>().valueToKey(int(seed))),
                                  r ? statusLabel(r->status) : u"missing"_s);
        }
        return out.join(u", "_s);
    }

    void respond(Seed seed, InputAnswer answer)
    {
        QSignalSpy finished(&manager, &RunManager::actionFinished);
        manager.respondToRun(demo.runId(seed), answer);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kWait);
        const auto result = finished.first().at(2).value<ActionResult>();
        QVERIFY2(result.ok(), qPrintable(result.error.message));
    }
};

bool refusesConnections(const QUrl &url)
{
    QTcpSocket socket;
    QSignalSpy failed(&socket, &QTcpSocket::errorOccurred);
    QSignalSpy connected(&socket, &QTcpSocket::connected);
    socket.connectToHost(url.host(), quint16(url.port()));
    return QTest::qWaitFor([&] { return failed.count() > 0 || connected.count() > 0; }, 5000)
           && connected.isEmpty();
}

} // namespace

class TestDemoMode final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // The nine servers listen on 127.0.0.1 (ports the system picked) in one worker thread, and
    // stop() ends them and joins that thread.
    void simulatorsOnLoopbackInAThreadOfTheirOwn()
    {
        DemoSimulators sims;
        QString why;
        QVERIFY2(sims.start(&why), qPrintable(why));
        QPointer<QThread> thread = sims.workerThread();
        QVERIFY(thread);
        QVERIFY(thread != QThread::currentThread());
        QVERIFY(thread->isRunning());
        QCOMPARE(thread->objectName(), u"runwatch-demo-sims"_s);
        const QList<QUrl> urls{sims.openAiUrl(),  sims.a2aUrl(),          sims.jobsUrl(),
                               sims.foundryUrl(), sims.langGraphUrl(),    sims.geminiUrl(),
                               sims.mcpUrl(),     sims.claudeAgentsUrl(), sims.openAiAgentsUrl()};
        QSet<int> ports;
        for (const QUrl &url : urls) {
            QCOMPARE(url.scheme(), u"http"_s);
            QCOMPARE(url.host(), u"127.0.0.1"_s);
            QVERIFY(url.port() > 0);
            ports.insert(url.port());
        }
        QCOMPARE(ports.size(), 9);
        // urlFor() finds each by its connector's name.
        QCOMPARE(sims.urlFor(u"claude-agents"_s), sims.claudeAgentsUrl());
        QCOMPARE(sims.urlFor(u"openai-agents"_s), sims.openAiAgentsUrl());
        QCOMPARE(sims.openAiAgentsUrl().path(), u"/v1"_s);

        sims.stop();
        QVERIFY(!sims.isRunning());
        QVERIFY(!thread); // joined and deleted
        for (const QUrl &url : urls)
            QVERIFY2(refusesConnections(url), qPrintable(url.toString()));
    }

    // One transient connection per simulator, each served by its real connector; none is saved.
    void connectionsAreTransientAndReal()
    {
        Rig rig;
        const QList<Connection> connections = rig.demo.connections();
        QCOMPARE(connections.size(), 9);
        QStringList backends;
        for (const Connection &c : connections) {
            QVERIFY(knownBackends().contains(c.backend));
            QCOMPARE(c.auth, AuthStyle::None);
            QCOMPARE(c.baseUrl.host(), u"127.0.0.1"_s);
            const auto profile = rig.registry->profile(c.name);
            QVERIFY(profile);
            QVERIFY(profile->transient);
            QVERIFY(rig.manager.backend(c.name));
            QCOMPARE(rig.manager.backend(c.name)->kind(), c.backend);
            backends << c.backend;
        }
        backends.sort();
        QCOMPARE(backends, (QStringList{u"a2a"_s, u"claude-agents"_s, u"foundry"_s, u"gemini"_s, u"jobs"_s,
                                        u"langgraph"_s, u"mcp"_s, u"openai"_s, u"openai-agents"_s}));
        // The OpenAI simulator's Foundry project: its Responses API, and its agents.
        QUrl project = rig.demo.simulators()->openAiUrl();
        project.setPath(u"/api/projects/runwatch-sim/openai/v1"_s);
        QCOMPARE(rig.manager.connection(DemoMode::connectionName(u"openai"_s))->baseUrl, project);
        QVERIFY(rig.manager.backend(DemoMode::connectionName(u"openai"_s))
                    ->capabilities()
                    .testFlag(Capability::Catalog));
        QCOMPARE(rig.manager.connection(DemoMode::connectionName(u"a2a"_s))->baseUrl,
                 rig.demo.simulators()->a2aUrl());
        QCOMPARE(rig.manager.connection(DemoMode::connectionName(u"langgraph"_s))->baseUrl,
                 rig.demo.simulators()->langGraphUrl());
        QCOMPARE(rig.manager.connection(DemoMode::connectionName(u"jobs"_s))->baseUrl,
                 rig.demo.simulators()->jobsUrl());
        QCOMPARE(rig.manager.connection(DemoMode::connectionName(u"foundry"_s))->baseUrl,
                 rig.demo.simulators()->foundryUrl());
        QCOMPARE(rig.manager.connection(DemoMode::connectionName(u"gemini"_s))->baseUrl,
                 rig.demo.simulators()->geminiUrl());
        QCOMPARE(rig.manager.connection(DemoMode::connectionName(u"claude-agents"_s))->baseUrl,
                 rig.demo.simulators()->claudeAgentsUrl());
        QCOMPARE(rig.manager.connection(DemoMode::connectionName(u"openai-agents"_s))->baseUrl,
                 rig.demo.simulators()->openAiAgentsUrl());
        QVERIFY(rig.store.loadConnectionConfigs().isEmpty());
        QVERIFY(!ConnectionRegistry::hasSavedProfiles(&rig.store));
    }

    // Left alone, each demo run settles in the state it is there to show.
    void seededRunsReachTheirStates()
    {
        Rig rig;
        rig.seed();
        QTRY_VERIFY2_WITH_TIMEOUT(rig.allSettled(), qPrintable(rig.describe()), kWait);
        for (const Seed seed : DemoMode::seeds()) {
            const Run *r = rig.run(seed);
            QCOMPARE(r->connection, expected(seed).connection);
            QCOMPARE(r->backend, expected(seed).backend);
            QCOMPARE(DemoMode::intendedStatus(seed), expected(seed).status);
            QCOMPARE(DemoMode::intendedReason(seed), expected(seed).reason);
            QVERIFY(!r->remoteId.isEmpty());
            QVERIFY(!r->title.isEmpty());
        }
        // The demo's words, not the simulators' placeholders ("tok0 tok1 …").
        QCOMPARE(rig.run(Seed::Completed)->primaryText,
                 u"Read the usage and cost figures of all 14 services for Q3. Storage grew by 31 percent "
                 "and two batch jobs run twice nightly. "_s);
        QVERIFY(!rig.run(Seed::Failed)->error.message.isEmpty());
        QVERIFY(!rig.run(Seed::Cancelled)->primaryText.isEmpty()); // cancelled after it said something
        // A Foundry agent's run: on the agent, in a conversation of its own, to its end.
        const Run *agentRun = rig.run(Seed::Agent);
        QCOMPARE(agentRun->token.extra.value(u"agent_reference"_s).toObject().value(u"name"_s).toString(),
                 u"researcher"_s);
        QVERIFY(agentRun->token.extra.value(u"conversation"_s).toString().startsWith(u"conv_"_s));
        QVERIFY(!agentRun->primaryText.isEmpty());

        // The managed agents' finished turns: the demo's words, on the simulators' research agents.
        const Run *turn = rig.run(Seed::AgentTurn);
        QVERIFY2(turn->primaryText.contains(u"The branch old-feature was merged into main in March"_s),
                 qPrintable(turn->primaryText.toString()));
        QVERIFY(turn->usage.outputTokens > 0); // each turn reports its usage
        const Run *searched = rig.run(Seed::AgentTools);
        QVERIFY2(searched->primaryText.contains(u"OpenSSL 3.0.13 fixes three low-severity issues"_s),
                 qPrintable(searched->primaryText.toString()));
        // Their waits: a bash command to confirm, an MCP call to approve.
        const InputRequest &confirm = *rig.run(Seed::ToolConfirmation)->input;
        QCOMPARE(confirm.toolCalls.size(), 1);
        QCOMPARE(confirm.toolCalls.at(0).name, u"bash"_s);
        QVERIFY(confirm.toolCalls.at(0).approval);
        const InputRequest &mcpCall = *rig.run(Seed::CallApproval)->input;
        QCOMPARE(mcpCall.toolCalls.size(), 1);
        QCOMPARE(mcpCall.toolCalls.at(0).name, u"delete_branch"_s);
        QCOMPARE(mcpCall.toolCalls.at(0).serverLabel, u"github"_s);
        QVERIFY(mcpCall.toolCalls.at(0).approval);

        const Run *streaming = rig.run(Seed::Streaming);
        const auto has = [streaming](SecondaryKind kind) {
            return std::any_of(streaming->secondary.cbegin(), streaming->secondary.cend(),
                               [kind](const SecondaryItem &item) { return item.kind == kind; });
        };
        QTRY_VERIFY_WITH_TIMEOUT(has(SecondaryKind::Reasoning) && has(SecondaryKind::ToolCall), kWait);

        // The people's waits can be answered from the Respond panel; the machines' cannot.
        for (const Seed seed : {Seed::Question, Seed::Approval, Seed::Options, Seed::ToolOutput, Seed::Review,
                                Seed::Form, Seed::ToolConfirmation, Seed::CallApproval})
            QVERIFY(rig.run(seed)->capabilities.testFlag(Capability::Respond));
        // The form asks for typed fields: the Respond panel renders its JSON Schema.
        const QJsonObject form = rig.run(Seed::Form)->input->schema;
        QCOMPARE(
            form.value(u"properties"_s).toObject().keys(),
            (QStringList{u"budget"_s, u"dry_run"_s, u"notes"_s, u"region"_s, u"replicas"_s, u"title"_s}));
        // Two tool calls, due before the run expires (ten minutes: the countdown is seen).
        const InputRequest &tools = *rig.run(Seed::ToolOutput)->input;
        QCOMPARE(tools.toolCalls.size(), 2);
        QCOMPARE(tools.toolCalls.at(0).name, u"get_weather"_s);
        QCOMPARE(tools.toolCalls.at(1).name, u"get_time"_s);
        QVERIFY(tools.deadline > QDateTime::currentDateTimeUtc().addSecs(540));
        // A graph's review of two actions: one decision each.
        const InputRequest &review = *rig.run(Seed::Review)->input;
        QCOMPARE(review.toolCalls.size(), 2);
        QVERIFY(std::all_of(review.toolCalls.cbegin(), review.toolCalls.cend(),
                            [](const ToolCallRequest &c) { return c.approval; }));
        QCOMPARE(rig.run(Seed::Question)->input->prompt, u"Which city?"_s);
        QVERIFY(rig.run(Seed::Approval)->input->prompt.startsWith(u"Manager approval"_s));
        QCOMPARE(rig.run(Seed::Options)->input->options, (QStringList{u"quick"_s, u"standard"_s, u"deep"_s}));
        const QUrl callback(rig.run(Seed::Webhook)->input->callbackUrl);
        QCOMPARE(callback.host(), u"127.0.0.1"_s);
        QCOMPARE(callback.port(), rig.demo.simulators()->jobsUrl().port());
        // The timer waits minutes, long enough to be seen counting down.
        QVERIFY(rig.run(Seed::Timer)->input->deadline > QDateTime::currentDateTimeUtc().addSecs(120));
    }

    // Answering the question, both steps of the approval and the options, and the external
    // system calling the webhook, let those runs go on to the end.
    void answeringCompletesTheRuns()
    {
        Rig rig;
        rig.seed();
        QTRY_VERIFY2_WITH_TIMEOUT(rig.allSettled(), qPrintable(rig.describe()), kWait);

        InputAnswer city;
        city.text = u"Lisbon"_s;
        rig.respond(Seed::Question, city);

        InputAnswer manager;
        manager.kind = InputAnswer::Kind::Approve;
        manager.comment = u"within budget"_s;
        rig.respond(Seed::Approval, manager);

        const QList<ToolCallRequest> calls = rig.run(Seed::ToolOutput)->input->toolCalls;
        InputAnswer outputs;
        outputs.toolAnswers = {{calls.at(0).id, u"21C, dry"_s, false}, {calls.at(1).id, u"12:30"_s, false}};
        rig.respond(Seed::ToolOutput, outputs);

        InputAnswer release;
        release.kind = InputAnswer::Kind::Value;
        release.value = QJsonObject{{u"title"_s, u"Q3 costs"_s},
                                    {u"replicas"_s, 3},
                                    {u"budget"_s, 1200},
                                    {u"dry_run"_s, false},
                                    {u"region"_s, u"eu-west"_s}};
        rig.respond(Seed::Form, release);

        // The managed agents' waits: confirming the command and approving the call end their turns.
        InputAnswer allow;
        allow.kind = InputAnswer::Kind::Approve;
        rig.respond(Seed::ToolConfirmation, allow);
        rig.respond(Seed::CallApproval, allow);

        InputAnswer choice;
        choice.kind = InputAnswer::Kind::Choice;
        choice.choice = u"deep"_s;
        rig.respond(Seed::Options, choice);

        QNetworkAccessManager nam;
        QNetworkRequest request{QUrl(rig.run(Seed::Webhook)->input->callbackUrl)};
        request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
        std::unique_ptr<QNetworkReply> reply(nam.post(request, QByteArray("{\"build\":\"green\"}")));
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), kWait);
        QCOMPARE(reply->error(), QNetworkReply::NoError);

        // The two-step approval asks the director next.
        QTRY_VERIFY_WITH_TIMEOUT(rig.run(Seed::Approval)->status == RunStatus::InputRequired
                                     && rig.run(Seed::Approval)->input
                                     && rig.run(Seed::Approval)->input->prompt.startsWith(u"Director"_s),
                                 kWait);
        InputAnswer director;
        director.kind = InputAnswer::Kind::Approve;
        rig.respond(Seed::Approval, director);

        for (const Seed seed : {Seed::Question, Seed::Approval, Seed::Options, Seed::Webhook,
                                Seed::ToolOutput, Seed::Form, Seed::ToolConfirmation, Seed::CallApproval})
            QTRY_COMPARE_WITH_TIMEOUT(rig.run(seed)->status, RunStatus::Completed, kWait);
        QVERIFY(rig.run(Seed::ToolConfirmation)->primaryText.contains(u"It ran."_s));
        QVERIFY(rig.run(Seed::CallApproval)->primaryText.contains(u"Approved."_s));
        QVERIFY(rig.run(Seed::Question)->primaryText.contains(u"Weather in Lisbon"_s));
        QVERIFY(rig.run(Seed::Approval)->primaryText.contains(u"[manager approved: within budget]"_s));
        QVERIFY(rig.run(Seed::Approval)->primaryText.contains(u"[director approved]"_s));
        QVERIFY(rig.run(Seed::Options)->primaryText.contains(u"[choice: deep]"_s));
        QVERIFY(
            rig.run(Seed::Form)
                ->primaryText.contains(
                    u"[form: {\"budget\":1200,\"dry_run\":false,\"region\":\"eu-west\",\"replicas\":3,\"title\":\"Q3 costs\"}]"_s));
        QVERIFY(rig.run(Seed::Webhook)->primaryText.contains(u"[callback: {\"build\":\"green\"}]"_s));
        QVERIFY(rig.run(Seed::Options)->primaryText.startsWith(u"Read the usage and cost figures"_s));
        QCOMPARE(
            rig.run(Seed::ToolOutput)->primaryText,
            u"[%1: 21C, dry] [%2: 12:30] Friday looks dry in Lisbon: 21 degrees at noon, light wind from "
            "the north-west, so the terrace lunch can stay outside."_s.arg(calls.at(0).id, calls.at(1).id));
        QCOMPARE(rig.run(Seed::Timer)->status, RunStatus::InputRequired); // still counting down
    }
};

QTEST_GUILESS_MAIN(TestDemoMode)
#include "tst_demomode.moc"
