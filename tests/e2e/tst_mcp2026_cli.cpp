// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli --backend mcp end to end on the 2026-07-28 revision (tasks as the
// io.modelcontextprotocol/tasks extension: server/discover, no sessions, tasks/update answers),
// against the MCP simulator (started once for the program), every step in its own process with
// one shared store: the revision negotiated by `--protocol-version auto`; a task followed to
// completion with the tool's exact text; an elicitation answered accept and decline with
// tasks/update `inputResponses` from a new process; a cancel the server confirms; a failing task
// with its message; a run started by one process and followed to its end by another. No official
// server implements this revision yet: this is the simulator's word (the 2025-11-25 side is
// proven against the official SDK in tst_mcp_peer).
#include "cliprocess.h"
#include "mcp/mcpsim.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace Qt::StringLiterals;
using RunwatchSim::McpEndpoint;
using RunwatchSim::McpRequestRecord;
using RunwatchSim::McpSimulator;
using RunwatchTest::CliResult;
using RunwatchTest::firstOfType;
using RunwatchTest::jsonLines;
using RunwatchTest::runIdFrom;

namespace {

constexpr int kProcessWait = 120000;
// Quick steps and a short poll interval (the client never polls sooner than the task says).
const QString kFast = u"interval_ms=2 poll_ms=30"_s;

QJsonObject bodyOf(const McpRequestRecord &record)
{
    return QJsonDocument::fromJson(record.body).object();
}

} // namespace

class TestMcp2026Cli final : public QObject
{
    Q_OBJECT

    McpSimulator *m_sim = nullptr;
    QTemporaryDir m_dir;

    CliResult cli(const QStringList &args)
    {
        const QStringList globals{
            u"--backend"_s,          u"mcp"_s,  u"--url"_s,   m_sim->baseUrl().toString(),
            u"--protocol-version"_s, u"auto"_s, u"--store"_s, m_dir.filePath(u"runs.sqlite"_s)};
        return RunwatchTest::runCli(globals + args, this, {}, kProcessWait);
    }
    // --json unless `plain` (then stdout is the answer alone and errors go to stderr).
    CliResult start(const QString &tool, const QJsonObject &arguments, bool follow, bool plain = false)
    {
        QStringList args{u"start"_s, u"--agent"_s, tool, u"--input"_s,
                         QString::fromUtf8(QJsonDocument(arguments).toJson(QJsonDocument::Compact))};
        if (!plain)
            args.prepend(u"--json"_s);
        if (follow)
            args << u"--follow"_s;
        return cli(args);
    }
    // The remote id (the task id) the store holds for local run `id`, from `status --json`.
    QString taskIdOf(const QString &id)
    {
        const CliResult status = cli({u"--json"_s, u"status"_s, id});
        return firstOfType(status.out, u"run"_s).value(u"remote_id"_s).toString();
    }
    QString taskText(const QString &taskId) const
    {
        const auto info = m_sim->task(taskId);
        return info ? info->text : u"<unknown task %1>"_s.arg(taskId);
    }
    // What the client sent since the counters were reset: all of it on the 2026 revision, never
    // a session (none exists in this revision) nor anything of 2025.
    void verifyAll2026() const
    {
        for (const McpRequestRecord &r : m_sim->requests()) {
            QVERIFY2(r.revision2026, qPrintable(r.rpcMethod));
            QVERIFY(r.header("mcp-session-id").isEmpty());
            QVERIFY(r.endpoint != McpEndpoint::Initialize && r.endpoint != McpEndpoint::TasksResult);
        }
        QVERIFY(m_sim->sessionIds().isEmpty());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        RunwatchSim::McpSimConfig config;
        config.intervalMs = 2;
        config.pollIntervalMs = 30;
        m_sim = new McpSimulator(config, this);
        QVERIFY(m_sim->listen());
    }
    void init() { m_sim->resetCounters(); }

    // `auto` finds the revision by server/discover; the tools come from the same revision.
    void discoveredWithoutASession()
    {
        const CliResult agents = cli({u"--json"_s, u"agents"_s});
        QVERIFY2(agents.exitCode == 0, agents.err.constData());
        const QList<QJsonObject> lines = jsonLines(agents.out);
        QVERIFY(std::any_of(lines.cbegin(), lines.cend(), [](const QJsonObject &line) {
            return line.value(u"id"_s).toString() == u"write"_s
                   && line.value(u"task_support"_s).toString() == u"required"_s;
        }));
        QCOMPARE(m_sim->requestCount(McpEndpoint::Discover), 1);
        verifyAll2026();
    }

    // A task followed to its end by tasks/get: stdout is the tool's result text, exactly.
    void taskFollowedToCompletion()
    {
        const CliResult r = start(
            u"write"_s, {{u"topic"_s, QString(u"batteries "_s + kFast)}, {u"steps"_s, 5}}, true, true);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString taskId = m_sim->lastTaskId();
        const auto info = m_sim->task(taskId);
        QVERIFY(info && info->revision2026 && info->status == u"completed"_s);
        QVERIFY(!info->text.isEmpty());
        QCOMPARE(QString::fromUtf8(r.out), info->text + u'\n');
        QVERIFY(m_sim->requestCount(McpEndpoint::TasksGet) >= 1);
        verifyAll2026();
    }

    // One process starts the task and leaves; another follows it to its end from the store alone
    // (the task id and the revision; there is no session to rejoin).
    void anotherProcessFollowsTheRun()
    {
        const CliResult started
            = start(u"write"_s, {{u"topic"_s, u"later steps=30 interval_ms=20 poll_ms=30"_s}}, false);
        QVERIFY2(started.exitCode == 0 || started.exitCode == 6, started.err.constData());
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        const QString taskId = m_sim->lastTaskId();
        QCOMPARE(taskIdOf(id), taskId);
        const CliResult watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(m_sim->task(taskId)->status, u"completed"_s);
        QCOMPARE(QString::fromUtf8(watched.out), taskText(taskId) + u'\n');
        verifyAll2026();
    }

