// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli --backend openai-agents as a script runs it: real processes against the OpenAI
// Agents API simulator, one store shared between them. The CLI contract of issue 29: agents,
// start --prompt T --agent AGENT_ID [--follow] (the run line's remote_id is the session id), watch
// (also after SIGKILL), status, cancel, delete, respond --approve | --reject | --output
// CALL_ID=TEXT | --value JSON, followup (the next turn, same session), list --remote (sessions),
// attach SESSION_ID (earlier turns as the conversation), the key from OPENAI_API_KEY as the client
// sends it, and the exit codes every backend has. The steps every session connector shares are in
// agentsessionscli.h; here is what this API has of its own.
#include "agentsessionscli.h"
#include "openaiagents/openaiagentssim.h"

using namespace Qt::StringLiterals;
using Result = RunwatchTest::CliResult;
using RunwatchTest::firstOfType;
using RunwatchTest::runIdFrom;

namespace {

struct OpenAiAgentsCliTraits
{
    using Sim = RunwatchSim::OpenAiAgentsSimulator;
    using Config = RunwatchSim::OpenAiAgentsSimConfig;
    using Record = RunwatchSim::OpenAiAgentsRequestRecord;
    using Endpoint = RunwatchSim::OpenAiAgentsEndpoint;
    static constexpr auto kBackend = "openai-agents";
    static constexpr auto kKeyVariable = "OPENAI_API_KEY";
    static constexpr auto kKey = "sk-cli-agents-0001";
    static constexpr auto kWrongKey = "sk-wrong";
    static constexpr auto kAgent = "agent_68e1runwatch0research";
    static constexpr auto kBetaHeader = "openai-beta";
    static constexpr auto kBeta = "agents=v1";
    static constexpr Endpoint kStream = Endpoint::Stream;
    static constexpr Endpoint kHistory = Endpoint::Items; // the saved turns and items
    static constexpr Endpoint kDelete = Endpoint::DeleteSession;
    static constexpr auto kRunning = "in_progress";
    static constexpr auto kFailure = "The model is overloaded.";
    static bool turnOver(const RunwatchSim::OpenAiAgentsSessionInfo &info)
    {
        return info.status == u"idle"_s;
    }
    static bool cancelled(const RunwatchSim::OpenAiAgentsSessionInfo &info)
    {
        return !info.turns.isEmpty() && info.turns.constLast().status == u"cancelled"_s;
    }
};

} // namespace

class TestOpenAiAgentsCli final : public QObject
{
    Q_OBJECT

    RunwatchTest::AgentSessionsCli<OpenAiAgentsCliTraits> m_cli;

    Result cli(const QStringList &args) { return m_cli.cli(args); }
    QStringList start(const QString &prompt) const { return m_cli.start(prompt); }
    QString lastText() const { return m_cli.lastText(); }
    RunwatchSim::OpenAiAgentsSimulator *sim() const { return &m_cli.sim(); }

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

    // An MCP approval: exit 5 with the call; --reject denies it (the API takes no comment).
    void reject()
    {
        const Result asked = cli(QStringList{u"--json"_s} + start(u"approve deltas=3"_s) << u"--follow"_s);
        QCOMPARE(asked.exitCode, 5);
        const QJsonObject request
            = firstOfType(asked.out, u"input_required"_s).value(u"request"_s).toObject();
        QCOMPARE(request.value(u"reason"_s).toString(), u"approval"_s);
        QCOMPARE(request.value(u"tool_calls"_s).toArray().size(), 1);
        const QString id = runIdFrom(asked.out);
        const Result answered = cli({u"respond"_s, id, u"--reject"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(QString::fromUtf8(watched.out), lastText() + u'\n');
        QCOMPARE(sim()->session(sim()->lastSessionId())->turns.constLast().decision, u"deny"_s);
    }

    void approve()
    {
        const Result asked = cli(QStringList{u"--json"_s} + start(u"approve deltas=2"_s) << u"--follow"_s);
        QCOMPARE(asked.exitCode, 5);
        const QString id = runIdFrom(asked.out);
        const Result answered = cli({u"respond"_s, id, u"--approve"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QVERIFY(QString::fromUtf8(watched.out).contains(u"Approved."_s));
    }

    void toolOutput()
    {
        const Result asked = cli(QStringList{u"--json"_s} + start(u"tool"_s) << u"--follow"_s);
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
        QCOMPARE(lastText(), u"The order says: in transit"_s);
    }

    // A sign-in form answered with --value.
    void formValue()
    {
        const Result asked = cli(QStringList{u"--json"_s} + start(u"signin"_s) << u"--follow"_s);
        QCOMPARE(asked.exitCode, 5);
        const QString id = runIdFrom(asked.out);
        const Result answered
            = cli({u"respond"_s, id, u"--value"_s, uR"({"username":"ada","password":"pw"})"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(QString::fromUtf8(watched.out), u"Signed in as ada.\n"_s);
    }
};

QTEST_GUILESS_MAIN(TestOpenAiAgentsCli)
#include "tst_openai_agents_cli.moc"
