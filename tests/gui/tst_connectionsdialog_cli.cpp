// SPDX-License-Identifier: GPL-3.0-or-later
// What an operator saves in the Connections dialog is what `runwatch-cli --connection NAME` uses:
// the form is filled and saved by clicking, the key goes to a real gnome-keyring, then the CLI (a
// separate process on the same store and keyring) starts, watches, queries and cancels runs
// through that connection, and the simulator sees the saved URL, auth style and key on every
// request. tst_cli_connections covers the options the form cannot edit yet; this test proves the
// dialog and the CLI agree on the profile and on where its key lives. Runs under
// tests/unit/connections/run-keyring.sh real.
#include "cliprocess.h"
#include "connectionoptionsform.h"
#include "connections/connectionoptions.h"
#include "connections/connectionregistry.h"
#include "connections/keystore.h"
#include "connectionsdialog.h"
#include "loopbackrelays.h"
#include "store/runstore.h"
#include "uitesthelpers.h"

#include "openai/openaisim.h"

#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {
const QString kKey = u"sk-typed-into-the-dialog-71d2"_s;
const QString kName = u"azure from the dialog"_s;
} // namespace

class TestConnectionsDialogCli final : public QObject
{
    Q_OBJECT

    std::unique_ptr<RunwatchSim::OpenAiSimulator> m_sim;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<RunStore> m_store;
    std::unique_ptr<ConnectionRegistry> m_registry;
    std::unique_ptr<ConnectionsDialog> m_dialog;
    bool m_keyPrinted = false;

    QString storePath() const { return m_dir->filePath(u"runs.sqlite"_s); }

    RunwatchTest::CliResult cli(const QStringList &args)
    {
        const RunwatchTest::CliResult r
            = RunwatchTest::runCli(QStringList{u"--store"_s, storePath()} + args, this);
        if (r.out.contains(kKey.toUtf8()) || r.err.contains(kKey.toUtf8()))
            m_keyPrinted = true;
        return r;
    }

private Q_SLOTS:
    void initTestCase()
    {
        // Never a silent pass without the keyring: ctest runs this binary through the wrapper.
        if (qEnvironmentVariable("RUNWATCH_KEYRING") != u"real") {
            QFAIL("run through tests/unit/connections/run-keyring.sh real (ctest does): it provides the "
                  "keyring");
        }
        isolateSettings();
    }

    void init()
    {
        m_sim = std::make_unique<RunwatchSim::OpenAiSimulator>();
        m_sim->setIntervalMs(2);
        m_sim->setApiKey(kKey);
        QVERIFY(m_sim->listen());
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_store = std::make_unique<RunStore>();
        QVERIFY(m_store->open(storePath()));
        auto *keychain = new KeychainKeyStore(false);
        m_registry = std::make_unique<ConnectionRegistry>(nullptr, keychain, m_store.get());
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
        m_sim.reset();
        QVERIFY2(!std::exchange(m_keyPrinted, false), "runwatch-cli printed the API key");
    }

