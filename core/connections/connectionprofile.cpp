// SPDX-License-Identifier: GPL-3.0-or-later
#include "connections/connectionprofile.h"

#include "domain/enumnames.h"

#include <array>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
const QString kKeyStorage = u"key_storage"_s;
constexpr std::array kStorageNames{
    EnumName{KeyStorage::None, "none"_L1},
    EnumName{KeyStorage::Keychain, "keychain"_L1},
    EnumName{KeyStorage::Session, "session"_L1},
    EnumName{KeyStorage::Plaintext, "plaintext"_L1},
};
} // namespace

QString keyStorageName(KeyStorage storage)
{
    return nameOf(kStorageNames, storage, "none"_L1);
}

KeyStorage keyStorageFromName(QStringView name)
{
    return fromName(kStorageNames, name).value_or(KeyStorage::None);
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
