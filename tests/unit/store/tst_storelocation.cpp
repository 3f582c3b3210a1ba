// SPDX-License-Identifier: GPL-3.0-or-later
// Where the run store is (core/store/storelocation.h), the rules behind Settings › Run Store…:
// the postgresql:// URL built from the fields and read back, what the fields must hold, the
// saved choice (never a password) and who wins (--store, RUNWATCH_STORE, the setting, the
// default file); the app's keychain password given only to the database it was saved for; and
// "Test" on a real server (the program's own cluster): usable, empty, newer, wrong password,
// unreachable — each a clear sentence, nothing created.
#include "store/runstore.h"
#include "store/storelocation.h"
#include "teststore.h"

#include <QCoreApplication>
#include <QFile>
#include <QSettings>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

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

StoreLocation team(const QString &host, int port, const QString &database, const QString &user)
{
    StoreLocation location;
    location.kind = StoreLocation::Kind::TeamDatabase;
    location.host = host;
    location.port = port;
    location.database = database;
    location.user = user;
    return location;
}

} // namespace

class TestStoreLocation final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Settings of this test only, in its temporary folder.
        QCoreApplication::setOrganizationName(u"runwatch-test"_s);
        QCoreApplication::setApplicationName(u"tst_storelocation"_s);
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(u"settings"_s));
        qunsetenv("RUNWATCH_STORE");
    }

    void urlRoundTrip_data()
    {
        QTest::addColumn<QString>("url");
        QTest::newRow("plain") << u"postgresql://ops@db.example.net:5432/runwatch"_s;
        QTest::newRow("tls")
            << u"postgresql://ops@db.example.net:6432/runwatch?sslmode=verify-full&sslrootcert="
               "/etc/ssl/team%20ca.pem"_s;
        QTest::newRow("service") << u"postgresql:///?service=teamstore"_s;
        QTest::newRow("odd user") << u"postgresql://o%40ps@10.0.0.5:5432/run%2Fs"_s;
    }
    void urlRoundTrip()
    {
        QFETCH(QString, url);
        QString why;
        const std::optional<StoreLocation> location = StoreLocation::fromLocation(url, &why);
        QVERIFY2(location, qPrintable(why));
        QCOMPARE(location->kind, StoreLocation::Kind::TeamDatabase);
        QCOMPARE(location->toLocation(), url);
        QCOMPARE(StoreLocation::fromLocation(location->toLocation()), location);
    }

    void fieldsMakeTheUrl()
    {
        StoreLocation location = team(u"db.example.net"_s, 5432, u"runwatch"_s, u"runwatch_team"_s);
        location.sslMode = u"verify-full"_s;
        location.sslRootCert = u"/etc/ssl/team-ca.pem"_s;
        QCOMPARE(location.toLocation(),
                 u"postgresql://runwatch_team@db.example.net:5432/runwatch?sslmode=verify-full&"
                 "sslrootcert=/etc/ssl/team-ca.pem"_s);
        StoreLocation file;
        QCOMPARE(file.toLocation(), RunStore::defaultDataPath());
        file.file = m_dir.filePath(u"runs.sqlite"_s);
        QCOMPARE(StoreLocation::fromLocation(file.toLocation()), file);
    }

    // What the dialog refuses before anything connects, in words an operator can act on.
    void validation_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("says");
        QTest::newRow("no host") << u"host"_s << QString() << u"host"_s;
        QTest::newRow("no user") << u"user"_s << QString() << u"user"_s;
        QTest::newRow("host with a user") << u"host"_s << u"me@db"_s << u"without a path or a user"_s;
        QTest::newRow("unknown sslmode") << u"sslmode"_s << u"paranoid"_s << u"paranoid"_s;
        QTest::newRow("verify without a CA") << u"sslmode"_s << u"verify-full"_s << u"CA certificate"_s;
        QTest::newRow("missing CA") << u"ca"_s << u"/nonexistent/ca.pem"_s << u"does not exist"_s;
    }
    void validation()
    {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, says);
        StoreLocation location = team(u"db.example.net"_s, 5432, u"runwatch"_s, u"ops"_s);
        QCOMPARE(location.validationError(), QString());
        if (field == u"host") {
            location.host = value;
        } else if (field == u"user") {
            location.user = value;
        } else if (field == u"sslmode") {
            location.sslMode = value;
        } else {
            location.sslRootCert = value;
        }
        QVERIFY2(location.validationError().contains(says), qPrintable(location.validationError()));
    }

    // A URL with a password is never read into the fields (and so never saved).
    void passwordInAUrlIsRefused()
    {
        QString why;
        QVERIFY(!StoreLocation::fromLocation(u"postgresql://ops:hunter2@db/runs"_s, &why));
        QVERIFY(why.contains(u"password"_s));
        QVERIFY(!why.contains(u"hunter2"_s));
        QVERIFY(!StoreLocation::fromLocation(u"postgresql://ops@db/runs?password=hunter2"_s, &why));
        // An option the dialog has no field for: kept where it is, not half-shown.
        QVERIFY(!StoreLocation::fromLocation(u"postgresql://ops@db/runs?keepalives=0"_s, &why));
        QVERIFY(why.contains(u"keepalives"_s));
    }

    // The saved choice is a URL without a password; --store beats RUNWATCH_STORE beats the
    // setting beats the default; the CLI (no settings) never reads the app's setting.
    void choiceAndPrecedence()
    {
        QCOMPARE(chooseStore({}, true).source, StoreChoice::Source::Default);
        StoreLocation saved = team(u"db.example.net"_s, 5432, u"runwatch"_s, u"ops"_s);
        saved.saveToSettings();
        QCOMPARE(StoreLocation::fromSettings(), saved);
        QFile settings(QSettings().fileName());
        QVERIFY(settings.open(QIODevice::ReadOnly));
        const QByteArray text = settings.readAll();
        QVERIFY2(text.contains("db.example.net") && !text.contains("password"), text.constData());
        StoreChoice choice = chooseStore({}, true);
        QCOMPARE(choice.source, StoreChoice::Source::Settings);
        QCOMPARE(choice.location, saved.toLocation());
        QCOMPARE(chooseStore({}, false).source, StoreChoice::Source::Default);
        {
            const ScopedEnv env("RUNWATCH_STORE", "/tmp/env.sqlite");
            choice = chooseStore({}, true);
            QCOMPARE(choice.source, StoreChoice::Source::Environment);
            QCOMPARE(choice.location, u"/tmp/env.sqlite"_s);
            choice = chooseStore(u"/tmp/cli.sqlite"_s, true);
            QCOMPARE(choice.source, StoreChoice::Source::CommandLine);
        }
        StoreLocation{}.saveToSettings(); // this computer's default file: nothing kept
        QCOMPARE(chooseStore({}, true).source, StoreChoice::Source::Default);
    }

    // One account per user, server and database: a password is never offered to another.
    void keychainAccountsAreDistinct()
    {
        const StoreLocation a = team(u"db1"_s, 5432, u"runwatch"_s, u"ops"_s);
        QVERIFY(a.keychainAccount().startsWith(u"run-store/"_s));
        QVERIFY(a.keychainAccount() != team(u"db2"_s, 5432, u"runwatch"_s, u"ops"_s).keychainAccount());
        QVERIFY(a.keychainAccount() != team(u"db1"_s, 5433, u"runwatch"_s, u"ops"_s).keychainAccount());
        QVERIFY(a.keychainAccount() != team(u"db1"_s, 5432, u"runs"_s, u"ops"_s).keychainAccount());
        QVERIFY(a.keychainAccount() != team(u"db1"_s, 5432, u"runwatch"_s, u"admin"_s).keychainAccount());
        setStorePassword(a.toLocation(), u"s3cret"_s);
        QCOMPARE(storePassword(u"ops"_s, u"db1"_s, 5432, u"runwatch"_s), u"s3cret"_s);
        QCOMPARE(storePassword(u"ops"_s, u"db2"_s, 5432, u"runwatch"_s), QString());
        QCOMPARE(storePassword(u"ops"_s, u"db1"_s, 5432, u"other"_s), QString());
        setStorePassword(a.toLocation(), {});
        QCOMPARE(storePassword(u"ops"_s, u"db1"_s, 5432, u"runwatch"_s), QString());
    }

    // "Test" on a real server: what it found, in a sentence; nothing created by a probe.
    void probeOnARealServer()
    {
        qputenv("RUNWATCH_TEST_STORE", "postgresql");
        QString why;
        QVERIFY2(RunwatchTest::PgCluster::instance().ensureStarted(&why), qPrintable(why));
        const QString empty = RunwatchTest::freshStore(m_dir, u"probe_empty"_s, &why);
        QVERIFY2(!empty.isEmpty(), qPrintable(why));
        StoreProbe probe = probeStore(empty);
        QCOMPARE(probe.outcome, StoreProbe::Outcome::Empty);
        {
            RunwatchTest::RawStore raw(empty);
            QCOMPARE(
                raw.value(u"SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"_s).toInt(),
                0);
        }
        const QString used = RunwatchTest::freshStore(m_dir, u"probe_used"_s, &why);
        {
            RunStore store;
            QVERIFY2(store.open(used), qPrintable(store.errorString()));
        }
        probe = probeStore(used);
        QCOMPARE(probe.outcome, StoreProbe::Outcome::Usable);
        QCOMPARE(probe.schemaVersion, RunStore::SchemaVersion);
        QCOMPARE(probe.runs, 0);
        QVERIFY2(probe.message.contains(u"schema %1"_s.arg(RunStore::SchemaVersion)),
                 qPrintable(probe.message));

        // The password typed in the dialog, for this probe only (no PGPASSWORD, no ~/.pgpass).
        const ScopedEnv none("PGPASSWORD", QByteArray());
        const ScopedEnv home("HOME", m_dir.filePath(u"nohome"_s).toUtf8());
        probe = probeStore(used, u"wrong-password"_s);
        QCOMPARE(probe.outcome, StoreProbe::Outcome::Unreachable);
        QVERIFY2(probe.message.contains(u"password authentication failed"_s), qPrintable(probe.message));
        probe = probeStore(used, RunwatchTest::PgCluster::password());
        QVERIFY2(probe.ok(), qPrintable(probe.message));
        QCOMPARE(storePassword(u"runwatch"_s, u"127.0.0.1"_s, RunwatchTest::PgCluster::instance().port(),
                               QUrl(used).path().mid(1)),
                 QString()); // the probe's password is gone again

        // The app's keychain password, set for this database: its store, writer and readers use it.
        {
            RunStore store;
            QVERIFY(!store.open(used));
        }
        setStorePassword(used, RunwatchTest::PgCluster::password());
        {
            RunStore store;
            QVERIFY2(store.open(used), qPrintable(store.errorString()));
        }
        setStorePassword(used, {});

        int port = 0;
        {
            QTcpServer closed;
            QVERIFY(closed.listen(QHostAddress::LocalHost));
            port = closed.serverPort();
        }
        probe = probeStore(team(u"127.0.0.1"_s, port, u"runs"_s, u"runwatch"_s).toLocation());
        QCOMPARE(probe.outcome, StoreProbe::Outcome::Unreachable);
        QVERIFY2(probe.message.contains(u"127.0.0.1"_s), qPrintable(probe.message));
    }

    // This computer: a file not there yet is fine when its folder can be made; a probe never
    // creates it.
    void probeAFile()
    {
        const QString path = m_dir.filePath(u"new/runs.sqlite"_s);
        StoreProbe probe = probeStore(path);
        QCOMPARE(probe.outcome, StoreProbe::Outcome::Empty);
        QVERIFY(!QFile::exists(path));
        const QString used = m_dir.filePath(u"used.sqlite"_s);
        {
            RunStore store;
            QVERIFY(store.open(used));
        }
        probe = probeStore(used);
        QCOMPARE(probe.outcome, StoreProbe::Outcome::Usable);
        QCOMPARE(probe.schemaVersion, RunStore::SchemaVersion);
    }
};

QTEST_GUILESS_MAIN(TestStoreLocation)
#include "tst_storelocation.moc"
