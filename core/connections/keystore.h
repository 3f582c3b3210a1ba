// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

#include <QCoroTask>

#include <functional>

namespace Runwatch {

class SecretStore;

// Where the GUI keeps a connection's API key: the OS keychain through core's SecretStore, or —
// only after the user opted in because no keychain is available — this session's memory or
// core's owner-only plain file. A small callback interface so dialogs need no coroutines.
class KeyStore : public QObject
{
    Q_OBJECT
public:
    enum class Status {
        Ok,
        NotFound,
        Unavailable, // no keychain service (no D-Bus session, no Secret Service, locked keyring)
        Error,
    };
    struct Result
    {
        Status status = Status::Error;
        QString secret;
        QString error; // operator-facing

        bool ok() const { return status == Status::Ok; }
    };
    using Callback = std::function<void(const Result &)>;

    using QObject::QObject;
    ~KeyStore() override = default;

    virtual QString displayName() const = 0;
    // The callback runs later on this thread, and not at all once `context` is gone.
    virtual void read(const QString &key, QObject *context, Callback done) = 0;
    virtual void write(const QString &key, const QString &secret, QObject *context, Callback done) = 0;
    virtual void remove(const QString &key, QObject *context, Callback done) = 0;

    static QString connectionKey(const QString &connectionName);
};

// The OS keychain (core's SecretStore with the plain-file fallback off), or — `insecureFile`
// set, the user's explicit opt-in — the keychain when it works and core's owner-only plain file
// when it does not.
class KeychainKeyStore final : public KeyStore
{
    Q_OBJECT
public:
    explicit KeychainKeyStore(bool insecureFile = false, QObject *parent = nullptr);

    QString displayName() const override;
    SecretStore *secretStore() const { return m_store; }
    void read(const QString &key, QObject *context, Callback done) override;
    void write(const QString &key, const QString &secret, QObject *context, Callback done) override;
    void remove(const QString &key, QObject *context, Callback done) override;

private:
    enum class Op { Read, Write, Remove };
    QCoro::Task<> run(Op op, QString key, QString secret, QPointer<QObject> context, Callback done);

    SecretStore *m_store;
    bool m_insecureFile;
};

// The other opt-in: kept in memory until the app quits.
class SessionKeyStore final : public KeyStore
{
    Q_OBJECT
public:
    using KeyStore::KeyStore;

    QString displayName() const override;
    void read(const QString &key, QObject *context, Callback done) override;
    void write(const QString &key, const QString &secret, QObject *context, Callback done) override;
    void remove(const QString &key, QObject *context, Callback done) override;

private:
    QHash<QString, QString> m_secrets;
};

} // namespace Runwatch
