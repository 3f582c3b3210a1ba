// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connections/connection.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

namespace Runwatch {

class KeyStore;
class RunManager;
class RunStore;

// Where a connection's API key is kept.
enum class KeyStorage {
    None,      // no key (local servers, the demo)
    Keychain,  // the OS keychain (the default and the only silent choice)
    Session,   // opted in: in memory until the app quits
    Plaintext, // opted in explicitly: an owner-only file
};
QString keyStorageName(KeyStorage storage);
KeyStorage keyStorageFromName(QStringView name);

struct ConnectionProfile
{
    Connection connection; // apiKey filled in at runtime only
    KeyStorage keyStorage = KeyStorage::None;
    bool transient = false; // the demo's connections: never saved
};

// The connection profiles of the GUI: saved in the run store's connections table (shared with
// the CLI; Connection::toJson() never holds the key), keys in a KeyStore, where each key lives
// in QSettings (a GUI preference), and every profile registered with the RunManager.
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
    using SaveCallback = std::function<void(const SaveResult &)>;

    // `keychain` is the secure store; `profiles` keeps the saved profiles (nullptr: none are
    // saved, e.g. when the store could not be opened).
    ConnectionRegistry(RunManager *manager, KeyStore *keychain, RunStore *profiles,
                       QObject *parent = nullptr);
    ~ConnectionRegistry() override;

    QList<ConnectionProfile> profiles() const { return m_profiles; }
    std::optional<ConnectionProfile> profile(const QString &name) const;
    QStringList names() const;
    // The key the engine uses for `name` (for "Test connection" with an unchanged key).
    QString apiKey(const QString &name) const;
    // Whether `profiles` holds at least one saved profile (decides the first-launch demo).
    static bool hasSavedProfiles(const RunStore *profiles);

    // Reads the saved profiles and their keys and registers them. `done` gets one line per
    // problem (a key that could not be read, an unknown backend).
    void load(QObject *context, std::function<void(const QStringList &problems)> done);
    void addTransient(const Connection &connection);

    // Adds or replaces `profile` (renamed from `previousName` when that is set and differs).
    // `apiKey`: nullopt keeps the stored key; empty removes it; otherwise it goes to the
    // keychain and, if that fails, nothing is saved and keychainUnavailable is set.
    void save(ConnectionProfile profile, const QString &previousName, std::optional<QString> apiKey,
              QObject *context, SaveCallback done);
    // The explicit opt-in after a keychain failure: Session or Plaintext.
    void saveWithWeakerStore(ConnectionProfile profile, const QString &previousName, const QString &apiKey,
                             KeyStorage storage, QObject *context, SaveCallback done);
    void remove(const QString &name);

    KeyStore *storeFor(KeyStorage storage);

Q_SIGNALS:
    void changed();

private:
    QString validate(const ConnectionProfile &profile, const QString &previousName) const;
    void commit(ConnectionProfile profile, const QString &previousName, const QString &apiKey);
    void persist(const ConnectionProfile &profile) const;

    QPointer<RunManager> m_manager;
    QPointer<RunStore> m_store;
    QList<ConnectionProfile> m_profiles;
    KeyStore *m_keychain;
    KeyStore *m_session;
    KeyStore *m_plaintext;
};

} // namespace Runwatch
