// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connections/keystore.h"

#include <QObject>
#include <QString>

#include <QCoroTask>

namespace Runwatch {

// API keys live in the OS keychain (QtKeychain: libsecret on Linux, Keychain on macOS,
// Credential Manager on Windows) — never in SQLite, QSettings, logs or exports. Only when the
// keychain is unavailable *and* the operator opted in explicitly does a key go to a plain file
// readable only by the user; every result then says so, so the UI can show a warning.
// Its results are KeyStore's: Unavailable when the keychain could not be used (no D-Bus session,
// no Secret Service, locked keyring…), which is when the UI offers the opt-in.
class Keychain : public QObject
{
    Q_OBJECT
public:
    using Result = KeyStore::Result;

    explicit Keychain(QObject *parent = nullptr);

    void setServiceName(const QString &service) { m_service = service; }
    QString serviceName() const { return m_service; }

    // The opt-in (the caller persists the choice). `path` is the plain file used then.
    void setInsecureFallback(bool allowed, const QString &path = defaultInsecurePath());
    bool insecureFallbackAllowed() const { return m_insecureAllowed; }
    static QString defaultInsecurePath();

    QCoro::Task<Result> read(QString account);
    QCoro::Task<Result> write(QString account, QString secret);
    QCoro::Task<Result> remove(QString account);

private:
    enum class Op { Read, Write, Remove };
    QCoro::Task<Result> runKeychain(Op op, QString account, QString secret);
    Result runInsecure(Op op, const QString &account, const QString &secret);

    QString m_service;
    bool m_insecureAllowed = false;
    QString m_insecurePath;
};

} // namespace Runwatch