    void savedInTheDialogDrivesTheCli()
    {
        // The operator's clicks: new connection, the form, Save.
        QTest::mouseClick(m_dialog->addButton(), Qt::LeftButton);
        QTest::keyClicks(m_dialog->nameEdit(), kName);
        m_dialog->backendBox()->setCurrentText(u"openai"_s);
        QCOMPARE(m_dialog->backendBox()->currentText(), u"openai"_s);
        // The form offers OpenAI's URL: select it and type over it, as an operator does.
        QTest::keySequence(m_dialog->urlEdit(), QKeySequence::SelectAll);
        QTest::keyClicks(m_dialog->urlEdit(), m_sim->baseUrl().toString());
        QCOMPARE(m_dialog->urlEdit()->text(), m_sim->baseUrl().toString());
        m_dialog->authBox()->setCurrentIndex(m_dialog->authBox()->findData(int(AuthStyle::Header)));
        QTest::keyClicks(m_dialog->keyEdit(), kKey);
        QSignalSpy saved(m_dialog.get(), &ConnectionsDialog::saved);
        QTest::mouseClick(m_dialog->saveButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 20000);
        QCOMPARE(saved.first().first().toString(), kName);
        QCOMPARE(m_registry->profile(kName)->keyStorage, KeyStorage::Keychain);
        // The key went to the keychain, not into the store the CLI reads.
        m_store->close();
        QFile db(storePath());
        QVERIFY(db.open(QIODevice::ReadOnly));
        QVERIFY(!db.readAll().contains(kKey.toUtf8()));
        db.close();

        // The CLI lists it as the dialog saved it.
        const RunwatchTest::CliResult listed = cli({u"connections"_s});
        QCOMPARE(listed.exitCode, 0);
        QVERIFY2(listed.out.startsWith(QByteArray(kName.toUtf8() + ' ')), listed.out.constData());
        QVERIFY(listed.out.contains(m_sim->baseUrl().toString().toUtf8()));
        QVERIFY(listed.out.trimmed().endsWith("keychain"));

        // start --follow: the whole answer through the saved connection.
        const RunwatchTest::CliResult done = cli({u"--connection"_s, kName, u"start"_s, u"--prompt"_s,
                                                  u"normal deltas=20 interval_ms=5"_s, u"--follow"_s});
        QVERIFY2(done.exitCode == 0, done.err.constData());
        QCOMPARE(QString::fromUtf8(done.out), RunwatchSim::OpenAiSimulator::tokenText(20) + u'\n');

        // start, then watch it to the end in another process (reattach by the stored connection).
        const RunwatchTest::CliResult started = cli({u"--connection"_s, kName, u"--json"_s, u"start"_s,
                                                     u"--prompt"_s, u"normal deltas=30 interval_ms=10"_s});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        const QString id = RunwatchTest::runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        const RunwatchTest::CliResult watched = cli({u"--connection"_s, kName, u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(QString::fromUtf8(watched.out), RunwatchSim::OpenAiSimulator::tokenText(30) + u'\n');

        // status of a live run, then cancel it: confirmed by the server.
        const RunwatchTest::CliResult longRun = cli(
            {u"--connection"_s, kName, u"--json"_s, u"start"_s, u"--prompt"_s, u"long interval_ms=20"_s});
        QVERIFY2(longRun.exitCode == 0, longRun.err.constData());
        const QString longId = RunwatchTest::runIdFrom(longRun.out);
        // The simulator lives in this process and moves on only when it gets the CPU: under load
        // the status request and its 20 ms queued timer can come due in one event-loop turn, and
        // it answered "queued" (seen in a -j2 run). The CLI is asked once the server has moved.
        const QString remote = m_sim->lastResponseId();
        QTRY_COMPARE_WITH_TIMEOUT(m_sim->response(remote)->status, u"in_progress"_s, 10000);
        const RunwatchTest::CliResult running
            = cli({u"--connection"_s, kName, u"--json"_s, u"status"_s, longId});
        QVERIFY2(running.exitCode == 6, running.err.constData());
        QVERIFY2(running.out.contains("\"status\":\"in_progress\""), running.out.constData());
        const RunwatchTest::CliResult cancelled = cli({u"--connection"_s, kName, u"cancel"_s, longId});
        QVERIFY2(cancelled.exitCode == 4, cancelled.err.constData());
        QVERIFY(m_sim->requestCount(RunwatchSim::OpenAiEndpoint::Cancel) >= 1);

        // Every request carried what the form said: the api-key header with the typed key.
        const QList<RunwatchSim::OpenAiRequestRecord> requests = m_sim->requests();
        QVERIFY(requests.size() >= 6);
        for (const RunwatchSim::OpenAiRequestRecord &r : requests) {
            const QString what = QString::fromLatin1(r.method) + u' ' + r.path;
            QVERIFY2(r.header("api-key") == kKey.toUtf8(), qPrintable(what));
            QVERIFY2(r.header("authorization").isEmpty(), qPrintable(what));
            QVERIFY2(r.status != 401, qPrintable(what));
        }
    }

    // A proxy that wants a login, typed into the dialog with its password: the password goes to
    // the real keyring (not into the store file), the dialog shows the proxy without it, and the
    // CLI's requests reach the service through the proxy, which lets nobody in without that login.
    void proxyPasswordGoesToTheKeychain()
    {
        const QByteArray password = "pr0xy-pw-83d1";
        RunwatchTest::Socks5Proxy proxy;
        proxy.requireCredentials("ops", password);
        QVERIFY(proxy.listen());
        const QString name = u"behind a proxy"_s;
        QTest::mouseClick(m_dialog->addButton(), Qt::LeftButton);
        QTest::keyClicks(m_dialog->nameEdit(), name);
        m_dialog->backendBox()->setCurrentText(u"openai"_s);
        m_dialog->urlEdit()->setText(m_sim->baseUrl().toString());
        m_dialog->authBox()->setCurrentIndex(m_dialog->authBox()->findData(int(AuthStyle::Header)));
        QTest::keyClicks(m_dialog->keyEdit(), kKey);
        QLineEdit *proxyEdit = m_dialog->optionsForm()->edit(ConnectionOption::Proxy);
        QVERIFY(proxyEdit);
        QTest::keyClicks(
            proxyEdit,
            u"socks5://ops:%1@127.0.0.1:%2"_s.arg(QString::fromLatin1(password)).arg(proxy.port()));
        QSignalSpy saved(m_dialog.get(), &ConnectionsDialog::saved);
        QTest::mouseClick(m_dialog->saveButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 20000);
        const QString shown = u"socks5://ops@127.0.0.1:%1"_s.arg(proxy.port());
        QCOMPARE(m_registry->profile(name)->connection.options.value(u"proxy"_s).toString(), shown);
        m_dialog->selectConnection(name);
        QCOMPARE(proxyEdit->text(), shown);
        m_store->close();
        QFile db(storePath());
        QVERIFY(db.open(QIODevice::ReadOnly));
        const QByteArray bytes = db.readAll();
        QVERIFY(bytes.contains(shown.toUtf8()));
        QVERIFY(!bytes.contains(password));
        db.close();

        const RunwatchTest::CliResult done = cli({u"--connection"_s, name, u"start"_s, u"--prompt"_s,
                                                  u"normal deltas=10 interval_ms=5"_s, u"--follow"_s});
        QVERIFY2(done.exitCode == 0, done.err.constData());
        QCOMPARE(QString::fromUtf8(done.out), RunwatchSim::OpenAiSimulator::tokenText(10) + u'\n');
        const QString target = u"127.0.0.1:%1"_s.arg(m_sim->baseUrl().port());
        QVERIFY2(proxy.targets().contains(target), qPrintable(proxy.targets().join(u", "_s)));
        QCOMPARE(proxy.refusedLogins(), 0);
        QVERIFY(!done.err.contains(password) && !done.out.contains(password));
    }
};

QTEST_MAIN(TestConnectionsDialogCli)
#include "tst_connectionsdialog_cli.moc"
