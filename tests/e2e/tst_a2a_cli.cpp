// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli --backend a2a as a user runs it: real processes against the A2A simulator, one
// store shared between them.
#include "a2a/a2asim.h"
#include "cliprocess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;
using RunwatchSim::A2aSimulator;
using Result = RunwatchTest::CliResult;
using RunwatchTest::runIdFrom;

class TestA2aCli final : public QObject
{
    Q_OBJECT

    A2aSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;

    QStringList globals(const QString &store) const
    {
        return {u"--backend"_s,        u"a2a"_s, u"--url"_s, m_sim->baseUrl().toString(), u"--store"_s,
                m_dir->filePath(store)};
    }

    // `store`: a second store stands for a second client that knows nothing of the first.
    Result cli(const QStringList &args, int ms = 60000, const QString &store = u"runs.sqlite"_s)
    {
        return RunwatchTest::runCli(globals(store) + args, this, {}, ms);
    }

    // The run's exported JSON (what the store holds).
    QJsonObject exported(const QString &id)
    {
        const Result r = cli({u"export"_s, id, u"--format"_s, u"json"_s});
        return r.exitCode == 0 ? QJsonDocument::fromJson(r.out).object() : QJsonObject();
    }

    QList<QJsonObject> sentMessages() const
    {
        QList<QJsonObject> out;
        for (const auto &r : m_sim->requests()) {
            if (r.rpcMethod == u"SendMessage") {
                out << QJsonDocument::fromJson(r.body)
                           .object()
                           .value(u"params"_s)
                           .toObject()
                           .value(u"message"_s)
                           .toObject();
            }
        }
        return out;
    }

private Q_SLOTS:
    void init()
    {
        m_sim = new A2aSimulator(this);
        m_sim->setIntervalMs(2);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    void startFollow()
    {
        const Result r = cli({u"start"_s, u"--prompt"_s, u"normal chunks=15"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out), A2aSimulator::chunkText(15) + u'\n');
        QVERIFY2(r.err.contains("completed"), r.err.constData());
        QCOMPARE(m_sim->tasksCreated(), 1);
    }

    // start --follow stops at the question (exit 5); respond answers it from another process;
    // watch follows the rest.
    void inputRequiredRespond()
    {
        const Result asked = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"input"_s, u"--follow"_s});
        QCOMPARE(asked.exitCode, 5);
        QVERIFY2(asked.out.contains("Which city?"), asked.out.constData());
        const QString id = runIdFrom(asked.out);
        QVERIFY(!id.isEmpty());

        const Result answered = cli({u"respond"_s, id, u"--text"_s, u"Paris"_s});
        // 6: still running (the agent is on it), 0: it already finished.
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        // Snapshots repeat the task's messages; each is shown once.
        QCOMPARE(answered.err.count("[log answer] Paris"), 1);
        QVERIFY(answered.err.count("Which city?") <= 1);

