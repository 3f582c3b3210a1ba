// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli on a team's PostgreSQL store the way an operator sets it up (README "Team store"),
// on the program's own throwaway cluster (tests/common/teststore.h), whose role has a password:
//  - the password from ~/.pgpass (HOME in a temporary folder, the file 0600) and from a service
//    file (PGSERVICEFILE; the service named in the URL or by PGSERVICE), never PGPASSWORD;
//  - TLS: the server with a certificate of the test's own CA (openssl), verify-full against that
//    CA works, against another CA is a clear error;
//  - a wrong password, an unreachable server and a schema newer than the build: a clear message,
//    exit 1 (README's "other error"), nothing changed in the database;
//  - the least-privilege GRANT set, read from the file the README points to
//    (packaging/postgresql/operator-grants.sql): an operator role with exactly those grants
//    starts, watches and lists runs.
#include "cliprocess.h"
#include "openai/openaisim.h"
#include "store/runstore.h"
#include "store/storelocation.h"
#include "teststore.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace RunwatchTest;
using namespace Qt::StringLiterals;

namespace {

// Sets an environment variable for a scope: launchCli hands the CLI this process's environment.
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
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
    const char *m_name;
    bool m_had;
    QByteArray m_old;
};

bool writePrivateFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(content) == content.size()
           && file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

// The statements of an SQL file: `--` comments dropped, split at the `;` that ends each.
QStringList sqlStatements(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QStringList lines;
    for (const QString &line : QString::fromUtf8(file.readAll()).split(u'\n')) {
        const qsizetype comment = line.indexOf(u"--"_s);
        lines << (comment >= 0 ? line.left(comment) : line);
    }
    QStringList statements;
    for (const QString &part : lines.join(u'\n').split(u';')) {
        if (!part.trimmed().isEmpty())
            statements << part.trimmed();
    }
    return statements;
}

} // namespace

