// SPDX-License-Identifier: GPL-3.0-or-later
#include "connections/keystore.h"

#include "connections/secretstore.h"

#include <QDir>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Answers on the next event-loop turn, as the keychain does, so no caller is re-entered.
void deliver(QObject *context, KeyStore::Callback done, KeyStore::Result result)
{
    if (!context || !done)
        return;
    QTimer::singleShot(0, context, [done = std::move(done), result = std::move(result)] { done(result); });
}
} // namespace

QString KeyStore::connectionKey(const QString &connectionName)
{
    return u"connection/"_s + connectionName;
}

KeychainKeyStore::KeychainKeyStore(bool insecureFile, QObject *parent)
    : KeyStore(parent)
    , m_store(new SecretStore(this))
    , m_insecureFile(insecureFile)
{
    m_store->setInsecureFallback(insecureFile);
}

QString KeychainKeyStore::displayName() const
{
    if (m_insecureFile)
        return tr("plain-text file %1").arg(QDir::toNativeSeparators(SecretStore::defaultInsecurePath()));
    return tr("system keychain");
}

void KeychainKeyStore::read(const QString &key, QObject *context, Callback done)
{
    run(Op::Read, key, {}, context, std::move(done));
}

void KeychainKeyStore::write(const QString &key, const QString &secret, QObject *context, Callback done)
{
    run(Op::Write, key, secret, context, std::move(done));
}

void KeychainKeyStore::remove(const QString &key, QObject *context, Callback done)
{
    run(Op::Remove, key, {}, context, std::move(done));
}

QCoro::Task<> KeychainKeyStore::run(Op op, QString key, QString secret, QPointer<QObject> context,
                                    Callback done)
{
    QPointer<KeychainKeyStore> self = this;
    SecretResult r;
    switch (op) {
    case Op::Read:
        r = co_await m_store->read(key);
        break;
    case Op::Write:
        r = co_await m_store->write(key, secret);
        break;
    case Op::Remove:
        r = co_await m_store->remove(key);
        break;
    }
    if (!self || !context || !done)
        co_return;
    Result result;
    result.secret = r.secret;
    result.error = r.error;
    if (r.ok)
        result.status = Status::Ok;
    else if (r.notFound)
        result.status = Status::NotFound;
    else if (r.keychainUnavailable)
        result.status = Status::Unavailable;
    else
        result.status = Status::Error;
    done(result);
}

QString SessionKeyStore::displayName() const
{
    return tr("this session only");
}

void SessionKeyStore::read(const QString &key, QObject *context, Callback done)
{
    Result r;
    const auto it = m_secrets.constFind(key);
    r.status = it == m_secrets.cend() ? Status::NotFound : Status::Ok;
    if (it != m_secrets.cend())
        r.secret = *it;
    deliver(context, std::move(done), r);
}

void SessionKeyStore::write(const QString &key, const QString &secret, QObject *context, Callback done)
{
    m_secrets.insert(key, secret);
    deliver(context, std::move(done), Result{Status::Ok, {}, {}});
}

void SessionKeyStore::remove(const QString &key, QObject *context, Callback done)
{
    m_secrets.remove(key);
    deliver(context, std::move(done), Result{Status::Ok, {}, {}});
}

} // namespace Runwatch
