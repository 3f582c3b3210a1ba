// SPDX-License-Identifier: GPL-3.0-or-later
// Settings › Run Store… on a real PostgreSQL server (the program's own cluster,
// tests/common/teststore.h) and a real gnome-keyring (run through
// tests/unit/connections/run-keyring.sh real, as ctest does): the fields filled by typing, "Test"
// says what it found — a usable store, a wrong password, a port nothing listens on, a schema newer
// than this build — and changes nothing; OK puts the choice in the settings without the password
// and the password in the keychain; the app then opens the team store from that setting with the
// keychain's password alone (no PGPASSWORD, no ~/.pgpass); RUNWATCH_STORE still wins, and the
// dialog says so.
#include "appcontroller.h"
#include "connections/keystore.h"
#include "runstoredialog.h"
#include "store/runstore.h"
#include "store/storelocation.h"
#include "teststore.h"
#include "uitesthelpers.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

#include <QCoroTask>

using namespace Runwatch;
using namespace RunwatchUiTest;
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

} // namespace

class TestRunStoreDialog final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_store; // a database with Runwatch's schema
    KeychainKeyStore *m_keychain = nullptr;

    // The dialog filled as an operator types it: this cluster, `database`, the superuser.
    static void fill(RunStoreDialog &dialog, int port, const QString &database, const QString &password)
    {
        QTest::mouseClick(dialog.teamButton(), Qt::LeftButton, {},
                          QPoint(4, dialog.teamButton()->height() / 2));
        QVERIFY(dialog.teamButton()->isChecked());
        dialog.hostEdit()->clear();
        QTest::keyClicks(dialog.hostEdit(), u"127.0.0.1"_s);
        dialog.portBox()->setValue(port);
        dialog.databaseEdit()->clear();
        QTest::keyClicks(dialog.databaseEdit(), database);
        dialog.userEdit()->clear();
        QTest::keyClicks(dialog.userEdit(), u"runwatch"_s);
        dialog.passwordEdit()->clear();
        QTest::keyClicks(dialog.passwordEdit(), password);
    }

    // Clicks Test and waits for its answer.
    static QPair<bool, QString> test(RunStoreDialog &dialog)
    {
        QSignalSpy tested(&dialog, &RunStoreDialog::tested);
        QTest::mouseClick(dialog.testButton(), Qt::LeftButton);
        // A field that is wrong is said at once (no connection); a connection answers later.
        if (tested.isEmpty() && !tested.wait(20000))
            return {false, u"no answer"_s};
        return {tested.first().at(0).toBool(), tested.first().at(1).toString()};
    }

    static QString databaseOf(const QString &url) { return QUrl(url).path().mid(1); }

