// SPDX-License-Identifier: GPL-3.0-or-later
// The saved connections' rules in core, without a keychain (a stand-in KeyStore that can be made
// to fail): a profile says where its key lives and that is saved in the run store, so another
// process (the CLI) reads the same; the key goes to the keychain and only an explicit opt-in puts
// it elsewhere; a Session key does not outlive its process; profiles from before the key storage
// was part of them are migrated from the old QSettings entry, once; renames and removals take
// their keys along. Real keyring round trips: tst_keychain and tst_cli_connections.
#include "awaitwithin.h"
#include "connections/connectionregistry.h"
#include "connections/keystore.h"
#include "engine/runmanager.h"
#include "store/runstore.h"

#include <QJsonDocument>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::awaitWithin;

namespace {

const QString kKey = u"sk-registry-test-5e1d"_s;

// The OS keychain's stand-in: a map, or "no Secret Service" when unavailable.
class FakeKeychain final : public KeyStore
{
public:
    using KeyStore::KeyStore;

    bool available = true;
    QHash<QString, QString> secrets;

    QString displayName() const override { return u"fake keychain"_s; }
    QCoro::Task<Result> read(QString key) override
    {
        if (!available)
            co_return Result{Status::Unavailable, {}, u"no Secret Service"_s};
        if (!secrets.contains(key))
            co_return Result{Status::NotFound, {}, u"not found"_s};
        co_return Result{Status::Ok, secrets.value(key), {}};
    }
    QCoro::Task<Result> write(QString key, QString secret) override
    {
        if (!available)
            co_return Result{Status::Unavailable, {}, u"no Secret Service"_s};
        secrets.insert(key, secret);
        co_return Result{Status::Ok, {}, {}};
    }
    QCoro::Task<Result> remove(QString key) override
    {
        if (!available)
            co_return Result{Status::Unavailable, {}, u"no Secret Service"_s};
        secrets.remove(key);
        co_return Result{Status::Ok, {}, {}};
    }
};

ConnectionProfile profileNamed(const QString &name)
{
    ConnectionProfile p;
    p.connection.name = name;
    p.connection.backend = u"openai"_s;
    p.connection.baseUrl = QUrl(u"https://api.example.invalid/v1"_s);
    p.connection.auth = AuthStyle::Header;
    p.connection.authHeader = u"api-key"_s;
    p.connection.defaultModel = u"gpt-5"_s;
    p.connection.options.insert(u"api_version"_s, u"2024-10-21"_s);
    return p;
}

QJsonObject storedConfig(const RunStore &store, const QString &name)
{
    const QList<QJsonObject> configs = store.loadConnectionConfigs();
    for (const QJsonObject &c : configs) {
        if (c.value(u"name"_s).toString() == name)
            return c;
    }
    return {};
}

QString legacyKey(const QString &name)
{
    return u"connections/keyStorage/"_s + QString::fromLatin1(name.toUtf8().toPercentEncoding());
}

} // namespace

class TestConnectionRegistry final : public QObject
{
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<RunStore> m_store;
    std::unique_ptr<RunManager> m_manager;
    FakeKeychain *m_keychain = nullptr;
    std::unique_ptr<ConnectionRegistry> m_registry;

    // A registry as another process (or the app after a restart) has it: same store and keychain,
    // nothing in memory.
    std::unique_ptr<ConnectionRegistry> otherProcess(RunManager *manager = nullptr)
    {
        return std::make_unique<ConnectionRegistry>(manager, m_keychain, m_store.get());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(u"RunwatchTest"_s);
        QCoreApplication::setApplicationName(u"runwatch-registrytest"_s);
    }

    void init()
    {
        QSettings().clear();
        m_dir = std::make_unique<QTemporaryDir>();
        m_store = std::make_unique<RunStore>();
        QVERIFY(m_store->open(m_dir->filePath(u"runs.sqlite"_s)));
        m_manager = std::make_unique<RunManager>();
        m_keychain = new FakeKeychain(this);
        m_registry = std::make_unique<ConnectionRegistry>(m_manager.get(), m_keychain, m_store.get());
    }

    void cleanup()
    {
        m_registry.reset();
        m_manager->shutdown();
        m_manager.reset();
        m_store.reset();
        delete m_keychain;
        m_dir.reset();
        QSettings().clear();
    }