class TestTeamStoreCli final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_port = 0;

    QString newDatabase(const QString &name)
    {
        QString why;
        const QString url = freshStore(m_dir, name, &why);
        if (url.isEmpty())
            qWarning() << why;
        return url;
    }
    static QString databaseOf(const QString &url) { return QUrl(url).path().mid(1); }

    // A store with Runwatch's schema, created by the cluster's superuser (the owner).
    QString ownedStore(const QString &name)
    {
        const QString url = newDatabase(name);
        RunStore owner;
        if (url.isEmpty() || !owner.open(url)) {
            qWarning() << owner.errorString();
            return {};
        }
        return url;
    }

    CliResult cli(const QString &store, const QStringList &args, const QStringList &env = {})
    {
        return runCli(QStringList{u"--store"_s, store} + args, this, env, 30000);
    }

    static int tableCount(const QString &url)
    {
        // -1 when it cannot be read: never a vacuous 0.
        RawStore raw(url);
        const QVariant count
            = raw.value(u"SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"_s);
        return count.isValid() ? count.toInt() : -1;
    }

    // openssl with `args` in the test folder; false with its output in *error.
    bool openssl(const QStringList &args, QString *error)
    {
        const QString program = QStandardPaths::findExecutable(u"openssl"_s);
        if (program.isEmpty()) {
            *error = u"openssl is not installed (Debian: openssl; scripts/setup-deps.sh)"_s;
            return false;
        }
        QProcess p;
        p.setWorkingDirectory(m_dir.path());
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(program, args);
        if (p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0)
            return true;
        *error = u"openssl %1: %2"_s.arg(args.join(u' '), QString::fromLocal8Bit(p.readAll()));
        return false;
    }

    // A CA (ca-NAME.pem, ca-NAME.key) of the test's own.
    bool makeCa(const QString &name, QString *error)
    {
        return openssl({u"req"_s, u"-x509"_s, u"-newkey"_s, u"rsa:2048"_s, u"-nodes"_s, u"-days"_s, u"2"_s,
                        u"-subj"_s, u"/CN=Runwatch test CA "_s + name, u"-keyout"_s, u"ca-%1.key"_s.arg(name),
                        u"-out"_s, u"ca-%1.pem"_s.arg(name)},
                       error);
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("RUNWATCH_TEST_STORE", "postgresql");
        QVERIFY(m_dir.isValid());
        QString why;
        QVERIFY2(PgCluster::instance().ensureStarted(&why), qPrintable(why));
        m_port = PgCluster::instance().port();
    }

    // ~/.pgpass: libpq's password file in the operator's home, mode 0600; the URL and the
    // environment carry no password. Without the file the same command cannot log in.
    void passwordFromPgpassInHome()
    {
        const QString url = ownedStore(u"pgpass"_s);
        QVERIFY(!url.isEmpty());
        const QString home = m_dir.filePath(u"home"_s);
        const QString empty = m_dir.filePath(u"empty-home"_s);
        QVERIFY(QDir().mkpath(home) && QDir().mkpath(empty));
        QVERIFY(writePrivateFile(home + u"/.pgpass"_s, u"127.0.0.1:%1:%2:runwatch:%3\n"_s.arg(m_port)
                                                           .arg(databaseOf(url), PgCluster::password())
                                                           .toUtf8()));
        const QString wrongHome = m_dir.filePath(u"wrong-home"_s);
        QVERIFY(QDir().mkpath(wrongHome));
        QVERIFY(writePrivateFile(wrongHome + u"/.pgpass"_s, "*:*:*:runwatch:not-the-password\n"));
        const QString fresh = newDatabase(u"pgpass_wrong"_s);
        QVERIFY(!fresh.isEmpty());
        {
            const ScopedEnv none("PGPASSWORD", QByteArray());
            const CliResult without = cli(url, {u"list"_s, u"--all"_s}, {u"HOME="_s + empty});
            QCOMPARE(without.exitCode, 1);
            QVERIFY2(without.err.contains("Cannot open the run store") && without.err.contains("password"),
                     without.err.constData());
            const CliResult with = cli(url, {u"list"_s, u"--all"_s}, {u"HOME="_s + home});
            QVERIFY2(with.exitCode == 0, with.err.constData());
            // A wrong password in the file: libpq's own words, nothing created.
            const CliResult wrong = cli(fresh, {u"list"_s}, {u"HOME="_s + wrongHome});
            QCOMPARE(wrong.exitCode, 1);
            QVERIFY2(wrong.err.contains("password authentication failed for user \"runwatch\""),
                     wrong.err.constData());
        }
        // Read with the cluster's own password again (PGPASSWORD back).
        RawStore raw(fresh);
        QVERIFY2(raw.isOpen(), qPrintable(raw.error()));
        QCOMPARE(tableCount(fresh), 0);
    }

    // A service file (PGSERVICEFILE) names host, port, database, user and password; the store is
    // the service, named in the URL (?service=) or by PGSERVICE.
    void passwordFromServiceFile()
    {
        const QString url = ownedStore(u"service"_s);
        QVERIFY(!url.isEmpty());
        const QString serviceFile = m_dir.filePath(u"pg_service.conf"_s);
        QVERIFY(
            writePrivateFile(serviceFile, u"[teamstore]\nhost=127.0.0.1\nport=%1\ndbname=%2\nuser=runwatch\n"
                                          "password=%3\n"_s.arg(m_port)
                                              .arg(databaseOf(url), PgCluster::password())
                                              .toUtf8()));
        const ScopedEnv none("PGPASSWORD", QByteArray());
        const QString home = m_dir.filePath(u"service-home"_s); // no ~/.pgpass there
        QVERIFY(QDir().mkpath(home));
        const QStringList env{u"PGSERVICEFILE="_s + serviceFile, u"HOME="_s + home};
        StoreLocation location;
        location.kind = StoreLocation::Kind::TeamDatabase;
        location.service = u"teamstore"_s;
        QCOMPARE(location.validationError(), QString());
        QCOMPARE(location.toLocation(), u"postgresql:///?service=teamstore"_s);
        const CliResult named = cli(location.toLocation(), {u"--json"_s, u"list"_s, u"--all"_s}, env);
        QVERIFY2(named.exitCode == 0, named.err.constData());
        const CliResult fromEnv
            = cli(u"postgresql:///"_s, {u"list"_s, u"--all"_s}, env + QStringList{u"PGSERVICE=teamstore"_s});
        QVERIFY2(fromEnv.exitCode == 0, fromEnv.err.constData());
        // An unknown service is libpq's clear error.
        const CliResult unknown = cli(u"postgresql:///?service=nosuch"_s, {u"list"_s}, env);
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY2(unknown.err.contains("nosuch"), unknown.err.constData());
    }

    // A schema newer than this build: refused before anything is written, exit 1, the database
    // as it was.
    void newerSchemaChangesNothing()
    {
        const QString url = ownedStore(u"newer"_s);
        QVERIFY(!url.isEmpty());
        {
            RawStore raw(url);
            QVERIFY2(raw.exec(u"UPDATE runwatch_schema SET version = %1"_s.arg(RunStore::SchemaVersion + 5)),
                     qPrintable(raw.error()));
        }
        const int tables = tableCount(url);
        QVERIFY(tables > 0);
        const CliResult result = cli(url, {u"list"_s, u"--all"_s});
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains("newer Runwatch") && result.err.contains("left untouched"),
                 result.err.constData());
        RawStore raw(url);
        QCOMPARE(raw.value(u"SELECT max(version) FROM runwatch_schema"_s).toInt(),
                 RunStore::SchemaVersion + 5);
        QCOMPARE(tableCount(url), tables);
        // The app's Test says the same before anything is chosen.
        const StoreProbe probe = probeStore(url);
        QCOMPARE(probe.outcome, StoreProbe::Outcome::Newer);
        QVERIFY2(probe.message.contains(u"newer Runwatch"_s), qPrintable(probe.message));
    }

    // Nothing listens on the port: a clear error within the connect timeout.
    void unreachableServerIsAClearError()
    {
        int port = 0;
        {
            QTcpServer closed;
            QVERIFY(closed.listen(QHostAddress::LocalHost));
            port = closed.serverPort();
        }
        QElapsedTimer timer;
        timer.start();
        const CliResult result = cli(u"postgresql://runwatch@127.0.0.1:%1/runs"_s.arg(port), {u"list"_s});
        QCOMPARE(result.exitCode, 1);
        QVERIFY(timer.elapsed() < 15000);
        QVERIFY2(result.err.contains("Cannot open the run store") && result.err.contains("127.0.0.1"),
                 result.err.constData());
    }

    // TLS: the cluster presents a certificate of the test's CA for 127.0.0.1. verify-full with that
    // CA connects (and the session is encrypted); with another CA the certificate is refused.
    void tlsVerifyFull()
    {
        QString why;
        QVERIFY2(makeCa(u"team"_s, &why), qPrintable(why));
        QVERIFY2(makeCa(u"other"_s, &why), qPrintable(why));
        QVERIFY(
            writePrivateFile(m_dir.filePath(u"san.ext"_s), "subjectAltName=IP:127.0.0.1,DNS:localhost\n"));
        QVERIFY2(openssl({u"req"_s, u"-newkey"_s, u"rsa:2048"_s, u"-nodes"_s, u"-subj"_s, u"/CN=127.0.0.1"_s,
                          u"-keyout"_s, u"server.key"_s, u"-out"_s, u"server.csr"_s},
                         &why),
                 qPrintable(why));
        QVERIFY2(openssl({u"x509"_s, u"-req"_s, u"-in"_s, u"server.csr"_s, u"-CA"_s, u"ca-team.pem"_s,
                          u"-CAkey"_s, u"ca-team.key"_s, u"-CAcreateserial"_s, u"-days"_s, u"2"_s,
                          u"-extfile"_s, u"san.ext"_s, u"-out"_s, u"server.crt"_s},
                         &why),
                 qPrintable(why));
        QVERIFY2(PgCluster::instance().enableTls(m_dir.filePath(u"server.crt"_s),
                                                 m_dir.filePath(u"server.key"_s), &why),
                 qPrintable(why));
        const QString url = ownedStore(u"tls"_s);
        QVERIFY(!url.isEmpty());
        StoreLocation location = StoreLocation::fromLocation(url).value();
        location.sslMode = u"verify-full"_s;
        location.sslRootCert = m_dir.filePath(u"ca-team.pem"_s);
        QCOMPARE(location.validationError(), QString());
        const QString good = location.toLocation();
        const CliResult ok = cli(good, {u"list"_s, u"--all"_s});
        QVERIFY2(ok.exitCode == 0, ok.err.constData());
        {
            RawStore raw(good);
            QVERIFY2(raw.isOpen(), qPrintable(raw.error()));
            QCOMPARE(raw.value(u"SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"_s).toBool(), true);
        }
        QVERIFY(probeStore(good).ok());

        location.sslRootCert = m_dir.filePath(u"ca-other.pem"_s);
        const QString bad = location.toLocation();
        const CliResult refused = cli(bad, {u"list"_s, u"--all"_s});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("Cannot open the run store")
                     && refused.err.contains("certificate verify failed"),
                 refused.err.constData());
        const StoreProbe probe = probeStore(bad);
        QCOMPARE(probe.outcome, StoreProbe::Outcome::Unreachable);
        QVERIFY2(probe.message.contains(u"certificate verify failed"_s), qPrintable(probe.message));
    }

    // The README's least-privilege set, from the file it points to: the owner creates the schema,
    // the administrator runs the file, and an operator role with only those grants starts a run,
    // watches it to its end and lists it — and cannot change the schema.
    void operatorGrantsAreEnough()
    {
        const QString grants
            = QStringLiteral(RUNWATCH_SOURCE_DIR "/packaging/postgresql/operator-grants.sql");
        const QStringList statements = sqlStatements(grants);
        QVERIFY2(statements.size() >= 5, qPrintable(grants));
        QString why;
        // The file names the database `runwatch` and the role `runwatch_team`, as the README does.
        QVERIFY2(PgCluster::instance().createDatabase(u"runwatch"_s, &why), qPrintable(why));
        const QString ownerUrl = PgCluster::instance().url(u"runwatch"_s);
        {
            RunStore owner;
            QVERIFY2(owner.open(ownerUrl), qPrintable(owner.errorString()));
        }
        {
            RawStore admin(ownerUrl);
            QVERIFY2(admin.exec(u"CREATE ROLE runwatch_team LOGIN PASSWORD 'team-pw'"_s),
                     qPrintable(admin.error()));
            for (const QString &sql : statements)
                QVERIFY2(admin.exec(sql), qPrintable(admin.error()));
        }
        RunwatchSim::OpenAiSimulator sim;
        QVERIFY(sim.listen());
        const ScopedEnv password("PGPASSWORD", "team-pw");
        const QString team = u"postgresql://runwatch_team@127.0.0.1:%1/runwatch"_s.arg(m_port);
        const QStringList backend{u"--backend"_s, u"openai"_s, u"--url"_s, sim.baseUrl().toString()};
        const CliResult started
            = cli(team, backend + QStringList{u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=5"_s});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        const CliResult watched = cli(team, backend + QStringList{u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        const CliResult listed = cli(team, {u"--json"_s, u"list"_s, u"--all"_s});
        QVERIFY2(listed.exitCode == 0, listed.err.constData());
        QVERIFY2(listed.out.contains(id.toUtf8()), listed.out.constData());
        RawStore raw(team);
        QVERIFY2(raw.isOpen(), qPrintable(raw.error()));
        QCOMPARE(raw.value(u"SELECT status FROM runs WHERE local_id = '%1'"_s.arg(id)).toString(),
                 u"completed"_s);
        QVERIFY(!raw.exec(u"CREATE TABLE intruder (x INTEGER)"_s));
        QVERIFY(!raw.exec(u"UPDATE runwatch_schema SET version = 99"_s));
    }
};

QTEST_GUILESS_MAIN(TestTeamStoreCli)
#include "tst_teamstore_cli.moc"
