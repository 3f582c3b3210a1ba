// SPDX-License-Identifier: GPL-3.0-or-later
#include "connections/connectionprofile.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
const QString kKeyStorage = u"key_storage"_s;
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

QJsonObject ConnectionProfile::toJson() const
{
    QJsonObject o = connection.toJson(); // never includes the key
    o.insert(kKeyStorage, keyStorageName(keyStorage));
    return o;
}

ConnectionProfile ConnectionProfile::fromJson(const QJsonObject &object)
{
    ConnectionProfile p;
    p.connection = Connection::fromJson(object);
    p.keyStorage = keyStorageIn(object).value_or(KeyStorage::None);
    return p;
}

std::optional<KeyStorage> ConnectionProfile::keyStorageIn(const QJsonObject &object)
{
    const QJsonValue v = object.value(kKeyStorage);
    if (!v.isString())
        return std::nullopt;
    return keyStorageFromName(v.toString());
}

} // namespace Runwatch
