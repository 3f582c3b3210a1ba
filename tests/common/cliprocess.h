// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace RunwatchTest {

// What a command-line run of runwatch-cli left behind.
struct CliResult
{
    int exitCode = -1; // -1 when the process did not exit normally (crashed, killed)
    QByteArray out;
    QByteArray err;
    bool timedOut = false; // it had to be killed
};

// Starts `program` without blocking this thread's event loop, where the simulators it talks to
// live. The API key variables of the test's own environment are removed, so that only what a
// test passes reaches the process; `extraEnv` adds "NAME=value" entries. Owned by `parent`.
QProcess *launchCli(const QString &program, const QStringList &args, QObject *parent,
                    const QStringList &extraEnv = {});
// This process's environment with the language set to `lang` alone (LANG; LC_ALL, LC_MESSAGES
// and LANGUAGE removed, as they would win over it): how a test runs a program in a language.
QProcessEnvironment environmentInLanguage(const QString &lang);
// Waits for the process (turning the event loop) for at most `ms`, then kills it; collects its
// exit code and output and deletes it later.
CliResult finishCli(QProcess *process, int ms = 60000);
#ifdef RUNWATCH_CLI_PATH
// runwatch-cli (the build's, RUNWATCH_CLI_PATH) with `args`, to its end or `ms`: launchCli + finishCli.
inline CliResult runCli(const QStringList &args, QObject *parent, const QStringList &extraEnv = {},
                        int ms = 60000)
{
    return finishCli(launchCli(QStringLiteral(RUNWATCH_CLI_PATH), args, parent, extraEnv), ms);
}
#endif
// The JSON objects of --json output, one per line (lines that are no object left out).
QList<QJsonObject> jsonLines(const QByteArray &out);
// The first of them whose "type" is `type`; empty when there is none.
QJsonObject firstOfType(const QByteArray &out, const QString &type);
// The run id of --json output: the first {"type":"run"} line's "run"; empty when there is none.
QString runIdFrom(const QByteArray &out);

} // namespace RunwatchTest
