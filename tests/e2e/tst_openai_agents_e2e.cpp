// SPDX-License-Identifier: GPL-3.0-or-later
// The OpenAI Agents API connector (core/backends/openaiagents, on the shared session model of
// core/backends/agentsessions) and the engine against runwatch-sim's simulator over loopback: a
// turn streamed with the simulator's text, drops of the stream with the same text (stream + saved
// turns and items, nothing twice), MCP approvals approved and denied, a function call's result
// (retried while the call is not registered), a browser sign-in form, a second turn as a follow-up
// on the same session, a cancel the turn confirms, the service's failure reason and budget,
// listings over several pages, attach of a session started elsewhere (also of one with earlier
// turns: the conversation), delete (cancelled first), and the key and beta header as the client
// sends them. The steps every session connector shares are in agentsessionsrig.h.
#include "agentsessionsrig.h"
#include "awaitwithin.h"
#include "backends/agentsessions/sessionturn.h"
#include "openaiagents/openaiagentssim.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchSim::OpenAiAgentsEndpoint;
using RunwatchTest::itemIds;
using RunwatchTest::waitTerminal;

namespace {

constexpr int kWait = RunwatchTest::kEngineWait;

struct OpenAiAgentsE2eTraits
{
    using Sim = RunwatchSim::OpenAiAgentsSimulator;
    using Config = RunwatchSim::OpenAiAgentsSimConfig;
    using Record = RunwatchSim::OpenAiAgentsRequestRecord;
    using Endpoint = RunwatchSim::OpenAiAgentsEndpoint;
    static constexpr auto kBackend = "openai-agents";
    static constexpr auto kConnection = "agents";
    static constexpr auto kKey = "sk-e2e-agents-0001";
    static constexpr auto kAgent = "agent_68e1runwatch0research";
    static constexpr int kPageSize = 2;
    static constexpr Endpoint kSendEvents = Endpoint::SendEvents;
    static constexpr Endpoint kCreateSession = Endpoint::CreateSession;
    static constexpr Endpoint kStream = Endpoint::Stream;
    static bool turnOver(const RunwatchSim::OpenAiAgentsSessionInfo &info)
    {
        return info.status == u"idle"_s;
    }
    // 202: accepted (a refusal changes nothing).
    static bool taken(const Record &r) { return r.status == 202; }
};

using Rig = RunwatchTest::AgentSessionsRig<OpenAiAgentsE2eTraits>;
const QString kKey = QString::fromLatin1(OpenAiAgentsE2eTraits::kKey);
const QString kAgent = QString::fromLatin1(OpenAiAgentsE2eTraits::kAgent);

} // namespace

