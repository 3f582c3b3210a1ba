// SPDX-License-Identifier: GPL-3.0-or-later
#include "connections/keystore.h"

#include "connections/keychain.h"

#include <QDir>
#include <QPointer>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
KeyStore::Result cancelled()
{
    return KeyStore::Result{KeyStore::Status::Error, {}, u"cancelled"_s};
}
} // namespace

QString KeyStore::connectionKey(const QString &connectionName)
{
    return u"connection/"_s + connectionName;
}

QString KeyStore::proxyKey(const QString &connectionName)
{
    // Its own prefix: no connection name can make it equal another connection's key.
    return u"proxy/"_s + connectionName;
}

KeychainKeyStore::KeychainKeyStore(bool insecureFile, QObject *parent)
    : KeyStore(parent)
    , m_store(new Keychain(this))
    , m_insecureFile(insecureFile)
{
    m_store->setInsecureFallback(insecureFile);
}

QString KeychainKeyStore::displayName() const
{
    if (m_insecureFile)
        return tr("plain-text file %1").arg(QDir::toNativeSeparators(Keychain::defaultInsecurePath()));
    return tr("system keychain");
}

QCoro::Task<KeyStore::Result> KeychainKeyStore::read(QString key)
{
    QPointer<KeychainKeyStore> self = this;
    Result r = co_await m_store->read(std::move(key));
    if (!self)
        co_return cancelled();
    co_return r;
}

QCoro::Task<KeyStore::Result> KeychainKeyStore::write(QString key, QString secret)
{
    QPointer<KeychainKeyStore> self = this;
    Result r = co_await m_store->write(std::move(key), std::move(secret));
    if (!self)
        co_return cancelled();
    co_return r;
}

QCoro::Task<KeyStore::Result> KeychainKeyStore::remove(QString key)
{
    QPointer<KeychainKeyStore> self = this;
    Result r = co_await m_store->remove(std::move(key));
    if (!self)
        co_return cancelled();
    co_return r;
}

QString SessionKeyStore::displayName() const
{
    return tr("this session only");
}

QCoro::Task<KeyStore::Result> SessionKeyStore::read(QString key)
{
    Result r;
    const auto it = m_secrets.constFind(key);
    r.status = it == m_secrets.cend() ? Status::NotFound : Status::Ok;
    if (it != m_secrets.cend())
        r.secret = *it;
    co_return r;
}

QCoro::Task<KeyStore::Result> SessionKeyStore::write(QString key, QString secret)
{
    m_secrets.insert(key, secret);
    co_return Result{Status::Ok, {}, {}};
}

QCoro::Task<KeyStore::Result> SessionKeyStore::remove(QString key)
{
    m_secrets.remove(key);
    co_return Result{Status::Ok, {}, {}};
}

} // namespace Runwatch
