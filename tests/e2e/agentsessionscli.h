// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the CLI tests of the managed agent session connectors (issue 29) share: runwatch-cli as a
// script runs it, real processes against one vendor's simulator, one store shared between them,
// and the steps of the CLI contract that are the same for every vendor (start --follow, the run
// line's session id, watch after SIGKILL, followup, cancel, delete, a failure's reason, a wrong
// key, agents, list --remote and attach, also of a session with earlier turns). Each connector's
// test states what differs in its Traits and adds the steps only its API has (its approvals,
// forms, tool results):
//
//   Sim, Config, Record, Endpoint      the simulator's types
//   kBackend, kKeyVariable, kKey, kWrongKey, kAgent, kBetaHeader, kBeta
//   kStream, kHistory, kDelete         the simulator's endpoints: the live stream, the saved
//                                      history a reattach reads, the session's delete
//   kRunning, kFailure                 the session's working status; the failure's reason
//   turnOver(info), cancelled(info)    a session's last turn is over / was cancelled
#include "cliprocess.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <memory>

#include <csignal>
#include <functional>

namespace RunwatchTest {

// Turns the event loop until `done` holds or `ms` have passed; says whether it holds.
inline bool waitUntil(const std::function<bool()> &done, int ms = 30000)
{
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > ms)
            return false;
        QTest::qWait(5);
    }
    return true;
}

template<typename Traits>
class AgentSessionsCli
{
public:
    using Sim = typename Traits::Sim;
    using Record = typename Traits::Record;
    static constexpr int kProcessWait = 120000;

    // --- the fixture -------------------------------------------------------------------------

    void init(QObject *owner)
    {
        m_owner = owner;
        typename Traits::Config config;
        config.apiKey = QString::fromLatin1(Traits::kKey);
        config.intervalMs = 2;
        config.maxPageSize = 4; // every read of the history goes over several pages
        m_sim = std::make_unique<Sim>(config);
        QVERIFY(m_sim->listen());
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }
    void cleanup()
    {
        m_sim.reset();
        m_dir.reset();
    }

    Sim &sim() const { return *m_sim; }
    QStringList globals() const
    {
        return {QStringLiteral("--backend"), QString::fromLatin1(Traits::kBackend),
                QStringLiteral("--url"),     m_sim->baseUrl().toString(),
                QStringLiteral("--store"),   m_dir->filePath(QStringLiteral("runs.sqlite"))};
    }
    // The key from the environment variable the vendor's client reads too.
    QStringList env(const QString &key = QString::fromLatin1(Traits::kKey)) const
    {
        return {QString::fromLatin1(Traits::kKeyVariable) + u'=' + key};
    }
    CliResult cli(const QStringList &args, int ms = kProcessWait)
    {
        return runCli(globals() + args, m_owner, env(), ms);
    }
    QProcess *launch(const QStringList &args)
    {
        return launchCli(QStringLiteral(RUNWATCH_CLI_PATH), globals() + args, m_owner, env());
    }
    QStringList start(const QString &prompt) const
    {
        return {QStringLiteral("start"), QStringLiteral("--prompt"), prompt, QStringLiteral("--agent"),
                QString::fromLatin1(Traits::kAgent)};
    }
    QStringList startJson(const QString &prompt) const
    {
        return QStringList{QStringLiteral("--json")} + start(prompt);
    }
    QString lastText() const { return m_sim->turnText(m_sim->lastSessionId()); }
    // The session's last turn is over (and the session took `turns` messages so far).
    bool waitTurnOver(const QString &session, int turns = -1) const
    {
        return waitUntil([&] {
            const auto info = m_sim->session(session);
            return info && (turns < 0 || info->turns.size() == turns) && Traits::turnOver(*info);
        });
    }

    // --- the steps every connector has -------------------------------------------------------

