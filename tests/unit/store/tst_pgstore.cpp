// SPDX-License-Identifier: GPL-3.0-or-later
// What only a team's PostgreSQL store has, on a real server (the program's own throwaway cluster,
// tests/common/teststore.h): the password never in a URL; a wrong password, an unreachable server
// and a bad URL are clear errors that change nothing, in the library and in runwatch-cli; libpq's
// own password file works; other processes' writes are pushed (NOTIFY) into a run list within a
// second; a dropped connection is said, made again, and nothing written meanwhile is lost.
#include "cliprocess.h"
#include "engine/runmanager.h"
#include "models/runlistmodel.h"
#include "store/runstore.h"
#include "teststore.h"

#include <QFile>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

Run sampleRun(const QString &id)
{
    Run run;
    run.localId = id;
    run.connection = u"gone"_s; // no such connection here: nothing is followed
    run.backend = u"openai"_s;
    run.remoteId = u"resp_"_s + id;
    run.createdAt = QDateTime::fromMSecsSinceEpoch(1700000000123, Qt::UTC);
    run.updatedAt = run.createdAt;
    run.title = u"Team run "_s + id;
    run.prompt = run.title;
    run.status = RunStatus::Completed;
    run.finishedAt = run.createdAt.addSecs(5);
    run.primaryText = u"Shared answer"_s;
    return run;
}

// The tables of a database: what a refused open must not have created.
int tableCount(const QString &url)
{
    RunwatchTest::RawStore raw(url);
    return raw.value(u"SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"_s).toInt();
}

// Sets an environment variable for a scope (libpq reads its variables at each connect).
class ScopedEnv
{
public:
    ScopedEnv(const char *name, const QByteArray &value)
        : m_name(name)
        , m_had(qEnvironmentVariableIsSet(name))
        , m_old(qgetenv(name))
    {
        if (value.isNull()) {
            qunsetenv(name);
        } else {
            qputenv(name, value);
        }
    }
    ~ScopedEnv()
    {
        if (m_had) {
            qputenv(m_name, m_old);
        } else {
            qunsetenv(m_name);
        }
    }

private:
    const char *m_name;
    bool m_had;
    QByteArray m_old;
};

} // namespace

class TestPgStore final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString newDatabase(const QString &name)
    {
        QString why;
        const QString url = RunwatchTest::freshStore(m_dir, name, &why);
        if (url.isEmpty())
            qWarning() << why;
        return url;
    }

    RunwatchTest::CliResult cli(const QString &store, const QStringList &args)
    {
        return RunwatchTest::runCli(QStringList{u"--store"_s, store} + args, this);
    }

