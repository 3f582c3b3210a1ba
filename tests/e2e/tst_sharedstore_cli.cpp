// SPDX-License-Identifier: GPL-3.0-or-later
// Two runwatch-cli processes on one store, as an operator runs them in two terminals: a `watch`
// that follows a run, and a command on the same run meanwhile. The command's change stands (the
// watch's writes carry only what it changed), and the watch acts on it. On a SQLite file and on a
// PostgreSQL database (tst_sharedstore_cli_pg).
#include "cliprocess.h"
#include "openai/openaisim.h"
#include "store/runstore.h"
#include "teststore.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;
using Result = RunwatchTest::CliResult;
using RunwatchTest::finishCli;
using RunwatchTest::runIdFrom;

class TestSharedStoreCli final : public QObject
{
    Q_OBJECT

    RunwatchSim::OpenAiSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;
    QString m_store;

    QString storePath() const { return m_store; }
    QStringList globals() const
    {
        return {u"--backend"_s, u"openai"_s, u"--url"_s, m_sim->baseUrl().toString(),
                u"--store"_s,   storePath()};
    }
    QProcess *launch(const QStringList &args)
    {
        return RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), globals() + args, this);
    }
    Result cli(const QStringList &args) { return finishCli(launch(args)); }

    // The stored text's length as the file has it now (read as a third process would).
    static qsizetype storedLength(Runwatch::RunStore &reader, const QString &id)
    {
        const std::optional<Runwatch::Run> run = reader.loadRun(id);
        return run ? run->primaryText.size() : -1;
    }

    // A run that streams until cancelled, followed by a `watch` whose writes have reached the file.
    QString startWatched(Runwatch::RunStore &reader, QProcess **watch)
    {
        const Result started = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"long interval_ms=20"_s});
        if (started.exitCode != 0)
            return {};
        const QString id = runIdFrom(started.out);
        if (!reader.open(storePath()))
            return {};
        const qsizetype initial = storedLength(reader, id);
        *watch = launch({u"watch"_s, id});
        if (!QTest::qWaitFor([&] { return storedLength(reader, id) > initial; }, 20000))
            return {};
        return id;
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

    // `deadline` while a `watch` follows the run: the watch's later writes leave the deadline in
    // the store, and the watch cancels the run when it comes (exit 4).
    void deadlineSetWhileWatching()
    {
        Runwatch::RunStore reader;
        QProcess *watch = nullptr;
        const QString id = startWatched(reader, &watch);
        QVERIFY(!id.isEmpty());
        // Long enough for the watch to write on meanwhile, even on a loaded machine.
        QCOMPARE(cli({u"deadline"_s, id, u"--in"_s, u"8s"_s, u"--cancel"_s}).exitCode, 0);
        const qsizetype atDeadline = storedLength(reader, id);
        // The watch goes on writing: text well past what it had when the deadline was set.
        QTRY_VERIFY_WITH_TIMEOUT(storedLength(reader, id) > atDeadline + 20, 20000);
        const std::optional<Runwatch::Run> meanwhile = reader.loadRun(id);
        QVERIFY(meanwhile && meanwhile->deadlineAt.isValid() && meanwhile->cancelAtDeadline);
        const Result watched = finishCli(watch, 60000);
        QCOMPARE(watched.exitCode, 4); // cancelled at the deadline, by the watching process
        const Result status = cli({u"--json"_s, u"status"_s, id});
        QVERIFY(status.out.contains("\"status\":\"cancelled\""));
        QVERIFY(status.out.contains("\"deadline_at\""));
    }

    // `delete --local` while a `watch` follows the run: the watch lets go of it (exit 1, says why)
    // and does not bring it back into the store.
    void deleteWhileWatching()
    {
        Runwatch::RunStore reader;
        QProcess *watch = nullptr;
        const QString id = startWatched(reader, &watch);
        QVERIFY(!id.isEmpty());
        QCOMPARE(cli({u"delete"_s, u"--local"_s, id}).exitCode, 0);
        const Result watched = finishCli(watch, 30000);
        QCOMPARE(watched.exitCode, 1);
        QVERIFY2(watched.err.contains("deleted from the store by another process"), watched.err.constData());
        QVERIFY(!reader.loadRun(id));
        QCOMPARE(reader.runCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestSharedStoreCli)
#include "tst_sharedstore_cli.moc"