    // The profile, with where its key lives, is in the store; the key only in the keychain; the
    // engine has both.
    void saveKeepsKeyStorageInTheProfile()
    {
        const auto saved = awaitWithin(m_registry->save(profileNamed(u"azure"_s), {}, kKey));
        QVERIFY(saved && saved->ok);
        QCOMPARE(m_registry->profile(u"azure"_s)->keyStorage, KeyStorage::Keychain);
        QCOMPARE(m_keychain->secrets.value(KeyStore::connectionKey(u"azure"_s)), kKey);
        const QJsonObject config = storedConfig(*m_store, u"azure"_s);
        QCOMPARE(config.value(u"key_storage"_s).toString(), u"keychain"_s);
        QCOMPARE(config.value(u"options"_s).toObject().value(u"api_version"_s).toString(), u"2024-10-21"_s);
        QVERIFY(!QJsonDocument(config).toJson().contains(kKey.toUtf8()));
        QCOMPARE(m_manager->connection(u"azure"_s)->apiKey, kKey);
        QCOMPARE(m_manager->connection(u"azure"_s)->options.value(u"api_version"_s).toString(),
                 u"2024-10-21"_s);
        // Nothing about it in the settings any more: another process could not read them.
        QVERIFY(QSettings().allKeys().isEmpty());

        // Another process reads the same profile and its key.
        auto cli = otherProcess();
        const auto profile = cli->savedProfile(u"azure"_s);
        QVERIFY(profile);
        QCOMPARE(profile->keyStorage, KeyStorage::Keychain);
        QCOMPARE(profile->connection.auth, AuthStyle::Header);
        QCOMPARE(profile->connection.authHeader, u"api-key"_s);
        QCOMPARE(profile->connection.defaultModel, u"gpt-5"_s);
        const auto key = awaitWithin(cli->readKey(*profile));
        QVERIFY(key && key->ok());
        QCOMPARE(key->secret, kKey);
    }

    // Without a keychain nothing is saved and the caller is told so; the explicit opt-in then
    // keeps the key in this process only, which no other process can read.
    void keychainFailureNeedsExplicitOptIn()
    {
        m_keychain->available = false;
        const auto refused = awaitWithin(m_registry->save(profileNamed(u"lab"_s), {}, kKey));
        QVERIFY(refused);
        QVERIFY(!refused->ok);
        QVERIFY(refused->keychainUnavailable);
        QVERIFY(!m_registry->profile(u"lab"_s));
        QVERIFY(m_store->loadConnectionConfigs().isEmpty());
        QVERIFY(!m_manager->connection(u"lab"_s));

        const auto noChoice = awaitWithin(
            m_registry->saveWithWeakerStore(profileNamed(u"lab"_s), {}, kKey, KeyStorage::Keychain));
        QVERIFY(noChoice && !noChoice->ok && !noChoice->error.isEmpty());

        const auto session = awaitWithin(
            m_registry->saveWithWeakerStore(profileNamed(u"lab"_s), {}, kKey, KeyStorage::Session));
        QVERIFY(session && session->ok);
        QCOMPARE(m_registry->profile(u"lab"_s)->keyStorage, KeyStorage::Session);
        QCOMPARE(m_manager->connection(u"lab"_s)->apiKey, kKey);
        QCOMPARE(storedConfig(*m_store, u"lab"_s).value(u"key_storage"_s).toString(), u"session"_s);
        const auto here = awaitWithin(m_registry->readKey(*m_registry->profile(u"lab"_s)));
        QVERIFY(here && here->ok());
        QCOMPARE(here->secret, kKey);

        auto cli = otherProcess();
        const auto elsewhere = awaitWithin(cli->readKey(*cli->savedProfile(u"lab"_s)));
        QVERIFY(elsewhere);
        QCOMPARE(elsewhere->status, KeyStore::Status::NotFound);
        QVERIFY2(elsewhere->error.contains(u"one session only"_s), qPrintable(elsewhere->error));
    }

