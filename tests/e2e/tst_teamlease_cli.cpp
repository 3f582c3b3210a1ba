// SPDX-License-Identifier: GPL-3.0-or-later
// A team on one store (issue 30): several runwatch-cli processes, as colleagues run them in their
// terminals, on one run. One of them follows it — one stream to the service — and the others show
// it from the store and print the same text; when the follower is killed another takes over and
// ends with the same text; an input request is answered once; a cancel from a third process ends
// the follower's watch; the journal says who did what. On a SQLite file and on a PostgreSQL
// database (tst_teamlease_cli_pg), against the OpenAI simulator, whose request log is the proof.
#include "cliprocess.h"
#include "openai/openaisim.h"
#include "store/runstore.h"
#include "teststore.h"

#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;
using Result = RunwatchTest::CliResult;
using RunwatchSim::OpenAiEndpoint;
using RunwatchTest::finishCli;
using RunwatchTest::firstOfType;
using RunwatchTest::runIdFrom;

class TestTeamLeaseCli final : public QObject
{
    Q_OBJECT

    RunwatchSim::OpenAiSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;
    QString m_store;

    QStringList globals() const
    {
        return {u"--backend"_s, u"openai"_s, u"--url"_s, m_sim->baseUrl().toString(), u"--store"_s, m_store};
    }
    QProcess *launch(const QStringList &args, const QString &who = u"alice"_s)
    {
        return RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), globals() + args, this,
                                       {u"RUNWATCH_OPERATOR="_s + who});
    }
    Result cli(const QStringList &args, const QString &who = u"alice"_s)
    {
        return finishCli(launch(args, who));
    }

    static qsizetype storedLength(Runwatch::RunStore &reader, const QString &id)
    {
        const std::optional<Runwatch::Run> run = reader.loadRun(id);
        return run ? run->primaryText.size() : -1;
    }
    // Who holds the run's lease, as a third process reads it (empty: no one).
    static QString leaseOperator(Runwatch::RunStore &reader, const QString &id)
    {
        const auto holder = reader.leaseHolder(id);
        return holder ? holder->operatorName : QString();
    }

    // A background run started (and let go) by `start`, counted from zero on the simulator.
    QString startRun(const QString &prompt)
    {
        const Result started = cli({u"--json"_s, u"start"_s, u"--prompt"_s, prompt});
        if (started.exitCode != 0) {
            qWarning("start exited %d: %s", started.exitCode, started.err.constData());
            return {};
        }
        m_sim->resetCounters();
        return runIdFrom(started.out);
    }

    // A `watch` that holds the lease and writes, and a second that shows the run from the store.
    bool watchTwice(Runwatch::RunStore &reader, const QString &id, QProcess **holder, QProcess **tail)
    {
        const qsizetype initial = storedLength(reader, id);
        *holder = launch({u"watch"_s, id}, u"alice"_s);
        if (!QTest::qWaitFor([&] { return leaseOperator(reader, id) == u"alice"_s; }, 20000)
            || !QTest::qWaitFor([&] { return storedLength(reader, id) > initial; }, 20000))
            return false;
        *tail = launch({u"watch"_s, id}, u"bob"_s);
        return true;
    }

