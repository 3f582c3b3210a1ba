// SPDX-License-Identifier: GPL-3.0-or-later
// The Foundry connector and the engine against the Foundry simulator over loopback: streamed and
// polled runs, drops at every event boundary (no stream resume: polling + the run's messages),
// split/CRLF framing, 429 on create, tool outputs and MCP approvals, expiry, cancel, failure,
// incomplete, long paged answers, the token command.
#include "backends/foundry/foundrybackend.h"
#include "enginerig.h"
#include "foundry/foundrysim.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchSim::FoundryEndpoint;
using RunwatchSim::FoundrySimulator;
using RunwatchTest::waitInput;
using RunwatchTest::waitTerminal;

namespace {

struct Rig : RunwatchTest::ServerRig<FoundrySimulator>
{
    explicit Rig(const QJsonObject &options = {}, const QString &apiKey = {},
                 const RunwatchSim::FoundrySimConfig &config = fastConfig())
    {
        sim.setConfig(config);
        QVERIFY(sim.listen());
        QJsonObject o = options;
        if (!o.contains(u"agent"_s))
            o.insert(u"agent"_s, u"asst_sim_weather"_s);
        Connection c = RunwatchTest::plainConnection(u"foundry"_s, u"foundry"_s, sim.baseUrl(), o);
        c.auth = AuthStyle::Bearer;
        c.apiKey = apiKey;
        QVERIFY(addConnection(c));
    }

    static RunwatchSim::FoundrySimConfig fastConfig()
    {
        RunwatchSim::FoundrySimConfig config;
        config.intervalMs = 1;
        return config;
    }

    FoundryBackend *backend() { return qobject_cast<FoundryBackend *>(manager.backend(connectionName)); }
};

InputAnswer text(const QString &value)
{
    InputAnswer a;
    a.kind = InputAnswer::Kind::Text;
    a.text = value;
    return a;
}

InputAnswer decision(bool approve)
{
    InputAnswer a;
    a.kind = approve ? InputAnswer::Kind::Approve : InputAnswer::Kind::Reject;
    return a;
}

// The usage the simulator sent for a run (its run object), as Runwatch counts it.
TokenUsage simUsage(const FoundrySimulator &sim, const QString &runId)
{
    const QJsonObject u = sim.runJson(runId).value(u"usage"_s).toObject();
    return {u.value(u"prompt_tokens"_s).toInteger(-1), u.value(u"completion_tokens"_s).toInteger(-1), -1};
}

} // namespace

