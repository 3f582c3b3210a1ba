// SPDX-License-Identifier: GPL-3.0-or-later
// OpenAI human in the loop (protocol reference §1.8) through the engine against the simulator over
// loopback: a response that completed on function calls or an MCP approval request waits for the
// operator; the answer creates the next response with previous_response_id, and the same local
// run follows it to the end, also after a restart mid-chain.
#include "enginerig.h"
#include "openai/openaisim.h"
#include "store/runstore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchSim::OpenAiEndpoint;
using RunwatchSim::OpenAiSimulator;
using RunwatchTest::waitInput;
using RunwatchTest::waitTerminal;

namespace {

struct Rig : RunwatchTest::ServerRig<OpenAiSimulator>
{
    Rig()
    {
        sim.setIntervalMs(1);
        QVERIFY(sim.listen());
        model = u"runwatch-sim-1"_s;
        QVERIFY(addConnection(RunwatchTest::plainConnection(u"sim"_s, u"openai"_s, sim.baseUrl())));
    }

    // The create requests the simulator received, as JSON, in order.
    QList<QJsonObject> creates() const
    {
        QList<QJsonObject> bodies;
        for (const auto &r : sim.requests()) {
            if (r.endpoint == OpenAiEndpoint::Create)
                bodies << QJsonDocument::fromJson(r.body).object();
        }
        return bodies;
    }
};

InputAnswer decision(bool approve)
{
    InputAnswer a;
    a.kind = approve ? InputAnswer::Kind::Approve : InputAnswer::Kind::Reject;
    return a;
}

InputAnswer text(const QString &t)
{
    InputAnswer a;
    a.kind = InputAnswer::Kind::Text;
    a.text = t;
    return a;
}

// The usage the simulator sent for a response (its stored Response object), as Runwatch counts it.
TokenUsage simUsage(const OpenAiSimulator &sim, const QString &responseId)
{
    const QJsonObject u = sim.snapshot(responseId).value(u"usage"_s).toObject();
    return {u.value(u"input_tokens"_s).toInteger(-1), u.value(u"output_tokens"_s).toInteger(-1),
            u.value(u"output_tokens_details"_s).toObject().value(u"reasoning_tokens"_s).toInteger(-1)};
}

} // namespace

