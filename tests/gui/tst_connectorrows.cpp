// SPDX-License-Identifier: GPL-3.0-or-later
// The Connections dialog learns about connectors only from the registry's rows: a connector
// registered from tests/ (testconnector/echoconnector) with one row is offered as a backend, its
// options get form rows (label, placeholder, help, a file chooser for a file) shown only for it,
// checked as typed by the row's own checks, and saved into the connection.
#include "connectionoptionsform.h"
#include "connections/connectionregistry.h"
#include "connections/keystore.h"
#include "connectionsdialog.h"
#include "connectionsdialogrig.h"
#include "store/runstore.h"
#include "testconnector/echoconnector.h"
#include "uitesthelpers.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

class TestConnectorRows final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<ConnectionsDialogRig> m_rig;

    QLineEdit *option(QLatin1StringView key) const { return m_rig->dialog->optionsForm()->edit(key); }

    // Shown means: the field and its label are on screen.
    bool shown(QLatin1StringView key) const
    {
        QLineEdit *edit = option(key);
        return edit && edit->isVisibleTo(m_rig->dialog.get());
    }

private Q_SLOTS:
    void initTestCase()
    {
        isolateSettings();
        RunwatchTest::registerEchoConnector();
    }

    void init()
    {
        m_rig = std::make_unique<ConnectionsDialogRig>();
        QVERIFY(m_rig->open());
    }

    void cleanup() { m_rig.reset(); }

    void rowsOfTheRegisteredConnector()
    {
        QComboBox *backends = m_rig->dialog->backendBox();
        const int at = backends->findText(u"echo"_s);
        QVERIFY(at >= 0);
        QCOMPARE(backends->itemData(at, Qt::ToolTipRole).toString(), u"Echo (a test connector)"_s);

        // Not shown for another connector.
        QVERIFY(!shown(RunwatchTest::EchoOption::Depth));
        QVERIFY(!shown(RunwatchTest::EchoOption::Script));

        m_rig->dialog->startNew();
        m_rig->dialog->nameEdit()->setText(u"echo here"_s);
        backends->setCurrentText(u"echo"_s);
        m_rig->dialog->urlEdit()->setText(u"http://127.0.0.1:9/echo"_s);
        QVERIFY(shown(RunwatchTest::EchoOption::Depth));
        QVERIFY(shown(RunwatchTest::EchoOption::Script));
        QLineEdit *depth = option(RunwatchTest::EchoOption::Depth);
        QCOMPARE(depth->placeholderText(), u"1–9"_s);
        QCOMPARE(depth->accessibleName(), u"Echo depth"_s);
        QCOMPARE(depth->toolTip(), u"How many times the service repeats a prompt."_s);
        auto *form = m_rig->dialog->findChild<QFormLayout *>();
        QVERIFY(form);
        auto *label = qobject_cast<QLabel *>(form->labelForField(depth));
        QVERIFY(label);
        QCOMPARE(label->text(), u"Echo &depth:"_s);
        QCOMPARE(label->buddy(), depth);
        // A file option has its chooser.
        QVERIFY(m_rig->dialog->findChild<QToolButton *>(u"browse_echo_script"_s));

        // Checked as typed by the row's check: Save waits for a valid value.
        depth->setText(u"12"_s);
        QLabel *problems = m_rig->dialog->optionsForm()->problemsLabel();
        QTRY_VERIFY(problems->isVisible());
        QVERIFY2(problems->text().contains(u"The echo depth is a number from 1 to 9."_s),
                 qPrintable(problems->text()));
        QVERIFY(!m_rig->dialog->saveButton()->isEnabled());
        depth->setText(u"3"_s);
        QTRY_VERIFY(!problems->isVisible());
        QVERIFY(m_rig->dialog->saveButton()->isEnabled());

        QSignalSpy saved(m_rig->dialog.get(), &ConnectionsDialog::saved);
        QTest::mouseClick(m_rig->dialog->saveButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 10000);
        ConnectionRegistry reader(nullptr, nullptr, &m_rig->store);
        const auto profile = reader.savedProfile(u"echo here"_s);
        QVERIFY(profile);
        QCOMPARE(profile->connection.backend, u"echo"_s);
        QCOMPARE(profile->connection.options.value(u"echo_depth"_s).toString(), u"3"_s);
    }
};

QTEST_MAIN(TestConnectorRows)
#include "tst_connectorrows.moc"
