// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Bearer tokens for a Foundry connection. Microsoft Entra tokens last about an hour and runs
// outlive them, so a connection holds either a token (keychain / environment) or a token command
// (e.g. `az account get-access-token --resource https://ai.azure.com --query accessToken -o
// tsv`). The command runs when there is no token yet, when the token is near its expiry (the
// JWT's `exp`, else an hour after it was obtained) and once after a 401 — never per request.
// Its output is the token: never logged, never stored anywhere but in this object's memory.

#include "domain/runerror.h"

#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QString>

#include <QCoroTask>

class QProcess;

namespace Runwatch {

class FoundryTokenSource final : public QObject
{
    Q_OBJECT
public:
    struct Result
    {
        QString token; // empty with an error, or when the connection has no credentials at all
        RunError error;
    };

    // `staticToken`: used as is (no command). `command`: run with /bin/sh -c.
    FoundryTokenSource(QString staticToken, QString command, QObject *parent = nullptr);
    ~FoundryTokenSource() override;

    bool hasCommand() const { return !m_command.isEmpty(); }
    // The current token, running the command first when needed. `refresh`: the service refused
    // the current token (401): run the command again even if the token looks valid.
    QCoro::Task<Result> token(bool refresh = false);
    // How many times the command ran (for tests and diagnostics; never its output).
    int commandRuns() const { return m_runs; }
    // Ends a running command (RunBackend::shutdown): its awaiters resume with Cancelled.
    void stop();

    // When a token expires: the `exp` claim of a JWT, else invalid.
    static QDateTime jwtExpiry(const QString &token);

Q_SIGNALS:
    void refreshed();

private:
    QCoro::Task<> runCommand();
    bool fresh() const;

    QString m_command;
    QString m_token;
    QDateTime m_expiresAt;
    RunError m_lastError;
    QPointer<QProcess> m_process;
    bool m_running = false;
    bool m_stopped = false;
    int m_runs = 0;
};

} // namespace Runwatch
