// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli --connection NAME uses the connection the app saved: a profile saved through core's
// ConnectionRegistry exactly as the Connections dialog saves it (Azure auth, options, the key in
// a real gnome-keyring) drives start, watch, status and cancel against the simulator, which sees
// the options and the key on every request. Also: a stored run reattaches through its saved
// connection without --connection, --api-key-env overrides the saved key, `connections` lists the
// profiles, a Session key is refused with a clear message, a profile from before the key storage
// was saved with it still works. Runs under tests/unit/connections/run-keyring.sh real.
#include "awaitwithin.h"
#include "cliprocess.h"
#include "connections/connectionregistry.h"
#include "connections/keychain.h"
#include "connections/keystore.h"
#include "openai/openaisim.h"
#include "store/runstore.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUrlQuery>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::awaitWithin;

namespace {

const QString kKey = u"sk-saved-in-the-keychain-4b7c"_s;
const QString kApiVersion = u"2024-10-21"_s;

using Result = RunwatchTest::CliResult;
using RunwatchTest::runIdFrom;

} // namespace

class TestCliConnections final : public QObject
{
    Q_OBJECT

    RunwatchSim::OpenAiSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;
    RunStore *m_store = nullptr;
    ConnectionRegistry *m_registry = nullptr;
    bool m_keyPrinted = false;

    QString storePath() const { return m_dir->filePath(u"runs.sqlite"_s); }

    // The CLI as a separate process on the same store and keyring, without blocking our event
    // loop (the simulator lives in it).
    Result cli(const QStringList &args, const QStringList &extraEnv = {})
    {
        const Result r = RunwatchTest::runCli(QStringList{u"--store"_s, storePath()} + args, this, extraEnv);
        if (r.out.contains(kKey.toUtf8()) || r.err.contains(kKey.toUtf8()))
            m_keyPrinted = true; // cleanup() fails the test
        return r;
    }

    // What the dialog's form gives for an Azure OpenAI deployment, with connection options.
    ConnectionProfile azureProfile(const QString &name) const
    {
        ConnectionProfile p;
        p.connection.name = name;
        p.connection.backend = u"openai"_s;
        p.connection.baseUrl = m_sim->baseUrl();
        p.connection.auth = AuthStyle::Header;
        p.connection.authHeader = u"api-key"_s;
        p.connection.defaultModel = u"runwatch-sim-1"_s;
        p.connection.options.insert(u"api_version"_s, kApiVersion);
        p.connection.options.insert(u"project"_s, u"proj_cli"_s);
        return p;
    }

