// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/connection.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace Runwatch {

// Where a connection's API key is kept.
enum class KeyStorage {
    None,      // no key (local servers, the demo)
    Keychain,  // the OS keychain (the default and the only silent choice)
    Session,   // opted in: in memory until the app quits, so no other process can read it
    Plaintext, // opted in explicitly: an owner-only file
};
QString keyStorageName(KeyStorage storage);
KeyStorage keyStorageFromName(QStringView name);

// A saved connection as the GUI's Connections dialog and `runwatch-cli --connection` both see it:
// the connection (backend, URL, auth style, options, insecure opt-in, default model) and where
// its key lives. The key itself is never part of a profile's JSON.
struct ConnectionProfile
{
    Connection connection; // apiKey filled in at runtime only
    KeyStorage keyStorage = KeyStorage::None;
    bool transient = false; // the demo's connections: never saved

    // Connection::toJson() plus "key_storage"; never the key.
    QJsonObject toJson() const;
    // keyStorage from "key_storage"; a profile saved before that field existed gets
    // keyStorageIn(object) == nullopt and the caller decides (ConnectionRegistry migrates it).
    static ConnectionProfile fromJson(const QJsonObject &object);
    static std::optional<KeyStorage> keyStorageIn(const QJsonObject &object);
};

} // namespace Runwatch
