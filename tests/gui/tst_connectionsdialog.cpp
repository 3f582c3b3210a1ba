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
#include "connectionsdialogrig.h"
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
    std::unique_ptr<ConnectionsDialogRig> m_rig;

    void fill(const QString &name, const QString &url, const QString &key)
    {
        m_rig->dialog->startNew();
        m_rig->dialog->nameEdit()->setText(name);
        m_rig->dialog->backendBox()->setCurrentText(u"openai"_s);
        m_rig->dialog->urlEdit()->setText(url);
        m_rig->dialog->keyEdit()->setText(key);
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
        m_rig = std::make_unique<ConnectionsDialogRig>();
        QVERIFY(m_rig->open());
    }

    void cleanup()
    {
        m_rig.reset();
        QFile::remove(Keychain::defaultInsecurePath());
    }

    // No keyring: the key is not saved anywhere and the user is told why, with the two choices.
    void noKeychainGivesClearMessage()
    {
        fill(u"prod"_s, u"https://api.example.com/v1"_s, kKey);
        QTest::mouseClick(m_rig->dialog->saveButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(m_rig->dialog->keychainWarning()->isVisible(), 20000);
        const QString text = m_rig->dialog->keychainWarningText()->text();
        QVERIFY2(text.contains(u"No system keychain is available"_s), qPrintable(text));
        QVERIFY(text.contains(u"never writes API keys to a file on its own"_s));
        QVERIFY(m_rig->dialog->sessionButton()->isVisible());
        QVERIFY(m_rig->dialog->plaintextButton()->isVisible());
        QVERIFY(!m_rig->registry->profile(u"prod"_s));
        QVERIFY(!m_rig->engine.manager.connection(u"prod"_s));
        QVERIFY(!QFile::exists(Keychain::defaultInsecurePath()));
        QVERIFY(!settingsBytes().contains(kKey.toUtf8()));
        QVERIFY(m_rig->store.loadConnectionConfigs().isEmpty());
    }

    // Opting in to "this session only" keeps the key in memory; settings never see it.
    void optInSessionOnly()
    {
        fill(u"prod"_s, u"https://api.example.com/v1"_s, kKey);
        QTest::mouseClick(m_rig->dialog->saveButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(m_rig->dialog->keychainWarning()->isVisible(), 20000);
        QSignalSpy saved(m_rig->dialog.get(), &ConnectionsDialog::saved);
        QTest::mouseClick(m_rig->dialog->sessionButton(), Qt::LeftButton);
        QTRY_COMPARE(saved.count(), 1);
        QVERIFY(!m_rig->dialog->keychainWarning()->isVisible());
        const auto profile = m_rig->registry->profile(u"prod"_s);
        QVERIFY(profile);
        QCOMPARE(profile->keyStorage, KeyStorage::Session);
        QCOMPARE(m_rig->engine.manager.connection(u"prod"_s)->apiKey, kKey);
        // The profile is in the store (shared with the CLI), the key neither there nor in settings.
        QCOMPARE(m_rig->store.loadConnectionConfigs().size(), 1);
        QCOMPARE(m_rig->store.loadConnectionConfigs().first().value(u"name"_s).toString(), u"prod"_s);
        m_rig->store.close();
        QVERIFY(!fileBytes(m_rig->dir.filePath(u"runs.sqlite"_s)).contains(kKey.toUtf8()));
        QVERIFY(!settingsBytes().contains(kKey.toUtf8()));
        QVERIFY(!QFile::exists(Keychain::defaultInsecurePath()));
        QVERIFY(m_rig->dialog->list()->findItems(u"prod"_s, Qt::MatchExactly).size() == 1);
    }

    // The plain-file opt-in asks once more, then writes an owner-only file.
    void optInPlaintextAfterConfirmation()
    {
        fill(u"lab"_s, u"https://lab.example.com/v1"_s, kKey);
        QTest::mouseClick(m_rig->dialog->saveButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(m_rig->dialog->keychainWarning()->isVisible(), 20000);
        QSignalSpy saved(m_rig->dialog.get(), &ConnectionsDialog::saved);
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
        QTest::mouseClick(m_rig->dialog->plaintextButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 20000);
        answer.stop();
        QVERIFY(asked);
        QCOMPARE(m_rig->registry->profile(u"lab"_s)->keyStorage, KeyStorage::Plaintext);
        QCOMPARE(m_rig->engine.manager.connection(u"lab"_s)->apiKey, kKey);
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
        fill(u"local"_s, m_rig->engine.sim.baseUrl().toString(), {});
        m_rig->dialog->authBox()->setCurrentIndex(m_rig->dialog->authBox()->findData(int(AuthStyle::None)));
        QSignalSpy saved(m_rig->dialog.get(), &ConnectionsDialog::saved);
        QTest::mouseClick(m_rig->dialog->saveButton(), Qt::LeftButton);
        QTRY_COMPARE(saved.count(), 1);
        QVERIFY(!m_rig->dialog->keychainWarning()->isVisible());
        QCOMPARE(m_rig->registry->profile(u"local"_s)->keyStorage, KeyStorage::None);
        QVERIFY(m_rig->engine.manager.backend(u"local"_s));
        QVERIFY(ConnectionRegistry::hasSavedProfiles(&m_rig->store));
    }

    // Bad input is refused with a message, nothing is saved.
    void validation()
    {
        fill({}, u"https://api.example.com/v1"_s, {});
        QTest::mouseClick(m_rig->dialog->saveButton(), Qt::LeftButton);
        QTRY_VERIFY(!m_rig->dialog->statusLabel()->text().isEmpty());
        QVERIFY(m_rig->dialog->statusLabel()->text().contains(u"name"_s));
        fill(u"x"_s, u"not a url"_s, {});
        QTest::mouseClick(m_rig->dialog->saveButton(), Qt::LeftButton);
        QTRY_VERIFY(m_rig->dialog->statusLabel()->text().contains(u"base URL"_s));
        QVERIFY(m_rig->registry->profiles().isEmpty());
    }

    // "Test connection" asks the service for its models, with the typed key.
    void testConnection()
    {
        m_rig->engine.sim.setApiKey(u"right-key"_s);
        fill(u"sim2"_s, m_rig->engine.sim.baseUrl().toString(), u"right-key"_s);
        QSignalSpy tested(m_rig->dialog.get(), &ConnectionsDialog::tested);
        QTest::mouseClick(m_rig->dialog->testButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 1, 15000);
        QVERIFY2(tested.first().at(0).toBool(), qPrintable(tested.first().at(1).toString()));
        QVERIFY(m_rig->dialog->statusLabel()->text().startsWith(u"Connected"_s));
        m_rig->dialog->keyEdit()->setText(u"wrong-key"_s);
        QTest::mouseClick(m_rig->dialog->testButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 2, 15000);
        QVERIFY(!tested.at(1).at(0).toBool());
        QVERIFY2(m_rig->dialog->statusLabel()->text().contains(u"401"_s),
                 qPrintable(m_rig->dialog->statusLabel()->text()));
    }

    // "Test connection" for an A2A agent shows who answered: the card's name and skills.
    void testConnectionShowsAgentCard()
    {
        RunwatchSim::A2aSimulator agent;
        QVERIFY(agent.listen());
        m_rig->dialog->startNew();
        m_rig->dialog->nameEdit()->setText(u"agent2"_s);
        m_rig->dialog->backendBox()->setCurrentText(u"a2a"_s);
        QCOMPARE(m_rig->dialog->backendBox()->currentText(), u"a2a"_s);
        m_rig->dialog->urlEdit()->setText(agent.baseUrl().toString());
        QSignalSpy tested(m_rig->dialog.get(), &ConnectionsDialog::tested);
        QTest::mouseClick(m_rig->dialog->testButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 1, 15000);
        const QString text = m_rig->dialog->statusLabel()->text();
        QVERIFY2(tested.first().at(0).toBool(), qPrintable(text));
        QVERIFY2(text.startsWith(u"Connected to “Runwatch A2A Simulator”"_s), qPrintable(text));
        QVERIFY2(text.contains(u"A2A 1.0"_s), qPrintable(text));
        QVERIFY2(text.contains(u"Skills:"_s) && text.contains(u"Weather: Asks which city, then answers."_s),
                 qPrintable(text));

        // No agent behind the URL: a failure that says so, not "connected".
        agent.close();
        QTest::mouseClick(m_rig->dialog->testButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 2, 15000);
        QVERIFY(!tested.at(1).at(0).toBool());
        QVERIFY2(m_rig->dialog->statusLabel()->text().startsWith(u"Failed"_s),
                 qPrintable(m_rig->dialog->statusLabel()->text()));
    }

    // The demo's connections are shown but cannot be edited or removed.
    void transientConnectionsReadOnly()
    {
        Connection demo;
        demo.name = u"Local demo"_s;
        demo.backend = u"openai"_s;
        demo.baseUrl = m_rig->engine.sim.baseUrl();
        m_rig->registry->addTransient(demo);
        m_rig->dialog->selectConnection(u"Local demo"_s);
        QTRY_VERIFY(!m_rig->dialog->nameEdit()->isEnabled());
        QVERIFY(!ConnectionRegistry::hasSavedProfiles(&m_rig->store));
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