    // Every request the simulator received carried the saved key and options.
    void verifyEveryRequestCarriesTheConnection(int atLeast)
    {
        const QList<RunwatchSim::OpenAiRequestRecord> requests = m_sim->requests();
        QVERIFY2(requests.size() >= atLeast, qPrintable(QString::number(requests.size())));
        for (const RunwatchSim::OpenAiRequestRecord &r : requests) {
            const QString what = QString::fromLatin1(r.method) + u' ' + r.path + u'?' + r.query;
            QVERIFY2(r.header("api-key") == kKey.toUtf8(), qPrintable(what));
            QVERIFY2(r.header("authorization").isEmpty(), qPrintable(what));
            QVERIFY2(r.header("openai-project") == "proj_cli", qPrintable(what));
            QVERIFY2(QUrlQuery(r.query).queryItemValue(u"api-version"_s) == kApiVersion, qPrintable(what));
            QVERIFY2(r.status != 401, qPrintable(what));
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (qEnvironmentVariable("RUNWATCH_KEYRING") != u"real") {
            QFAIL("run through tests/unit/connections/run-keyring.sh real (ctest does): it provides the "
                  "keyring");
        }
    }

    void init()
    {
        m_sim = new RunwatchSim::OpenAiSimulator(this);
        m_sim->setIntervalMs(2);
        m_sim->setApiKey(kKey);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
        m_store = new RunStore(this);
        QVERIFY(m_store->open(storePath()));
        m_registry = new ConnectionRegistry(nullptr, new KeychainKeyStore(false, this), m_store, this);
    }

    void cleanup()
    {
        for (const QString &name : m_registry->names())
            awaitWithin(m_registry->remove(name));
        delete m_registry;
        delete m_store;
        delete m_sim;
        delete m_dir;
        const bool printed = std::exchange(m_keyPrinted, false);
        QVERIFY2(!printed, "runwatch-cli printed the API key");
    }

    // Saved as the dialog saves it (key to the keychain), then used by every command.
    void savedConnectionDrivesEveryCommand()
    {
        const auto saved = awaitWithin(m_registry->save(azureProfile(u"azure"_s), {}, kKey));
        QVERIFY(saved);
        QVERIFY2(saved->ok, qPrintable(saved->error));
        QCOMPARE(m_registry->profile(u"azure"_s)->keyStorage, KeyStorage::Keychain);

        const Result started = cli({u"--connection"_s, u"azure"_s, u"--json"_s, u"start"_s, u"--prompt"_s,
                                    u"normal deltas=30 interval_ms=10 drop_after=5"_s});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        // Reattached without --connection: the stored run names its saved connection.
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(QString::fromUtf8(watched.out), RunwatchSim::OpenAiSimulator::tokenText(30) + u'\n');

        const Result longRun = cli({u"--connection"_s, u"azure"_s, u"--json"_s, u"start"_s, u"--prompt"_s,
                                    u"long interval_ms=20"_s});
        QVERIFY2(longRun.exitCode == 0, longRun.err.constData());
        const QString longId = runIdFrom(longRun.out);
        // The saved default model, as no --model was given.
        QCOMPARE(m_sim->response(m_sim->lastResponseId())->model, u"runwatch-sim-1"_s);
        // The simulator lives in this process and moves on only when it gets the CPU: under load
        // the status request and its 20 ms queued timer can come due in one event-loop turn, and
        // it answered "queued" (seen in -j2 runs). The CLI is asked once the server has moved.
        QTRY_COMPARE_WITH_TIMEOUT(m_sim->response(m_sim->lastResponseId())->status, u"in_progress"_s, 10000);
        const Result running = cli({u"--connection"_s, u"azure"_s, u"--json"_s, u"status"_s, longId});
        QVERIFY2(running.exitCode == 6, running.err.constData());
        QVERIFY2(running.out.contains("\"status\":\"in_progress\""), running.out.constData());
        const Result cancelled = cli({u"--connection"_s, u"azure"_s, u"cancel"_s, longId});
        QVERIFY2(cancelled.exitCode == 4, cancelled.err.constData());
        const Result status = cli({u"status"_s, longId});
        QCOMPARE(status.exitCode, 4);

        QVERIFY(m_sim->requestCount(RunwatchSim::OpenAiEndpoint::Cancel) >= 1);
        verifyEveryRequestCarriesTheConnection(6);
    }

    // --api-key-env still wins over the saved key.
    void apiKeyEnvOverridesSavedKey()
    {
        QVERIFY(awaitWithin(m_registry->save(azureProfile(u"azure"_s), {}, kKey))->ok);
        const Result wrong = cli({u"--connection"_s, u"azure"_s, u"--api-key-env"_s, u"OTHER_KEY"_s,
                                  u"start"_s, u"--prompt"_s, u"normal deltas=2"_s, u"--follow"_s},
                                 {u"OTHER_KEY=sk-not-the-saved-one"_s});
        QCOMPARE(wrong.exitCode, 1);
        QVERIFY2(wrong.err.contains("auth"), wrong.err.constData());
        QVERIFY(m_sim->requests().last().header("api-key") == "sk-not-the-saved-one");
    }

    // `connections` lists what the app saved, with where each key lives, and never a key.
    void connectionsCommandLists()
    {
        QVERIFY(awaitWithin(m_registry->save(azureProfile(u"azure"_s), {}, kKey))->ok);
        ConnectionProfile local = azureProfile(u"local sim"_s);
        local.connection.auth = AuthStyle::None;
        QVERIFY(awaitWithin(m_registry->save(local, {}, QString()))->ok);

        const Result human = cli({u"connections"_s});
        QCOMPARE(human.exitCode, 0);
        const QList<QByteArray> lines = human.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines.at(0).startsWith("azure "));
        QVERIFY(lines.at(0).contains(m_sim->baseUrl().toString().toUtf8()));
        QVERIFY(lines.at(0).contains("openai"));
        QVERIFY2(lines.at(0).contains(" header:api-key "), lines.at(0).constData());
        QVERIFY(lines.at(0).endsWith("keychain"));
        QVERIFY(lines.at(1).startsWith("local sim"));
        QVERIFY(lines.at(1).endsWith("no key"));

        const Result json = cli({u"connections"_s, u"--json"_s});
        QCOMPARE(json.exitCode, 0);
        const QList<QByteArray> objects = json.out.trimmed().split('\n');
        QCOMPARE(objects.size(), 2);
        const QJsonObject azure = QJsonDocument::fromJson(objects.first()).object();
        QCOMPARE(azure.value(u"type"_s).toString(), u"connection"_s);
        QCOMPARE(azure.value(u"name"_s).toString(), u"azure"_s);
        QCOMPARE(azure.value(u"backend"_s).toString(), u"openai"_s);
        QCOMPARE(azure.value(u"url"_s).toString(), m_sim->baseUrl().toString());
        // The style's one name (saved connections from before it still read "api-key").
        QCOMPARE(azure.value(u"auth"_s).toString(), u"header:api-key"_s);
        QCOMPARE(azure.value(u"key_storage"_s).toString(), u"keychain"_s);
        QCOMPARE(QJsonDocument::fromJson(objects.last()).object().value(u"key_storage"_s).toString(),
                 u"none"_s);
    }

