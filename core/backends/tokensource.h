// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A connection's credential: a key (keychain / environment), or a token command whose output is
// a short-lived token (e.g. `az account get-access-token --resource https://ai.azure.com --query
// accessToken -o tsv` for Microsoft Entra ID, an OAuth client's token for an A2A agent). Tokens
// expire and runs outlive them, so the command runs when there is no token yet, when the token
// is near its expiry (the JWT's `exp`, else an hour after it was obtained) and once after a
// 401 — never per request. Its output is the token: never logged, never stored anywhere but in
// this object's memory. It runs with /bin/sh -c, without the API keys of Runwatch and of other
// services in its environment (it has no business with them), its output read up to 64 KiB and
// for two minutes at most.

#include "domain/runerror.h"

#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QProcessEnvironment>
#include <QString>

#include <QCoroTask>

class QProcess;

namespace Runwatch {

class TokenSource final : public QObject
{
    Q_OBJECT
public:
    struct Result
    {
        QString token; // empty with an error, or when the connection has no credentials at all
        RunError error;
    };

    // `staticToken`: used as is (no command). `command`: run with /bin/sh -c instead.
    TokenSource(QString staticToken, QString command, QObject *parent = nullptr);
    ~TokenSource() override;

    bool hasCommand() const { return !m_command.isEmpty(); }
    // Whether there is a credential to be had at all (a key or a command).
    bool hasCredential() const { return hasCommand() || !m_token.isEmpty(); }
    // The current token, running the command first when needed. `refresh`: the service refused
    // the current token (401): run the command again even if the token looks valid.
    QCoro::Task<Result> token(bool refresh = false);
    // How many times the command ran (for tests and diagnostics; never its output).
    int commandRuns() const { return m_runs; }
    // Ends a running command (RunBackend::shutdown): its awaiters resume with Cancelled, and the
    // command does not run again.
    void stop();

    // When a token expires: the `exp` claim of a JWT, else invalid.
    static QDateTime jwtExpiry(const QString &token);
    // `environment` without what a token command must not see: every *_API_KEY / *_APIKEY
    // variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, …), every RUNWATCH_* variable (RUNWATCH_API_KEY
    // and the rest of ours), and any variable holding `secret` (a key read from a variable named
    // by --api-key-env).
    static QProcessEnvironment commandEnvironment(const QProcessEnvironment &environment,
                                                  const QString &secret = {});

Q_SIGNALS:
    void refreshed();

private:
    QCoro::Task<> runCommand();
    bool fresh() const;

    QString m_command;
    QString m_token;
    // The key the connection came with besides its command: kept out of the command's environment.
    QString m_staticToken;
    QDateTime m_expiresAt;
    RunError m_lastError;
    QPointer<QProcess> m_process;
    bool m_running = false;
    bool m_stopped = false;
    int m_runs = 0;
};

} // namespace Runwatch
