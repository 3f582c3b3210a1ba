// SPDX-License-Identifier: GPL-3.0-or-later
// The Connections dialog learns about connectors only from the registry's rows: a connector
// registered from tests/ (testconnector/echoconnector) with one row is offered as a backend, its
// options get form rows (label, placeholder, help, a file chooser for a file) shown only for it,
// checked as typed by the row's own checks, and saved into the connection.
#include "connectionoptionsform.h"
#include "connections/connectionregistry.h"
#include "connections/keystore.h"
#include "connectionsdialog.h"
#include "store/runstore.h"
#include "testconnector/echoconnector.h"
#include "uitesthelpers.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QToolButton>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

class TestConnectorRows final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<RunStore> m_store;
    std::unique_ptr<ConnectionRegistry> m_registry;
    std::unique_ptr<ConnectionsDialog> m_dialog;

    QLineEdit *option(QLatin1StringView key) const { return m_dialog->optionsForm()->edit(key); }

    // Shown means: the field and its label are on screen.
    bool shown(QLatin1StringView key) const
    {
        QLineEdit *edit = option(key);
        return edit && edit->isVisibleTo(m_dialog.get());
    }

private Q_SLOTS:
    void initTestCase()
    {
        isolateSettings();
        RunwatchTest::registerEchoConnector();
    }

    void init()
    {
        m_engine = std::make_unique<Engine>();
        m_dir = std::make_unique<QTemporaryDir>();
        m_store = std::make_unique<RunStore>();
        QVERIFY(m_store->open(m_dir->filePath(u"runs.sqlite"_s)));
        auto *keychain = new KeychainKeyStore(false);
        m_registry = std::make_unique<ConnectionRegistry>(&m_engine->manager, keychain, m_store.get());
        keychain->setParent(m_registry.get());
        m_dialog = std::make_unique<ConnectionsDialog>(m_registry.get());
        m_dialog->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_dialog.get()));
    }

    void cleanup()
    {
        m_dialog.reset();
        m_registry.reset();
        m_store.reset();
        m_dir.reset();
        m_engine.reset();
    }

    void rowsOfTheRegisteredConnector()
    {
        QComboBox *backends = m_dialog->backendBox();
        const int at = backends->findText(u"echo"_s);
        QVERIFY(at >= 0);
        QCOMPARE(backends->itemData(at, Qt::ToolTipRole).toString(), u"Echo (a test connector)"_s);

        // Not shown for another connector.
        QVERIFY(!shown(RunwatchTest::EchoOption::Depth));
        QVERIFY(!shown(RunwatchTest::EchoOption::Script));

        m_dialog->startNew();
        m_dialog->nameEdit()->setText(u"echo here"_s);
        backends->setCurrentText(u"echo"_s);
        m_dialog->urlEdit()->setText(u"http://127.0.0.1:9/echo"_s);
        QVERIFY(shown(RunwatchTest::EchoOption::Depth));
        QVERIFY(shown(RunwatchTest::EchoOption::Script));
        QLineEdit *depth = option(RunwatchTest::EchoOption::Depth);
        QCOMPARE(depth->placeholderText(), u"1–9"_s);
        QCOMPARE(depth->accessibleName(), u"Echo depth"_s);
        QCOMPARE(depth->toolTip(), u"How many times the service repeats a prompt."_s);
        auto *form = m_dialog->findChild<QFormLayout *>();
        QVERIFY(form);
        auto *label = qobject_cast<QLabel *>(form->labelForField(depth));
        QVERIFY(label);
        QCOMPARE(label->text(), u"Echo &depth:"_s);
        QCOMPARE(label->buddy(), depth);
        // A file option has its chooser.
        QVERIFY(m_dialog->findChild<QToolButton *>(u"browse_echo_script"_s));

        // Checked as typed by the row's check: Save waits for a valid value.
        depth->setText(u"12"_s);
        QLabel *problems = m_dialog->optionsForm()->problemsLabel();
        QTRY_VERIFY(problems->isVisible());
        QVERIFY2(problems->text().contains(u"The echo depth is a number from 1 to 9."_s),
                 qPrintable(problems->text()));
        QVERIFY(!m_dialog->saveButton()->isEnabled());
        depth->setText(u"3"_s);
        QTRY_VERIFY(!problems->isVisible());
        QVERIFY(m_dialog->saveButton()->isEnabled());

        QSignalSpy saved(m_dialog.get(), &ConnectionsDialog::saved);
        QTest::mouseClick(m_dialog->saveButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 10000);
        ConnectionRegistry reader(nullptr, nullptr, m_store.get());
        const auto profile = reader.savedProfile(u"echo here"_s);
        QVERIFY(profile);
        QCOMPARE(profile->connection.backend, u"echo"_s);
        QCOMPARE(profile->connection.options.value(u"echo_depth"_s).toString(), u"3"_s);
    }
};

QTEST_MAIN(TestConnectorRows)
#include "tst_connectorrows.moc"