class TestFoundryEndToEnd final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void streamedRun()
    {
        Rig rig;
        const QString id = rig.start(u"normal deltas=30"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, FoundrySimulator::tokenText(0, 30));
        QCOMPARE(run.primaryText, rig.sim.run(rig.sim.lastRunId())->text);
        QCOMPARE(run.remoteId, rig.sim.lastRunId());
        QCOMPARE(run.token.extra.value(u"thread_id"_s).toString(), rig.sim.run(run.remoteId)->threadId);
        QVERIFY(!run.token.streamable);
        QCOMPARE(run.reconciliations, 0);
        QCOMPARE(rig.sim.runsCreated(), 1);
        // thread.run.completed's usage, as the simulator sent it.
        QVERIFY(run.usage.outputTokens >= 30);
        QCOMPARE(run.usage, simUsage(rig.sim, run.remoteId));
        const auto create = rig.sim.requests().first();
        QCOMPARE(create.endpoint, FoundryEndpoint::CreateThreadRun);
        QCOMPARE(create.apiVersion, u"2025-05-01"_s);
        QVERIFY(create.body.contains("\"stream\":true"));
        QVERIFY(create.body.contains("\"assistant_id\":\"asst_sim_weather\""));
        // The end is verified against the service's messages.
        QVERIFY(
            RunwatchTest::waitFor([&] { return rig.sim.requestCount(FoundryEndpoint::ListMessages) >= 1; }));
    }

    void polledRun()
    {
        Rig rig(QJsonObject{{u"api_version"_s, u"2025-05-15-preview"_s}});
        const QString id = rig.start(u"normal deltas=12 interval_ms=3"_s, false);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, FoundrySimulator::tokenText(0, 12));
        QVERIFY(rig.sim.requestCount(FoundryEndpoint::GetRun) >= 1);
        // The polled run object's usage.
        QVERIFY(rig.run(id).usage.outputTokens >= 12);
        QCOMPARE(rig.run(id).usage, simUsage(rig.sim, rig.run(id).remoteId));
        for (const auto &r : rig.sim.requests())
            QCOMPARE(r.apiVersion, u"2025-05-15-preview"_s);
    }

    // The create stream of a 10-delta run has 20 events; cut after each: identical text, no
    // duplicate, and the run is followed by polling to its end.
    void dropAtEveryEventBoundary_data()
    {
        QTest::addColumn<int>("dropAfter");
        QTest::addColumn<QString>("mode");
        for (int k = 1; k <= 19; ++k)
            QTest::addRow("close after %d", k) << k << u"close"_s;
        for (int k : {2, 9, 15})
            QTest::addRow("mid-event after %d", k) << k << u"mid"_s;
        QTest::addRow("reset after 8") << 8 << u"reset"_s;
    }
    void dropAtEveryEventBoundary()
    {
        QFETCH(int, dropAfter);
        QFETCH(QString, mode);
        Rig rig;
        const QString id
            = rig.start(u"normal deltas=10 drop_after=%1 drop_mode=%2"_s.arg(dropAfter).arg(mode));
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, FoundrySimulator::tokenText(0, 10));
        QVERIFY(!run.error.isError());
        QCOMPARE(rig.sim.runsCreated(), 1);
    }

    void splitWritesAndCrlf()
    {
        RunwatchSim::FoundrySimConfig config = Rig::fastConfig();
        config.lineEnding = "\r\n";
        config.splitWrites = 3;
        Rig rig({}, {}, config);
        const QString id = rig.start(u"normal deltas=20"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, FoundrySimulator::tokenText(0, 20));
        QCOMPARE(rig.run(id).reconciliations, 0);
    }

    // A broken event: the run is polled to its end instead of being abandoned.
    void malformedEventFallsBackToPolling()
    {
        Rig rig;
        const QString id = rig.start(u"normal deltas=10 malformed_at=9"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, FoundrySimulator::tokenText(0, 10));
    }

    // 429 with Retry-After on the create: waited out, retried, exactly one run.
    void rateLimitedCreate()
    {
        Rig rig;
        rig.sim.addHttpFault(
            *RunwatchSim::foundryHttpFaultFromSpec(u"status=429,count=1,on=create,retry-after=1"));
        QElapsedTimer timer;
        timer.start();
        const QString id = rig.start(u"normal deltas=5"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QVERIFY(timer.elapsed() >= 950);
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.sim.runsCreated(), 1);
        QCOMPARE(rig.sim.requestCount(FoundryEndpoint::CreateThreadRun), 2);
    }

    void oneToolCall()
    {
        Rig rig;
        const QString id = rig.start(u"tool deltas=3"_s);
        QVERIFY(waitInput(rig.manager, id));
        const Run &waiting = rig.run(id);
        QCOMPARE(waiting.rawStatus, u"requires_action"_s);
        QCOMPARE(waiting.input->reason, InputReason::ToolOutput);
        QCOMPARE(waiting.input->toolCalls.size(), 1);
        const ToolCallRequest call = waiting.input->toolCalls.first();
        QCOMPARE(call.name, u"get_weather"_s);
        QCOMPARE(call.arguments, u"{\"location\":\"Seattle\"}"_s);
        QVERIFY(!call.approval);
        QCOMPARE(waiting.input->deadline.toSecsSinceEpoch(), rig.sim.run(waiting.remoteId)->expiresAt);
        const ActionResult r = RunwatchTest::respondAndWait(rig.manager, id, text(u"12C, light rain"_s));
        QVERIFY2(r.ok(), qPrintable(r.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        const QString expected = u"[%1: 12C, light rain] "_s.arg(call.id) + FoundrySimulator::tokenText(0, 3);
        QCOMPARE(rig.run(id).primaryText, expected);
        QCOMPARE(rig.sim.run(rig.run(id).remoteId)->text, expected);
    }

    // Two calls: one field each, both outputs in one submit; text alone is refused.
    void twoToolCallsOneSubmit()
    {
        Rig rig;
        const QString id = rig.start(u"tools deltas=2"_s);
        QVERIFY(waitInput(rig.manager, id));
        const QList<ToolCallRequest> calls = rig.run(id).input->toolCalls;
        QCOMPARE(calls.size(), 2);
        QCOMPARE(calls.at(1).name, u"get_time"_s);
        const ActionResult refused = RunwatchTest::respondAndWait(rig.manager, id, text(u"one answer"_s));
        QVERIFY(!refused.ok());
        QVERIFY(refused.error.message.contains(u"2 tool calls"_s));
        QCOMPARE(rig.sim.requestCount(FoundryEndpoint::SubmitToolOutputs), 0);
        InputAnswer answer;
        answer.toolAnswers = {{calls.at(0).id, u"sunny"_s, false}, {calls.at(1).id, u"09:30"_s, false}};
        const ActionResult r = RunwatchTest::respondAndWait(rig.manager, id, answer);
        QVERIFY2(r.ok(), qPrintable(r.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.sim.requestCount(FoundryEndpoint::SubmitToolOutputs), 1);
        QCOMPARE(rig.run(id).primaryText, u"[%1: sunny] [%2: 09:30] "_s.arg(calls.at(0).id, calls.at(1).id)
                                              + FoundrySimulator::tokenText(0, 2));
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
        const QString id = rig.start(u"approval deltas=2"_s);
        QVERIFY(waitInput(rig.manager, id));
        QCOMPARE(rig.run(id).input->reason, InputReason::Approval);
        QCOMPARE(rig.run(id).input->toolCalls.size(), 1);
        QVERIFY(rig.run(id).input->toolCalls.first().approval);
        QCOMPARE(rig.run(id).input->toolCalls.first().serverLabel, u"docs"_s);
        const ActionResult r = RunwatchTest::respondAndWait(rig.manager, id, decision(approve));
        QVERIFY2(r.ok(), qPrintable(r.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).primaryText,
                 (approve ? u"[approved: search_docs] "_s : u"[rejected: search_docs] "_s)
                     + FoundrySimulator::tokenText(0, 2));
        const auto submit = rig.sim.requests();
        const auto it = std::find_if(submit.begin(), submit.end(), [](const auto &r) {
            return r.endpoint == FoundryEndpoint::SubmitToolOutputs;
        });
        QVERIFY(it != submit.end());
        QVERIFY(it->body.contains(approve ? "\"approve\":true" : "\"approve\":false"));
    }

    // Nobody answers: the run expires; terminal with a clear reason.
    void expiryUnanswered()
    {
        Rig rig;
        const QString id = rig.start(u"expire expires_ms=700"_s);
        QVERIFY(waitInput(rig.manager, id));
        QVERIFY(rig.run(id).input->deadline.isValid());
        // Following stops while the run waits for the operator; a refresh sees the expiry.
        QVERIFY(
            RunwatchTest::waitFor([&] { return rig.sim.run(rig.run(id).remoteId)->status == u"expired"_s; }));
        rig.manager.refreshRun(id);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Expired);
        QVERIFY(rig.run(id).error.message.contains(u"expired"_s));
        QVERIFY(!rig.run(id).input || rig.run(id).status == RunStatus::Expired);
    }

    // Cancel shows "cancelling" until the service confirms "cancelled".
    void cancel()
    {
        Rig rig;
        const QString id = rig.start(u"slow interval_ms=10"_s);
        QVERIFY(RunwatchTest::waitFor([&] { return rig.run(id).primaryText.size() > 20; }));
        QList<RunStatus> seen;
        connect(&rig.manager, &RunManager::runChanged, this, [&](const QString &changed) {
            if (changed == id && (seen.isEmpty() || seen.last() != rig.run(id).status))
                seen << rig.run(id).status;
        });
        const ActionResult r = RunwatchTest::cancelAndWait(rig.manager, id);
        QVERIFY2(r.ok(), qPrintable(r.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Cancelled);
        QVERIFY(seen.contains(RunStatus::Cancelling));
        QCOMPARE(seen.last(), RunStatus::Cancelled);
        QCOMPARE(rig.run(id).primaryText, rig.sim.run(rig.run(id).remoteId)->text);
    }

    void failureWithServiceMessage()
    {
        Rig rig;
        const QString id = rig.start(u"fail deltas=8 fail_after=3"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.error.code, u"server_error"_s);
        QCOMPARE(run.error.message, u"The agent's tool backend is unavailable (simulated)."_s);
        QCOMPARE(run.primaryText, FoundrySimulator::tokenText(0, 3)); // kept what was received
    }

    void incomplete()
    {
        Rig rig;
        const QString id = rig.start(u"incomplete deltas=4"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Incomplete);
        QCOMPARE(rig.run(id).error.code, u"max_completion_tokens"_s);
        QCOMPARE(rig.run(id).primaryText, FoundrySimulator::tokenText(0, 4));
    }

    // 25 messages × 3 parts; cut mid-way, the rest comes from paged message lists.
    void longAnswerOverPages_data()
    {
        QTest::addColumn<QString>("prompt");
        QTest::addColumn<bool>("stream");
        QTest::newRow("streamed") << u"long interval_ms=0"_s << true;
        QTest::newRow("dropped") << u"long interval_ms=1 drop_after=40"_s << true;
        QTest::newRow("polled") << u"long interval_ms=1"_s << false;
    }
    void longAnswerOverPages()
    {
        QFETCH(QString, prompt);
        QFETCH(bool, stream);
        Rig rig;
        const QString id = rig.start(prompt, stream);
        QVERIFY(waitTerminal(rig.manager, id, 60000));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, FoundrySimulator::tokenText(0, 25 * 3 * 4));
        // The code interpreter step is a secondary item.
        const auto &items = rig.run(id).secondary;
        QVERIFY(std::any_of(items.begin(), items.end(), [](const SecondaryItem &item) {
            return item.kind == SecondaryKind::ToolCall && item.title == u"code interpreter"_s
                   && item.text.contains(u"42"_s);
        }));
    }

    // A list longer than the connector reads: the answer's beginning is kept and the run says
    // the rest is missing (issue 25: page accumulation is bounded).
    void longAnswerCutByListLimits()
    {
        Rig rig;
        FoundryBackend *backend = rig.backend();
        QVERIFY(backend);
        Foundry::ListPages::Limits limits;
        limits.maxItems = 10;
        backend->setListLimits(limits);
        const QString id = rig.start(u"long interval_ms=1"_s, false);
        QVERIFY(waitTerminal(rig.manager, id, 60000));
        const Run run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        const QString whole = FoundrySimulator::tokenText(0, 25 * 3 * 4);
        QVERIFY(!run.primaryText.isEmpty());
        QVERIFY(run.primaryText.size() < whole.size());
        QVERIFY(whole.startsWith(run.primaryText));
        QCOMPARE(run.error.code, u"list_too_long"_s);
    }

    // The token command: once at start, again after a 401, not per request; its output is used
    // as the Bearer token and stays out of the run.
    void tokenCommand()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString tokenFile = dir.filePath(u"token"_s);
        const QString countFile = dir.filePath(u"count"_s);
        const auto write = [](const QString &path, const QByteArray &bytes) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes);
        };
        write(tokenFile, "tok-first\n");
        const auto runs = [&] {
            QFile f(countFile);
            return f.open(QIODevice::ReadOnly) ? int(f.readAll().count('x')) : 0;
        };
        const QString command = u"printf x >> '%1'; cat '%2'"_s.arg(countFile, tokenFile);
        RunwatchSim::FoundrySimConfig config = Rig::fastConfig();
        config.token = u"tok-first"_s;
        Rig rig(QJsonObject{{u"token_command"_s, command}}, {}, config);
        const QString first = rig.start(u"normal deltas=5"_s, false);
        QVERIFY(waitTerminal(rig.manager, first));
        QCOMPARE(rig.run(first).status, RunStatus::Completed);
        QCOMPARE(runs(), 1);
        QVERIFY(rig.sim.requestCount() >= 3);
        // The service rotates: the old token is refused once, the command runs again.
        write(tokenFile, "tok-second\n");
        rig.sim.setToken(u"tok-second"_s);
        const QString second = rig.start(u"normal deltas=5"_s, false);
        QVERIFY(waitTerminal(rig.manager, second));
        QCOMPARE(rig.run(second).status, RunStatus::Completed);
        QCOMPARE(runs(), 2);
        int unauthorized = 0;
        for (const auto &r : rig.sim.requests())
            unauthorized += r.status == 401 ? 1 : 0;
        QCOMPARE(unauthorized, 1);
        QCOMPARE(rig.sim.runsCreated(), 2);
        for (const QString &id : {first, second}) {
            const QByteArray json = QJsonDocument(rig.run(id).token.toJson()).toJson();
            QVERIFY(!json.contains("tok-"));
            QVERIFY(!rig.run(id).primaryText.contains(u"tok-first"_s));
        }
    }

    void failingTokenCommand()
    {
        RunwatchSim::FoundrySimConfig config = Rig::fastConfig();
        config.token = u"never"_s;
        Rig rig(QJsonObject{{u"token_command"_s,
                             u"echo 'ERROR: Please run az login to setup account.' >&2; exit 1"_s}},
                {}, config);
        const QString id = rig.start(u"normal"_s);
        QVERIFY(RunwatchTest::waitSettled(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.error.kind, ErrorKind::Auth);
        QVERIFY(run.error.message.contains(u"token command failed"_s));
        QVERIFY(run.error.message.contains(u"az login"_s));
        QCOMPARE(rig.sim.requestCount(), 0);
    }

    // A token from the keychain/environment: sent as is, never refreshed.
    void staticToken()
    {
        RunwatchSim::FoundrySimConfig config = Rig::fastConfig();
        config.token = u"static-token"_s;
        Rig rig({}, u"static-token"_s, config);
        const QString id = rig.start(u"normal deltas=3"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.sim.requests().first().header("authorization"), QByteArray("Bearer static-token"));
    }

    void agentsList()
    {
        Rig rig;
        FoundryBackend *backend = rig.backend();
        QVERIFY(backend);
        QVERIFY(backend->capabilities().testFlag(Capability::Catalog));
        const CatalogResult list = QCoro::waitFor(backend->catalog());
        QVERIFY(!list.error.isError());
        QCOMPARE(list.entries.size(), 2);
        QCOMPARE(list.entries.first().id, u"asst_sim_weather"_s);
        QCOMPARE(list.entries.first().name, u"weather-agent"_s);
        QCOMPARE(list.entries.first().detail, u"gpt-4o"_s);
    }

    // Local delete only: the service has none.
    void deleteIsLocal()
    {
        Rig rig;
        QVERIFY(!rig.backend()->capabilities().testFlag(Capability::Delete));
        QVERIFY(!rig.backend()->capabilities().testFlag(Capability::ResumeStream));
    }

    // Follow up (issue 16): the next turn goes on the parent's thread, a message added and a new
    // run of the same agent created on it; the parent's answer stays as it was.
    void followUpOnTheSameThread()
    {
        Rig rig;
        const QString parent = rig.start(u"normal deltas=6"_s);
        QVERIFY(waitTerminal(rig.manager, parent));
        QCOMPARE(rig.run(parent).status, RunStatus::Completed);
        const QString thread = rig.run(parent).token.extra.value(u"thread_id"_s).toString();
        QVERIFY(!thread.isEmpty());

        QString why;
        const QString child = rig.manager.followUp(parent, u"normal deltas=4 and the 2025 figures"_s, &why);
        QVERIFY2(!child.isEmpty(), qPrintable(why));
        QVERIFY(waitTerminal(rig.manager, child));
        const Run &run = rig.run(child);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.parentId, parent);
        QVERIFY(run.remoteId != rig.run(parent).remoteId);
        QCOMPARE(run.token.extra.value(u"thread_id"_s).toString(), thread);
        const auto info = rig.sim.run(run.remoteId);
        QVERIFY(info.has_value());
        QCOMPARE(info->threadId, thread);
        QCOMPARE(info->assistantId, u"asst_sim_weather"_s);
        QCOMPARE(run.primaryText, info->text);
        QCOMPARE(rig.run(parent).primaryText, rig.sim.run(rig.run(parent).remoteId)->text);
        // The message went on the thread before the run was created on it.
        qint64 added = 0, created = 0;
        for (const auto &r : rig.sim.requests()) {
            if (r.endpoint == FoundryEndpoint::AddMessage && r.path.contains(thread))
                added = r.serial;
            if (r.endpoint == FoundryEndpoint::CreateRun && r.path.contains(thread))
                created = r.serial;
        }
        QVERIFY(added > 0);
        QVERIFY(created > added);
        QCOMPARE(rig.sim.runsCreated(), 2);
    }
};

QTEST_GUILESS_MAIN(TestFoundryEndToEnd)
#include "tst_foundry_e2e.moc"
