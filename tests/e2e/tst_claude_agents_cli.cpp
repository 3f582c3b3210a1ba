// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli --backend claude-agents as a script runs it: real processes against the Claude
// Managed Agents simulator, one store shared between them. The CLI contract of issue 29: agents,
// start --prompt T --agent AGENT_ID [--follow] (the run line's remote_id is the session id), watch
// (also after SIGKILL), status, cancel, delete, respond --approve | --reject [--comment] |
// --output CALL_ID=TEXT, followup (the next turn, same session), list --remote (sessions), attach
// SESSION_ID (earlier turns as the conversation), the key from the environment as the SDK sends
// it, and the exit codes every backend has. The steps every session connector shares are in
// agentsessionscli.h; here is what this API has of its own.
#include "agentsessionscli.h"
#include "claudeagents/claudeagentssim.h"

using namespace Qt::StringLiterals;
using Result = RunwatchTest::CliResult;
using RunwatchTest::firstOfType;
using RunwatchTest::runIdFrom;

namespace {

struct ClaudeAgentsCliTraits
{
    using Sim = RunwatchSim::ClaudeAgentsSimulator;
    using Config = RunwatchSim::ClaudeAgentsSimConfig;
    using Record = RunwatchSim::ClaudeAgentsRequestRecord;
    using Endpoint = RunwatchSim::ClaudeAgentsEndpoint;
    static constexpr auto kBackend = "claude-agents";
    static constexpr auto kKeyVariable = "ANTHROPIC_API_KEY";
    static constexpr auto kKey = "sk-ant-cli-key-0001";
    static constexpr auto kWrongKey = "sk-ant-wrong";
    static constexpr auto kAgent = "agent_011Runwatch0Research";
    static constexpr auto kBetaHeader = "anthropic-beta";
    static constexpr auto kBeta = "managed-agents-2026-04-01";
    static constexpr Endpoint kStream = Endpoint::Stream;
    static constexpr Endpoint kHistory = Endpoint::ListEvents; // the event log
    static constexpr Endpoint kDelete = Endpoint::DeleteSession;
    static constexpr auto kRunning = "running";
    static constexpr auto kFailure = "The model is overloaded; retries exhausted.";
    // Idle with a stop reason: idle alone is also the state before the first turn.
    static bool turnOver(const RunwatchSim::ClaudeAgentsSessionInfo &info)
    {
        return info.status == u"idle"_s && !info.turns.isEmpty()
               && !info.turns.constLast().stopReason.isEmpty();
    }
    static bool cancelled(const RunwatchSim::ClaudeAgentsSessionInfo &info)
    {
        return !info.turns.isEmpty() && info.turns.constLast().interrupted;
    }
};

} // namespace

class TestClaudeAgentsCli final : public QObject
{
    Q_OBJECT

    RunwatchTest::AgentSessionsCli<ClaudeAgentsCliTraits> m_cli;

    Result cli(const QStringList &args) { return m_cli.cli(args); }
    QStringList start(const QString &prompt) const { return m_cli.start(prompt); }
    QString lastText() const { return m_cli.lastText(); }
    RunwatchSim::ClaudeAgentsSimulator *sim() const { return &m_cli.sim(); }

private Q_SLOTS:
    void init() { m_cli.init(this); }
    void cleanup() { m_cli.cleanup(); }

    void startFollow() { m_cli.startFollow(); }
    void runLineNamesTheSession() { m_cli.runLineNamesTheSession(); }
    void watchSurvivesSigkill() { m_cli.watchSurvivesSigkill(); }
    void followUpSameSession() { m_cli.followUpSameSession(); }
    void cancelAndStatus() { m_cli.cancelAndStatus(); }
    void deleteOnTheService() { m_cli.deleteOnTheService(); }
    void failureExitCodeAndReason() { m_cli.failureExitCodeAndReason(); }
    void wrongKey() { m_cli.wrongKey(); }
    void agentsListsTheAccountsAgents() { m_cli.agentsListsTheAccountsAgents(); }
    void listRemoteAndAttach() { m_cli.listRemoteAndAttach(); }
    void attachShowsEarlierTurns() { m_cli.attachShowsEarlierTurns(); }

    // A tool confirmation: exit 5 with the call; --reject --comment denies it with that message.
    void rejectWithComment()
    {
        const Result asked = cli(QStringList{u"--json"_s} + start(u"confirm deltas=3"_s) << u"--follow"_s);
        QCOMPARE(asked.exitCode, 5);
        const QJsonObject request
            = firstOfType(asked.out, u"input_required"_s).value(u"request"_s).toObject();
        QCOMPARE(request.value(u"reason"_s).toString(), u"approval"_s);
        QCOMPARE(request.value(u"tool_calls"_s).toArray().size(), 1);
        const QString id = runIdFrom(asked.out);
        const Result answered = cli({u"respond"_s, id, u"--reject"_s, u"--comment"_s, u"not today"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(QString::fromUtf8(watched.out), lastText() + u'\n');
        QCOMPARE(sim()->session(sim()->lastSessionId())->turns.constLast().denyMessage, u"not today"_s);
    }

    void approve()
    {
        const Result asked = cli(QStringList{u"--json"_s} + start(u"confirm deltas=2"_s) << u"--follow"_s);
        QCOMPARE(asked.exitCode, 5);
        const QString id = runIdFrom(asked.out);
        const Result answered = cli({u"respond"_s, id, u"--approve"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QVERIFY(QString::fromUtf8(watched.out).contains(u"It ran."_s));
    }

    void customToolOutput()
    {
        const Result asked = cli(QStringList{u"--json"_s} + start(u"custom deltas=2"_s) << u"--follow"_s);
        QCOMPARE(asked.exitCode, 5);
        const QJsonObject request
            = firstOfType(asked.out, u"input_required"_s).value(u"request"_s).toObject();
        const QString call
            = request.value(u"tool_calls"_s).toArray().at(0).toObject().value(u"id"_s).toString();
        QVERIFY(!call.isEmpty());
        const QString id = runIdFrom(asked.out);
        const Result answered = cli({u"respond"_s, id, u"--output"_s, call + u"=in transit"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(QString::fromUtf8(watched.out), lastText() + u'\n');
        QVERIFY(lastText().startsWith(u"The order says: in transit. "_s));
    }
};

QTEST_GUILESS_MAIN(TestClaudeAgentsCli)
#include "tst_claude_agents_cli.moc"
