// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

#include <QCoroTask>

namespace Runwatch {

struct SecretResult
{
    bool ok = false;
    QString secret;        // read() only
    bool notFound = false; // read(): no secret stored for this account
    // The OS keychain could not be used (no D-Bus session, no Secret Service, locked keyring…).
    // The UI offers the explicit, remembered opt-in to the insecure store in that case.
    bool keychainUnavailable = false;
    bool usedInsecureStore = false; // the secret lives in the plain file: show a warning
    QString error;                  // operator-facing explanation when !ok
};

// API keys live in the OS keychain (QtKeychain: libsecret on Linux, Keychain on macOS,
// Credential Manager on Windows) — never in SQLite, QSettings, logs or exports. Only when the
// keychain is unavailable *and* the operator opted in explicitly does a key go to a plain file
// readable only by the user; every result then says so, so the UI can show a warning.
class SecretStore : public QObject
{
    Q_OBJECT
public:
    explicit SecretStore(QObject *parent = nullptr);

    void setServiceName(const QString &service) { m_service = service; }
    QString serviceName() const { return m_service; }

    // The opt-in (the caller persists the choice). `path` is the plain file used then.
    void setInsecureFallback(bool allowed, const QString &path = defaultInsecurePath());
    bool insecureFallbackAllowed() const { return m_insecureAllowed; }
    static QString defaultInsecurePath();

    QCoro::Task<SecretResult> read(QString account);
    QCoro::Task<SecretResult> write(QString account, QString secret);
    QCoro::Task<SecretResult> remove(QString account);

private:
    enum class Op { Read, Write, Remove };
    QCoro::Task<SecretResult> runKeychain(Op op, QString account, QString secret);
    SecretResult runInsecure(Op op, const QString &account, const QString &secret);

    QString m_service;
    bool m_insecureAllowed = false;
    QString m_insecurePath;
};

} // namespace Runwatch
