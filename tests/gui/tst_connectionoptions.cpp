// SPDX-License-Identifier: GPL-3.0-or-later
// Every connection option through the Connections dialog, into the saved connection (the run
// store, read back as the CLI and the next launch read it) and onto the wire against the loopback
// simulators: Azure's api-version query and api-key header style, OpenAI's organization and
// project headers, a jobs profile (checked as typed, then driving a differently shaped server),
// a SOCKS5 proxy and a CA bundle (a TLS front with the test certificate). No keyring is needed:
// these connections have no key, or a key only the opt-in session store keeps.
#include "backends/jobs/jobsconnector.h"
#include "backends/openai/openaiconnector.h"
#include "connectionoptionsform.h"
#include "connections/connectionoptions.h"
#include "connections/connectionregistry.h"
#include "connections/keystore.h"
#include "connectionsdialog.h"
#include "connectionsdialogrig.h"
#include "loopbackrelays.h"
#include "store/runstore.h"
#include "testdata.h"
#include "uitesthelpers.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSslKey>
#include <QSslSocket>
#include <QUrlQuery>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

class TestConnectionOptions final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<ConnectionsDialogRig> m_rig;

    QLineEdit *option(QLatin1StringView key) const { return m_rig->dialog->optionsForm()->edit(key); }

    void fill(const QString &name, const QString &backend, const QUrl &url)
    {
        m_rig->dialog->startNew();
        m_rig->dialog->nameEdit()->setText(name);
        m_rig->dialog->backendBox()->setCurrentText(backend);
        m_rig->dialog->urlEdit()->setText(url.toString());
        m_rig->dialog->authBox()->setCurrentIndex(m_rig->dialog->authBox()->findData(int(AuthStyle::None)));
        if (auto *model = m_rig->dialog->findChild<QLineEdit *>(u"connectionModel"_s))
            model->setText(backend == u"openai" ? u"runwatch-sim-1"_s : QString());
    }

    // Saves the form and returns the connection as the store holds it now.
    std::optional<Connection> save(const QString &name)
    {
        QSignalSpy saved(m_rig->dialog.get(), &ConnectionsDialog::saved);
        if (!m_rig->dialog->saveButton()->isEnabled())
            return std::nullopt;
        QTest::mouseClick(m_rig->dialog->saveButton(), Qt::LeftButton);
        if (!QTest::qWaitFor([&] { return saved.count() == 1; }, 10000))
            return std::nullopt;
        // What another process (the CLI) or the next launch reads.
        ConnectionRegistry reader(nullptr, nullptr, &m_rig->store);
        const auto p = reader.savedProfile(name);
        return p ? std::optional<Connection>(p->connection) : std::nullopt;
    }

    bool runCompletes(const QString &connection, const QString &prompt)
    {
        const QString id = m_rig->engine.start(connection, prompt);
        const bool done = QTest::qWaitFor([&] { return isTerminal(m_rig->engine.status(id)); }, 20000);
        if (!done || m_rig->engine.status(id) != RunStatus::Completed) {
            const Run *run = m_rig->engine.manager.run(id);
            qWarning("run on %s: %s %s", qPrintable(connection),
                     qPrintable(statusName(m_rig->engine.status(id))),
                     run ? qPrintable(run->error.toString()) : "");
            return false;
        }
        return true;
    }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }

    void init()
    {
        QSettings().clear();
        m_rig = std::make_unique<ConnectionsDialogRig>();
        QVERIFY(m_rig->open());
    }

    void cleanup() { m_rig.reset(); }

    // Only the chosen backend's options are offered; the common ones (the token command and the
    // transport's) are offered for every one.
    void fieldsFollowTheBackend()
    {
        const QList<std::pair<QString, QStringList>> expected{
            {u"openai"_s, {u"organization"_s, u"project"_s, u"api_version"_s}},
            {u"foundry"_s, {u"api_version"_s}},
            {u"jobs"_s, {u"profile_file"_s}},
            {u"a2a"_s, {}}};
        const QStringList all{u"organization"_s, u"project"_s,   u"api_version"_s, u"token_command"_s,
                              u"profile_file"_s, u"ca_bundle"_s, u"proxy"_s};
        // RUNWATCH_SCREENSHOT_DIR=DIR keeps the dialog of each backend for a look by eye.
        const QString shots = qEnvironmentVariable("RUNWATCH_SCREENSHOT_DIR");
        for (const auto &[backend, own] : expected) {
            m_rig->dialog->backendBox()->setCurrentText(backend);
            if (!shots.isEmpty())
                QVERIFY(m_rig->dialog->grab().save(shots + u"/connections-"_s + backend + u".png"_s));
            for (const QString &key : all) {
                const bool shown
                    = own.contains(key) || key == u"token_command" || key == u"ca_bundle" || key == u"proxy";
                QVERIFY2(m_rig->dialog->optionsForm()->edit(key)->isVisible() == shown,
                         qPrintable(backend + u' ' + key));
            }
        }
    }

    // The Header style's name field: shown only with that style, checked as typed, saved as
    // Connection::authHeader, shown again, and the name the credential goes out under (here a
    // token command's token, so that no keychain is needed). Dialog → store → engine → wire.
    void headerNameReachesTheWire()
    {
        fill(u"gemini-like"_s, u"openai"_s, m_rig->engine.sim.baseUrl());
        QLineEdit *header = m_rig->dialog->authHeaderEdit();
        QVERIFY(!header->isVisible());
        m_rig->dialog->authBox()->setCurrentIndex(m_rig->dialog->authBox()->findData(int(AuthStyle::Header)));
        QVERIFY(header->isVisible());
        QCOMPARE(header->text(), u"api-key"_s); // what the style starts with
        header->setText(u"x goog api key"_s);
        QVERIFY(!m_rig->dialog->saveButton()->isEnabled());
        auto *problems = m_rig->dialog->findChild<QLabel *>(u"connectionOptionProblems"_s);
        QVERIFY(problems && problems->text().contains(u"x goog api key"_s));
        header->setText(u"x-goog-api-key"_s);
        QVERIFY(m_rig->dialog->saveButton()->isEnabled());
        option(ConnectionOption::TokenCommand)->setText(u"printf %s tok-in-a-header"_s);
        const auto stored = save(u"gemini-like"_s);
        QVERIFY(stored);
        QCOMPARE(stored->auth, AuthStyle::Header);
        QCOMPARE(stored->authHeader, u"x-goog-api-key"_s);
        m_rig->dialog->startNew();
        QCOMPARE(header->text(), u"api-key"_s);
        m_rig->dialog->selectConnection(u"gemini-like"_s);
        QCOMPARE(header->text(), u"x-goog-api-key"_s);
        QVERIFY(header->isVisible());

        QVERIFY(runCompletes(u"gemini-like"_s, u"normal deltas=3"_s));
        const auto requests = m_rig->engine.sim.requests();
        QVERIFY(!requests.isEmpty());
        for (const auto &r : requests) {
            QCOMPARE(r.header("x-goog-api-key"), QByteArray("tok-in-a-header"));
            QVERIFY(r.header("authorization").isEmpty());
        }
    }

    // Azure OpenAI: api-version on every request's query, the key in the api-key header;
    // OpenAI's organization and project headers. Dialog → store → engine → wire.
    void openAiOptionsReachTheWire()
    {
        m_rig->engine.sim.setApiKey(u"azure-key-7"_s);
        fill(u"azure"_s, u"openai"_s, m_rig->engine.sim.baseUrl());
        m_rig->dialog->authBox()->setCurrentIndex(m_rig->dialog->authBox()->findData(int(AuthStyle::Header)));
        option(OpenAiOption::ApiVersion)->setText(u"2025-04-01-preview"_s);
        option(OpenAiOption::Organization)->setText(u"org-cockpit"_s);
        option(OpenAiOption::Project)->setText(u"proj_42"_s);
        // A key without a keychain: the explicit session-only opt-in.
        m_rig->dialog->keyEdit()->setText(u"azure-key-7"_s);
        QTest::mouseClick(m_rig->dialog->saveButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(m_rig->dialog->keychainWarning()->isVisible(), 20000);
        QSignalSpy saved(m_rig->dialog.get(), &ConnectionsDialog::saved);
        QTest::mouseClick(m_rig->dialog->sessionButton(), Qt::LeftButton);
        QTRY_COMPARE(saved.count(), 1);
        ConnectionRegistry reader(nullptr, nullptr, &m_rig->store);
        const auto stored = reader.savedProfile(u"azure"_s);
        QVERIFY(stored);
        QCOMPARE(stored->connection.auth, AuthStyle::Header);
        QCOMPARE(stored->connection.authHeader, u"api-key"_s);
        QCOMPARE(stored->connection.options.value(u"api_version"_s).toString(), u"2025-04-01-preview"_s);
        QCOMPARE(stored->connection.options.value(u"organization"_s).toString(), u"org-cockpit"_s);
        QCOMPARE(stored->connection.options.value(u"project"_s).toString(), u"proj_42"_s);

        QVERIFY(runCompletes(u"azure"_s, u"normal deltas=3"_s));
        const auto requests = m_rig->engine.sim.requests();
        QVERIFY(!requests.isEmpty());
        for (const auto &r : requests) {
            QCOMPARE(QUrlQuery(r.query).queryItemValue(u"api-version"_s), u"2025-04-01-preview"_s);
            QCOMPARE(r.header("api-key"), QByteArray("azure-key-7"));
            QVERIFY(r.header("authorization").isEmpty());
            QCOMPARE(r.header("openai-organization"), QByteArray("org-cockpit"));
            QCOMPARE(r.header("openai-project"), QByteArray("proj_42"));
        }

        // Edited again: a cleared option is gone from the store and from the wire.
        m_rig->dialog->selectConnection(u"azure"_s);
        QCOMPARE(option(OpenAiOption::Project)->text(), u"proj_42"_s);
        option(OpenAiOption::Project)->clear();
        const auto edited = save(u"azure"_s);
        QVERIFY(edited);
        QVERIFY(!edited->options.contains(u"project"_s));
        m_rig->engine.sim.resetCounters();
        QVERIFY(runCompletes(u"azure"_s, u"normal deltas=2"_s));
        for (const auto &r : m_rig->engine.sim.requests())
            QVERIFY(r.header("openai-project").isEmpty());
    }

    // A jobs profile is read as typed: its error names the JSON pointer, and Save waits; fixed,
    // it drives a server of another shape.
    void jobsProfileCheckedAndUsed()
    {
        RunwatchSim::JobsSimConfig config = Engine::jobsConfig();
        config.shape = RunwatchSim::JobsShape::Alternate;
        RunwatchSim::JobsSimulator alternate(config);
        QVERIFY(alternate.listen());
        const QString path = m_rig->dir.filePath(u"profile.json"_s);
        QFile bad(path);
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(R"({"pointers": {"status": "state"}})");
        bad.close();

        fill(u"acme"_s, u"jobs"_s, alternate.baseUrl());
        option(JobsOption::ProfileFile)->setText(path);
        QLabel *problems = m_rig->dialog->optionsForm()->problemsLabel();
        QVERIFY(problems->isVisible());
        QVERIFY2(problems->text().contains(u"/pointers/status"_s), qPrintable(problems->text()));
        QVERIFY(!m_rig->dialog->saveButton()->isEnabled());
        option(JobsOption::ProfileFile)->setText(u"relative/profile.json"_s);
        QVERIFY(problems->text().contains(u"full path"_s));

        QVERIFY(bad.open(QIODevice::WriteOnly | QIODevice::Truncate));
        bad.write(RunwatchTest::readData(u"jobs/alternate-profile.json"_s));
        bad.close();
        option(JobsOption::ProfileFile)->setText(path);
        QVERIFY2(!problems->isVisible(), qPrintable(problems->text()));
        const auto stored = save(u"acme"_s);
        QVERIFY(stored);
        QCOMPARE(stored->options.value(u"profile_file"_s).toString(), path);
        QVERIFY(runCompletes(u"acme"_s, u"normal deltas=3 interval_ms=2"_s));
        QVERIFY(!alternate.requests().isEmpty());
        // The profile's paths, not the contract's defaults (/jobs).
        QCOMPARE(alternate.requests().first().method, QByteArray("POST"));
        QVERIFY2(alternate.requests().first().path.endsWith(u"/v2/tasks"_s),
                 qPrintable(alternate.requests().first().path));
        Engine::stopAll(&m_rig->engine.manager);
    }

    // Foundry: api-version and the token command are saved (the token command's run is
    // tst_foundry_e2e's); a command with unbalanced quotes is refused as typed.
    void foundryOptionsSaved()
    {
        fill(u"foundry"_s, u"foundry"_s, QUrl(u"https://res.services.ai.azure.com/api/projects/p1"_s));
        option(ConnectionOption::TokenCommand)->setText(u"az account get-access-token \"--query"_s);
        QVERIFY(!m_rig->dialog->saveButton()->isEnabled());
        option(ConnectionOption::TokenCommand)->setText(u"printf %s tok"_s);
        option(OpenAiOption::ApiVersion)->setText(u"2025-05-15-preview"_s);
        const auto stored = save(u"foundry"_s);
        QVERIFY(stored);
        QCOMPARE(stored->options.value(u"token_command"_s).toString(), u"printf %s tok"_s);
        QCOMPARE(stored->options.value(u"api_version"_s).toString(), u"2025-05-15-preview"_s);
        // Switching the backend drops options that no longer apply; the token command applies to
        // every backend and stays.
        m_rig->dialog->selectConnection(u"foundry"_s);
        m_rig->dialog->backendBox()->setCurrentText(u"a2a"_s);
        const auto switched = save(u"foundry"_s);
        QVERIFY(switched);
        QVERIFY(!switched->options.contains(u"api_version"_s));
        // The token command is every backend's.
        QCOMPARE(switched->options.value(u"token_command"_s).toString(), u"printf %s tok"_s);
    }

    // Foundry: the token command's output is the Bearer token of every request and the
    // api-version is on every request's query. Dialog → store → engine → wire.
    void foundryOptionsReachTheWire()
    {
        m_rig->engine.foundry.setToken(u"tok-from-dialog"_s);
        fill(u"project"_s, u"foundry"_s, m_rig->engine.foundry.baseUrl());
        option(ConnectionOption::TokenCommand)->setText(u"printf %s tok-from-dialog"_s);
        option(OpenAiOption::ApiVersion)->setText(u"2025-05-15-preview"_s);
        QVERIFY(save(u"project"_s));
        StartRequest request;
        request.prompt = u"normal deltas=3"_s;
        request.agent = u"asst_sim_weather"_s;
        const QString id = m_rig->engine.manager.startRun(u"project"_s, request);
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(m_rig->engine.status(id)), 20000);
        QCOMPARE(m_rig->engine.status(id), RunStatus::Completed);
        // The run completes on the stream's terminal event; the stream then reads the messages
        // once more (the service's own text), a request that may still be on its way: wait for
        // it to be answered before reading the log.
        const auto answered = [this] {
            const auto requests = m_rig->engine.foundry.requests();
            return requests.size() >= 2 && std::all_of(requests.cbegin(), requests.cend(), [](const auto &r) {
                       return r.status != 0;
                   });
        };
        QTRY_VERIFY_WITH_TIMEOUT(answered(), 20000);
        const auto requests = m_rig->engine.foundry.requests();
        for (const auto &r : requests) {
            QCOMPARE(r.header("authorization"), QByteArray("Bearer tok-from-dialog"));
            QCOMPARE(r.apiVersion, u"2025-05-15-preview"_s);
            QCOMPARE(r.status / 100, 2);
        }
    }

    // A connection's default time budget, typed in the dialog, is checked as typed and becomes
    // the deadline of each new run on it.
    void defaultTimeBudgetGivesNewRunsADeadline()
    {
        fill(u"budgeted"_s, u"openai"_s, m_rig->engine.sim.baseUrl());
        option(ConnectionOption::DefaultTimeBudget)->setText(u"two hours"_s);
        QVERIFY(!m_rig->dialog->saveButton()->isEnabled());
        QVERIFY(!m_rig->dialog->optionsForm()->problemsLabel()->text().isEmpty());
        option(ConnectionOption::DefaultTimeBudget)->setText(u"2h"_s);
        QVERIFY2(m_rig->dialog->saveButton()->isEnabled(),
                 qPrintable(m_rig->dialog->optionsForm()->problemsLabel()->text()));
        const auto stored = save(u"budgeted"_s);
        QVERIFY(stored);
        QCOMPARE(stored->options.value(u"default_time_budget"_s).toString(), u"2h"_s);
        const QString id = m_rig->engine.start(u"budgeted"_s, u"normal deltas=2"_s);
        const Run *run = m_rig->engine.manager.run(id);
        QVERIFY(run && run->deadlineAt.isValid());
        QCOMPARE(run->createdAt.msecsTo(run->deadlineAt), qint64(2) * 3600 * 1000);
        QVERIFY(!run->cancelAtDeadline);
        QTRY_VERIFY_WITH_TIMEOUT(isTerminal(m_rig->engine.status(id)), 20000);
    }

    // Plain http to a host that is not loopback needs the explicit opt-in before Save.
    void plainHttpNeedsTheOptIn()
    {
        fill(u"lan"_s, u"openai"_s, QUrl(u"http://192.0.2.10:8080/v1"_s));
        QVERIFY(!m_rig->dialog->saveButton()->isEnabled());
        QVERIFY(m_rig->dialog->optionsForm()->problemsLabel()->text().contains(u"http"_s));
        m_rig->dialog->insecureBox()->setChecked(true);
        QVERIFY(m_rig->dialog->saveButton()->isEnabled());
        const auto stored = save(u"lan"_s);
        QVERIFY(stored);
        QVERIFY(stored->allowInsecureHttp);
    }

    // Every request of the connection goes through its proxy (SOCKS5 on loopback).
    void proxyCarriesTheRequests()
    {
        RunwatchTest::Socks5Proxy proxy;
        QVERIFY(proxy.listen());
        fill(u"proxied"_s, u"openai"_s, m_rig->engine.sim.baseUrl());
        option(ConnectionOption::Proxy)->setText(u"socks5://127.0.0.1"_s);
        QVERIFY(!m_rig->dialog->saveButton()->isEnabled()); // no port
        option(ConnectionOption::Proxy)->setText(u"socks5://127.0.0.1:%1"_s.arg(proxy.port()));
        const auto stored = save(u"proxied"_s);
        QVERIFY(stored);
        QCOMPARE(stored->options.value(u"proxy"_s).toString(), u"socks5://127.0.0.1:%1"_s.arg(proxy.port()));
        QVERIFY(runCompletes(u"proxied"_s, u"normal deltas=3"_s));
        const QString target = u"127.0.0.1:%1"_s.arg(m_rig->engine.sim.baseUrl().port());
        QVERIFY2(proxy.targets().contains(target), qPrintable(proxy.targets().join(u", "_s)));

        // "Test connection" checks what is entered: through the proxy, too.
        const qsizetype tunnels = proxy.targets().size();
        QSignalSpy tested(m_rig->dialog.get(), &ConnectionsDialog::tested);
        QTest::mouseClick(m_rig->dialog->testButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 1, 20000);
        QVERIFY2(tested.first().at(0).toBool(), qPrintable(tested.first().at(1).toString()));
        QVERIFY(proxy.targets().size() > tunnels);
        // …and a proxy that is not there fails the test.
        option(ConnectionOption::Proxy)->setText(u"socks5://127.0.0.1:1"_s);
        QTest::mouseClick(m_rig->dialog->testButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 2, 20000);
        QVERIFY(!tested.at(1).at(0).toBool());
    }

    // A CA bundle makes a service with a private certificate reachable; without it, TLS fails.
    void caBundleIsTrusted()
    {
        QVERIFY(QSslSocket::supportsSsl());
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setLocalCertificate(QSslCertificate(RunwatchTest::readData(u"tls/cert.pem"_s)));
        tls.setPrivateKey(QSslKey(RunwatchTest::readData(u"tls/key.pem"_s), QSsl::Rsa));
        tls.setPeerVerifyMode(QSslSocket::VerifyNone);
        RunwatchTest::TlsRelay relay(quint16(m_rig->engine.sim.baseUrl().port()), tls);
        QVERIFY(relay.listen());
        QUrl url = m_rig->engine.sim.baseUrl();
        url.setScheme(u"https"_s);
        url.setPort(relay.port());

        fill(u"untrusted"_s, u"openai"_s, url);
        QVERIFY(save(u"untrusted"_s));
        const QString refused = m_rig->engine.start(u"untrusted"_s, u"normal deltas=2"_s);
        QTRY_VERIFY_WITH_TIMEOUT(m_rig->engine.manager.run(refused)->error.code == u"tls_error"_s, 20000);

        fill(u"private-ca"_s, u"openai"_s, url);
        option(ConnectionOption::CaBundle)->setText(m_rig->dir.filePath(u"missing.pem"_s));
        QVERIFY(!m_rig->dialog->saveButton()->isEnabled());
        option(ConnectionOption::CaBundle)->setText(RunwatchTest::dataPath(u"tls/cert.pem"_s));
        const auto stored = save(u"private-ca"_s);
        QVERIFY(stored);
        QCOMPARE(stored->options.value(u"ca_bundle"_s).toString(), RunwatchTest::dataPath(u"tls/cert.pem"_s));
        QVERIFY(runCompletes(u"private-ca"_s, u"normal deltas=3"_s));
        QVERIFY(relay.encryptedConnections() > 0);
    }
};

QTEST_MAIN(TestConnectionOptions)
#include "tst_connectionoptions.moc"
