// SPDX-License-Identifier: GPL-3.0-or-later
// The Claude Managed Agents connector (core/backends/claudeagents, on the shared session model of
// core/backends/agentsessions) and the engine against runwatch-sim's simulator over loopback: a
// turn streamed with the simulator's text, a drop at every event of the stream with the same text
// (stream + event log, nothing twice), a preview the service did not keep, tool confirmations
// allowed and denied with a message, a custom tool's result, a second turn as a follow-up on the
// same session, an interrupt the session confirms, the service's failure reason, listings over
// several pages, attach of a session started elsewhere (also of one with earlier turns: the
// conversation), delete (interrupted first), and the key and beta headers as the SDK sends them.
// The steps every session connector shares are in agentsessionsrig.h.
#include "agentsessionsrig.h"
#include "awaitwithin.h"
#include "backends/agentsessions/sessionturn.h"
#include "claudeagents/claudeagentssim.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchSim::ClaudeAgentsEndpoint;
using RunwatchTest::itemIds;
using RunwatchTest::waitTerminal;

namespace {

constexpr int kWait = RunwatchTest::kEngineWait;

struct ClaudeAgentsE2eTraits
{
    using Sim = RunwatchSim::ClaudeAgentsSimulator;
    using Config = RunwatchSim::ClaudeAgentsSimConfig;
    using Record = RunwatchSim::ClaudeAgentsRequestRecord;
    using Endpoint = RunwatchSim::ClaudeAgentsEndpoint;
    static constexpr auto kBackend = "claude-agents";
    static constexpr auto kConnection = "claude";
    static constexpr auto kKey = "sk-ant-e2e-key-0001";
    static constexpr auto kAgent = "agent_011Runwatch0Research";
    static constexpr int kPageSize = 3;
    static constexpr Endpoint kSendEvents = Endpoint::SendEvents;
    static constexpr Endpoint kCreateSession = Endpoint::CreateSession;
    static constexpr Endpoint kStream = Endpoint::Stream;
    // Idle with a stop reason: idle alone is also the state before the first turn.
    static bool turnOver(const RunwatchSim::ClaudeAgentsSessionInfo &info)
    {
        return info.status == u"idle"_s && !info.turns.isEmpty()
               && !info.turns.constLast().stopReason.isEmpty();
    }
    // Every request that reached the service: what it did with them is the test's to check.
    static bool taken(const Record &) { return true; }
};

using Rig = RunwatchTest::AgentSessionsRig<ClaudeAgentsE2eTraits>;
const QString kKey = QString::fromLatin1(ClaudeAgentsE2eTraits::kKey);
const QString kAgent = QString::fromLatin1(ClaudeAgentsE2eTraits::kAgent);

} // namespace

