// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connections/connectionprofile.h"
#include "connections/keystore.h"
#include "domain/connection.h"

#include <QObject>
#include <QPointer>

#include <QCoroTask>

#include <optional>

namespace Runwatch {

class RunManager;
class RunStore;

// The saved connections, shared by the GUI and the CLI: each profile (backend, URL, auth style,
// options, insecure opt-in, default model, and where its key lives) is saved in the run store's
// connections table; keys are in a KeyStore (the OS keychain, or an explicit opt-in), never in
// the store. With a RunManager, every profile loaded or saved is registered with it (the GUI);
// without one the registry only reads and writes profiles and keys (the CLI).
//
// The rules live here: validation, the key goes to the keychain and only an explicit opt-in puts
// it elsewhere, a Session key does not outlive its process. The asynchronous operations are
// coroutines; widgets use QCoro::connect(task, context, callback).
class ConnectionRegistry final : public QObject
{
    Q_OBJECT
public:
    struct SaveResult
    {
        bool ok = false;
        // The keychain could not take the key: the dialog explains it and offers the opt-in.
        bool keychainUnavailable = false;
        QString error;
    };
    // `keychain` is the secure store; `profiles` keeps the saved profiles (nullptr: none are
    // saved, e.g. when the store could not be opened); `manager` may be nullptr.
    ConnectionRegistry(RunManager *manager, KeyStore *keychain, RunStore *profiles,
                       QObject *parent = nullptr);
    ~ConnectionRegistry() override;

    // The profiles loaded or saved by this registry (the GUI's list).
    QList<ConnectionProfile> profiles() const { return m_profiles; }
    std::optional<ConnectionProfile> profile(const QString &name) const;
    QStringList names() const;
    // The key the engine uses for `name` (for "Test connection" with an unchanged key).
    QString apiKey(const QString &name) const;
    // The proxy password the engine uses for `name`, likewise.
    QString proxyPassword(const QString &name) const;
    // What `entered`, an edit of `name` that shows its proxy without a password (as the dialog
    // does), keeps of the stored one: all of it while it names the proxy the password was saved
    // for (scheme, host, port, user), nothing once it names another.
    QString keptProxyPassword(const QString &name, const Connection &entered) const;
    // Whether `profiles` holds at least one saved profile (decides the first-launch demo).
    static bool hasSavedProfiles(const RunStore *profiles);

    // The profiles in the store as they are now (another process may have saved them), without
    // keys. A profile saved before the key storage was part of it is migrated here, once: the
    // choice is read from the GUI's old QSettings entry and written into the profile.
    QList<ConnectionProfile> savedProfiles();
    std::optional<ConnectionProfile> savedProfile(const QString &name);

    // Reads the saved profiles and their keys and registers them. One line per problem (a key
    // that could not be read, a Session key that went with its session).
    QCoro::Task<QStringList> load();
    // The key of `profile` from where it lives; Ok with an empty secret when the profile has no
    // key. A Session key exists only in the process it was given to: anywhere else this is
    // NotFound with an error that says so. Errors name the connection (operator-facing).
    QCoro::Task<KeyStore::Result> readKey(ConnectionProfile profile);
    // The proxy password of `profile` from the keychain; Ok with an empty secret when its proxy
    // names no user (no password can be stored) or none is stored.
    QCoro::Task<KeyStore::Result> readProxyPassword(ConnectionProfile profile);
    void addTransient(const Connection &connection);

    // Adds or replaces `profile` (renamed from `previousName` when that is set and differs).
    // `apiKey`: nullopt keeps the stored key; empty removes it; otherwise it goes to the
    // keychain and, if that fails, nothing is saved and keychainUnavailable is set.
    // A password in the proxy option goes to the keychain and never into the saved profile; a
    // proxy URL with a user name and no password keeps the password stored for it.
    QCoro::Task<SaveResult> save(ConnectionProfile profile, QString previousName,
                                 std::optional<QString> apiKey);
    // The explicit opt-in after a keychain failure: Session or Plaintext.
    QCoro::Task<SaveResult> saveWithWeakerStore(ConnectionProfile profile, QString previousName,
                                                QString apiKey, KeyStorage storage);
    // Forgets the profile and its key at once (changed() is emitted before this suspends);
    // the result says whether the key store let go of the key.
    QCoro::Task<bool> remove(QString name);

    KeyStore *storeFor(KeyStorage storage);

Q_SIGNALS:
    void changed();

private:
    QString validate(const ConnectionProfile &profile, const QString &previousName) const;
    void commit(ConnectionProfile profile, const QString &previousName, const QString &apiKey,
                const QString &proxyPassword = {});
    struct ProxySecret
    {
        QString password; // what the engine uses
        QString error;    // the keychain refused it: nothing may be saved
    };
    // Keeps the proxy password of `entered` (the profile as typed, renamed from `previousName`)
    // in the keychain under its name.
    QCoro::Task<ProxySecret> storeProxyPassword(Connection entered, QString previousName);
    void persist(const ConnectionProfile &profile) const;
    KeyStorage migrateKeyStorage(const ConnectionProfile &profile);
    // Removes a key without waiting for the store (the profile no longer points to it).
    void forgetKey(KeyStorage storage, const QString &name);

    QPointer<RunManager> m_manager;
    QPointer<RunStore> m_store;
    QList<ConnectionProfile> m_profiles;
    KeyStore *m_keychain;
    KeyStore *m_session;
    KeyStore *m_plaintext;
};

} // namespace Runwatch
