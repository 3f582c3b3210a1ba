// SPDX-License-Identifier: GPL-3.0-or-later
// The Connections dialog without any keyring (no session bus at all): saving a key gives a clear
// message instead of a silent plain-text fallback, and only an explicit opt-in stores it
// elsewhere. Also: validation, "Test connection" against the simulators (an A2A agent is shown by
// its card's name and skills), and that settings never
// hold a key. Real keyring round trips are tst_keychain's job (issue 4).
#include "connections/connectionregistry.h"
#include "connections/keychain.h"
#include "connections/keystore.h"
#include "connectionsdialog.h"
#include "store/runstore.h"
#include "uitesthelpers.h"

#include "a2a/a2asim.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QTemporaryDir>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {
const QString kKey = u"sk-test-do-not-store-9f3a"_s;

QByteArray fileBytes(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray settingsBytes()
{
    QSettings s;
    s.sync();
    return fileBytes(s.fileName());
}
} // namespace

class TestConnectionsDialog final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<RunStore> m_store;
    std::unique_ptr<ConnectionRegistry> m_registry;
    std::unique_ptr<ConnectionsDialog> m_dialog;

    void fill(const QString &name, const QString &url, const QString &key)
    {
        m_dialog->startNew();
        m_dialog->nameEdit()->setText(name);
        m_dialog->backendBox()->setCurrentText(u"openai"_s);
        m_dialog->urlEdit()->setText(url);
        m_dialog->keyEdit()->setText(key);
    }