class TestClaudeAgentsEndToEnd final : public QObject
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
        QCOMPARE(run.rawStatus, u"end_turn"_s);
        QVERIFY(run.usage.outputTokens == 24);
        QVERIFY(run.usage.inputTokens > 0);
        QCOMPARE(run.model, u"claude-opus-4-7"_s);
        QVERIFY(!run.token.extra.value(AgentSessions::kTurnKey).toString().isEmpty());
        // The stream was opened before the message went out (nothing replays), and the log was
        // read over several pages.
        int stream = -1;
        int send = -1;
        const QList<RunwatchSim::ClaudeAgentsRequestRecord> requests = rig.sim.requests();
        for (qsizetype i = 0; i < requests.size(); ++i) {
            if (requests.at(i).endpoint == ClaudeAgentsEndpoint::Stream && stream < 0)
                stream = int(i);
            if (requests.at(i).endpoint == ClaudeAgentsEndpoint::SendEvents && send < 0)
                send = int(i);
            // The key as the SDK sends it, with the beta and the version, on every request.
            QCOMPARE(requests.at(i).header("authorization"), "Bearer " + kKey.toUtf8());
            QVERIFY(requests.at(i).header("x-api-key").isEmpty());
            QCOMPARE(requests.at(i).header("anthropic-beta"), QByteArray("managed-agents-2026-04-01"));
            QCOMPARE(requests.at(i).header("anthropic-version"), QByteArray("2026-10-21"));
        }
        QVERIFY(stream >= 0 && send > stream);
        QVERIFY(requests.at(stream).query.contains(u"event_deltas"_s));
        QCOMPARE(rig.count(ClaudeAgentsEndpoint::CreateSession), 1);
        // On the agent asked for, in the account's first environment (none configured).
        QCOMPARE(rig.sim.session(run.remoteId)->agentId, kAgent);
        QCOMPARE(rig.sim.session(run.remoteId)->environmentId, u"env_011Runwatch0Sim"_s);
        QCOMPARE(rig.count(ClaudeAgentsEndpoint::Environments), 1);
    }

    // Thinking, an allowed tool call and its result are items; both messages are the answer.
    void thinkingAndToolsAreItems()
    {
        Rig rig;
        const QString id = rig.startOn(u"think deltas=5"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, rig.textOf(id));
        QVERIFY(run.primaryText.startsWith(u"Let me look that up.\n\ntok0 "_s));
        bool reasoning = false;
        bool tool = false;
        for (const SecondaryItem &item : run.secondary) {
            reasoning = reasoning || item.kind == SecondaryKind::Reasoning;
            tool = tool || (item.kind == SecondaryKind::ToolCall && item.title == u"web_search"_s);
        }
        QVERIFY(reasoning && tool);
        QVERIFY(!run.input);
    }

    // The stream drops after each event in turn (closed, and cut mid-event): every follow opens
    // the stream first, reads the event log, and the run ends with the simulator's text, each
    // item once.
    void dropAtEveryEvent()
    {
        Rig clean;
        const QString reference = clean.startOn(u"think deltas=4"_s);
        QVERIFY(waitTerminal(clean.manager, reference, kWait));
        const QStringList cleanItems = itemIds(clean.run(reference));
        // Every frame of the first stream: the log's events and the previews.
        const qsizetype frames = clean.sim.session(clean.run(reference).remoteId)->logTypes.size() + 2 * 6;
        const QStringList modes{u"close"_s, u"mid"_s};
        for (const QString &mode : modes) {
            for (qsizetype k = 1; k < frames; ++k) {
                Rig rig;
                RunwatchSim::StreamFaults faults;
                faults.connections = 1;
                faults.dropAfterEvents = int(k);
                faults.dropMode
                    = mode == u"mid"_s ? RunwatchSim::DropMode::MidEvent : RunwatchSim::DropMode::Close;
                rig.sim.setStreamFaults(faults);
                const QString id = rig.startOn(u"think deltas=4"_s);
                const QString where = u"drop after %1 (%2)"_s.arg(k).arg(mode);
                QVERIFY2(waitTerminal(rig.manager, id, kWait), qPrintable(where));
                const Run &run = rig.run(id);
                QVERIFY2(run.status == RunStatus::Completed,
                         qPrintable(where + u": "_s + statusName(run.status) + u' ' + run.error.toString()));
                QVERIFY2(
                    run.primaryText == rig.textOf(id),
                    qPrintable(where + u": "_s + run.primaryText.toString() + u" | "_s + rig.textOf(id)));
                QCOMPARE(run.primaryText, clean.run(reference).primaryText);
                QCOMPARE(run.reconciliations, 0);
                QVERIFY2(itemIds(run) == cleanItems, qPrintable(where + u": "_s + itemIds(run).join(u',')
                                                                + u" | "_s + cleanItems.join(u',')));
                QCOMPARE(run.usage, clean.run(reference).usage);
            }
        }
    }

    // A preview the service did not keep (its model request failed): gone from the answer, which
    // is the saved message alone; rescheduling is live.
    void unsavedPreviewLeavesTheAnswer()
    {
        Rig rig;
        QStringList raw;
        QObject::connect(&rig.manager, &RunManager::runChanged, &rig.manager, [&](const QString &changed) {
            if (const Run *r = rig.manager.run(changed);
                r && (raw.isEmpty() || raw.constLast() != r->rawStatus))
                raw << r->rawStatus;
        });
        const QString id = rig.startOn(u"flaky deltas=6 interval_ms=20"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const bool rescheduling = raw.contains(u"rescheduling"_s);
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QVERIFY2(rescheduling, qPrintable(raw.join(u", "_s)));
        QCOMPARE(run.primaryText, rig.textOf(id));
        QCOMPARE(run.reconciliations, 0);
    }

    void confirmationAllowed()
    {
        Rig rig;
        const QString id = rig.startOn(u"confirm deltas=3"_s);
        QVERIFY(RunwatchTest::waitInput(rig.manager, id, kWait));
        const Run waiting = rig.run(id);
        QCOMPARE(waiting.input->reason, InputReason::Approval);
        QCOMPARE(waiting.input->toolCalls.size(), 1);
        QCOMPARE(waiting.input->toolCalls.at(0).name, u"bash"_s);
        QVERIFY(waiting.input->toolCalls.at(0).approval && waiting.input->toolCalls.at(0).reasonOnReject);
        QVERIFY(waiting.input->toolCalls.at(0).arguments.contains(u"ls -la"_s));
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Approve;
        const ActionResult sent = RunwatchTest::respondAndWait(rig.manager, id, answer);
        QVERIFY2(sent.ok(), qPrintable(sent.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, rig.textOf(id));
        QVERIFY(run.primaryText.contains(u"It ran."_s));
        QCOMPARE(rig.manager.runIds().size(), 1);
        const QJsonObject confirmation = rig.sentEvents().constLast();
        QCOMPARE(confirmation.value(u"type"_s).toString(), u"user.tool_confirmation"_s);
        QCOMPARE(confirmation.value(u"result"_s).toString(), u"allow"_s);
        QCOMPARE(confirmation.value(u"tool_use_id"_s).toString(), waiting.input->toolCalls.at(0).id);
        QVERIFY(!confirmation.contains(u"deny_message"_s));
    }

    void confirmationDeniedWithAComment()
    {
        Rig rig;
        const QString id = rig.startOn(u"confirm deltas=2"_s);
        QVERIFY(RunwatchTest::waitInput(rig.manager, id, kWait));
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Reject;
        answer.comment = u"not on the production host"_s;
        const ActionResult sent = RunwatchTest::respondAndWait(rig.manager, id, answer);
        QVERIFY2(sent.ok(), qPrintable(sent.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, rig.textOf(id));
        QCOMPARE(rig.sim.session(run.remoteId)->turns.constLast().denyMessage, answer.comment);
        QVERIFY(run.primaryText.contains(answer.comment));
        const QJsonObject confirmation = rig.sentEvents().constLast();
        QCOMPARE(confirmation.value(u"result"_s).toString(), u"deny"_s);
        QCOMPARE(confirmation.value(u"deny_message"_s).toString(), answer.comment);
    }

    void customToolResult()
    {
        Rig rig;
        const QString id = rig.startOn(u"custom deltas=2"_s);
        QVERIFY(RunwatchTest::waitInput(rig.manager, id, kWait));
        const Run waiting = rig.run(id);
        QCOMPARE(waiting.input->reason, InputReason::ToolOutput);
        QCOMPARE(waiting.input->toolCalls.size(), 1);
        QCOMPARE(waiting.input->toolCalls.at(0).name, u"lookup_order"_s);
        QVERIFY(!waiting.input->toolCalls.at(0).approval);
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Text;
        answer.text = u"shipped on Monday"_s;
        QVERIFY(RunwatchTest::respondAndWait(rig.manager, id, answer).ok());
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, rig.textOf(id));
        QCOMPARE(rig.sim.session(run.remoteId)->turns.constLast().toolResult, answer.text);
        const QJsonObject result = rig.sentEvents().constLast();
        QCOMPARE(result.value(u"type"_s).toString(), u"user.custom_tool_result"_s);
        QCOMPARE(result.value(u"custom_tool_use_id"_s).toString(), waiting.input->toolCalls.at(0).id);
    }

    // An answer that does not fit never leaves; one that comes after the turn moved on is refused.
    void answerThatDoesNotFitIsRefused()
    {
        Rig rig;
        const QString id = rig.startOn(u"confirm"_s);
        QVERIFY(RunwatchTest::waitInput(rig.manager, id, kWait));
        InputAnswer text;
        text.kind = InputAnswer::Kind::Text;
        text.text = u"yes"_s;
        const int before = rig.count(ClaudeAgentsEndpoint::SendEvents);
        QVERIFY(!RunwatchTest::respondAndWait(rig.manager, id, text).ok());
        QCOMPARE(rig.count(ClaudeAgentsEndpoint::SendEvents), before);
    }

    void followUpIsTheNextTurnOfTheSession()
    {
        Rig rig;
        QVERIFY(!RunwatchTest::followUpIsTheNextTurnOfTheSession(rig).isEmpty());
    }

    void interruptConfirmedBySession()
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
        QVERIFY(session->turns.constLast().interrupted);
        QCOMPARE(session->status, u"idle"_s);
        QVERIFY(session->logTypes.contains(u"user.interrupt"_s));
        // What the interrupted request previewed was never saved: the answer is the saved text.
        QCOMPARE(run.primaryText, rig.textOf(id));
    }

    void failureWithTheServicesReason()
    {
        Rig rig;
        const QString id = rig.startOn(u"fail deltas=4"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.rawStatus, u"retries_exhausted"_s);
        QCOMPARE(run.error.code, u"model_overloaded_error"_s);
        QCOMPARE(run.error.message, u"The model is overloaded; retries exhausted."_s);
        QCOMPARE(run.primaryText, QString()); // the preview was never saved
    }

    void wrongKeyIsTheServicesError()
    {
        Rig rig(3, u"sk-ant-wrong"_s);
        const QString id = rig.startOn(u"normal"_s);
        QVERIFY(RunwatchTest::waitSettled(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.error.code, u"authentication_error"_s);
        QVERIFY(!run.error.message.contains(u"sk-ant-wrong"_s));
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
        QVERIFY(rig.count(ClaudeAgentsEndpoint::ListSessions) >= 3);

        RunwatchSim::ClaudeAgentsSimConfig config = rig.sim.config();
        config.maxPageSize = 1;
        rig.sim.setConfig(config);
        const std::optional<CatalogResult> agents = RunwatchTest::awaitWithin(backend->catalog());
        QVERIFY(agents && !agents->error.isError());
        QCOMPARE(agents->entries.size(), 2);
        QCOMPARE(agents->entries.at(0).id, kAgent);
        QCOMPARE(agents->entries.at(0).name, u"Research assistant"_s);
        QCOMPARE(agents->entries.at(0).detail, u"claude-opus-4-7"_s);
        QCOMPARE(rig.count(ClaudeAgentsEndpoint::Agents), 2);
    }

    void attachSessionStartedElsewhere()
    {
        Rig rig;
        const QString session = rig.sim.startSessionElsewhere(kAgent, u"normal deltas=30 interval_ms=5"_s);
        QVERIFY(!session.isEmpty());
        QVERIFY(RunwatchTest::waitFor([&] { return rig.sim.session(session)->logTypes.size() > 3; }));
        const QString id = rig.manager.attachRemoteRun(rig.connectionName, session);
        QVERIFY(!id.isEmpty());
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.remoteId, session);
        QCOMPARE(run.primaryText, rig.sim.turnText(session));
        QCOMPARE(run.token.extra.value(AgentSessions::kTurnKey).toString(),
                 rig.sim.session(session)->turns.constLast().messageId);
    }

    void notStreamedIsRead() { RunwatchTest::notStreamedIsRead<ClaudeAgentsE2eTraits>(); }
    void attachShowsEarlierTurns() { RunwatchTest::attachShowsEarlierTurns<ClaudeAgentsE2eTraits>(); }

    void deleteInterruptsFirst()
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
        QVERIFY(!info->deletedWhileRunning);
        QVERIFY(info->logTypes.contains(u"user.interrupt"_s));
        QCOMPARE(rig.count(ClaudeAgentsEndpoint::DeleteSession), 1);
    }
};

QTEST_GUILESS_MAIN(TestClaudeAgentsEndToEnd)
#include "tst_claude_agents_e2e.moc"