class TestOpenAiHitl final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Two function calls: input required names both (call_id, name, arguments); text alone is
    // refused before anything is sent; one request carries both outputs with
    // previous_response_id; the same local run goes on to the end.
    void twoFunctionCallsOneRequest()
    {
        Rig rig;
        const QString id = rig.start(u"tool_call calls=2 deltas=3"_s);
        QVERIFY(waitInput(rig.manager, id));
        const Run &waiting = rig.run(id);
        const QString first = waiting.remoteId;
        QCOMPARE(waiting.status, RunStatus::InputRequired);
        QCOMPARE(waiting.rawStatus, u"completed"_s);
        QCOMPARE(waiting.input->reason, InputReason::ToolOutput);
        const QList<ToolCallRequest> calls = waiting.input->toolCalls;
        QCOMPARE(calls.size(), 2);
        QCOMPARE(calls.at(0).name, u"get_weather"_s);
        QCOMPARE(calls.at(1).name, u"get_time"_s);
        QVERIFY(calls.at(0).id.startsWith(u"call_"_s));
        QCOMPARE(calls.at(0).arguments, u"{\"location\":\"Paris\",\"unit\":\"celsius\"}"_s);
        QVERIFY(!calls.at(0).approval);
        // Each call reads as a call in the timeline, once.
        int weatherItems = 0;
        for (const SecondaryItem &item : waiting.secondary) {
            if (item.kind == SecondaryKind::ToolCall && item.title == u"get_weather"_s) {
                ++weatherItems;
                QCOMPARE(item.text, u"get_weather({\"location\":\"Paris\",\"unit\":\"celsius\"})"_s);
                QVERIFY(item.done);
            }
        }
        QCOMPARE(weatherItems, 1);

        const ActionResult refused = RunwatchTest::respondAndWait(rig.manager, id, text(u"one answer"_s));
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error.message.contains(u"2 tool calls"_s), qPrintable(refused.error.message));
        QCOMPARE(rig.creates().size(), 1);

        InputAnswer answer;
        answer.toolAnswers = {{calls.at(0).id, u"sunny"_s, false}, {calls.at(1).id, u"09:30"_s, false}};
        const ActionResult r = RunwatchTest::respondAndWait(rig.manager, id, answer);
        QVERIFY2(r.ok(), qPrintable(r.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &done = rig.run(id);
        QCOMPARE(done.status, RunStatus::Completed);
        QVERIFY(done.remoteId != first);
        QCOMPARE(done.token.previousRemoteIds, QStringList{first});
        const QString expected = u"[%1: sunny] [%2: 09:30] "_s.arg(calls.at(0).id, calls.at(1).id)
                                 + OpenAiSimulator::tokenText(3);
        QCOMPARE(done.primaryText, expected);
        QCOMPARE(rig.sim.response(done.remoteId)->text, expected);
        QCOMPARE(done.reconciliations, 0);
        // One local run: its usage is the sum over the chain's two responses.
        const TokenUsage firstUsage = simUsage(rig.sim, first);
        const TokenUsage secondUsage = simUsage(rig.sim, done.remoteId);
        QVERIFY(firstUsage.isKnown() && secondUsage.isKnown());
        QCOMPARE(done.usage, firstUsage.plus(secondUsage));

        // On the wire: one request, the chain and both outputs.
        const QList<QJsonObject> creates = rig.creates();
        QCOMPARE(creates.size(), 2);
        const QJsonObject next = creates.at(1);
        QCOMPARE(next.value(u"previous_response_id"_s).toString(), first);
        QCOMPARE(next.value(u"background"_s).toBool(), true);
        QCOMPARE(next.value(u"store"_s).toBool(), true);
        QCOMPARE(next.value(u"model"_s).toString(), u"runwatch-sim-1"_s);
        const QJsonArray input = next.value(u"input"_s).toArray();
        QCOMPARE(input.size(), 2);
        for (qsizetype i = 0; i < 2; ++i) {
            const QJsonObject item = input.at(i).toObject();
            QCOMPARE(item.value(u"type"_s).toString(), u"function_call_output"_s);
            QCOMPARE(item.value(u"call_id"_s).toString(), calls.at(i).id);
        }
        QCOMPARE(input.at(0).toObject().value(u"output"_s).toString(), u"sunny"_s);
        QCOMPARE(input.at(1).toObject().value(u"output"_s).toString(), u"09:30"_s);
    }

    // One pending call: a text answers it.
    void oneCallByText()
    {
        Rig rig;
        const QString id = rig.start(u"tool_call deltas=2"_s);
        QVERIFY(waitInput(rig.manager, id));
        const QString callId = rig.run(id).input->toolCalls.first().id;
        const ActionResult r = RunwatchTest::respondAndWait(rig.manager, id, text(u"12C"_s));
        QVERIFY2(r.ok(), qPrintable(r.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).primaryText, u"[%1: 12C] "_s.arg(callId) + OpenAiSimulator::tokenText(2));
    }

    void mcpApproval_data()
    {
        QTest::addColumn<bool>("approve");
        QTest::newRow("approve") << true;
        QTest::newRow("reject") << false;
    }
    void mcpApproval()
    {
        QFETCH(bool, approve);
        Rig rig;
        const QString id = rig.start(u"mcp_approval deltas=2"_s);
        QVERIFY(waitInput(rig.manager, id));
        const Run &waiting = rig.run(id);
        QCOMPARE(waiting.input->reason, InputReason::Approval);
        QCOMPARE(waiting.input->toolCalls.size(), 1);
        const ToolCallRequest call = waiting.input->toolCalls.first();
        QVERIFY(call.approval);
        QVERIFY(call.id.startsWith(u"mcpr_"_s));
        QCOMPARE(call.name, u"search_docs"_s);
        QCOMPARE(call.serverLabel, u"docs"_s);
        const ActionResult r = RunwatchTest::respondAndWait(rig.manager, id, decision(approve));
        QVERIFY2(r.ok(), qPrintable(r.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText,
                 (approve ? u"[approved: search_docs] "_s : u"[rejected: search_docs] "_s)
                     + OpenAiSimulator::tokenText(2));
        const QJsonArray input = rig.creates().at(1).value(u"input"_s).toArray();
        QCOMPARE(input.size(), 1);
        const QJsonObject item = input.first().toObject();
        QCOMPARE(item.value(u"type"_s).toString(), u"mcp_approval_response"_s);
        QCOMPARE(item.value(u"approval_request_id"_s).toString(), call.id);
        QCOMPARE(item.value(u"approve"_s).toBool(), approve);
    }

    // A run that answered after its call (reasoning scenario: call, then the message) waits for
    // nothing; respond is refused by the server's state, and nothing is created.
    void callFollowedByMessageIsComplete()
    {
        Rig rig;
        const QString id = rig.start(u"reasoning deltas=2"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QVERIFY(!rig.run(id).input);
        const ActionResult r = RunwatchTest::respondAndWait(rig.manager, id, text(u"x"_s));
        QVERIFY(!r.ok());
        QCOMPARE(rig.creates().size(), 1);
    }

    // A fresh engine on the same store mid-chain (the app restarted after the answer): it
    // reattaches the current response of the chain and ends with the identical text.
    void restartMidChain()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(u"runs.sqlite"_s);
        OpenAiSimulator sim;
        sim.setIntervalMs(1);
        QVERIFY(sim.listen());
        QString id, callId, first, second;
        {
            RunStore store;
            QVERIFY(store.open(path));
            RunManager manager;
            manager.setStore(&store);
            manager.setFollowPolicy(RunwatchTest::quickFollowPolicy());
            QVERIFY(
                manager.addConnection(RunwatchTest::plainConnection(u"sim"_s, u"openai"_s, sim.baseUrl())));
            StartRequest request;
            request.model = u"runwatch-sim-1"_s;
            request.prompt = u"tool_call deltas=6 interval_ms=40"_s;
            id = manager.startRun(u"sim"_s, request);
            QVERIFY(waitInput(manager, id));
            first = manager.run(id)->remoteId;
            callId = manager.run(id)->input->toolCalls.first().id;
            const ActionResult r = RunwatchTest::respondAndWait(manager, id, text(u"rain"_s));
            QVERIFY2(r.ok(), qPrintable(r.error.toString()));
            second = manager.run(id)->remoteId;
            QVERIFY(second != first);
            QVERIFY(!manager.run(id)->isTerminal());
            manager.shutdown();
            store.flush();
        }
        RunStore store;
        QVERIFY(store.open(path));
        const std::optional<Run> stored = store.loadRun(id);
        QVERIFY(stored);
        QCOMPARE(stored->remoteId, second);
        QCOMPARE(stored->token.previousRemoteIds, QStringList{first});
        RunManager manager;
        manager.setStore(&store);
        manager.setFollowPolicy(RunwatchTest::quickFollowPolicy());
        QVERIFY(manager.addConnection(RunwatchTest::plainConnection(u"sim"_s, u"openai"_s, sim.baseUrl())));
        manager.adoptRun(*stored, true);
        QVERIFY(waitTerminal(manager, id));
        const QString expected = u"[%1: rain] "_s.arg(callId) + OpenAiSimulator::tokenText(6);
        QCOMPARE(manager.run(id)->primaryText, expected);
        QCOMPARE(sim.response(second)->text, expected);
        // The first response's usage survived the restart in the stored token.
        QCOMPARE(stored->token.usageBase, simUsage(sim, first));
        QCOMPARE(manager.run(id)->usage, simUsage(sim, first).plus(simUsage(sim, second)));
        manager.shutdown();
    }
};

QTEST_GUILESS_MAIN(TestOpenAiHitl)
#include "tst_openai_hitl.moc"
