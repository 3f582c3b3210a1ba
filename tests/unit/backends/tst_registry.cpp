// SPDX-License-Identifier: GPL-3.0-or-later
// The registry's rows are all the product knows of a connector: the built-in ones are complete,
// and a connector registered from tests/ (testconnector/echoconnector) with one row is created by
// the engine, listed and validated by runwatch-cli and its options checked, with no other file
// changed for it. (The Connections dialog's side: tests/gui/tst_connectorrows.)
#include "backends/registry.h"
#include "cli.h"
#include "connections/connectionoptions.h"
#include "testconnector/echoconnector.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

// Runs runwatch-cli in this process (the test's registry is its registry) with its output
// captured.
struct CliRun
{
    int code = -1;
    QString out;
    QString err;
};

QString readAll(FILE *f)
{
    std::fflush(f);
    std::rewind(f);
    QByteArray bytes;
    char buffer[4096];
    while (const size_t n = std::fread(buffer, 1, sizeof buffer, f))
        bytes.append(buffer, qsizetype(n));
    std::fclose(f);
    return QString::fromUtf8(bytes);
}

CliRun runCli(const QStringList &args)
{
    FILE *out = std::tmpfile();
    FILE *err = std::tmpfile();
    CliRun run;
    {
        Cli::CliApp app(out, err);
        run.code = app.run(args);
    }
    run.out = readAll(out);
    run.err = readAll(err);
    return run;
}

} // namespace

class TestRegistry final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString store() const { return m_dir.filePath(u"runs.sqlite"_s); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        RunwatchTest::registerEchoConnector();
    }

    // Every row names itself, says how to reach it and creates its connector; no two rows share a
    // name, and no two options a flag with different keys.
    void builtInRowsAreComplete()
    {
        QSet<QString> names;
        QHash<QString, QString> keyOfFlag;
        for (const ConnectorDescriptor &row : connectors()) {
            QVERIFY2(!names.contains(row.name), qPrintable(QString(row.name)));
            names.insert(row.name);
            QVERIFY(row.displayName && row.urlHelp && row.urlPlaceholder && row.create);
            Connection c;
            c.backend = row.name;
            c.baseUrl = QUrl(u"http://127.0.0.1:9"_s);
            std::unique_ptr<RunBackend> backend(createBackend(c, nullptr));
            QVERIFY2(backend, qPrintable(QString(row.name)));
            for (const ConnectorOption &option : connectionOptions(row.name)) {
                QVERIFY(option.cliFlag.startsWith("--"_L1) && option.label && option.help);
                const QString key = keyOfFlag.value(option.cliFlag, option.key);
                QCOMPARE(key, QString(option.key));
                keyOfFlag.insert(option.cliFlag, option.key);
            }
        }
        QVERIFY(names.contains(u"echo"_s));
        QCOMPARE(QString(defaultConnector().name), knownBackends().constFirst());
    }

    void registeredRowCreatesItsBackend()
    {
        Connection c;
        c.backend = u"echo"_s;
        std::unique_ptr<RunBackend> backend(createBackend(c, nullptr));
        QVERIFY(backend);
        QCOMPARE(connectionOptionsFor(u"echo"_s),
                 (QStringList{u"echo_depth"_s, u"echo_script"_s, u"token_command"_s, u"ca_bundle"_s,
                              u"proxy"_s, u"default_time_budget"_s}));
    }

    // The row's checks are the validation: a bad value is named, a good one passes, and the
    // connector's option on another connector's connection is reported as unused.
    void registeredOptionsAreValidated()
    {
        Connection c;
        c.backend = u"echo"_s;
        c.options.insert(u"echo_depth"_s, u"12"_s);
        QList<ConnectionOptionProblem> problems = validateConnectionOptions(c);
        QCOMPARE(problems.size(), 1);
        QCOMPARE(problems.first().option, u"echo_depth"_s);
        QVERIFY(problems.first().message.contains(u"1 to 9"_s));

        c.options.insert(u"echo_depth"_s, u"3"_s);
        QVERIFY(validateConnectionOptions(c).isEmpty());

        Connection other;
        other.backend = knownBackends().constFirst();
        other.options.insert(u"echo_depth"_s, u"3"_s);
        problems = validateConnectionOptions(other);
        QCOMPARE(problems.size(), 1);
        QCOMPARE(problems.first().option, u"echo_depth"_s);
    }

    // A password in the service URL would be stored with the connection and every run: refused
    // (the dialog cannot save it, the CLI exits 2). A user name alone is fine.
    void passwordInTheUrlIsRefused()
    {
        Connection c;
        c.backend = u"echo"_s;
        c.baseUrl = QUrl(u"https://svc:hunter2@echo.example/v1"_s);
        const QList<ConnectionOptionProblem> problems = validateConnectionOptions(c);
        QCOMPARE(problems.size(), 1);
        QCOMPARE(problems.first().option, u"base_url_password"_s);
        QVERIFY(!problems.first().message.contains(u"hunter2"_s));
        c.baseUrl = QUrl(u"https://svc@echo.example/v1"_s);
        QVERIFY(validateConnectionOptions(c).isEmpty());
    }

    // runwatch-cli --help lists the connector and its flags.
    void helpListsTheRow()
    {
        const CliRun run = runCli({u"--help"_s});
        QCOMPARE(run.code, 0);
        QVERIFY2(
            run.err.contains(u"echo: Echo (a test connector); --url is where the echo service listens"_s),
            qPrintable(run.err));
        QVERIFY(run.err.contains(u"--echo-depth N"_s));
        QVERIFY(run.err.contains(u"[echo] How many times the service repeats a prompt."_s));
        QVERIFY(run.err.contains(u"--echo-script FILE"_s));
    }

    // --backend echo is accepted and its flags are checked by the row before anything is sent; an
    // echo flag on another backend is refused.
    void cliTakesTheBackendAndChecksItsOptions()
    {
        const QStringList base{u"--store"_s, store(),    u"--backend"_s,
                               u"echo"_s,    u"--url"_s, u"http://127.0.0.1:9/echo"_s};
        CliRun run = runCli(base + QStringList{u"--echo-depth"_s, u"12"_s, u"agent"_s});
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains(u"option echo_depth: The echo depth is a number from 1 to 9."_s),
                 qPrintable(run.err));

        run = runCli(base + QStringList{u"--echo-script"_s, m_dir.filePath(u"missing.txt"_s), u"agent"_s});
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains(u"option echo_script: Cannot read the echo script"_s), qPrintable(run.err));

        // A valid one goes through to the command (the fake describes itself by its kind).
        run = runCli(base + QStringList{u"--echo-depth"_s, u"3"_s, u"agent"_s});
        QVERIFY2(run.code == 0, qPrintable(run.err));

        run = runCli({u"--store"_s, store(), u"--backend"_s, knownBackends().constFirst(), u"--url"_s,
                      u"http://127.0.0.1:9"_s, u"--echo-depth"_s, u"3"_s, u"list"_s});
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains(u"--echo-depth is not an option of the"_s), qPrintable(run.err));

        run = runCli({u"--store"_s, store(), u"--backend"_s, u"nosuch"_s, u"list"_s});
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains(u"echo"_s) && run.err.contains(u"unknown backend"_s), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(TestRegistry)
#include "tst_registry.moc"