        QTRY_VERIFY_WITH_TIMEOUT(m_sim->task(m_sim->lastTaskId())->ended, 20000);
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        QVERIFY2(watched.err.contains("completed"), watched.err.constData());
        QCOMPARE(m_sim->tasksCreated(), 1);
        // The task finished before `watch` attached: its text comes as a snapshot (GetTask).
        // What the store had is printed first, the snapshot adds only the rest: once, whole.
        QCOMPARE(QString::fromUtf8(watched.out), u"Weather in Paris: sunny.\n"_s);
    }

    // An artifact replaced by one that does not continue it: a marker, then the whole new
    // text; never "draft final answer".
    void replacedTextIsMarked()
    {
        const Result r = cli({u"start"_s, u"--prompt"_s, u"replace"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out),
                 u"draft \n----- output replaced; whole current text: -----\nfinal answer\n"_s);
        QVERIFY2(r.err.contains("[output replaced]"), r.err.constData());

        const Result json = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"replace"_s, u"--follow"_s});
        QCOMPARE(json.exitCode, 0);
        QStringList primary;
        for (const QByteArray &line : json.out.split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            const QString type = o.value(u"type"_s).toString();
            if (type == u"delta" || type == u"replace")
                primary << type + u':' + o.value(u"text"_s).toString();
        }
        QCOMPARE(primary, (QStringList{u"delta:draft "_s, u"replace:final answer"_s}));
    }

    // A task started by another client (another store): `list --remote` shows it with its
    // status and title, `attach` adopts it mid-way and prints the agent's whole text once.
    void listRemoteAndAttach()
    {
        const QString prompt = u"normal chunks=80 interval_ms=40"_s;
        const Result started
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, prompt}, 60000, u"other.sqlite"_s);
        QCOMPARE(started.exitCode, 0);
        const QString remote = m_sim->lastTaskId();
        QVERIFY(!remote.isEmpty());
        // `start` returns once the task exists; it is listed as working once it has begun.
        QTRY_VERIFY_WITH_TIMEOUT(!m_sim->task(remote)->text.isEmpty(), 20000);

        const Result listed = cli({u"list"_s, u"--remote"_s});
        QCOMPARE(listed.exitCode, 0);
        const QString line = QString::fromUtf8(listed.out).split(u'\n').filter(remote).value(0);
        QVERIFY2(line.contains(prompt), listed.out.constData());
        QVERIFY2(line.contains(u"in_progress"_s), listed.out.constData());
        QVERIFY(m_sim->requestCount(u"ListTasks"_s) >= 1);

        const Result listedJson = cli({u"--json"_s, u"list"_s, u"--remote"_s});
        QCOMPARE(listedJson.exitCode, 0);
        bool found = false;
        for (const QByteArray &l : listedJson.out.split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(l).object();
            if (o.value(u"type"_s).toString() == u"remote_run"
                && o.value(u"remote_id"_s).toString() == remote) {
                found = true;
                QCOMPARE(o.value(u"title"_s).toString(), prompt);
                QCOMPARE(o.value(u"raw"_s).toString(), u"TASK_STATE_WORKING"_s);
                QCOMPARE(o.value(u"run"_s).toString(), QString()); // not in this store yet
            }
        }
        QVERIFY2(found, listedJson.out.constData());

        const Result attached = cli({u"attach"_s, remote});
        QCOMPARE(attached.exitCode, 0);
        QCOMPARE(QString::fromUtf8(attached.out), A2aSimulator::chunkText(80) + u'\n');
        QVERIFY2(attached.err.contains("completed"), attached.err.constData());
        // It was attached while running: the text came by snapshot and then live.
        QVERIFY(m_sim->requestCount(u"SubscribeToTask"_s) >= 1);
        QCOMPARE(m_sim->tasksCreated(), 1);

        // Now the store has it: listed with its local id; attaching again just watches it.
        const Result local = cli({u"list"_s, u"--all"_s});
        QVERIFY2(local.out.contains(remote.toUtf8()), local.out.constData());
        const Result again = cli({u"attach"_s, remote});
        QCOMPARE(again.exitCode, 0);
        QCOMPARE(QString::fromUtf8(again.out), A2aSimulator::chunkText(80) + u'\n');
        QVERIFY2(again.err.contains("already follows"), again.err.constData());
    }

    // A mistyped id: TaskNotFound, exit 1, and no run left behind in the store.
    void attachUnknownTask()
    {
        const Result r = cli({u"attach"_s, u"no-such-task"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("Cannot attach to no-such-task"), r.err.constData());
        QVERIFY2(r.err.contains("-32001"), r.err.constData());
        QCOMPARE(r.out, QByteArray());
        const Result listed = cli({u"list"_s, u"--all"_s});
        QCOMPARE(listed.out, QByteArray());
    }

    // 0.3 has no ListTasks: said so, not an empty list.
    void listRemoteOn03Agent()
    {
        RunwatchSim::A2aSimConfig config;
        config.protocol = RunwatchSim::A2aSimConfig::Protocol::V03;
        m_sim->setConfig(config);
        const Result r = cli({u"list"_s, u"--remote"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("0.3"), r.err.constData());
    }

    // `agent` prints the card: name, protocol, skills, capabilities.
    void agentCard()
    {
        const Result r = cli({u"agent"_s});
        QCOMPARE(r.exitCode, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(u"Name: "_s + m_sim->config().agentName), r.out.constData());
        QVERIFY2(out.contains(u"Protocol: A2A 1.0 (JSONRPC)"_s), r.out.constData());
        QVERIFY2(out.contains(u"  - Chunked answers"_s), r.out.constData());
        QVERIFY2(out.contains(u"  - Weather"_s), r.out.constData());
        QVERIFY2(out.contains(u"  - streaming"_s), r.out.constData());

        const Result json = cli({u"--json"_s, u"agent"_s});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(o.value(u"type"_s).toString(), u"agent"_s);
        QCOMPARE(o.value(u"name"_s).toString(), m_sim->config().agentName);
        QCOMPARE(o.value(u"skills"_s).toArray().size(), 2);
        QVERIFY(o.value(u"warnings"_s).toArray().isEmpty());
    }

    // A 0.3 agent that does not stream: the card says so and `agent` warns about both.
    void agentCardWarnings()
    {
        RunwatchSim::A2aSimConfig config;
        config.protocol = RunwatchSim::A2aSimConfig::Protocol::V03;
        config.streaming = false;
        m_sim->setConfig(config);
        const Result r = cli({u"agent"_s});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("Protocol: A2A 0.3"), r.out.constData());
        QVERIFY2(r.out.contains("does not stream"), r.out.constData());
        QVERIFY2(r.out.contains("no ListTasks"), r.out.constData());
    }

    // A missing or malformed card is a clear connection error, for `agent` as for `start`.
    void agentCardProblems_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QByteArray>("expected");
        QTest::addRow("missing") << int(RunwatchSim::A2aSimConfig::CardMode::Missing)
                                 << QByteArray("No A2A agent card found");
        QTest::addRow("malformed") << int(RunwatchSim::A2aSimConfig::CardMode::Malformed)
                                   << QByteArray("is not valid JSON");
        QTest::addRow("not a card") << int(RunwatchSim::A2aSimConfig::CardMode::NoName)
                                    << QByteArray("has no \"name\"");
    }
    void agentCardProblems()
    {
        QFETCH(int, mode);
        QFETCH(QByteArray, expected);
        RunwatchSim::A2aSimConfig config;
        config.cardMode = RunwatchSim::A2aSimConfig::CardMode(mode);
        m_sim->setConfig(config);
        const Result r = cli({u"agent"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(expected), r.err.constData());
        QVERIFY2(r.err.contains("/.well-known/agent"), r.err.constData());
        QCOMPARE(r.out, QByteArray());
    }

    void cancelFromAnotherProcess()
    {
        const Result started = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"long interval_ms=10"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        const Result cancelled = cli({u"cancel"_s, id});
        QCOMPARE(cancelled.exitCode, 4);
        QVERIFY2(cancelled.err.contains("cancelled"), cancelled.err.constData());
        QCOMPARE(m_sim->task(m_sim->lastTaskId())->state, u"TASK_STATE_CANCELED"_s);
    }

    void deleteIsLocal()
    {
        const Result done
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal chunks=2"_s, u"--follow"_s});
        QCOMPARE(done.exitCode, 0);
        const QString id = runIdFrom(done.out);
        const Result deleted = cli({u"delete"_s, id});
        QCOMPARE(deleted.exitCode, 0);
        QVERIFY2(deleted.out.contains("locally only"), deleted.out.constData());
        QVERIFY(m_sim->task(m_sim->lastTaskId()));
    }

    void missingAgentCard()
    {
        RunwatchSim::A2aSimConfig config;
        config.cardMode = RunwatchSim::A2aSimConfig::CardMode::Missing;
        m_sim->setConfig(config);
        const Result r = cli({u"start"_s, u"--prompt"_s, u"normal"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("No A2A agent card found"), r.err.constData());
    }

    // followup on a working task that takes messages (issue 16): the same run is printed and
    // followed to its end, the message went to the task (taskId + contextId), the stored text is
    // the agent's, with the message folded in; no new task, no new run.
    void followUpWorkingTask()
    {
        const Result started
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"listen chunks=60 interval_ms=40"_s});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        const QString task = m_sim->lastTaskId();
        // A working task is the case under test: start returns at the task's first event, which
        // may still be "submitted" (a follow-up to a queued run is refused). The store may still
        // have it queued after that: followup reads its state from the agent first.
        QTRY_COMPARE_WITH_TIMEOUT(m_sim->task(task)->state, u"TASK_STATE_WORKING"_s, 30000);

        const Result followed
            = cli({u"--json"_s, u"followup"_s, id, u"--prompt"_s, u"add the 2025 figures"_s, u"--follow"_s});
        QVERIFY2(followed.exitCode == 0, followed.err.constData());
        QCOMPARE(runIdFrom(followed.out), id);
        QCOMPARE(m_sim->tasksCreated(), 1);
        const QList<QJsonObject> sent = sentMessages();
        QCOMPARE(sent.size(), 1);
        QCOMPARE(sent.first().value(u"taskId"_s).toString(), task);
        QCOMPARE(sent.first().value(u"contextId"_s).toString(), m_sim->task(task)->contextId);

        const QJsonObject doc = exported(id);
        QCOMPARE(doc.value(u"status"_s).toString(), u"completed"_s);
        QCOMPARE(doc.value(u"output"_s).toString(), m_sim->task(task)->text);
        QVERIFY(doc.value(u"output"_s).toString().contains(u"[noted: add the 2025 figures] "_s));
    }

    // An agent that refuses a message to a working task: the error and exit 1, nothing else
    // changes; the run still follows to completion with the agent's text.
    void followUpWorkingTaskRefused()
    {
        const Result started
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal chunks=40 interval_ms=40"_s});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        const QString id = runIdFrom(started.out);
        const QString task = m_sim->lastTaskId();
        QTRY_COMPARE_WITH_TIMEOUT(m_sim->task(task)->state, u"TASK_STATE_WORKING"_s, 30000);

        const Result refused = cli({u"followup"_s, id, u"--prompt"_s, u"stop now"_s, u"--follow"_s});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("does not take messages while this task is working"),
                 refused.err.constData());
        QCOMPARE(m_sim->tasksCreated(), 1);
        QVERIFY(m_sim->task(task)->state == u"TASK_STATE_COMPLETED"_s);
        const QJsonObject doc = exported(id);
        QCOMPARE(doc.value(u"status"_s).toString(), u"completed"_s);
        QCOMPARE(doc.value(u"output"_s).toString(), A2aSimulator::chunkText(40));
    }
};

QTEST_GUILESS_MAIN(TestA2aCli)
#include "tst_a2a_cli.moc"
