// SPDX-License-Identifier: GPL-3.0-or-later
// The LangGraph connector against the official Agent Server: tests/peers/langgraph-peer/server.mjs
// runs @langchain/langgraph-api's in-memory server (installed by scripts/setup-test-peers.sh) with
// small deterministic graphs (graphs.mjs). Started once for the whole program, over loopback.
#include "backends/langgraph/langgraphbackend.h"
#include "cliprocess.h"
#include "cuttingproxy.h"
#include "engine/runmanager.h"
#include "enginerig.h"
#include "langgraphpeer.h"
#include "store/runstore.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

constexpr int kWait = 30000;

using Peer = RunwatchTest::LangGraphPeer;

struct Rig : RunwatchTest::EngineRig
{
    explicit Rig(const QUrl &url, const QJsonObject &options = {})
    {
        FollowPolicy policy;
        policy.reconnectInitial = std::chrono::milliseconds(5);
        policy.reconnectMax = std::chrono::milliseconds(100);
        policy.pollInitial = std::chrono::milliseconds(50);
        policy.pollMax = std::chrono::milliseconds(200);
        manager.setFollowPolicy(policy);
        Connection c = RunwatchTest::plainConnection(u"peer"_s, u"langgraph"_s, url, options);
        c.auth = AuthStyle::None;
        QVERIFY(addConnection(c));
    }
    LangGraphBackend *backend() { return qobject_cast<LangGraphBackend *>(manager.backend(connectionName)); }
    QString startOn(const QString &graph, const QString &prompt, bool stream = true)
    {
        model.clear();
        StartRequest request;
        request.prompt = prompt;
        request.agent = graph;
        request.stream = stream;
        return manager.startRun(connectionName, request);
    }
    // The thread's state as the server has it.
    QJsonObject state(const QString &id)
    {
        const auto fetched
            = QCoro::waitFor(backend()->fetchObject(u"/threads/%1/state"_s.arg(run(id).remoteId)));
        return fetched.object;
    }
    // The content of the thread's last AI message.
    QString lastAiMessage(const QString &id)
    {
        const QJsonArray messages = state(id).value(u"values"_s).toObject().value(u"messages"_s).toArray();
        for (qsizetype i = messages.size() - 1; i >= 0; --i) {
            const QJsonObject m = messages.at(i).toObject();
            if (m.value(u"type"_s).toString() == "ai"_L1)
                return m.value(u"content"_s).toString();
        }
        return {};
    }
};

using RunwatchTest::waitFor;
using RunwatchTest::waitTerminal;

InputAnswer decisions(const Run &run, bool approveFirst, bool approveSecond, const QString &reason)
{
    InputAnswer answer;
    answer.kind = InputAnswer::Kind::Approve;
    const QList<ToolCallRequest> calls = run.input->toolCalls;
    answer.toolAnswers = {{calls.at(0).id, approveFirst ? QString() : reason, approveFirst},
                          {calls.at(1).id, approveSecond ? QString() : reason, approveSecond}};
    return answer;
}

} // namespace

class TestLangGraphPeer final : public QObject
{
    Q_OBJECT

    std::unique_ptr<Peer> m_peer;

private Q_SLOTS:
    void initTestCase()
    {
        const QString node = QStringLiteral(RUNWATCH_NODE);
        const QString dir = QStringLiteral(RUNWATCH_LANGGRAPH_PEER_DIR);
        if (const QString why = Peer::missing(node, dir); !why.isEmpty())
            QFAIL(qPrintable(why));
        m_peer = std::make_unique<Peer>(node, dir);
        QVERIFY2(m_peer->url().isValid(),
                 qPrintable(u"the Agent Server did not start: "_s + m_peer->error()));
    }
    void cleanupTestCase() { m_peer.reset(); }