private Q_SLOTS:
    void init()
    {
        m_sim = new RunwatchSim::OpenAiSimulator(this);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
        m_store = RunwatchTest::freshStore(*m_dir, u"runs"_s);
        QVERIFY(!m_store.isEmpty());
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    // Two watches of one run: one stream to the service, the same text printed by both.
    void twoWatchesOneStream()
    {
        const QString id = startRun(u"deltas=60 interval_ms=40"_s);
        QVERIFY(!id.isEmpty());
        Runwatch::RunStore reader;
        QVERIFY(reader.open(m_store));
        QProcess *holder = nullptr;
        QProcess *tail = nullptr;
        QVERIFY(watchTwice(reader, id, &holder, &tail));
        const Result a = finishCli(holder);
        const Result b = finishCli(tail);
        QVERIFY2(a.exitCode == 0, a.err.constData());
        QVERIFY2(b.exitCode == 0, b.err.constData());
        QVERIFY(!a.out.isEmpty());
        QCOMPARE(b.out, a.out);
        QCOMPARE(m_sim->requestCount(OpenAiEndpoint::Stream), 1);
        QCOMPARE(m_sim->streamConnectionsOpened(), 1);
        // Quitting released the lease.
        QVERIFY(leaseOperator(reader, id).isEmpty());
    }

    // The follower killed (SIGKILL: no release): the other takes over from the stored token and
    // ends with the whole text, nothing lost or doubled.
    void killedFollowerIsReplaced()
    {
        const QString id = startRun(u"deltas=120 interval_ms=40"_s);
        QVERIFY(!id.isEmpty());
        Runwatch::RunStore reader;
        QVERIFY(reader.open(m_store));
        QProcess *holder = nullptr;
        QProcess *tail = nullptr;
        QVERIFY(watchTwice(reader, id, &holder, &tail));
        // The tail has shown some of it (the holder went on writing meanwhile).
        const qsizetype before = storedLength(reader, id);
        QVERIFY(QTest::qWaitFor([&] { return storedLength(reader, id) > before + 10; }, 20000));
        holder->kill();
        QVERIFY(holder->waitForFinished(10000));
        QTRY_COMPARE_WITH_TIMEOUT(leaseOperator(reader, id), u"bob"_s, 20000);
        const Result b = finishCli(tail);
        QVERIFY2(b.exitCode == 0, b.err.constData());
        // The whole answer, as the service has it, once.
        const Result again = cli({u"watch"_s, id});
        QCOMPARE(again.exitCode, 0);
        QCOMPARE(b.out, again.out);
        const QString answer = m_sim->response(m_sim->responseIds().constLast()).value().text;
        QVERIFY(!answer.isEmpty());
        QCOMPARE(QString::fromUtf8(b.out), answer + u'\n');
        // The holder's stream and the one the survivor opened: never two at once.
        QCOMPARE(m_sim->streamConnectionsOpened(), 2);
    }

    // Two responds at the same moment: one request to the service; the other refused, naming who
    // answered. The journal says who.
    void answeredOnce()
    {
        const Result asked
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"tool_call deltas=2"_s, u"--follow"_s});
        QCOMPARE(asked.exitCode, 5);
        const QString id = runIdFrom(asked.out);
        QVERIFY(!id.isEmpty());
        m_sim->resetCounters();
        QProcess *first = launch({u"respond"_s, id, u"--text"_s, u"12C"_s}, u"carol"_s);
        QProcess *second = launch({u"respond"_s, id, u"--text"_s, u"13C"_s}, u"dave"_s);
        const Result a = finishCli(first);
        const Result b = finishCli(second);
        const bool carolWon = a.exitCode == 0 || a.exitCode == 6;
        const Result &won = carolWon ? a : b;
        const Result &lost = carolWon ? b : a;
        QVERIFY2(won.exitCode == 0 || won.exitCode == 6, won.err.constData());
        QVERIFY2(lost.exitCode != 0, lost.err.constData());
        const QByteArray winner = QByteArray("already answered by ") + (carolWon ? "carol@" : "dave@");
        QVERIFY2(lost.err.contains(winner), lost.err.constData());
        QCOMPARE(m_sim->requestCount(OpenAiEndpoint::Create), 1);
        // Later, too.
        const Result late = cli({u"respond"_s, id, u"--text"_s, u"14C"_s}, u"erin"_s);
        QVERIFY(late.exitCode != 0);
        QCOMPARE(m_sim->requestCount(OpenAiEndpoint::Create), 1);
        const Result status = cli({u"--json"_s, u"status"_s, id});
        const QJsonArray journal = firstOfType(status.out, u"run"_s).value(u"journal"_s).toArray();
        QCOMPARE(journal.size(), 1);
        const QJsonObject entry = journal.first().toObject();
        QCOMPARE(entry.value(u"action"_s).toString(), u"respond"_s);
        QCOMPARE(entry.value(u"operator"_s).toString(), carolWon ? u"carol"_s : u"dave"_s);
        QCOMPARE(entry.value(u"detail"_s).toString(), carolWon ? u"12C"_s : u"13C"_s);
        QVERIFY(!entry.value(u"host"_s).toString().isEmpty());
        QVERIFY(QDateTime::fromString(entry.value(u"at"_s).toString(), Qt::ISODateWithMs).isValid());
    }

    // A deadline set by one process stays while the follower writes on; a cancel from a third
    // ends the follower's watch and the other's with exit 4, one cancel sent; the journal names both.
    void deadlineAndCancelFromOthers()
    {
        const QString id = startRun(u"long interval_ms=20"_s);
        QVERIFY(!id.isEmpty());
        Runwatch::RunStore reader;
        QVERIFY(reader.open(m_store));
        QProcess *holder = nullptr;
        QProcess *tail = nullptr;
        QVERIFY(watchTwice(reader, id, &holder, &tail));
        QCOMPARE(cli({u"deadline"_s, id, u"--in"_s, u"1h"_s}, u"dora"_s).exitCode, 0);
        const qsizetype atDeadline = storedLength(reader, id);
        QTRY_VERIFY_WITH_TIMEOUT(storedLength(reader, id) > atDeadline + 20, 20000);
        const std::optional<Runwatch::Run> meanwhile = reader.loadRun(id);
        QVERIFY(meanwhile && meanwhile->deadlineAt.isValid());
        const Result cancelled = cli({u"cancel"_s, id}, u"carl"_s);
        QVERIFY2(cancelled.exitCode == 0 || cancelled.exitCode == 4, cancelled.err.constData());
        const Result a = finishCli(holder);
        const Result b = finishCli(tail);
        QCOMPARE(a.exitCode, 4);
        QCOMPARE(b.exitCode, 4);
        QCOMPARE(m_sim->requestCount(OpenAiEndpoint::Cancel), 1);
        QCOMPARE(m_sim->streamConnectionsOpened(), 1);
        const Result status = cli({u"--json"_s, u"status"_s, id});
        const QJsonObject run = firstOfType(status.out, u"run"_s);
        QCOMPARE(run.value(u"status"_s).toString(), u"cancelled"_s);
        QStringList said;
        for (const QJsonValue &v : run.value(u"journal"_s).toArray())
            said << v[u"operator"_s].toString() + u' ' + v[u"action"_s].toString();
        QCOMPARE(said, (QStringList{u"dora deadline"_s, u"carl cancel"_s}));
    }
};

QTEST_GUILESS_MAIN(TestTeamLeaseCli)
#include "tst_teamlease_cli.moc"