private Q_SLOTS:
    void initTestCase()
    {
        if (qEnvironmentVariable("RUNWATCH_KEYRING") != u"real") {
            QFAIL("run through tests/unit/connections/run-keyring.sh real (ctest does): it provides the "
                  "keyring");
        }
        isolateSettings();
        qunsetenv("RUNWATCH_STORE");
        qputenv("RUNWATCH_TEST_STORE", "postgresql");
        QVERIFY(m_dir.isValid());
        QString why;
        QVERIFY2(RunwatchTest::PgCluster::instance().ensureStarted(&why), qPrintable(why));
        m_store = RunwatchTest::freshStore(m_dir, u"dialog"_s, &why);
        QVERIFY2(!m_store.isEmpty(), qPrintable(why));
        RunStore owner;
        QVERIFY2(owner.open(m_store), qPrintable(owner.errorString()));
        m_keychain = new KeychainKeyStore(false, this);
    }

    // Test with the typed password (the only one there is: no PGPASSWORD, HOME without
    // ~/.pgpass): found, or libpq's words for a wrong one; nothing saved either way.
    void testFindsTheStoreOrSaysWhy()
    {
        const ScopedEnv none("PGPASSWORD", QByteArray());
        const int port = RunwatchTest::PgCluster::instance().port();
        RunStoreDialog dialog(chooseStore({}, true), m_keychain);
        dialog.show();
        QVERIFY(!dialog.overrideLabel()->isVisible());
        fill(dialog, port, databaseOf(m_store), RunwatchTest::PgCluster::password());
        auto [ok, message] = test(dialog);
        QVERIFY2(ok, qPrintable(message));
        QVERIFY2(message.contains(u"schema %1"_s.arg(RunStore::SchemaVersion)), qPrintable(message));
        QCOMPARE(dialog.resultLabel()->text(), message);

        dialog.passwordEdit()->clear();
        QTest::keyClicks(dialog.passwordEdit(), u"not-the-password"_s);
        std::tie(ok, message) = test(dialog);
        QVERIFY(!ok);
        QVERIFY2(message.contains(u"password authentication failed"_s), qPrintable(message));

        int closedPort = 0;
        {
            QTcpServer closed;
            QVERIFY(closed.listen(QHostAddress::LocalHost));
            closedPort = closed.serverPort();
        }
        dialog.portBox()->setValue(closedPort);
        std::tie(ok, message) = test(dialog);
        QVERIFY(!ok);
        QVERIFY2(message.contains(u"Cannot connect"_s) && message.contains(u"127.0.0.1"_s),
                 qPrintable(message));
        QVERIFY(!QSettings().contains(u"store/location"_s));
    }

    // A store a newer Runwatch wrote: Test says so before anything is chosen, and leaves it as it was.
    void testSaysANewerSchema()
    {
        QString why;
        const QString newer = RunwatchTest::freshStore(m_dir, u"dialog_newer"_s, &why);
        QVERIFY2(!newer.isEmpty(), qPrintable(why));
        {
            RunStore owner;
            QVERIFY2(owner.open(newer), qPrintable(owner.errorString()));
        }
        RunwatchTest::RawStore raw(newer);
        QVERIFY(raw.exec(u"UPDATE runwatch_schema SET version = 99"_s));
        RunStoreDialog dialog(chooseStore({}, true), m_keychain);
        dialog.show();
        fill(dialog, RunwatchTest::PgCluster::instance().port(), databaseOf(newer), {});
        const auto [ok, message] = test(dialog);
        QVERIFY(!ok);
        QVERIFY2(message.contains(u"newer Runwatch"_s) && message.contains(u"99"_s), qPrintable(message));
        QCOMPARE(raw.value(u"SELECT max(version) FROM runwatch_schema"_s).toInt(), 99);
    }

    // A field the location cannot have is said before anything connects, and OK waits for it.
    void validationBeforeConnecting()
    {
        RunStoreDialog dialog(chooseStore({}, true), m_keychain);
        dialog.show();
        fill(dialog, 5432, u"runwatch"_s, {});
        dialog.sslModeBox()->setCurrentIndex(dialog.sslModeBox()->findData(u"verify-full"_s));
        QVERIFY(dialog.caFileEdit()->isEnabled());
        const auto [ok, message] = test(dialog);
        QVERIFY(!ok);
        QVERIFY2(message.contains(u"CA certificate"_s), qPrintable(message));
        dialog.accept();
        QVERIFY(dialog.isVisible());
        QVERIFY(!QSettings().contains(u"store/location"_s));
    }

    // OK: the URL in the settings (no password anywhere in the file), the password in the keychain
    // under the store's own account.
    void okSavesTheChoiceAndThePassword()
    {
        RunStoreDialog dialog(chooseStore({}, true), m_keychain);
        dialog.show();
        fill(dialog, RunwatchTest::PgCluster::instance().port(), databaseOf(m_store),
             RunwatchTest::PgCluster::password());
        QSignalSpy saved(&dialog, &RunStoreDialog::saved);
        QTest::mouseClick(dialog.buttons()->button(QDialogButtonBox::Ok), Qt::LeftButton);
        QVERIFY2(saved.wait(20000), qPrintable(dialog.resultLabel()->text()));
        QVERIFY(!dialog.isVisible());
        const StoreLocation location = StoreLocation::fromSettings();
        QCOMPARE(location.toLocation(), m_store);
        QSettings().sync();
        QFile file(QSettings().fileName());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray settings = file.readAll();
        QVERIFY2(settings.contains(databaseOf(m_store).toUtf8()), settings.constData());
        QVERIFY(!settings.contains(RunwatchTest::PgCluster::password().toUtf8()));
        const KeyStore::Result inKeychain = QCoro::waitFor(m_keychain->read(location.keychainAccount()));
        QVERIFY2(inKeychain.ok(), qPrintable(inKeychain.error));
        QCOMPARE(inKeychain.secret, RunwatchTest::PgCluster::password());
        // Opened again, the dialog shows the saved choice (and no password).
        RunStoreDialog again(chooseStore({}, true), m_keychain);
        QVERIFY(again.teamButton()->isChecked());
        QCOMPARE(again.enteredLocation(), location);
        QVERIFY(again.passwordEdit()->text().isEmpty());
    }

    // The app started without --store or RUNWATCH_STORE opens the saved team store, logging in
    // with the keychain's password alone; with RUNWATCH_STORE set, that wins and the dialog says so.
    void appOpensTheSavedTeamStore()
    {
        QVERIFY(QSettings().contains(u"store/location"_s));
        {
            const ScopedEnv none("PGPASSWORD", QByteArray());
            AppController app(AppOptions{});
            QVERIFY(app.start());
            QCOMPARE(app.storeChoice().source, StoreChoice::Source::Settings);
            QVERIFY2(app.store()->isOpen(), qPrintable(app.store()->errorString()));
            QCOMPARE(app.store()->path(), m_store);
            QVERIFY(app.window()->runStoreAction());
        }
        const QString file = m_dir.filePath(u"env.sqlite"_s);
        const ScopedEnv env("RUNWATCH_STORE", file.toUtf8());
        AppController app(AppOptions{});
        QVERIFY(app.start());
        QCOMPARE(app.storeChoice().source, StoreChoice::Source::Environment);
        QCOMPARE(app.store()->path(), file);
        RunStoreDialog dialog(app.storeChoice(), m_keychain);
        dialog.show();
        QVERIFY(dialog.overrideLabel()->isVisible());
        QVERIFY2(dialog.overrideLabel()->text().contains(u"RUNWATCH_STORE"_s)
                     && dialog.overrideLabel()->text().contains(file),
                 qPrintable(dialog.overrideLabel()->text()));
        // The saved choice is still what the dialog shows: the override is not saved over it.
        QVERIFY(dialog.teamButton()->isChecked());
    }

    // A wrong password in the keychain: the app says why in its status bar and creates nothing
    // in the database (a new, empty one here).
    void appWithAWrongKeychainPasswordChangesNothing()
    {
        QString why;
        const QString fresh = RunwatchTest::freshStore(m_dir, u"dialog_wrongpw"_s, &why);
        QVERIFY2(!fresh.isEmpty(), qPrintable(why));
        StoreLocation location = StoreLocation::fromLocation(fresh).value();
        location.saveToSettings();
        const KeyStore::Result written
            = QCoro::waitFor(m_keychain->write(location.keychainAccount(), u"not-the-password"_s));
        QVERIFY2(written.ok(), qPrintable(written.error));
        {
            const ScopedEnv none("PGPASSWORD", QByteArray());
            AppController app(AppOptions{});
            QVERIFY(app.start());
            QCOMPARE(app.storeChoice().source, StoreChoice::Source::Settings);
            QVERIFY(!app.store()->isOpen());
            QVERIFY2(app.store()->errorString().contains(u"password authentication failed"_s),
                     qPrintable(app.store()->errorString()));
            QVERIFY2(
                app.window()->statusBar()->currentMessage().contains(u"password authentication failed"_s),
                qPrintable(app.window()->statusBar()->currentMessage()));
        }
        RunwatchTest::RawStore raw(fresh);
        const QVariant tables
            = raw.value(u"SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"_s);
        QVERIFY2(tables.isValid(), qPrintable(raw.error()));
        QCOMPARE(tables.toInt(), 0);
        setStorePassword(fresh, {});
        StoreLocation{}.saveToSettings();
    }

    // "This computer" again: the setting goes, and the default file is the choice.
    void thisComputerClearsTheSetting()
    {
        RunStoreDialog dialog(chooseStore({}, true), m_keychain);
        dialog.show();
        QTest::mouseClick(dialog.thisComputerButton(), Qt::LeftButton, {},
                          QPoint(4, dialog.thisComputerButton()->height() / 2));
        QVERIFY(dialog.fileEdit()->isEnabled());
        // The default file, the home folder written as "~".
        QString shown = dialog.fileEdit()->placeholderText();
        QVERIFY2(shown.startsWith(u"~/"_s), qPrintable(shown));
        QCOMPARE(shown.replace(0, 1, QDir::homePath()), RunStore::defaultDataPath());
        QSignalSpy saved(&dialog, &RunStoreDialog::saved);
        QTest::mouseClick(dialog.buttons()->button(QDialogButtonBox::Ok), Qt::LeftButton);
        QCOMPARE(saved.size(), 1);
        QVERIFY(!QSettings().contains(u"store/location"_s));
        QCOMPARE(chooseStore({}, true).source, StoreChoice::Source::Default);
    }
};

QTEST_MAIN(TestRunStoreDialog)
#include "tst_runstoredialog.moc"
