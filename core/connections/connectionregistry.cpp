// SPDX-License-Identifier: GPL-3.0-or-later
#include "connections/connectionregistry.h"
#include "connectionslog.h"

#include "backends/registry.h"
#include "connections/connectionoptions.h"
#include "engine/runmanager.h"
#include "store/runstore.h"

#include <QSettings>

#include <vector>

using namespace Qt::StringLiterals;

namespace Runwatch {

Q_LOGGING_CATEGORY(lcConnections, "runwatch.connections", QtInfoMsg)

namespace {
// Where the GUI kept each profile's key storage before it became part of the profile: read once
// by the migration, then removed.
QString legacyStorageKey(const QString &name)
{
    // QSettings groups split on '/': keep the name in one key.
    return u"connections/keyStorage/"_s + QString::fromLatin1(name.toUtf8().toPercentEncoding());
}
// A lookup whose registry went away while the key store answered.
KeyStore::Result cancelledLookup()
{
    return {KeyStore::Status::Error, {}, u"cancelled"_s};
}
} // namespace

ConnectionRegistry::ConnectionRegistry(RunManager *manager, KeyStore *keychain, RunStore *profiles,
                                       QObject *parent)
    : QObject(parent)
    , m_manager(manager)
    , m_store(profiles)
    , m_keychain(keychain)
    , m_session(new SessionKeyStore(this))
    , m_plaintext(new KeychainKeyStore(true, this))
{}

ConnectionRegistry::~ConnectionRegistry() = default;

KeyStore *ConnectionRegistry::storeFor(KeyStorage storage)
{
    switch (storage) {
    case KeyStorage::Keychain:
        return m_keychain;
    case KeyStorage::Session:
        return m_session;
    case KeyStorage::Plaintext:
        return m_plaintext;
    case KeyStorage::None:
        break;
    }
    return nullptr;
}

std::optional<ConnectionProfile> ConnectionRegistry::profile(const QString &name) const
{
    for (const ConnectionProfile &p : m_profiles) {
        if (p.connection.name == name)
            return p;
    }
    return std::nullopt;
}

QStringList ConnectionRegistry::names() const
{
    QStringList out;
    for (const ConnectionProfile &p : m_profiles)
        out << p.connection.name;
    return out;
}

QString ConnectionRegistry::apiKey(const QString &name) const
{
    const auto live = m_manager ? m_manager->connection(name) : std::nullopt;
    return live ? live->apiKey : QString();
}

QString ConnectionRegistry::proxyPassword(const QString &name) const
{
    const auto live = m_manager ? m_manager->connection(name) : std::nullopt;
    return live ? Runwatch::proxyPassword(*live) : QString();
}

QString ConnectionRegistry::keptProxyPassword(const QString &name, const Connection &entered) const
{
    const std::optional<ConnectionProfile> saved = profile(name);
    if (!proxyHasUser(entered) || !saved || !sameProxy(entered, saved->connection))
        return {};
    return proxyPassword(name);
}

bool ConnectionRegistry::hasSavedProfiles(const RunStore *profiles)
{
    return profiles && profiles->hasConnections();
}

QList<ConnectionProfile> ConnectionRegistry::savedProfiles()
{
    QList<ConnectionProfile> out;
    if (!m_store || !m_store->isOpen())
        return out;
    const QList<QJsonObject> configs = m_store->loadConnectionConfigs();
    for (const QJsonObject &config : configs) {
        ConnectionProfile p = ConnectionProfile::fromJson(config);
        if (!ConnectionProfile::keyStorageIn(config))
            p.keyStorage = migrateKeyStorage(p);
        out << p;
    }
    return out;
}

std::optional<ConnectionProfile> ConnectionRegistry::savedProfile(const QString &name)
{
    const QList<ConnectionProfile> saved = savedProfiles();
    for (const ConnectionProfile &p : saved) {
        if (p.connection.name == name)
            return p;
    }
    return std::nullopt;
}

KeyStorage ConnectionRegistry::migrateKeyStorage(const ConnectionProfile &profile)
{
    // Before, the GUI kept this choice in its QSettings, where no other process looked. A profile
    // without an entry there had its key, if any, in the keychain.
    QSettings settings;
    const QString key = legacyStorageKey(profile.connection.name);
    ConnectionProfile migrated = profile;
    migrated.keyStorage = profile.connection.auth == AuthStyle::None
                              ? KeyStorage::None
                              : keyStorageFromName(settings.value(key, u"keychain"_s).toString());
    // The old entry goes only once the profile holds the choice (a read-only store keeps it).
    if (m_store->saveConnectionConfig(migrated.connection.name, migrated.toJson()))
        settings.remove(key);
    return migrated.keyStorage;
}

void ConnectionRegistry::persist(const ConnectionProfile &profile) const
{
    if (profile.transient)
        return;
    if (m_store && m_store->isOpen())
        m_store->saveConnectionConfig(profile.connection.name, profile.toJson()); // never includes the key
}

QCoro::Task<KeyStore::Result> ConnectionRegistry::readKey(ConnectionProfile profile)
{
    QPointer<ConnectionRegistry> self = this;
    KeyStore::Result out{KeyStore::Status::Ok, {}, {}};
    KeyStore *store = storeFor(profile.keyStorage);
    if (!store)
        co_return out; // no key to read
    const QString name = profile.connection.name;
    const KeyStore::Result r = co_await store->read(KeyStore::connectionKey(name));
    if (!self)
        co_return cancelledLookup();
    out.status = r.status;
    out.secret = r.secret;
    if (r.ok())
        co_return out;
    qCDebug(lcConnections) << "key of" << name << "not read from the" << store->displayName() << "-"
                           << r.error;
    if (profile.keyStorage == KeyStorage::Session) {
        out.error = tr("The API key of \"%1\" was kept for one session only; enter it again.").arg(name);
    } else if (r.status == KeyStore::Status::NotFound) {
        out.error = tr("No API key of \"%1\" is stored in the %2.").arg(name, store->displayName());
    } else {
        out.error = tr("The API key of \"%1\" could not be read: %2").arg(name, r.error);
    }
    co_return out;
}

QCoro::Task<KeyStore::Result> ConnectionRegistry::readProxyPassword(ConnectionProfile profile)
{
    QPointer<ConnectionRegistry> self = this;
    KeyStore::Result out{KeyStore::Status::Ok, {}, {}};
    if (!proxyHasUser(profile.connection))
        co_return out;
    const QString name = profile.connection.name;
    const KeyStore::Result r = co_await m_keychain->read(KeyStore::proxyKey(name));
    if (!self)
        co_return cancelledLookup();
    if (r.ok()) {
        out.secret = r.secret;
    } else if (r.status != KeyStore::Status::NotFound) {
        // Not found is a proxy that takes a user name without a password.
        out.status = r.status;
        out.error = tr("The proxy password of \"%1\" could not be read: %2").arg(name, r.error);
    }
    co_return out;
}

QCoro::Task<ConnectionRegistry::ProxySecret> ConnectionRegistry::storeProxyPassword(Connection entered,
                                                                                    QString previousName)
{
    QPointer<ConnectionRegistry> self = this;
    ProxySecret out;
    const QString name = entered.name;
    const QString before = previousName.isEmpty() ? name : previousName;
    const QString inUse = proxyPassword(before);
    QString password = Runwatch::proxyPassword(entered);
    // The dialog shows the proxy without its password: saved again untouched, it keeps it; edited
    // to another proxy, it does not.
    if (password.isEmpty())
        password = keptProxyPassword(before, entered);
    if (!password.isEmpty()) {
        const KeyStore::Result r = co_await m_keychain->write(KeyStore::proxyKey(name), password);
        if (!self) {
            out.error = u"cancelled"_s;
            co_return out;
        }
        if (!r.ok()) {
            out.error
                = tr("The proxy password is kept only in the system keychain, which could not take it: %1")
                      .arg(r.error);
            co_return out;
        }
    }
    if (!inUse.isEmpty() && (before != name || password.isEmpty()))
        m_keychain->remove(KeyStore::proxyKey(before)); // nobody waits: at worst an orphan entry
    out.password = password;
    co_return out;
}

QCoro::Task<QStringList> ConnectionRegistry::load()
{
    QPointer<ConnectionRegistry> self = this;
    QList<ConnectionProfile> loaded;
    const QList<ConnectionProfile> saved = savedProfiles();
    for (const ConnectionProfile &p : saved) {
        if (!p.connection.name.isEmpty() && !profile(p.connection.name))
            loaded.append(p);
    }
    // Every read starts now (tasks run until they first wait): a slow keychain answers them
    // together, and the profiles are registered in their saved order.
    std::vector<QCoro::Task<KeyStore::Result>> reads;
    reads.reserve(std::size_t(loaded.size()));
    for (const ConnectionProfile &p : std::as_const(loaded))
        reads.push_back(readKey(p));
    QStringList problems;
    for (std::size_t i = 0; i < reads.size(); ++i) {
        const KeyStore::Result key = co_await reads[i];
        if (!self)
            co_return problems;
        const ConnectionProfile &p = loaded.at(qsizetype(i));
        // A key that was never stored is no problem; one that went with its session is.
        if (!key.ok() && (key.status != KeyStore::Status::NotFound || p.keyStorage == KeyStorage::Session))
            problems << key.error;
        const KeyStore::Result proxy = co_await readProxyPassword(p);
        if (!self)
            co_return problems;
        if (!proxy.ok())
            problems << proxy.error;
        commit(p, {}, key.secret, proxy.secret);
    }
    qCDebug(lcConnections) << "loaded" << loaded.size() << "saved connections," << problems.size()
                           << "problems";
    co_return problems;
}

void ConnectionRegistry::addTransient(const Connection &connection)
{
    ConnectionProfile p;
    p.connection = connection;
    p.transient = true;
    commit(p, {}, connection.apiKey, Runwatch::proxyPassword(connection));
}

QString ConnectionRegistry::validate(const ConnectionProfile &profile, const QString &previousName) const
{
    const Connection &c = profile.connection;
    if (c.name.trimmed().isEmpty())
        return tr("Give the connection a name.");
    if (c.name != previousName && this->profile(c.name))
        return tr("A connection named \"%1\" exists already.").arg(c.name);
    if (!knownBackends().contains(c.backend))
        return tr("Unknown backend type \"%1\".").arg(c.backend);
    if ((!c.baseUrl.isValid() || c.baseUrl.scheme().isEmpty() || c.baseUrl.host().isEmpty()))
        return tr("Enter the service's base URL, e.g. https://api.openai.com/v1.");
    return {};
}

void ConnectionRegistry::forgetKey(KeyStorage storage, const QString &name)
{
    // Nobody waits for this: the profile no longer points to the key (a failure leaves an orphan
    // entry behind, never a profile without its key).
    if (KeyStore *store = storeFor(storage))
        store->remove(KeyStore::connectionKey(name));
}

QCoro::Task<ConnectionRegistry::SaveResult>
ConnectionRegistry::save(ConnectionProfile profile, QString previousName, std::optional<QString> apiKey)
{
    QPointer<ConnectionRegistry> self = this;
    SaveResult result;
    result.error = validate(profile, previousName);
    if (!result.error.isEmpty())
        co_return result;
    const ProxySecret proxy = co_await storeProxyPassword(profile.connection, previousName);
    if (!self)
        co_return SaveResult{false, false, u"cancelled"_s};
    if (!proxy.error.isEmpty()) {
        result.error = proxy.error;
        co_return result;
    }
    const auto old = previousName.isEmpty() ? std::nullopt : this->profile(previousName);
    const QString name = profile.connection.name;
    if (!apiKey) {
        // Key unchanged: keep where it is and what the manager has.
        QString key;
        if (old) {
            profile.keyStorage = old->keyStorage;
            if (const auto live = m_manager ? m_manager->connection(previousName) : std::nullopt)
                key = live->apiKey;
        }
        if (old && name != previousName && storeFor(profile.keyStorage) && !key.isEmpty()) {
            // A rename moves the key to the new name.
            apiKey = key;
        } else {
            commit(profile, previousName, key, proxy.password);
            co_return SaveResult{true, false, {}};
        }
    }
    if (apiKey->isEmpty()) {
        if (old)
            forgetKey(old->keyStorage, previousName);
        profile.keyStorage = KeyStorage::None;
        commit(profile, previousName, {}, proxy.password);
        co_return SaveResult{true, false, {}};
    }
    const QString key = *apiKey;
    const KeyStore::Result r = co_await m_keychain->write(KeyStore::connectionKey(name), key);
    if (!self)
        co_return SaveResult{false, false, u"cancelled"_s};
    if (!r.ok()) {
        // Nothing is saved: the caller explains it and offers the explicit opt-in.
        result.keychainUnavailable = true;
        result.error = r.error;
        co_return result;
    }
    if (old && (old->keyStorage != KeyStorage::Keychain || old->connection.name != name))
        forgetKey(old->keyStorage, old->connection.name);
    profile.keyStorage = KeyStorage::Keychain;
    commit(profile, previousName, key, proxy.password);
    result.ok = true;
    co_return result;
}

QCoro::Task<ConnectionRegistry::SaveResult> ConnectionRegistry::saveWithWeakerStore(ConnectionProfile profile,
                                                                                    QString previousName,
                                                                                    QString apiKey,
                                                                                    KeyStorage storage)
{
    QPointer<ConnectionRegistry> self = this;
    SaveResult result;
    result.error = validate(profile, previousName);
    KeyStore *store
        = storage == KeyStorage::Session || storage == KeyStorage::Plaintext ? storeFor(storage) : nullptr;
    if (!store && result.error.isEmpty())
        result.error = tr("Choose where to keep the key.");
    if (!result.error.isEmpty())
        co_return result;
    const ProxySecret proxy = co_await storeProxyPassword(profile.connection, previousName);
    if (!self)
        co_return SaveResult{false, false, u"cancelled"_s};
    if (!proxy.error.isEmpty()) {
        result.error = proxy.error;
        co_return result;
    }
    const KeyStore::Result r
        = co_await store->write(KeyStore::connectionKey(profile.connection.name), apiKey);
    if (!self)
        co_return SaveResult{false, false, u"cancelled"_s};
    if (!r.ok()) {
        result.error = r.error;
        co_return result;
    }
    profile.keyStorage = storage;
    commit(profile, previousName, apiKey, proxy.password);
    result.ok = true;
    co_return result;
}

void ConnectionRegistry::commit(ConnectionProfile profile, const QString &previousName, const QString &apiKey,
                                const QString &proxyPassword)
{
    // The saved profile and the list never hold the proxy password; the engine's connection does.
    setProxyPassword(&profile.connection, {});
    if (!previousName.isEmpty() && previousName != profile.connection.name)
        remove(previousName);
    bool replaced = false;
    for (ConnectionProfile &p : m_profiles) {
        if (p.connection.name == profile.connection.name) {
            p = profile;
            replaced = true;
        }
    }
    if (!replaced)
        m_profiles.append(profile);
    persist(profile);
    if (m_manager) {
        Connection live = profile.connection;
        live.apiKey = apiKey;
        setProxyPassword(&live, proxyPassword);
        m_manager->addConnection(live);
    }
    Q_EMIT changed();
}

QCoro::Task<bool> ConnectionRegistry::remove(QString name)
{
    QPointer<ConnectionRegistry> self = this;
    const auto old = profile(name);
    if (!old)
        co_return false;
    m_profiles.removeIf([&](const ConnectionProfile &p) { return p.connection.name == name; });
    if (!old->transient && m_store && m_store->isOpen())
        m_store->removeConnection(name);
    if (!proxyPassword(name).isEmpty())
        m_keychain->remove(KeyStore::proxyKey(name)); // nobody waits: at worst an orphan entry
    // RunManager has no removeConnection(): the connection stays usable until the app restarts.
    Q_EMIT changed();
    KeyStore *store = storeFor(old->keyStorage);
    if (!store)
        co_return true;
    const KeyStore::Result r = co_await store->remove(KeyStore::connectionKey(name));
    if (!self)
        co_return false;
    co_return r.ok();
}

} // namespace Runwatch