    // load() registers every saved profile with its key, in saved order, and names the problems:
    // a Session key that went with its session, a keychain that cannot be read. A profile without
    // a stored key is no problem.
    void loadRegistersProfilesAndReportsProblems()
    {
        QVERIFY(awaitWithin(m_registry->save(profileNamed(u"a-keychain"_s), {}, kKey))->ok);
        QVERIFY(awaitWithin(m_registry->saveWithWeakerStore(profileNamed(u"b-session"_s), {}, kKey,
                                                            KeyStorage::Session))
                    ->ok);
        ConnectionProfile local = profileNamed(u"c-local"_s);
        local.connection.auth = AuthStyle::None;
        QVERIFY(awaitWithin(m_registry->save(local, {}, QString()))->ok);
        QCOMPARE(m_registry->profile(u"c-local"_s)->keyStorage, KeyStorage::None);

        RunManager manager;
        auto restarted = otherProcess(&manager);
        QSignalSpy changed(restarted.get(), &ConnectionRegistry::changed);
        const auto problems = awaitWithin(restarted->load());
        QVERIFY(problems);
        QCOMPARE(problems->size(), 1);
        QVERIFY2(problems->first().contains(u"b-session"_s), qPrintable(problems->first()));
        QCOMPARE(restarted->names(), (QStringList{u"a-keychain"_s, u"b-session"_s, u"c-local"_s}));
        QCOMPARE(changed.count(), 3);
        QCOMPARE(manager.connection(u"a-keychain"_s)->apiKey, kKey);
        QCOMPARE(manager.connection(u"b-session"_s)->apiKey, QString());
        QVERIFY(manager.backend(u"c-local"_s));

        m_keychain->available = false;
        RunManager manager2;
        auto locked = otherProcess(&manager2);
        const auto lockedProblems = awaitWithin(locked->load());
        QVERIFY(lockedProblems);
        QCOMPARE(lockedProblems->size(), 2);
        QVERIFY(lockedProblems->first().contains(u"could not be read"_s));
        // Still usable without its key (the operator can enter it again).
        QVERIFY(manager2.backend(u"a-keychain"_s));
        manager.shutdown();
        manager2.shutdown();
    }

    // A profile saved before the key storage was part of it takes the GUI's old QSettings entry,
    // once: the choice moves into the profile and the entry goes.
    void legacyProfilesMigrateOnce()
    {
        Connection plain = profileNamed(u"old/plain"_s).connection;
        Connection keyed = profileNamed(u"old-keyed"_s).connection;
        Connection open = profileNamed(u"old-open"_s).connection;
        open.auth = AuthStyle::None;
        for (const Connection &c : {plain, keyed, open}) {
            QVERIFY(m_store->saveConnectionConfig(
                c.name, c.toJson())); // as older versions saved them: no key_storage
        }
        QVERIFY(!storedConfig(*m_store, u"old/plain"_s).contains(u"key_storage"_s));
        QSettings().setValue(legacyKey(u"old/plain"_s), u"plaintext"_s);

        const QList<ConnectionProfile> saved = m_registry->savedProfiles();
        QCOMPARE(saved.size(), 3);
        QHash<QString, KeyStorage> storage;
        for (const ConnectionProfile &p : saved)
            storage.insert(p.connection.name, p.keyStorage);
        QCOMPARE(storage.value(u"old/plain"_s), KeyStorage::Plaintext);
        QCOMPARE(storage.value(u"old-keyed"_s), KeyStorage::Keychain); // no entry: the keychain
        QCOMPARE(storage.value(u"old-open"_s), KeyStorage::None);
        QCOMPARE(storedConfig(*m_store, u"old/plain"_s).value(u"key_storage"_s).toString(), u"plaintext"_s);
        QCOMPARE(storedConfig(*m_store, u"old-keyed"_s).value(u"key_storage"_s).toString(), u"keychain"_s);
        QVERIFY(!QSettings().contains(legacyKey(u"old/plain"_s)));

        // Read once: a later entry (a stale copy of the settings) no longer counts.
        QSettings().setValue(legacyKey(u"old/plain"_s), u"session"_s);
        QCOMPARE(otherProcess()->savedProfile(u"old/plain"_s)->keyStorage, KeyStorage::Plaintext);
    }

    // A rename moves the key to the new name; removing forgets profile and key.
    void renameAndRemoveTakeTheKeyAlong()
    {
        QVERIFY(awaitWithin(m_registry->save(profileNamed(u"before"_s), {}, kKey))->ok);
        ConnectionProfile renamed = profileNamed(u"after"_s);
        const auto moved = awaitWithin(m_registry->save(renamed, u"before"_s, std::nullopt));
        QVERIFY(moved && moved->ok);
        QCOMPARE(m_registry->names(), QStringList{u"after"_s});
        QTRY_VERIFY(!m_keychain->secrets.contains(KeyStore::connectionKey(u"before"_s)));
        QCOMPARE(m_keychain->secrets.value(KeyStore::connectionKey(u"after"_s)), kKey);
        QCOMPARE(m_store->loadConnectionConfigs().size(), 1);

        QSignalSpy changed(m_registry.get(), &ConnectionRegistry::changed);
        const auto removed = awaitWithin(m_registry->remove(u"after"_s));
        QVERIFY(removed && *removed);
        QCOMPARE(changed.count(), 1);
        QVERIFY(m_registry->profiles().isEmpty());
        QVERIFY(m_store->loadConnectionConfigs().isEmpty());
        QVERIFY(m_keychain->secrets.isEmpty());
        QVERIFY(!ConnectionRegistry::hasSavedProfiles(m_store.get()));
    }