    void startFollow()
    {
        const CliResult r = cli(start(QStringLiteral("normal deltas=15")) << QStringLiteral("--follow"));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QString::fromUtf8(r.out), lastText() + u'\n');
        QCOMPARE(m_sim->sessionsCreated(), 1);
        for (const Record &request : m_sim->requests()) {
            QCOMPARE(request.header("authorization"), "Bearer " + QByteArray(Traits::kKey));
            QCOMPARE(request.header(Traits::kBetaHeader), QByteArray(Traits::kBeta));
        }
        QVERIFY(!r.out.contains(Traits::kKey) && !r.err.contains(Traits::kKey));
    }

    // The run line's remote_id is the session id.
    void runLineNamesTheSession()
    {
        const CliResult r = cli(startJson(QStringLiteral("normal deltas=3")) << QStringLiteral("--follow"));
        QCOMPARE(r.exitCode, 0);
        const QJsonObject run = firstOfType(r.out, QStringLiteral("run"));
        QCOMPARE(run.value(QStringLiteral("remote_id")).toString(), m_sim->lastSessionId());
    }

    // `watch` killed with SIGKILL mid-turn (an agent's turn of 30 messages); the next `watch` opens
    // the stream, reads the saved history and prints the whole answer once.
    void watchSurvivesSigkill()
    {
        const CliResult started
            = cli(startJson(QStringLiteral("normal deltas=300 messages=30 interval_ms=10")));
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        QProcess *first = launch({QStringLiteral("watch"), id});
        QByteArray partial;
        QVERIFY(waitUntil([&] {
            partial += first->readAllStandardOutput();
            return partial.count(' ') >= 100;
        }));
        ::kill(pid_t(first->processId()), SIGKILL);
        QSignalSpy done(first, &QProcess::finished);
        QVERIFY(first->state() == QProcess::NotRunning || done.wait(10000));
        first->deleteLater();
        const qsizetype before = m_sim->requests().size();
        const CliResult watched = cli({QStringLiteral("watch"), id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        const QString expected = lastText();
        QCOMPARE(QString::fromUtf8(watched.out), expected + u'\n');
        QVERIFY(expected.toUtf8().startsWith(partial.left(partial.lastIndexOf(' ') + 1)));
        QCOMPARE(m_sim->sessionsCreated(), 1);
        QCOMPARE(m_sim->session(m_sim->lastSessionId())->turns.size(), 1);
        // The second watch followed the same session: stream, then the history.
        const QList<Record> after = m_sim->requests().mid(before);
        const auto asked = [&after](auto endpoint) {
            return std::any_of(after.cbegin(), after.cend(),
                               [endpoint](const Record &r) { return r.endpoint == endpoint; });
        };
        QVERIFY(asked(Traits::kStream));
        QVERIFY(asked(Traits::kHistory));
    }

    void followUpSameSession()
    {
        const CliResult parent
            = cli(startJson(QStringLiteral("normal deltas=3")) << QStringLiteral("--follow"));
        QCOMPARE(parent.exitCode, 0);
        const QString parentId = runIdFrom(parent.out);
        const CliResult next = cli({QStringLiteral("followup"), parentId, QStringLiteral("--prompt"),
                                    QStringLiteral("normal deltas=6"), QStringLiteral("--follow")});
        QVERIFY2(next.exitCode == 0, next.err.constData());
        QVERIFY2(QString::fromUtf8(next.out).endsWith(lastText() + u'\n'), next.out.constData());
        QCOMPARE(m_sim->sessionsCreated(), 1);
        QCOMPARE(m_sim->session(m_sim->lastSessionId())->turns.size(), 2);
    }

    void cancelAndStatus()
    {
        const CliResult started = cli(startJson(QStringLiteral("long interval_ms=20")));
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QVERIFY(waitUntil([&] {
            return m_sim->session(m_sim->lastSessionId())->status == QLatin1StringView(Traits::kRunning);
        }));
        const CliResult cancelled = cli({QStringLiteral("cancel"), id});
        QVERIFY2(cancelled.exitCode == 0 || cancelled.exitCode == 4, cancelled.err.constData());
        QTRY_VERIFY_WITH_TIMEOUT(Traits::cancelled(*m_sim->session(m_sim->lastSessionId())), 10000);
        const CliResult watched = cli({QStringLiteral("watch"), id});
        QCOMPARE(watched.exitCode, 4);
        const CliResult status = cli({QStringLiteral("status"), id});
        QCOMPARE(status.exitCode, 4);
    }

    void deleteOnTheService()
    {
        const CliResult done
            = cli(startJson(QStringLiteral("normal deltas=2")) << QStringLiteral("--follow"));
        QCOMPARE(done.exitCode, 0);
        const QString id = runIdFrom(done.out);
        const QString session = m_sim->lastSessionId();
        const CliResult deleted = cli({QStringLiteral("delete"), id});
        QVERIFY2(deleted.exitCode == 0, deleted.err.constData());
        QVERIFY(m_sim->session(session)->deleted);
        QCOMPARE(m_sim->requestCount(Traits::kDelete), 1);
        QVERIFY(cli({QStringLiteral("status"), id}).exitCode != 0);
    }

    void failureExitCodeAndReason()
    {
        const CliResult r = cli(start(QStringLiteral("fail deltas=2")) << QStringLiteral("--follow"));
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains(Traits::kFailure), r.err.constData());
    }

    void wrongKey()
    {
        const CliResult r = runCli(globals() + start(QStringLiteral("normal")) << QStringLiteral("--follow"),
                                   m_owner, env(QString::fromLatin1(Traits::kWrongKey)), kProcessWait);
        QVERIFY2(r.exitCode != 0, r.out.constData());
        QVERIFY(!r.err.contains(Traits::kWrongKey));
    }

    void agentsListsTheAccountsAgents()
    {
        const CliResult r = cli({QStringLiteral("--json"), QStringLiteral("agents")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QList<QJsonObject> agents;
        for (const QJsonObject &line : jsonLines(r.out)) {
            if (line.value(QStringLiteral("type")).toString() == QStringLiteral("agent"))
                agents << line;
        }
        QCOMPARE(agents.size(), 2);
        QCOMPARE(agents.at(0).value(QStringLiteral("id")).toString(), QString::fromLatin1(Traits::kAgent));
        QCOMPARE(agents.at(0).value(QStringLiteral("name")).toString(), QStringLiteral("Research assistant"));
    }

    void listRemoteAndAttach()
    {
        QStringList sessions;
        for (int i = 0; i < 6; ++i) {
            sessions << m_sim->startSessionElsewhere(QString::fromLatin1(Traits::kAgent),
                                                     QStringLiteral("normal deltas=4"));
        }
        QVERIFY(waitTurnOver(sessions.constLast()));
        const CliResult listed
            = cli({QStringLiteral("--json"), QStringLiteral("list"), QStringLiteral("--remote")});
        QVERIFY2(listed.exitCode == 0, listed.err.constData());
        QStringList ids;
        for (const QJsonObject &line : jsonLines(listed.out))
            ids << line.value(QStringLiteral("remote_id")).toString();
        for (const QString &session : std::as_const(sessions))
            QVERIFY2(ids.contains(session), listed.out.constData());
        const CliResult attached = cli({QStringLiteral("attach"), sessions.at(2)});
        QVERIFY2(attached.exitCode == 0, attached.err.constData());
        QCOMPARE(QString::fromUtf8(attached.out), m_sim->turnText(sessions.at(2)) + u'\n');
    }

    // A session another client held three turns in: attach follows (and prints) the last one, and
    // the two before it become finished runs chained before it, each with its message and its
    // answer as the service saved them: the conversation. A second attach (another process, the
    // same store) makes none of them again.
    void attachShowsEarlierTurns()
    {
        const QStringList prompts{QStringLiteral("normal deltas=4 first"),
                                  QStringLiteral("normal deltas=3 second"),
                                  QStringLiteral("normal deltas=5 third")};
        const QString session
            = m_sim->startSessionElsewhere(QString::fromLatin1(Traits::kAgent), prompts.at(0));
        QVERIFY(waitTurnOver(session, 1));
        QVERIFY(m_sim->sendElsewhere(session, prompts.at(1)));
        QVERIFY(waitTurnOver(session, 2));
        QVERIFY(m_sim->sendElsewhere(session, prompts.at(2)));
        QVERIFY(waitTurnOver(session, 3));

        const CliResult attached = cli({QStringLiteral("--json"), QStringLiteral("attach"), session});
        QVERIFY2(attached.exitCode == 0, attached.err.constData());
        const QString id = runIdFrom(attached.out);
        QVERIFY(!id.isEmpty());
        const CliResult exported
            = cli({QStringLiteral("export"), id, QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(exported.exitCode == 0, exported.err.constData());
        const QJsonObject run = QJsonDocument::fromJson(exported.out).object();
        QCOMPARE(run.value(QStringLiteral("prompt")).toString(), prompts.at(2));
        QCOMPARE(run.value(QStringLiteral("output")).toString(), m_sim->turnText(session, 2));
        const QJsonArray earlier = run.value(QStringLiteral("conversation")).toArray();
        QCOMPARE(earlier.size(), 2);
        for (int i = 0; i < 2; ++i) {
            const QJsonObject turn = earlier.at(i).toObject();
            QCOMPARE(turn.value(QStringLiteral("prompt")).toString(), prompts.at(i));
            QCOMPARE(turn.value(QStringLiteral("output")).toString(), m_sim->turnText(session, i));
            QCOMPARE(turn.value(QStringLiteral("status")).toString(), QStringLiteral("completed"));
            QCOMPARE(turn.value(QStringLiteral("remote_id")).toString(), session);
        }
        QCOMPARE(run.value(QStringLiteral("parent")).toString(),
                 earlier.at(1).toObject().value(QStringLiteral("run")).toString());
        QCOMPARE(localRunsOf(session), 3);

        const CliResult again = cli({QStringLiteral("--json"), QStringLiteral("attach"), session});
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QCOMPARE(runIdFrom(again.out), id);
        QCOMPARE(localRunsOf(session), 3);
    }

private:
    // The runs of the store on `session`, as `list --all` shows them.
    int localRunsOf(const QString &session)
    {
        const CliResult listed
            = cli({QStringLiteral("--json"), QStringLiteral("list"), QStringLiteral("--all")});
        if (listed.exitCode != 0)
            return -1;
        int count = 0;
        for (const QJsonObject &line : jsonLines(listed.out))
            count += line.value(QStringLiteral("remote_id")).toString() == session ? 1 : 0;
        return count;
    }

    QObject *m_owner = nullptr;
    std::unique_ptr<Sim> m_sim;
    std::unique_ptr<QTemporaryDir> m_dir;
};

} // namespace RunwatchTest
