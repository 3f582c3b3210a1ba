// SPDX-License-Identifier: GPL-3.0-or-later
#include "connections/connectionregistry.h"

#include "backends/registry.h"
#include "connections/keystore.h"
#include "engine/runmanager.h"
#include "engine/runstore.h"

#include <QSettings>

#include <memory>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
QString storageKey(const QString &name)
{
    // QSettings groups split on '/': keep the name in one key.
    return u"connections/keyStorage/"_s + QString::fromLatin1(name.toUtf8().toPercentEncoding());
}
} // namespace

QString keyStorageName(KeyStorage storage)
{
    switch (storage) {
    case KeyStorage::None:
        return u"none"_s;
    case KeyStorage::Keychain:
        return u"keychain"_s;
    case KeyStorage::Session:
        return u"session"_s;
    case KeyStorage::Plaintext:
        return u"plaintext"_s;
    }
    return u"none"_s;
}

KeyStorage keyStorageFromName(QStringView name)
{
    if (name == u"keychain")
        return KeyStorage::Keychain;
    if (name == u"session")
        return KeyStorage::Session;
    if (name == u"plaintext")
        return KeyStorage::Plaintext;
    return KeyStorage::None;
}

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

bool ConnectionRegistry::hasSavedProfiles(const RunStore *profiles)
{
    return profiles && profiles->isOpen() && !profiles->loadConnections().isEmpty();
}

void ConnectionRegistry::persist(const ConnectionProfile &profile) const
{
    if (profile.transient)
        return;
    if (m_store && m_store->isOpen())
        m_store->saveConnection(profile.connection); // never includes the key
    QSettings().setValue(storageKey(profile.connection.name), keyStorageName(profile.keyStorage));
}

void ConnectionRegistry::load(QObject *context, std::function<void(const QStringList &)> done)
{
    QList<ConnectionProfile> loaded;
    const QList<Connection> saved
        = m_store && m_store->isOpen() ? m_store->loadConnections() : QList<Connection>{};
    const QSettings settings;
    for (const Connection &c : saved) {
        ConnectionProfile p;
        p.connection = c;
        // A profile the CLI saved has no entry here: its key, if any, is in the keychain.
        p.keyStorage = c.auth == AuthStyle::None
                           ? KeyStorage::None
                           : keyStorageFromName(settings.value(storageKey(c.name), u"keychain"_s).toString());
        if (!p.connection.name.isEmpty() && !profile(p.connection.name))
            loaded.append(p);
    }
    struct State
    {
        int pending = 0;
        QStringList problems;
        std::function<void(const QStringList &)> done;
    };
    auto state = std::make_shared<State>();
    state->done = std::move(done);
    state->pending = int(loaded.size()) + 1;
    QPointer<QObject> guard(context);
    const auto finishOne = [state, guard] {
        if (--state->pending == 0 && guard && state->done)
            state->done(state->problems);
    };
    for (const ConnectionProfile &p : std::as_const(loaded)) {
        KeyStore *store = storeFor(p.keyStorage);
        if (!store || p.keyStorage == KeyStorage::Session) {
            if (p.keyStorage == KeyStorage::Session)
                state->problems << tr("The API key of \"%1\" was kept for one session only; enter it again.")
                                       .arg(p.connection.name);
            commit(p, {}, {});
            finishOne();
            continue;
        }
        store->read(KeyStore::connectionKey(p.connection.name), this,
                    [this, p, state, finishOne](const KeyStore::Result &r) {
                        if (!r.ok() && r.status != KeyStore::Status::NotFound)
                            state->problems << tr("The API key of \"%1\" could not be read: %2")
                                                   .arg(p.connection.name, r.error);
                        commit(p, {}, r.secret);
                        finishOne();
                    });
    }
    finishOne();
}

void ConnectionRegistry::addTransient(const Connection &connection)
{
    ConnectionProfile p;
    p.connection = connection;
    p.transient = true;
    commit(p, {}, connection.apiKey);
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

void ConnectionRegistry::save(ConnectionProfile profile, const QString &previousName,
                              std::optional<QString> apiKey, QObject *context, SaveCallback done)
{
    SaveResult result;
    result.error = validate(profile, previousName);
    if (!result.error.isEmpty()) {
        done(result);
        return;
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
            commit(profile, previousName, key);
            done(SaveResult{true, false, {}});
            return;
        }
    }
    if (apiKey->isEmpty()) {
        if (old && storeFor(old->keyStorage))
            storeFor(old->keyStorage)->remove(KeyStore::connectionKey(previousName), this, {});
        profile.keyStorage = KeyStorage::None;
        commit(profile, previousName, {});
        done(SaveResult{true, false, {}});
        return;
    }
    QPointer<QObject> guard(context);
    const QString key = *apiKey;
    m_keychain->write(
        KeyStore::connectionKey(name), key, this,
        [this, profile, previousName, key, guard, done, old](const KeyStore::Result &r) mutable {
            SaveResult result;
            if (!r.ok()) {
                result.keychainUnavailable = true;
                result.error = r.error;
                if (guard)
                    done(result);
                return;
            }
            if (old
                && (old->keyStorage != KeyStorage::Keychain
                    || old->connection.name != profile.connection.name)
                && storeFor(old->keyStorage))
                storeFor(old->keyStorage)->remove(KeyStore::connectionKey(old->connection.name), this, {});
            profile.keyStorage = KeyStorage::Keychain;
            commit(profile, previousName, key);
            result.ok = true;
            if (guard)
                done(result);
        });
}

void ConnectionRegistry::saveWithWeakerStore(ConnectionProfile profile, const QString &previousName,
                                             const QString &apiKey, KeyStorage storage, QObject *context,
                                             SaveCallback done)
{
    SaveResult result;
    result.error = validate(profile, previousName);
    KeyStore *store
        = storage == KeyStorage::Session || storage == KeyStorage::Plaintext ? storeFor(storage) : nullptr;
    if (!store && result.error.isEmpty())
        result.error = tr("Choose where to keep the key.");
    if (!result.error.isEmpty()) {
        done(result);
        return;
    }
    QPointer<QObject> guard(context);
    store->write(
        KeyStore::connectionKey(profile.connection.name), apiKey, this,
        [this, profile, previousName, apiKey, storage, guard, done](const KeyStore::Result &r) mutable {
            SaveResult result;
            if (!r.ok()) {
                result.error = r.error;
            } else {
                profile.keyStorage = storage;
                commit(profile, previousName, apiKey);
                result.ok = true;
            }
            if (guard)
                done(result);
        });
}

void ConnectionRegistry::commit(ConnectionProfile profile, const QString &previousName, const QString &apiKey)
{
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
        m_manager->addConnection(live);
    }
    Q_EMIT changed();
}

void ConnectionRegistry::remove(const QString &name)
{
    const auto old = profile(name);
    if (!old)
        return;
    m_profiles.removeIf([&](const ConnectionProfile &p) { return p.connection.name == name; });
    if (KeyStore *store = storeFor(old->keyStorage))
        store->remove(KeyStore::connectionKey(name), this, {});
    if (!old->transient && m_store && m_store->isOpen())
        m_store->removeConnection(name);
    QSettings().remove(storageKey(name));
    // RunManager has no removeConnection(): the connection stays usable until the app restarts.
    Q_EMIT changed();
}

} // namespace Runwatch