class TestOpenAiAgentsEndToEnd final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void streamedTurn()
    {
        Rig rig;
        const QString id = rig.startOn(u"normal deltas=24"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QVERIFY2(run.status == RunStatus::Completed, qPrintable(run.error.toString()));
        QCOMPARE(run.remoteId, rig.sim.lastSessionId());
        QVERIFY(!run.primaryText.isEmpty());
        QCOMPARE(run.primaryText, rig.textOf(id));
        QCOMPARE(run.reconciliations, 0);
        QCOMPARE(run.rawStatus, u"completed"_s);
        QCOMPARE(run.usage.outputTokens, 24);
        QVERIFY(run.usage.inputTokens > 0);
        QCOMPARE(run.model, u"gpt-5.2"_s);
        QCOMPARE(run.token.extra.value(AgentSessions::kTurnKey).toString(),
                 rig.sim.session(run.remoteId)->turns.constLast().id);
        // One create call whose own stream was the session's: nothing else was needed.
        QCOMPARE(rig.count(OpenAiAgentsEndpoint::CreateSession), 1);
        QCOMPARE(rig.count(OpenAiAgentsEndpoint::SendEvents), 0);
        for (const RunwatchSim::OpenAiAgentsRequestRecord &r : rig.sim.requests()) {
            QCOMPARE(r.header("authorization"), "Bearer " + kKey.toUtf8());
            QCOMPARE(r.header("openai-beta"), QByteArray("agents=v1"));
        }
        const QJsonObject create = QJsonDocument::fromJson(rig.sim.requests().at(0).body).object();
        QCOMPARE(create.value(u"agent_id"_s).toString(), kAgent);
        QCOMPARE(create.value(u"environment"_s).toObject().value(u"type"_s).toString(), u"none"_s);
        QCOMPARE(create.value(u"input"_s).toString(), u"normal deltas=24"_s);
        QVERIFY(create.value(u"stream"_s).toBool());
    }

    // Reasoning is an item, commentary is not the answer.
    void reasoningAndCommentaryAreItems()
    {
        Rig rig;
        const QString id = rig.startOn(u"think deltas=5"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, rig.textOf(id));
        QVERIFY(!run.primaryText.contains(u"Looking"_s));
        bool reasoning = false;
        bool commentary = false;
        for (const SecondaryItem &item : run.secondary) {
            reasoning
                = reasoning || (item.kind == SecondaryKind::Reasoning && item.text.contains(u"Weighing"_s));
            commentary = commentary || item.text == u"Looking into it."_s;
        }
        QVERIFY(reasoning && commentary);
        QCOMPARE(run.usage.reasoningTokens, 12);
    }

    // The stream drops after event k (closed, and cut mid-event): every follow opens the stream
    // first, reads the turns and items, and the run ends with the simulator's text, each item once.
    void dropsGiveTheSameText()
    {
        Rig clean;
        const QString reference = clean.startOn(u"think deltas=4 messages=2"_s);
        QVERIFY(waitTerminal(clean.manager, reference, kWait));
        const QStringList cleanItems = itemIds(clean.run(reference));
        const QList<int> points{1, 2, 3, 5, 7, 9, 12, 15, 18};
        const QStringList modes{u"close"_s, u"mid"_s};
        for (const QString &mode : modes) {
            for (const int k : points) {
                Rig rig;
                RunwatchSim::StreamFaults faults;
                faults.connections = 2;
                faults.dropAfterEvents = k;
                faults.dropMode
                    = mode == u"mid"_s ? RunwatchSim::DropMode::MidEvent : RunwatchSim::DropMode::Close;
                rig.sim.setStreamFaults(faults);
                const QString id = rig.startOn(u"think deltas=4 messages=2"_s);
                const QString where = u"drop after %1 (%2)"_s.arg(k).arg(mode);
                QVERIFY2(waitTerminal(rig.manager, id, kWait), qPrintable(where));
                const Run &run = rig.run(id);
                QVERIFY2(run.status == RunStatus::Completed,
                         qPrintable(where + u": "_s + statusName(run.status) + u' ' + run.error.toString()));
                QVERIFY2(
                    run.primaryText == rig.textOf(id),
                    qPrintable(where + u": "_s + run.primaryText.toString() + u" | "_s + rig.textOf(id)));
                QCOMPARE(run.primaryText, clean.run(reference).primaryText);
                QVERIFY2(itemIds(run) == cleanItems, qPrintable(where + u": "_s + itemIds(run).join(u',')
                                                                + u" | "_s + cleanItems.join(u',')));
                QCOMPARE(run.usage, clean.run(reference).usage);
                // The drop happened: the run followed the session again.
                QVERIFY2(rig.sim.session(run.remoteId)->streamConnections >= 2, qPrintable(where));
            }
        }
    }

    void approvalApproved()
    {
        Rig rig;
        const QString id = rig.startOn(u"approve deltas=3"_s);
        QVERIFY(RunwatchTest::waitInput(rig.manager, id, kWait));
        const Run waiting = rig.run(id);
        QCOMPARE(waiting.input->reason, InputReason::Approval);
        QCOMPARE(waiting.input->toolCalls.size(), 1);
        QCOMPARE(waiting.input->toolCalls.at(0).name, u"delete_branch"_s);
        QCOMPARE(waiting.input->toolCalls.at(0).serverLabel, u"github"_s);
        QVERIFY(waiting.input->toolCalls.at(0).approval);
        QVERIFY(!waiting.input->toolCalls.at(0).reasonOnReject);
        QVERIFY(waiting.input->toolCalls.at(0).arguments.contains(u"old-feature"_s));
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Approve;
        const ActionResult sent = RunwatchTest::respondAndWait(rig.manager, id, answer);
        QVERIFY2(sent.ok(), qPrintable(sent.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, rig.textOf(id));
        QVERIFY(run.primaryText.contains(u"Approved."_s));
        QCOMPARE(rig.manager.runIds().size(), 1);
        const QJsonObject result = rig.sentEvents().constLast();
        QCOMPARE(result.value(u"type"_s).toString(), u"agent.session.input.mcp_approval_request_result"_s);
        QCOMPARE(result.value(u"request_id"_s).toString(), waiting.input->toolCalls.at(0).id);
        QCOMPARE(result.value(u"response"_s).toObject().value(u"decision"_s).toString(), u"approve"_s);
        // Every submit carried a key of its own.
        for (const RunwatchSim::OpenAiAgentsRequestRecord &r : rig.sim.requests()) {
            if (r.endpoint == OpenAiAgentsEndpoint::SendEvents)
                QVERIFY(!r.header("idempotency-key").isEmpty());
        }
    }

    void approvalDenied()
    {
        Rig rig;
        const QString id = rig.startOn(u"approve deltas=2"_s);
        QVERIFY(RunwatchTest::waitInput(rig.manager, id, kWait));
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Reject;
        QVERIFY(RunwatchTest::respondAndWait(rig.manager, id, answer).ok());
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, rig.textOf(id));
        QVERIFY(run.primaryText.contains(u"Denied."_s));
        QCOMPARE(rig.sim.session(run.remoteId)->turns.constLast().decision, u"deny"_s);
    }

    // A function call's result; the service refuses it once as not registered yet, and the
    // connector sends it again as the SDK does.
    void toolResult()
    {
        Rig rig;
        const QString id = rig.startOn(u"tool unregistered=1"_s);
        QVERIFY(RunwatchTest::waitInput(rig.manager, id, kWait));
        const Run waiting = rig.run(id);
        QCOMPARE(waiting.input->reason, InputReason::ToolOutput);
        QCOMPARE(waiting.input->toolCalls.size(), 1);
        QCOMPARE(waiting.input->toolCalls.at(0).name, u"lookup_order"_s);
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Text;
        answer.text = u"shipped on Monday"_s;
        const ActionResult sent = RunwatchTest::respondAndWait(rig.manager, id, answer);
        QVERIFY2(sent.ok(), qPrintable(sent.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, rig.textOf(id));
        QCOMPARE(run.primaryText, u"The order says: shipped on Monday"_s);
        QCOMPARE(rig.sim.session(run.remoteId)->turns.constLast().toolOutput, answer.text);
        const QJsonObject result = rig.sentEvents().constLast();
        QCOMPARE(result.value(u"type"_s).toString(), u"agent.session.input.tool_result"_s);
        QCOMPARE(result.value(u"call_id"_s).toString(), waiting.input->toolCalls.at(0).id);
        QCOMPARE(result.value(u"turn_id"_s).toString(),
                 run.token.extra.value(AgentSessions::kTurnKey).toString());
        int refused = 0;
        for (const RunwatchSim::OpenAiAgentsRequestRecord &r : rig.sim.requests())
            refused += r.endpoint == OpenAiAgentsEndpoint::SendEvents && r.status == 400 ? 1 : 0;
        QCOMPARE(refused, 1);
    }

    // A browser sign-in form: a schema form, answered with its fields' values.
    void signInForm()
    {
        Rig rig;
        const QString id = rig.startOn(u"signin"_s);
        QVERIFY(RunwatchTest::waitInput(rig.manager, id, kWait));
        const Run waiting = rig.run(id);
        const QJsonObject properties = waiting.input->schema.value(u"properties"_s).toObject();
        QVERIFY(properties.contains(u"username"_s) && properties.contains(u"password"_s));
        QCOMPARE(properties.value(u"password"_s).toObject().value(u"format"_s).toString(), u"password"_s);
        QVERIFY(waiting.input->prompt.contains(u"https://shop.example"_s));
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Value;
        answer.value = QJsonObject{{u"username"_s, u"ada"_s}, {u"password"_s, u"hunter2"_s}};
        QVERIFY(RunwatchTest::respondAndWait(rig.manager, id, answer).ok());
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, u"Signed in as ada."_s);
    }

    void followUpIsTheNextTurnOfTheSession()
    {
        Rig rig;
        const QString child = RunwatchTest::followUpIsTheNextTurnOfTheSession(rig);
        QVERIFY(!child.isEmpty());
        const Run &run = rig.run(child);
        QCOMPARE(run.usage.outputTokens, 7);
        QCOMPARE(run.token.extra.value(AgentSessions::kTurnKey).toString(),
                 rig.sim.session(run.remoteId)->turns.at(1).id);
        // The stream was opened before the message went out.
        int stream = -1;
        int send = -1;
        const QList<RunwatchSim::OpenAiAgentsRequestRecord> requests = rig.sim.requests();
        for (qsizetype i = 0; i < requests.size(); ++i) {
            if (requests.at(i).endpoint == OpenAiAgentsEndpoint::Stream && stream < 0)
                stream = int(i);
            if (requests.at(i).endpoint == OpenAiAgentsEndpoint::SendEvents && send < 0)
                send = int(i);
        }
        QVERIFY(stream >= 0 && send > stream);
    }

    void cancelConfirmedByTheTurn()
    {
        Rig rig;
        const QString id = rig.startOn(u"long interval_ms=5"_s);
        QVERIFY(RunwatchTest::waitFor([&] { return rig.run(id).primaryText.size() > 20; }));
        const ActionResult result = RunwatchTest::cancelAndWait(rig.manager, id);
        QVERIFY2(result.ok(), qPrintable(result.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Cancelled);
        const auto session = rig.sim.session(run.remoteId);
        QCOMPARE(session->turns.constLast().status, u"cancelled"_s);
        QCOMPARE(session->status, u"idle"_s);
        QCOMPARE(rig.sentEvents().constLast().value(u"type"_s).toString(), u"agent.session.input.cancel"_s);
        // The unfinished message was never saved: the answer is the saved text.
        QCOMPARE(run.primaryText, rig.textOf(id));
    }

    void failureWithTheServicesReason()
    {
        Rig rig;
        const QString id = rig.startOn(u"fail deltas=4"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.rawStatus, u"failed"_s);
        QCOMPARE(run.error.code, u"server_error"_s);
        QCOMPARE(run.error.message, u"The model is overloaded."_s);
        QCOMPARE(run.primaryText, QString()); // the message was never done
    }

    void budgetReachedIsAFailure()
    {
        Rig rig;
        const QString id = rig.startOn(u"budget deltas=4"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.error.code, u"budget_reached"_s);
        QCOMPARE(run.error.message, u"Spend limit of $1.00 reached."_s);
        QCOMPARE(rig.sim.session(run.remoteId)->status, u"budget_reached"_s);
    }

    void wrongKeyIsTheServicesError()
    {
        Rig rig(2, u"sk-wrong"_s);
        const QString id = rig.startOn(u"normal"_s);
        QVERIFY(RunwatchTest::waitSettled(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.error.code, u"invalid_api_key"_s);
        QVERIFY(!run.error.message.contains(u"sk-wrong"_s));
    }

    void listingsOverSeveralPages()
    {
        Rig rig(2);
        QStringList started;
        for (int i = 0; i < 5; ++i)
            started << rig.sim.startSessionElsewhere(kAgent, u"normal deltas=1"_s);
        RunBackend *backend = rig.manager.backend(rig.connectionName);
        const std::optional<ListResult> sessions = RunwatchTest::awaitWithin(backend->list());
        QVERIFY(sessions && !sessions->error.isError());
        QStringList listed;
        for (const RemoteRunInfo &info : sessions->runs)
            listed << info.remoteId;
        QCOMPARE(listed.size(), 5);
        for (const QString &id : std::as_const(started))
            QVERIFY(listed.contains(id));
        QCOMPARE(rig.count(OpenAiAgentsEndpoint::ListSessions), 3);

        RunwatchSim::OpenAiAgentsSimConfig config = rig.sim.config();
        config.maxPageSize = 1;
        rig.sim.setConfig(config);
        const std::optional<CatalogResult> agents = RunwatchTest::awaitWithin(backend->catalog());
        QVERIFY(agents && !agents->error.isError());
        QCOMPARE(agents->entries.size(), 2);
        QCOMPARE(agents->entries.at(0).id, kAgent);
        QCOMPARE(agents->entries.at(0).name, u"Research assistant"_s);
        QCOMPARE(agents->entries.at(0).detail, u"gpt-5.2"_s);
        QCOMPARE(rig.count(OpenAiAgentsEndpoint::Agents), 2);
    }

    void attachSessionStartedElsewhere()
    {
        Rig rig;
        const QString session = rig.sim.startSessionElsewhere(kAgent, u"normal deltas=30 interval_ms=5"_s);
        QVERIFY(!session.isEmpty());
        QVERIFY(RunwatchTest::waitFor([&] { return rig.sim.session(session)->turns.size() == 1; }));
        const QString id = rig.manager.attachRemoteRun(rig.connectionName, session);
        QVERIFY(!id.isEmpty());
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.remoteId, session);
        QCOMPARE(run.primaryText, rig.sim.turnText(session));
        QCOMPARE(run.token.extra.value(AgentSessions::kTurnKey).toString(),
                 rig.sim.session(session)->turns.constLast().id);
    }

    void notStreamedIsRead() { RunwatchTest::notStreamedIsRead<OpenAiAgentsE2eTraits>(); }
    void attachShowsEarlierTurns() { RunwatchTest::attachShowsEarlierTurns<OpenAiAgentsE2eTraits>(); }

    void deleteCancelsFirst()
    {
        Rig rig;
        const QString id = rig.startOn(u"long interval_ms=5"_s);
        QVERIFY(RunwatchTest::waitFor([&] { return !rig.run(id).primaryText.isEmpty(); }));
        const QString session = rig.run(id).remoteId;
        const ActionResult deleted = RunwatchTest::deleteAndWait(rig.manager, id, true);
        QVERIFY2(deleted.ok(), qPrintable(deleted.error.toString()));
        QVERIFY(!rig.manager.run(id));
        const auto info = rig.sim.session(session);
        QVERIFY(info && info->deleted);
        QCOMPARE(info->turns.constLast().status, u"cancelled"_s);
        QCOMPARE(rig.count(OpenAiAgentsEndpoint::DeleteSession), 1);
    }
};

QTEST_GUILESS_MAIN(TestOpenAiAgentsEndToEnd)
#include "tst_openai_agents_e2e.moc"