private Q_SLOTS:
    void initTestCase()
    {
        // This program is about PostgreSQL whatever the ctest entry says: its stores are databases.
        qputenv("RUNWATCH_TEST_STORE", "postgresql");
        QString why;
        QVERIFY2(RunwatchTest::PgCluster::instance().ensureStarted(&why), qPrintable(why));
    }

    // A password in the URL (or as an option) is refused before anything connects, without
    // repeating it; so is an option Runwatch does not pass on. runwatch-cli says so and exits 1,
    // as for any store it cannot open.
    void refusesAPasswordInTheUrl_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("says");
        const int port = RunwatchTest::PgCluster::instance().port();
        QTest::newRow("userinfo") << u"postgresql://runwatch:hunter2secret@127.0.0.1:%1/x"_s.arg(port)
                                  << u"password"_s;
        QTest::newRow("option") << u"postgres://runwatch@127.0.0.1:%1/x?password=hunter2secret"_s.arg(port)
                                << u"password"_s;
        QTest::newRow("unknown option")
            << u"postgresql://runwatch@127.0.0.1:%1/x?options=-c%%20x%%3Dy"_s.arg(port) << u"options"_s;
    }
    void refusesAPasswordInTheUrl()
    {
        QFETCH(QString, url);
        QFETCH(QString, says);
        RunStore store;
        QVERIFY(!store.open(url));
        QVERIFY2(store.errorString().contains(says), qPrintable(store.errorString()));
        QVERIFY(!store.errorString().contains(u"hunter2secret"_s));
        QVERIFY(!store.isOpen());
        const RunwatchTest::CliResult result = cli(url, {u"list"_s});
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains(says.toUtf8()), result.err.constData());
        QVERIFY(!result.err.contains("hunter2secret"));
    }

    // A wrong password: libpq's own words, nothing created in the database; the CLI exits 1.
    void wrongPasswordChangesNothing()
    {
        const QString url = newDatabase(u"wrongpw"_s);
        QVERIFY(!url.isEmpty());
        {
            const ScopedEnv wrong("PGPASSWORD", "not-the-password");
            RunStore store;
            QVERIFY(!store.open(url));
            QVERIFY2(store.errorString().contains(u"password authentication failed"_s),
                     qPrintable(store.errorString()));
            const RunwatchTest::CliResult result = cli(url, {u"list"_s});
            QCOMPARE(result.exitCode, 1);
            QVERIFY2(result.err.contains("password authentication failed"), result.err.constData());
        }
        QCOMPARE(tableCount(url), 0);
        // With the right one (PGPASSWORD, as the cluster set it) the same URL opens.
        RunStore store;
        QVERIFY2(store.open(url), qPrintable(store.errorString()));
        QVERIFY(tableCount(url) > 0);
    }

    // A server that is not there: an error within the connect timeout, not a hang.
    void unreachableServerIsAClearError()
    {
        int port = 0;
        {
            QTcpServer closed;
            QVERIFY(closed.listen(QHostAddress::LocalHost));
            port = closed.serverPort(); // free once the server goes
        }
        const QString url = u"postgresql://runwatch@127.0.0.1:%1/runs"_s.arg(port);
        QElapsedTimer timer;
        timer.start();
        RunStore store;
        QVERIFY(!store.open(url));
        QVERIFY(timer.elapsed() < 10000);
        QVERIFY2(store.errorString().contains(u"Cannot open the run store"_s)
                     && store.errorString().contains(u"127.0.0.1"_s),
                 qPrintable(store.errorString()));
        const RunwatchTest::CliResult result = cli(url, {u"list"_s});
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains("Cannot open the run store"), result.err.constData());
    }

    // libpq's password file (here named in the URL with passfile=; ~/.pgpass by default) is
    // where the password comes from when PGPASSWORD is not set.
    void passwordFileIsUsed()
    {
        const QString url = newDatabase(u"passfile"_s);
        QVERIFY(!url.isEmpty());
        const QString passfile = m_dir.filePath(u"pgpass"_s);
        {
            QFile file(passfile);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(u"127.0.0.1:%1:*:runwatch:%2\n"_s.arg(RunwatchTest::PgCluster::instance().port())
                           .arg(RunwatchTest::PgCluster::password())
                           .toUtf8());
            QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        }
        const ScopedEnv none("PGPASSWORD", QByteArray());
        RunStore without;
        QVERIFY(!without.open(url)); // no password anywhere
        RunStore store;
        QVERIFY2(store.open(url + u"?passfile="_s + passfile), qPrintable(store.errorString()));
        QVERIFY(store.saveRun(sampleRun(u"pf000001"_s)));
    }

    // The README's least-privilege set: a role that may only read and write rows works as an
    // operator's store once the owner has created the schema — writes, appended output, search,
    // deletion, the pushed changes — and cannot change the schema.
    void leastPrivilegeRoleIsEnough()
    {
        const QString url = newDatabase(u"leastpriv"_s);
        QVERIFY(!url.isEmpty());
        {
            RunStore owner; // creates the schema
            QVERIFY2(owner.open(url), qPrintable(owner.errorString()));
        }
        const QString database = QUrl(url).path().mid(1);
        {
            RunwatchTest::RawStore admin(url);
            for (const QString &sql : {
                     u"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'runwatch_team') "
                     u"THEN "
                     "CREATE ROLE runwatch_team LOGIN PASSWORD 'team-pw'; END IF; END $$"_s,
                     u"GRANT CONNECT ON DATABASE %1 TO runwatch_team"_s.arg(database),
                     u"GRANT USAGE ON SCHEMA public TO runwatch_team"_s,
                     u"REVOKE CREATE ON SCHEMA public FROM PUBLIC"_s,
                     u"GRANT SELECT, INSERT, UPDATE, DELETE ON runs, run_text, run_items, connections, "
                     u"settings, "
                     "search_runs, run_leases, run_answers, run_journal TO runwatch_team"_s,
                     u"GRANT SELECT ON runwatch_schema TO runwatch_team"_s,
                     u"GRANT EXECUTE ON FUNCTION runwatch_jsonb(text) TO runwatch_team"_s,
                 })
                QVERIFY2(admin.exec(sql), qPrintable(admin.error()));
        }
        const QString passfile = m_dir.filePath(u"team-pgpass"_s);
        {
            QFile file(passfile);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("*:*:*:runwatch_team:team-pw\n");
            QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        }
        const ScopedEnv none("PGPASSWORD", QByteArray());
        QUrl teamUrl(url);
        teamUrl.setUserName(u"runwatch_team"_s);
        teamUrl.setQuery(u"passfile="_s + passfile);
        const QString team = teamUrl.toString();
        RunStore store;
        QVERIFY2(store.open(team), qPrintable(store.errorString()));
        Run run = sampleRun(u"team0002"_s);
        QVERIFY(store.saveRun(run));
        run.stored = std::make_shared<Run>(run);
        run.primaryText += u" continued by the team"_s;
        QVERIFY(store.saveRun(run));
        QCOMPARE(store.loadRun(run.localId).value_or(Run{}).primaryText,
                 u"Shared answer continued by the team"_s);
        QCOMPARE(store.findRun(u"resp_team0002"_s).value_or(Run{}).localId, run.localId);
        SearchQuery query;
        query.terms = {SearchQuery::Term{.text = u"continued"_s, .phrase = false, .prefix = false}};
        QCOMPARE(store.search(query).value_or(QList<SearchHit>{}).size(), 1);
        QVERIFY(store.saveSetting(u"prices"_s, QJsonObject{{u"currency"_s, u"EUR"_s}}));
        QVERIFY(store.removeRun(run.localId));
        RunwatchTest::RawStore raw(team);
        QVERIFY(raw.isOpen());
        QVERIFY(!raw.exec(u"CREATE TABLE intruder (x INTEGER)"_s));
        QVERIFY(!raw.exec(u"DROP TABLE runs"_s));
    }

    // A run written by another process (another RunStore: its own connections) appears in this
    // one's run list within a second, its changes follow, and its deletion takes it away — pushed
    // by NOTIFY, not read on a timer.
    void othersWritesReachTheRunList()
    {
        const QString url = newDatabase(u"pushed"_s);
        QVERIFY(!url.isEmpty());
        RunStore mine;
        QVERIFY2(mine.open(url), qPrintable(mine.errorString()));
        RunManager manager;
        manager.setStore(&mine);
        RunListModel model(&manager);
        QCOMPARE(model.rowCount(), 0);

        RunStore theirs;
        QVERIFY(theirs.open(url));
        QSignalSpy pushed(&mine, &RunStore::runsChangedElsewhere);
        QVERIFY(theirs.saveRun(sampleRun(u"team0001"_s)));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 1000);
        QCOMPARE(model.index(0, 0).data(RunListModel::IdRole).toString(), u"team0001"_s);
        QVERIFY(!pushed.isEmpty());

        Run changed = *theirs.loadRun(u"team0001"_s);
        changed.title = u"Renamed by a colleague"_s;
        QVERIFY(theirs.saveRun(changed));
        QTRY_COMPARE_WITH_TIMEOUT(manager.run(u"team0001"_s) ? manager.run(u"team0001"_s)->title : QString(),
                                  u"Renamed by a colleague"_s, 1000);

        QVERIFY(theirs.removeRun(u"team0001"_s));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 0, 1000);
    }

    // Five hundred runs a colleague changed in one transaction come back from the store's reader
    // as one answer, which the engine applies a frame's share at a time (in one turn it held the
    // GUI thread for milliseconds: the team window's heaviest frames): the signal that brings it
    // returns with part of it applied, and the rest follows, every run as the store has it.
    void aBigAnswerIsAppliedAFrameAtATime()
    {
        const QString url = newDatabase(u"sliced"_s);
        QVERIFY(!url.isEmpty());
        constexpr int kRuns = 500;
        QStringList ids;
        {
            RunStore theirs;
            QVERIFY(theirs.open(url));
            for (int i = 0; i < kRuns; ++i) {
                ids << u"slice%1"_s.arg(i, 4, 10, QLatin1Char('0'));
                QVERIFY(theirs.saveRun(sampleRun(ids.constLast())));
            }
        }
        RunStore mine;
        QVERIFY(mine.open(url));
        RunManager manager;
        manager.setStore(&mine);
        for (const QString &id : std::as_const(ids))
            manager.adoptRun(*mine.loadRun(id), false);
        const QString renamed = u"Renamed together"_s;
        // After the engine's own slot (connected first, in setStore()): what the answer's signal
        // left applied when it returned.
        QList<std::pair<qsizetype, int>> answers;
        connect(&mine, &RunStore::changedRunsRead, this,
                [&](const QStringList &asked, const QHash<QString, Run> &, bool ok) {
                    QVERIFY(ok);
                    int applied = 0;
                    for (const QString &id : asked)
                        applied += manager.run(id) && manager.run(id)->title == renamed ? 1 : 0;
                    answers.append({asked.size(), applied});
                });

        RunwatchTest::RawStore raw(url);
        QVERIFY2(raw.exec(u"UPDATE runs SET title = '%1'"_s.arg(renamed)), qPrintable(raw.error()));
        const auto allRenamed = [&] {
            return std::all_of(ids.cbegin(), ids.cend(),
                               [&](const QString &id) { return manager.run(id)->title == renamed; });
        };
        QTRY_VERIFY_WITH_TIMEOUT(allRenamed(), 5000);
        QVERIFY(!answers.isEmpty());
        QCOMPARE(answers.first().first, qsizetype(kRuns)); // one notice batch, one answer
        QVERIFY2(answers.first().second > 0 && answers.first().second < kRuns,
                 qPrintable(u"%1 of %2 applied in the first turn"_s.arg(answers.first().second).arg(kRuns)));
    }

    // The server drops every Runwatch connection (a restart, a failover): the store says so,
    // connects again, and what the process wrote meanwhile reaches the database — nothing lost.
    void droppedConnectionIsMadeAgain()
    {
        const QString url = newDatabase(u"dropped"_s);
        QVERIFY(!url.isEmpty());
        RunStore store;
        store.setFlushInterval(0);
        QVERIFY(store.open(url));
        QHash<QString, Run> runs;
        store.setRunSource([&runs](const QString &id) -> Run * {
            const auto it = runs.find(id);
            return it == runs.end() ? nullptr : &*it;
        });
        Run run = sampleRun(u"live0001"_s);
        run.status = RunStatus::InProgress;
        run.finishedAt = {};
        run.primaryText = u"Before"_s;
        runs.insert(run.localId, run);
        store.scheduleSave(run.localId, run.status);
        store.flush();
        QVERIFY2(store.writeError().isEmpty(), qPrintable(store.writeError()));

        QSignalSpy connection(&store, &RunStore::connectionChanged);
        {
            RunwatchTest::RawStore admin(url);
            QVERIFY2(admin.exec(u"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                "WHERE application_name = 'runwatch' AND pid != pg_backend_pid()"_s),
                     qPrintable(admin.error()));
        }
        // Said within the liveness check's period, and made again soon after.
        QTRY_VERIFY_WITH_TIMEOUT(!connection.isEmpty(), 5000);
        QCOMPARE(connection.first().at(0).toBool(), false);
        QVERIFY2(connection.first().at(1).toString().contains(u"Lost the connection"_s),
                 qPrintable(connection.first().at(1).toString()));
        QTRY_VERIFY_WITH_TIMEOUT(connection.last().at(0).toBool(), 10000);

        // Written after the drop: the writer's connection was dropped too, and is made again.
        runs[run.localId].primaryText += u" and after"_s;
        runs[run.localId].status = RunStatus::Completed;
        store.scheduleSave(run.localId, RunStatus::Completed);
        store.flush();
        if (!store.writeError().isEmpty()) {
            // The first try met the dropped connection: kept, and written at the next try.
            QVERIFY(store.isUnsaved(run.localId));
            QTRY_VERIFY_WITH_TIMEOUT(store.writeError().isEmpty(), 15000);
        }
        RunStore reader;
        QVERIFY(reader.open(url));
        const std::optional<Run> stored = reader.loadRun(run.localId);
        QVERIFY(stored);
        QCOMPARE(stored->primaryText, u"Before and after"_s);
        QCOMPARE(stored->status, RunStatus::Completed);
        // And this store reads again.
        QVERIFY(store.loadRun(run.localId));
    }
};

QTEST_GUILESS_MAIN(TestPgStore)
#include "tst_pgstore.moc"