    void describesTheServer()
    {
        Rig rig(m_peer->url());
        const ConnectionInfo info = QCoro::waitFor(rig.backend()->describe());
        QVERIFY2(info.ok(), qPrintable(info.error.message));
        QCOMPARE(info.version, u"1.5.1"_s);
        const CatalogResult catalog = QCoro::waitFor(rig.backend()->catalog());
        QVERIFY2(!catalog.error.isError(), qPrintable(catalog.error.message));
        QStringList names;
        for (const CatalogEntry &e : catalog.entries)
            names << e.name;
        names.sort();
        QCOMPARE(names, (QStringList{u"approval"_s, u"echo"_s, u"fail"_s, u"question"_s, u"restricted"_s,
                                     u"slow"_s}));
    }

    // The streamed tokens, joined, are the thread's last AI message exactly (multi-byte text too).
    void streamedRunMatchesTheThreadState()
    {
        Rig rig(m_peer->url());
        const QString id = rig.startOn(u"echo"_s, u"long 200"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QVERIFY(!run.error.isError());
        QVERIFY(run.primaryText.contains(u"日本"_s) && run.primaryText.contains(u"🎉"_s));
        QCOMPARE(run.primaryText, rig.lastAiMessage(id));
        QCOMPARE(run.reconciliations, 0);
        QVERIFY(!run.token.extra.value(u"run_id"_s).toString().isEmpty());
        const auto custom
            = std::find_if(run.secondary.cbegin(), run.secondary.cend(),
                           [](const SecondaryItem &i) { return i.id.startsWith(u"custom:"_s); });
        QVERIFY(custom != run.secondary.cend());
        QCOMPARE(custom->text, u"{\"phase\":\"drafting\"}"_s);
    }

    // Through a relay that cuts the connection every few events: each rejoin sends the last
    // complete id, and the text comes out whole, without a gap or a repeat.
    void cutStreamGivesTheSameText()
    {
        RunwatchTest::CuttingProxy proxy(quint16(m_peer->url().port()), 7);
        proxy.setCutAfter(3, 9);
        QVERIFY(proxy.listen());
        QUrl through = m_peer->url();
        through.setPort(proxy.port());
        Rig rig(through);
        const QString id = rig.startOn(u"echo"_s, u"long 120 delay 5"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait * 2));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, rig.lastAiMessage(id));
        QCOMPARE(rig.run(id).reconciliations, 0);
        QVERIFY2(proxy.cuts() >= 5, qPrintable(QString::number(proxy.cuts())));
    }

    // A LangChain human-in-the-loop review of two actions: one approval per action; the answer is
    // a resume run on the same thread, followed as the same local run.
    void approvalAnsweredApproveAndReject()
    {
        Rig rig(m_peer->url());
        const QString id = rig.startOn(u"approval"_s, u"send the report"_s);
        QVERIFY(waitFor([&] { return rig.run(id).status == RunStatus::InputRequired; }, kWait));
        const Run &waiting = rig.run(id);
        QVERIFY(waiting.input);
        QCOMPARE(waiting.input->reason, InputReason::Approval);
        QCOMPARE(waiting.input->toolCalls.size(), 2);
        QCOMPARE(waiting.input->toolCalls.at(0).name, u"send_email"_s);
        QCOMPARE(waiting.input->toolCalls.at(1).name, u"delete_file"_s);
        QCOMPARE(QJsonDocument::fromJson(waiting.input->toolCalls.at(0).arguments.toUtf8()).object(),
                 (QJsonObject{{u"to"_s, u"ops@example.com"_s}, {u"subject"_s, u"Report"_s}}));
        const QString plan = waiting.primaryText.toString();
        QVERIFY(plan.startsWith(u"Plan: "_s));
        const QString runBefore = waiting.token.extra.value(u"run_id"_s).toString();

        rig.manager.respondToRun(id, decisions(waiting, true, false, u"not now"_s));
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(rig.manager.runIds().size(), 1);
        QVERIFY(run.token.extra.value(u"run_id"_s).toString() != runBefore);
        QCOMPARE(rig.lastAiMessage(id), u"send_email: approved; delete_file: rejected (reason: not now)"_s);
        QVERIFY2(run.primaryText.startsWith(plan) && run.primaryText.endsWith(rig.lastAiMessage(id)),
                 qPrintable(run.primaryText.toString()));
        QVERIFY(!run.input);
    }

    void stringInterruptAnsweredWithText()
    {
        Rig rig(m_peer->url());
        const QString id = rig.startOn(u"question"_s, u"weather"_s);
        QVERIFY(waitFor([&] { return rig.run(id).status == RunStatus::InputRequired; }, kWait));
        QCOMPARE(rig.run(id).input->reason, InputReason::Question);
        QCOMPARE(rig.run(id).input->prompt, u"What city?"_s);
        InputAnswer answer;
        answer.text = u"Paris"_s;
        rig.manager.respondToRun(id, answer);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QVERIFY(rig.run(id).primaryText.endsWith(u"Weather for Paris: sunny"_s));
    }

    // --value: the graph is resumed with the raw JSON value, whatever the interrupt asked.
    void rawValueResume()
    {
        Rig rig(m_peer->url());
        const QString id = rig.startOn(u"question"_s, u"weather"_s);
        QVERIFY(waitFor([&] { return rig.run(id).status == RunStatus::InputRequired; }, kWait));
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Value;
        answer.value = u"Oslo"_s;
        rig.manager.respondToRun(id, answer);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        QVERIFY(rig.run(id).primaryText.endsWith(u"Weather for Oslo: sunny"_s));
    }

    // Delete removes the run on the server; with delete_thread on, its whole thread.
    void deleteTheRunOrItsThread()
    {
        for (const bool wholeThread : {false, true}) {
            Rig rig(m_peer->url(), QJsonObject{{u"delete_thread"_s, wholeThread ? u"yes"_s : u"no"_s}});
            const QString id = rig.startOn(u"echo"_s, u"to delete"_s);
            QVERIFY(waitTerminal(rig.manager, id, kWait));
            const ContinuationToken token = rig.run(id).token;
            const ActionResult removed = QCoro::waitFor(rig.backend()->remove(token));
            QVERIFY2(removed.ok(), qPrintable(removed.error.message));
            const QString thread = u"/threads/%1"_s.arg(token.remoteId);
            const auto run = QCoro::waitFor(
                rig.backend()->fetchObject(thread + u"/runs/"_s + token.extra.value(u"run_id"_s).toString()));
            QCOMPARE(run.httpStatus, 404);
            QCOMPARE(QCoro::waitFor(rig.backend()->fetchObject(thread)).httpStatus, wholeThread ? 404 : 200);
        }
    }

    void cancelInterruptsTheRun()
    {
        Rig rig(m_peer->url());
        const QString id = rig.startOn(u"slow"_s, u"go"_s);
        QVERIFY(waitFor([&] { return rig.run(id).primaryText.size() > 10; }, kWait));
        rig.manager.cancelRun(id);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        QCOMPARE(rig.run(id).status, RunStatus::Cancelled);
        QCOMPARE(rig.run(id).rawStatus, u"interrupted"_s);
    }

    void graphErrorFailsTheRun()
    {
        Rig rig(m_peer->url());
        const QString id = rig.startOn(u"fail"_s, u"x"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.error.kind, ErrorKind::Run);
        QCOMPARE(run.error.message, u"graph exploded on purpose"_s);
        QCOMPARE(run.primaryText, u"Working on it, then failing"_s);
    }

    // A follow-up is a new run on the same thread: a new local run with its parent, whose text is
    // only its own.
    void followUpOnTheSameThread()
    {
        Rig rig(m_peer->url());
        const QString parent = rig.startOn(u"echo"_s, u"first"_s);
        QVERIFY(waitTerminal(rig.manager, parent, kWait));
        QString why;
        const QString child = rig.manager.followUp(parent, u"second"_s, &why);
        QVERIFY2(!child.isEmpty(), qPrintable(why));
        QVERIFY(waitTerminal(rig.manager, child, kWait));
        const Run &run = rig.run(child);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.parentId, parent);
        QCOMPARE(run.remoteId, rig.run(parent).remoteId);
        QVERIFY(run.primaryText.startsWith(u"Echo: second"_s));
        QCOMPARE(run.primaryText, rig.lastAiMessage(child));
        const QJsonArray messages
            = rig.state(child).value(u"values"_s).toObject().value(u"messages"_s).toArray();
        QCOMPARE(messages.size(), 4);
    }

    // list --remote: the deployment's threads, an interrupted one as waiting for input.
    void listShowsAnInterruptedThread()
    {
        Rig rig(m_peer->url());
        const QString id = rig.startOn(u"question"_s, u"listed"_s);
        QVERIFY(waitFor([&] { return rig.run(id).status == RunStatus::InputRequired; }, kWait));
        const ListResult listed = QCoro::waitFor(rig.backend()->list());
        QVERIFY2(!listed.error.isError(), qPrintable(listed.error.message));
        const auto it = std::find_if(listed.runs.cbegin(), listed.runs.cend(), [&](const RemoteRunInfo &i) {
            return i.remoteId == rig.run(id).remoteId;
        });
        QVERIFY(it != listed.runs.cend());
        QCOMPARE(it->status, RunStatus::InputRequired);
        QCOMPARE(it->title, u"listed"_s);
    }

    // A thread started by the official SDK, attached by its id: the run is found and followed.
    void attachAThreadStartedByTheSdk()
    {
        QProcess sdk;
        sdk.setWorkingDirectory(QStringLiteral(RUNWATCH_LANGGRAPH_PEER_DIR));
        sdk.start(QStringLiteral(RUNWATCH_NODE),
                  {u"sdk-start.mjs"_s, m_peer->url().toString(), u"echo"_s, u"long 40 delay 20"_s});
        QVERIFY(sdk.waitForFinished(kWait));
        QCOMPARE(sdk.exitCode(), 0);
        const QString thread = QString::fromUtf8(sdk.readAllStandardOutput()).trimmed();
        QVERIFY(!thread.isEmpty());
        Rig rig(m_peer->url());
        const QString id = rig.manager.attachRemoteRun(u"peer"_s, thread, {});
        QVERIFY(!id.isEmpty());
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, rig.lastAiMessage(id));
    }

    // runwatch-cli's `watch` killed with SIGKILL mid-run; a new `watch` follows the run to its end
    // from the stored thread, run and last event id: the stored text is the thread's answer.
    void cliWatchSurvivesSigkill()
    {
        QTemporaryDir dir;
        const QStringList globals{u"--backend"_s,           u"langgraph"_s, u"--url"_s,
                                  m_peer->url().toString(), u"--store"_s,   dir.filePath(u"runs.sqlite"_s)};
        using RunwatchTest::finishCli;
        const auto cli = [&](const QStringList &args) {
            return RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), globals + args, this);
        };
        const RunwatchTest::CliResult started = finishCli(
            cli({u"--json"_s, u"start"_s, u"--agent"_s, u"echo"_s, u"--prompt"_s, u"long 150 delay 15"_s}),
            kWait);
        QCOMPARE(started.exitCode, 0);
        const QString id = RunwatchTest::runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        QCOMPARE(RunwatchTest::firstOfType(started.out, u"run"_s).value(u"remote_id"_s).toString().size(),
                 36);
        QProcess *first = cli({u"watch"_s, id});
        QByteArray partial;
        QVERIFY(waitFor([&] { return (partial += first->readAllStandardOutput()).size() > 40; }, kWait));
        ::kill(pid_t(first->processId()), SIGKILL);
        QVERIFY(first->waitForFinished(10000));
        const RunwatchTest::CliResult watched = finishCli(cli({u"watch"_s, id}), kWait * 2);
        QCOMPARE(watched.exitCode, 0);
        RunStore store;
        QVERIFY(store.open(dir.filePath(u"runs.sqlite"_s)));
        const std::optional<Run> run = store.loadRun(id);
        QVERIFY(run);
        QCOMPARE(run->status, RunStatus::Completed);
        Rig rig(m_peer->url());
        const auto state
            = QCoro::waitFor(rig.backend()->fetchObject(u"/threads/%1/state"_s.arg(run->remoteId)));
        const QJsonArray messages = state.object.value(u"values"_s).toObject().value(u"messages"_s).toArray();
        QCOMPARE(run->primaryText, messages.last().toObject().value(u"content"_s).toString());
        QVERIFY(run->primaryText.startsWith(QString::fromUtf8(partial).trimmed().left(20)));
        QCOMPARE(run->reconciliations, 0);
    }

    // The CLI contract scripts rely on: agents, a review waiting (exit 5, list --remote shows its
    // thread as input_required), respond --reject --comment answering every action, watch to the
    // end, followup on the same thread.
    void cliReviewAnsweredFromTheCommandLine()
    {
        QTemporaryDir dir;
        const QStringList globals{u"--backend"_s, u"langgraph"_s,
                                  u"--url"_s,     m_peer->url().toString(),
                                  u"--store"_s,   dir.filePath(u"runs.sqlite"_s),
                                  u"--json"_s};
        using RunwatchTest::finishCli;
        const auto cli = [&](const QStringList &args) {
            return finishCli(RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), globals + args, this),
                             kWait);
        };
        const RunwatchTest::CliResult agents = cli({u"agents"_s});
        QCOMPARE(agents.exitCode, 0);
        const QList<QJsonObject> rows = RunwatchTest::jsonLines(agents.out);
        QCOMPARE(rows.size(), 6);
        QVERIFY(std::all_of(rows.cbegin(), rows.cend(), [](const QJsonObject &o) {
            return o.value(u"type"_s) == u"agent"_s && o.value(u"id"_s).toString().size() == 36
                   && !o.value(u"name"_s).toString().isEmpty();
        }));

        const RunwatchTest::CliResult started
            = cli({u"start"_s, u"--agent"_s, u"approval"_s, u"--prompt"_s, u"send it"_s, u"--follow"_s});
        QCOMPARE(started.exitCode, 5);
        const QString id = RunwatchTest::runIdFrom(started.out);
        const QString thread
            = RunwatchTest::firstOfType(started.out, u"run"_s).value(u"remote_id"_s).toString();
        QVERIFY(!id.isEmpty() && !thread.isEmpty());

        const RunwatchTest::CliResult remote = cli({u"list"_s, u"--remote"_s});
        QCOMPARE(remote.exitCode, 0);
        const QList<QJsonObject> threads = RunwatchTest::jsonLines(remote.out);
        const auto listed = std::find_if(threads.cbegin(), threads.cend(), [&](const QJsonObject &o) {
            return o.value(u"remote_id"_s) == thread;
        });
        QVERIFY(listed != threads.cend());
        QCOMPARE(listed->value(u"status"_s).toString(), u"input_required"_s);

        QCOMPARE(cli({u"status"_s, id}).exitCode, 5);
        const RunwatchTest::CliResult answered
            = cli({u"respond"_s, id, u"--reject"_s, u"--comment"_s, u"not today"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        QCOMPARE(cli({u"watch"_s, id}).exitCode, 0);
        // A second answer finds the thread no longer waiting: refused, nothing sent.
        QVERIFY(cli({u"respond"_s, id, u"--approve"_s}).exitCode != 0);

        RunStore store;
        QVERIFY(store.open(dir.filePath(u"runs.sqlite"_s)));
        const std::optional<Run> run = store.loadRun(id);
        QVERIFY(run);
        QCOMPARE(run->status, RunStatus::Completed);
        QVERIFY2(
            run->primaryText.endsWith(
                u"send_email: rejected (reason: not today); delete_file: rejected (reason: not today)"_s),
            qPrintable(run->primaryText.toString()));

        // The next turn runs the graph again: it asks for a review again (exit 5), on the same thread.
        const RunwatchTest::CliResult next
            = cli({u"followup"_s, id, u"--prompt"_s, u"and now?"_s, u"--follow"_s});
        QCOMPARE(next.exitCode, 5);
        const QJsonObject child = RunwatchTest::firstOfType(next.out, u"run"_s);
        QCOMPARE(child.value(u"remote_id"_s).toString(), thread);
        QVERIFY(child.value(u"run"_s).toString() != id);

        // A review whose actions allow one decision each: a blanket --approve or --reject would
        // fail the run, so it is refused (exit 2) naming the action, and nothing is sent; the
        // graph takes the allowed decisions as a raw value.
        const RunwatchTest::CliResult restricted
            = cli({u"start"_s, u"--agent"_s, u"restricted"_s, u"--prompt"_s, u"tidy"_s, u"--follow"_s});
        QCOMPARE(restricted.exitCode, 5);
        const QString review = RunwatchTest::runIdFrom(restricted.out);
        const RunwatchTest::CliResult approveAll = cli({u"respond"_s, review, u"--approve"_s});
        QCOMPARE(approveAll.exitCode, 2);
        QVERIFY2(approveAll.err.contains("does not allow approving archive"), approveAll.err.constData());
        const RunwatchTest::CliResult rejectAll = cli({u"respond"_s, review, u"--reject"_s});
        QCOMPARE(rejectAll.exitCode, 2);
        QVERIFY2(rejectAll.err.contains("does not allow rejecting publish"), rejectAll.err.constData());
        QCOMPARE(cli({u"status"_s, review}).exitCode, 5); // still waiting: nothing went out
        const RunwatchTest::CliResult valued
            = cli({u"respond"_s, review, u"--value"_s,
                   u"{\"decisions\":[{\"type\":\"approve\"},{\"type\":\"reject\",\"message\":\"no\"}]}"_s});
        QVERIFY2(valued.exitCode == 0 || valued.exitCode == 6, valued.err.constData());
        QCOMPARE(cli({u"watch"_s, review}).exitCode, 0);
    }

    // Attached by thread id, a thread with two runs is followed at its latest (the server lists a
    // thread's runs oldest first).
    void attachFollowsTheLatestRun()
    {
        QString thread;
        {
            Rig rig(m_peer->url());
            const QString parent = rig.startOn(u"echo"_s, u"older"_s);
            QVERIFY(waitTerminal(rig.manager, parent, kWait));
            QString why;
            const QString child = rig.manager.followUp(parent, u"newer"_s, &why);
            QVERIFY2(!child.isEmpty(), qPrintable(why));
            QVERIFY(waitTerminal(rig.manager, child, kWait));
            thread = rig.run(child).remoteId;
        }
        Rig rig(m_peer->url());
        const QString id = rig.manager.attachRemoteRun(u"peer"_s, thread, {});
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        QVERIFY2(rig.run(id).primaryText.startsWith(u"Echo: newer"_s),
                 qPrintable(rig.run(id).primaryText.toString()));
    }

    // --no-stream: the run is polled and its answer read from the thread's state.
    void notStreamedRunIsPolled()
    {
        Rig rig(m_peer->url());
        const QString id = rig.startOn(u"echo"_s, u"quiet"_s, false);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, rig.lastAiMessage(id));
    }
};

QTEST_GUILESS_MAIN(TestLangGraphPeer)
#include "tst_langgraph_peer.moc"