private Q_SLOTS:
    void initTestCase()
    {
        isolateSettings();
        QFile::remove(Keychain::defaultInsecurePath());
    }

    void init()
    {
        QSettings().clear();
        m_engine = std::make_unique<Engine>();
        m_dir = std::make_unique<QTemporaryDir>();
        m_store = std::make_unique<RunStore>();
        QVERIFY(m_store->open(m_dir->filePath(u"runs.sqlite"_s)));
        auto *keychain = new KeychainKeyStore(false);
        m_registry = std::make_unique<ConnectionRegistry>(&m_engine->manager, keychain, m_store.get());
        keychain->setParent(m_registry.get());
        m_dialog = std::make_unique<ConnectionsDialog>(m_registry.get());
        m_dialog->show();
    }

    void cleanup()
    {
        m_dialog.reset();
        m_registry.reset();
        m_store.reset();
        m_dir.reset();
        m_engine.reset();
        QFile::remove(Keychain::defaultInsecurePath());
    }

    // No keyring: the key is not saved anywhere and the user is told why, with the two choices.
    void noKeychainGivesClearMessage()
    {
        fill(u"prod"_s, u"https://api.example.com/v1"_s, kKey);
        QTest::mouseClick(m_dialog->saveButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(m_dialog->keychainWarning()->isVisible(), 20000);
        const QString text = m_dialog->keychainWarningText()->text();
        QVERIFY2(text.contains(u"No system keychain is available"_s), qPrintable(text));
        QVERIFY(text.contains(u"never writes API keys to a file on its own"_s));
        QVERIFY(m_dialog->sessionButton()->isVisible());
        QVERIFY(m_dialog->plaintextButton()->isVisible());
        QVERIFY(!m_registry->profile(u"prod"_s));
        QVERIFY(!m_engine->manager.connection(u"prod"_s));
        QVERIFY(!QFile::exists(Keychain::defaultInsecurePath()));
        QVERIFY(!settingsBytes().contains(kKey.toUtf8()));
        QVERIFY(m_store->loadConnectionConfigs().isEmpty());
    }

    // Opting in to "this session only" keeps the key in memory; settings never see it.
    void optInSessionOnly()
    {
        fill(u"prod"_s, u"https://api.example.com/v1"_s, kKey);
        QTest::mouseClick(m_dialog->saveButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(m_dialog->keychainWarning()->isVisible(), 20000);
        QSignalSpy saved(m_dialog.get(), &ConnectionsDialog::saved);
        QTest::mouseClick(m_dialog->sessionButton(), Qt::LeftButton);
        QTRY_COMPARE(saved.count(), 1);
        QVERIFY(!m_dialog->keychainWarning()->isVisible());
        const auto profile = m_registry->profile(u"prod"_s);
        QVERIFY(profile);
        QCOMPARE(profile->keyStorage, KeyStorage::Session);
        QCOMPARE(m_engine->manager.connection(u"prod"_s)->apiKey, kKey);
        // The profile is in the store (shared with the CLI), the key neither there nor in settings.
        QCOMPARE(m_store->loadConnectionConfigs().size(), 1);
        QCOMPARE(m_store->loadConnectionConfigs().first().value(u"name"_s).toString(), u"prod"_s);
        m_store->close();
        QVERIFY(!fileBytes(m_dir->filePath(u"runs.sqlite"_s)).contains(kKey.toUtf8()));
        QVERIFY(!settingsBytes().contains(kKey.toUtf8()));
        QVERIFY(!QFile::exists(Keychain::defaultInsecurePath()));
        QVERIFY(m_dialog->list()->findItems(u"prod"_s, Qt::MatchExactly).size() == 1);
    }

    // The plain-file opt-in asks once more, then writes an owner-only file.
    void optInPlaintextAfterConfirmation()
    {
        fill(u"lab"_s, u"https://lab.example.com/v1"_s, kKey);
        QTest::mouseClick(m_dialog->saveButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(m_dialog->keychainWarning()->isVisible(), 20000);
        QSignalSpy saved(m_dialog.get(), &ConnectionsDialog::saved);
        // The confirmation is modal: answer it from the event loop.
        bool asked = false;
        QTimer answer;
        connect(&answer, &QTimer::timeout, this, [&] {
            if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
                asked = box->text().contains(u"plain text"_s);
                box->button(QMessageBox::Yes)->click();
            }
        });
        answer.start(20);
        QTest::mouseClick(m_dialog->plaintextButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 20000);
        answer.stop();
        QVERIFY(asked);
        QCOMPARE(m_registry->profile(u"lab"_s)->keyStorage, KeyStorage::Plaintext);
        QCOMPARE(m_engine->manager.connection(u"lab"_s)->apiKey, kKey);
        QFile file(Keychain::defaultInsecurePath());
        QVERIFY(file.exists());
        QCOMPARE(file.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
                 QFileDevice::Permissions{});
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains(kKey.toUtf8()));
        QVERIFY(!settingsBytes().contains(kKey.toUtf8()));
    }

    // A connection without a key needs no keychain at all.
    void savingWithoutKeyWorks()
    {
        fill(u"local"_s, m_engine->sim.baseUrl().toString(), {});
        m_dialog->authBox()->setCurrentIndex(m_dialog->authBox()->findData(int(AuthStyle::None)));
        QSignalSpy saved(m_dialog.get(), &ConnectionsDialog::saved);
        QTest::mouseClick(m_dialog->saveButton(), Qt::LeftButton);
        QTRY_COMPARE(saved.count(), 1);
        QVERIFY(!m_dialog->keychainWarning()->isVisible());
        QCOMPARE(m_registry->profile(u"local"_s)->keyStorage, KeyStorage::None);
        QVERIFY(m_engine->manager.backend(u"local"_s));
        QVERIFY(ConnectionRegistry::hasSavedProfiles(m_store.get()));
    }

    // Bad input is refused with a message, nothing is saved.
    void validation()
    {
        fill({}, u"https://api.example.com/v1"_s, {});
        QTest::mouseClick(m_dialog->saveButton(), Qt::LeftButton);
        QTRY_VERIFY(!m_dialog->statusLabel()->text().isEmpty());
        QVERIFY(m_dialog->statusLabel()->text().contains(u"name"_s));
        fill(u"x"_s, u"not a url"_s, {});
        QTest::mouseClick(m_dialog->saveButton(), Qt::LeftButton);
        QTRY_VERIFY(m_dialog->statusLabel()->text().contains(u"base URL"_s));
        QVERIFY(m_registry->profiles().isEmpty());
    }

    // "Test connection" asks the service for its models, with the typed key.
    void testConnection()
    {
        m_engine->sim.setApiKey(u"right-key"_s);
        fill(u"sim2"_s, m_engine->sim.baseUrl().toString(), u"right-key"_s);
        QSignalSpy tested(m_dialog.get(), &ConnectionsDialog::tested);
        QTest::mouseClick(m_dialog->testButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 1, 15000);
        QVERIFY2(tested.first().at(0).toBool(), qPrintable(tested.first().at(1).toString()));
        QVERIFY(m_dialog->statusLabel()->text().startsWith(u"Connected"_s));
        m_dialog->keyEdit()->setText(u"wrong-key"_s);
        QTest::mouseClick(m_dialog->testButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 2, 15000);
        QVERIFY(!tested.at(1).at(0).toBool());
        QVERIFY2(m_dialog->statusLabel()->text().contains(u"401"_s),
                 qPrintable(m_dialog->statusLabel()->text()));
    }

    // "Test connection" for an A2A agent shows who answered: the card's name and skills.
    void testConnectionShowsAgentCard()
    {
        RunwatchSim::A2aSimulator agent;
        QVERIFY(agent.listen());
        m_dialog->startNew();
        m_dialog->nameEdit()->setText(u"agent2"_s);
        m_dialog->backendBox()->setCurrentText(u"a2a"_s);
        QCOMPARE(m_dialog->backendBox()->currentText(), u"a2a"_s);
        m_dialog->urlEdit()->setText(agent.baseUrl().toString());
        QSignalSpy tested(m_dialog.get(), &ConnectionsDialog::tested);
        QTest::mouseClick(m_dialog->testButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 1, 15000);
        const QString text = m_dialog->statusLabel()->text();
        QVERIFY2(tested.first().at(0).toBool(), qPrintable(text));
        QVERIFY2(text.startsWith(u"Connected to “Runwatch A2A Simulator”"_s), qPrintable(text));
        QVERIFY2(text.contains(u"A2A 1.0"_s), qPrintable(text));
        QVERIFY2(text.contains(u"Skills:"_s) && text.contains(u"Weather: Asks which city, then answers."_s),
                 qPrintable(text));

        // No agent behind the URL: a failure that says so, not "connected".
        agent.close();
        QTest::mouseClick(m_dialog->testButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 2, 15000);
        QVERIFY(!tested.at(1).at(0).toBool());
        QVERIFY2(m_dialog->statusLabel()->text().startsWith(u"Failed"_s),
                 qPrintable(m_dialog->statusLabel()->text()));
    }

    // The demo's connections are shown but cannot be edited or removed.
    void transientConnectionsReadOnly()
    {
        Connection demo;
        demo.name = u"Local demo"_s;
        demo.backend = u"openai"_s;
        demo.baseUrl = m_engine->sim.baseUrl();
        m_registry->addTransient(demo);
        m_dialog->selectConnection(u"Local demo"_s);
        QTRY_VERIFY(!m_dialog->nameEdit()->isEnabled());
        QVERIFY(!ConnectionRegistry::hasSavedProfiles(m_store.get()));
    }
};

int main(int argc, char **argv)
{
    // No keyring and no session bus: what a headless box or a broken desktop session gives.
    qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/runwatch-test-no-bus");
    QApplication app(argc, argv);
    TestConnectionsDialog test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_connectionsdialog.moc"