    // input_required stops `start --follow` (exit 5, the form in JSON); a NEW process answers it
    // with tasks/update, its inputResponses keyed by the request's key; a third follows the task
    // to the text the tool made of the answer.
    void inputAnsweredWithTasksUpdate_data()
    {
        QTest::addColumn<QStringList>("answer");
        QTest::addColumn<QString>("action");
        QTest::addColumn<QString>("textStart");
        QTest::newRow("accept")
            << QStringList{u"--value"_s, u"{\"approve\":true,\"reason\":\"fine\",\"priority\":\"high\"}"_s}
            << u"accept"_s << u"Approved (reason: fine, priority: high). "_s;
        QTest::newRow("decline") << QStringList{u"--reject"_s} << u"decline"_s
                                 << u"Declined: nothing was written."_s;
        QTest::newRow("cancel") << QStringList{u"--choice"_s, u"cancel"_s} << u"cancel"_s
                                << u"Cancelled: nothing was written."_s;
    }
    void inputAnsweredWithTasksUpdate()
    {
        QFETCH(QStringList, answer);
        QFETCH(QString, action);
        QFETCH(QString, textStart);
        const CliResult asked
            = start(u"approve"_s, {{u"topic"_s, QString(u"release steps=2 "_s + kFast)}}, true);
        QVERIFY2(asked.exitCode == 5, asked.err.constData());
        const QString id = runIdFrom(asked.out);
        const QJsonObject request
            = firstOfType(asked.out, u"input_required"_s).value(u"request"_s).toObject();
        QVERIFY(request.value(u"prompt"_s).toString().contains(u"release"_s));
        QVERIFY(
            request.value(u"schema"_s).toObject().value(u"properties"_s).toObject().contains(u"approve"_s));
        QCOMPARE(request.value(u"declinable"_s).toBool(), true);
        QCOMPARE(request.value(u"dismiss_choice"_s).toString(), u"cancel"_s);
        const QString taskId = m_sim->lastTaskId();
        QVERIFY(m_sim->task(taskId)->waitingForInput);

        const CliResult answered = cli(QStringList{u"respond"_s, id} + answer);
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        QList<McpRequestRecord> updates;
        for (const McpRequestRecord &r : m_sim->requests()) {
            if (r.endpoint == McpEndpoint::TasksUpdate)
                updates << r;
        }
        QCOMPARE(updates.size(), 1);
        QCOMPARE(updates.first().status, 200);
        const QJsonObject params = bodyOf(updates.first()).value(u"params"_s).toObject();
        QCOMPARE(params.value(u"taskId"_s).toString(), taskId);
        const QJsonObject responses = params.value(u"inputResponses"_s).toObject();
        QCOMPARE(responses.size(), 1);
        const QJsonObject result = responses.constBegin().value().toObject();
        QCOMPARE(result.value(u"action"_s).toString(), action);
        QCOMPARE(result.contains(u"content"_s), action == u"accept"_s);

        const CliResult watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(m_sim->task(taskId)->status, u"completed"_s);
        QVERIFY2(taskText(taskId).startsWith(textStart), qPrintable(taskText(taskId)));
        QCOMPARE(QString::fromUtf8(watched.out), taskText(taskId) + u'\n');
        // Answered once: the run holds no question any more.
        QVERIFY(cli({u"respond"_s, id, u"--reject"_s}).exitCode != 0);
        QCOMPARE(m_sim->requestCount(McpEndpoint::TasksUpdate), 1);
        verifyAll2026();
    }

    // cancel from a new process is tasks/cancel; the run ends cancelled once the server says so.
    void cancelConfirmed()
    {
        const CliResult started
            = start(u"long_job"_s, {{u"topic"_s, u"forever interval_ms=20 poll_ms=30"_s}}, false);
        QVERIFY2(started.exitCode == 0 || started.exitCode == 6, started.err.constData());
        const QString id = runIdFrom(started.out);
        const QString taskId = m_sim->lastTaskId();
        QVERIFY(!id.isEmpty() && !taskId.isEmpty());
        const CliResult cancelled = cli({u"cancel"_s, id});
        QVERIFY2(cancelled.exitCode == 0 || cancelled.exitCode == 4, cancelled.err.constData());
        QCOMPARE(m_sim->requestCount(McpEndpoint::TasksCancel), 1);
        QCOMPARE(m_sim->task(taskId)->status, u"cancelled"_s);
        const CliResult watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 4);
        const CliResult status = cli({u"--json"_s, u"status"_s, id});
        QCOMPARE(firstOfType(status.out, u"run"_s).value(u"status"_s).toString(), u"cancelled"_s);
        verifyAll2026();
    }

    // A failing task: exit 3 and the tool's error text (carried by tasks/get's inline error result).
    void failingTaskWithItsMessage()
    {
        const CliResult r
            = start(u"fail"_s, {{u"topic"_s, QString(u"doomed fail_after=2 "_s + kFast)}}, true, true);
        QCOMPARE(r.exitCode, 3);
        const auto info = m_sim->task(m_sim->lastTaskId());
        QVERIFY(info && info->status == u"failed"_s);
        QVERIFY(info->text.startsWith(u"Simulated failure after 2 steps"_s));
        QVERIFY2(QString::fromUtf8(r.err).contains(info->text), r.err.constData());
        verifyAll2026();
    }
};

QTEST_GUILESS_MAIN(TestMcp2026Cli)
#include "tst_mcp2026_cli.moc"