    // A proxy password is a secret: the keychain has it, the saved profile (and the dialog's
    // list) only the proxy with its user name; the engine gets it whole, here, after a restart
    // and in a CLI that reads the profile. Saved again as shown it stays; a rename takes it
    // along; a proxy without a user, or removing the connection, forgets it.
    void proxyPasswordLivesInTheKeychain()
    {
        const QString proxyKey = KeyStore::proxyKey(u"corp"_s);
        ConnectionProfile p = profileNamed(u"corp"_s);
        p.connection.options.insert(u"proxy"_s, u"http://ops:pr0xy-s3cret@proxy.example.invalid:3128"_s);
        QVERIFY(awaitWithin(m_registry->save(p, {}, kKey))->ok);
        QCOMPARE(m_keychain->secrets.value(proxyKey), u"pr0xy-s3cret"_s);
        const QString shown = u"http://ops@proxy.example.invalid:3128"_s;
        QCOMPARE(storedConfig(*m_store, u"corp"_s).value(u"options"_s)[u"proxy"_s].toString(), shown);
        QVERIFY(!QJsonDocument(storedConfig(*m_store, u"corp"_s)).toJson().contains("pr0xy-s3cret"));
        QCOMPARE(m_registry->profile(u"corp"_s)->connection.options.value(u"proxy"_s).toString(), shown);
        QCOMPARE(m_manager->connection(u"corp"_s)->options.value(u"proxy"_s).toString(),
                 u"http://ops:pr0xy-s3cret@proxy.example.invalid:3128"_s);
        QCOMPARE(m_registry->proxyPassword(u"corp"_s), u"pr0xy-s3cret"_s);

        // Saved again as the dialog shows it (no password, key unchanged): both stay.
        QVERIFY(awaitWithin(m_registry->save(*m_registry->profile(u"corp"_s), u"corp"_s, std::nullopt))->ok);
        QCOMPARE(m_keychain->secrets.value(proxyKey), u"pr0xy-s3cret"_s);
        QCOMPARE(m_registry->proxyPassword(u"corp"_s), u"pr0xy-s3cret"_s);

        // After a restart, and in a process without an engine (the CLI).
        RunManager restarted;
        auto again = otherProcess(&restarted);
        const auto problems = awaitWithin(again->load());
        QVERIFY(problems && problems->isEmpty());
        QCOMPARE(restarted.connection(u"corp"_s)->options.value(u"proxy"_s).toString(),
                 u"http://ops:pr0xy-s3cret@proxy.example.invalid:3128"_s);
        auto cli = otherProcess();
        const auto read = awaitWithin(cli->readProxyPassword(*cli->savedProfile(u"corp"_s)));
        QVERIFY(read && read->ok());
        QCOMPARE(read->secret, u"pr0xy-s3cret"_s);
        restarted.shutdown();

        // A rename takes it along.
        ConnectionProfile renamed = *m_registry->profile(u"corp"_s);
        renamed.connection.name = u"corp2"_s;
        QVERIFY(awaitWithin(m_registry->save(renamed, u"corp"_s, std::nullopt))->ok);
        QCOMPARE(m_keychain->secrets.value(KeyStore::proxyKey(u"corp2"_s)), u"pr0xy-s3cret"_s);
        QTRY_VERIFY(!m_keychain->secrets.contains(proxyKey));
        QCOMPARE(m_registry->proxyPassword(u"corp2"_s), u"pr0xy-s3cret"_s);

        // A proxy without a user name has no password to keep.
        ConnectionProfile anonymous = *m_registry->profile(u"corp2"_s);
        anonymous.connection.options.insert(u"proxy"_s, u"http://proxy.example.invalid:3128"_s);
        QVERIFY(awaitWithin(m_registry->save(anonymous, u"corp2"_s, std::nullopt))->ok);
        QTRY_VERIFY(!m_keychain->secrets.contains(KeyStore::proxyKey(u"corp2"_s)));
        QVERIFY(m_registry->proxyPassword(u"corp2"_s).isEmpty());

        // Removing the connection forgets a stored one.
        ConnectionProfile withUser = *m_registry->profile(u"corp2"_s);
        withUser.connection.options.insert(u"proxy"_s, u"socks5://ops:again@127.0.0.1:1080"_s);
        QVERIFY(awaitWithin(m_registry->save(withUser, u"corp2"_s, std::nullopt))->ok);
        QCOMPARE(m_keychain->secrets.value(KeyStore::proxyKey(u"corp2"_s)), u"again"_s);
        QVERIFY(*awaitWithin(m_registry->remove(u"corp2"_s)));
        QTRY_VERIFY(m_keychain->secrets.isEmpty());
    }

