// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QObject>
#include <QString>

#include <QCoroTask>

namespace Runwatch {

class Keychain;

// Where a connection's API key is kept: the OS keychain through core's Keychain, or — only
// after the user opted in because no keychain is available — this process's memory or core's
// owner-only plain file. Coroutines with by-value parameters; callers that are not coroutines
// use QCoro::connect(task, context, callback).
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
        QString error;          // operator-facing
        bool plainFile = false; // the secret lives in the opted-in plain file: show a warning

        bool ok() const { return status == Status::Ok; }
    };

    using QObject::QObject;
    ~KeyStore() override = default;

    virtual QString displayName() const = 0;
    virtual QCoro::Task<Result> read(QString key) = 0;
    virtual QCoro::Task<Result> write(QString key, QString secret) = 0;
    virtual QCoro::Task<Result> remove(QString key) = 0;

    static QString connectionKey(const QString &connectionName);
    // The account of the connection's proxy password (always in the OS keychain).
    static QString proxyKey(const QString &connectionName);
};

// The OS keychain (core's Keychain with the plain-file fallback off), or — `insecureFile`
// set, the user's explicit opt-in — the keychain when it works and core's owner-only plain file
// when it does not.
class KeychainKeyStore final : public KeyStore
{
    Q_OBJECT
public:
    explicit KeychainKeyStore(bool insecureFile = false, QObject *parent = nullptr);

    QString displayName() const override;
    Keychain *keychain() const { return m_store; }
    QCoro::Task<Result> read(QString key) override;
    QCoro::Task<Result> write(QString key, QString secret) override;
    QCoro::Task<Result> remove(QString key) override;

private:
    Keychain *m_store;
    bool m_insecureFile;
};

// The other opt-in: kept in this process's memory until it quits. No other process (the CLI,
// the app after a restart) can read such a key.
class SessionKeyStore final : public KeyStore
{
    Q_OBJECT
public:
    using KeyStore::KeyStore;

    QString displayName() const override;
    QCoro::Task<Result> read(QString key) override;
    QCoro::Task<Result> write(QString key, QString secret) override;
    QCoro::Task<Result> remove(QString key) override;

private:
    QHash<QString, QString> m_secrets;
};

} // namespace Runwatch