    // A key the app kept for its session only cannot reach the CLI: it says so. The plain-file
    // opt-in can (here the keychain takes it, as Keychain tries it first).
    void weakerStores()
    {
        QVERIFY(awaitWithin(m_registry->saveWithWeakerStore(azureProfile(u"session"_s), {}, kKey,
                                                            KeyStorage::Session))
                    ->ok);
        const Result refused
            = cli({u"--connection"_s, u"session"_s, u"start"_s, u"--prompt"_s, u"normal deltas=2"_s});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("session only") && refused.err.contains("cannot reach another process")
                     && refused.err.contains("--api-key-env"),
                 refused.err.constData());
        QCOMPARE(m_sim->requestCount(), 0);

        QVERIFY(awaitWithin(m_registry->saveWithWeakerStore(azureProfile(u"plain"_s), {}, kKey,
                                                            KeyStorage::Plaintext))
                    ->ok);
        const Result ok = cli(
            {u"--connection"_s, u"plain"_s, u"start"_s, u"--prompt"_s, u"normal deltas=3"_s, u"--follow"_s});
        QVERIFY2(ok.exitCode == 0, ok.err.constData());
        verifyEveryRequestCarriesTheConnection(1);
    }

    // Usage: an unknown name says which exist; --connection does not mix with --url & co.
    void badConnectionArguments()
    {
        QVERIFY(awaitWithin(m_registry->save(azureProfile(u"azure"_s), {}, kKey))->ok);
        const Result unknown = cli({u"--connection"_s, u"nope"_s, u"start"_s, u"--prompt"_s, u"x"_s});
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY2(unknown.err.contains("no saved connection \"nope\" (saved: azure)"),
                 unknown.err.constData());
        const Result mixed = cli({u"--connection"_s, u"azure"_s, u"--url"_s, m_sim->baseUrl().toString(),
                                  u"start"_s, u"--prompt"_s, u"x"_s});
        QCOMPARE(mixed.exitCode, 2);
        QCOMPARE(m_sim->requestCount(), 0);
    }

    // A profile saved before the key storage was part of it (its key in the keychain): the CLI
    // migrates it and uses its key.
    void legacyProfileStillWorks()
    {
        Connection legacy = azureProfile(u"legacy"_s).connection;
        QVERIFY(m_store->saveConnectionConfig(legacy.name,
                                              legacy.toJson())); // no key_storage, as older versions saved it
        Keychain secrets;
        const auto written = awaitWithin(secrets.write(KeyStore::connectionKey(u"legacy"_s), kKey));
        QVERIFY(written && written->ok());
        const Result ok = cli(
            {u"--connection"_s, u"legacy"_s, u"start"_s, u"--prompt"_s, u"normal deltas=3"_s, u"--follow"_s});
        QVERIFY2(ok.exitCode == 0, ok.err.constData());
        verifyEveryRequestCarriesTheConnection(1);
        const QList<QJsonObject> configs = m_store->loadConnectionConfigs();
        QCOMPARE(configs.size(), 1);
        QCOMPARE(configs.first().value(u"key_storage"_s).toString(), u"keychain"_s);
        QVERIFY(awaitWithin(secrets.remove(KeyStore::connectionKey(u"legacy"_s))));
        QVERIFY(m_store->removeConnection(u"legacy"_s));
    }
};

QTEST_GUILESS_MAIN(TestCliConnections)
#include "tst_cli_connections.moc"