    // A stored proxy password belongs to the proxy it was given for: saved with the proxy moved
    // to another host, port, scheme or user (the dialog shows it without the password), the
    // connection goes to the new proxy without it, and the keychain forgets it.
    void proxyPasswordStaysWithItsProxy_data()
    {
        QTest::addColumn<QString>("edited");
        QTest::newRow("host") << u"http://ops@elsewhere.example.invalid:3128"_s;
        QTest::newRow("port") << u"http://ops@proxy.example.invalid:8080"_s;
        QTest::newRow("scheme") << u"socks5://ops@proxy.example.invalid:3128"_s;
        QTest::newRow("user") << u"http://dev@proxy.example.invalid:3128"_s;
    }
    void proxyPasswordStaysWithItsProxy()
    {
        QFETCH(QString, edited);
        ConnectionProfile p = profileNamed(u"corp"_s);
        p.connection.options.insert(u"proxy"_s, u"http://ops:pr0xy-s3cret@proxy.example.invalid:3128"_s);
        QVERIFY(awaitWithin(m_registry->save(p, {}, kKey))->ok);
        QCOMPARE(m_registry->proxyPassword(u"corp"_s), u"pr0xy-s3cret"_s);

        ConnectionProfile moved = *m_registry->profile(u"corp"_s);
        moved.connection.options.insert(u"proxy"_s, edited);
        QVERIFY(awaitWithin(m_registry->save(moved, u"corp"_s, std::nullopt))->ok);
        QVERIFY(m_registry->proxyPassword(u"corp"_s).isEmpty());
        QCOMPARE(m_manager->connection(u"corp"_s)->options.value(u"proxy"_s).toString(), edited);
        QTRY_VERIFY(!m_keychain->secrets.contains(KeyStore::proxyKey(u"corp"_s)));
        QVERIFY(!QJsonDocument(storedConfig(*m_store, u"corp"_s)).toJson().contains("pr0xy-s3cret"));
    }

    // Without a keychain a proxy password has nowhere to go: nothing is saved, and the reason
    // is given (the weaker stores are an opt-in for the API key only).
    void proxyPasswordNeedsTheKeychain()
    {
        m_keychain->available = false;
        ConnectionProfile p = profileNamed(u"corp"_s);
        p.connection.options.insert(u"proxy"_s, u"http://ops:pr0xy-s3cret@proxy.example.invalid:3128"_s);
        const auto saved = awaitWithin(m_registry->saveWithWeakerStore(p, {}, kKey, KeyStorage::Session));
        QVERIFY(saved && !saved->ok);
        QVERIFY2(saved->error.contains(u"proxy password"_s), qPrintable(saved->error));
        QVERIFY(!m_registry->profile(u"corp"_s));
        QVERIFY(m_store->loadConnectionConfigs().isEmpty());
        QVERIFY(!m_manager->connection(u"corp"_s));
    }

    // Bad profiles are refused before anything is stored.
    void validation()
    {
        ConnectionProfile noName = profileNamed(QString());
        QVERIFY(awaitWithin(m_registry->save(noName, {}, kKey))->error.contains(u"name"_s));
        ConnectionProfile badUrl = profileNamed(u"x"_s);
        badUrl.connection.baseUrl = QUrl(u"not a url"_s);
        QVERIFY(awaitWithin(m_registry->save(badUrl, {}, kKey))->error.contains(u"base URL"_s));
        ConnectionProfile badBackend = profileNamed(u"y"_s);
        badBackend.connection.backend = u"smoke-signals"_s;
        QVERIFY(awaitWithin(m_registry->save(badBackend, {}, kKey))->error.contains(u"smoke-signals"_s));
        QVERIFY(awaitWithin(m_registry->save(profileNamed(u"z"_s), {}, kKey))->ok);
        QVERIFY(awaitWithin(m_registry->save(profileNamed(u"z"_s), {}, kKey))->error.contains(u"exists"_s));
        QCOMPARE(m_store->loadConnectionConfigs().size(), 1);
        QCOMPARE(m_keychain->secrets.size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestConnectionRegistry)
#include "tst_connectionregistry.moc"
