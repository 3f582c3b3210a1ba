// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Helpers shared by the CLI's translation units (cli.cpp, clicommands.cpp, cliconnections.cpp,
// clioutput.cpp, cliremote.cpp, clifollowup.cpp).

#include "cli.h"
#include "domain/run.h"
#include "domain/runevent.h"
#include "domain/runreducer.h"
#include "engine/eventloopwait.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonObject>
#include <QMap>

namespace Runwatch::Cli {

// The global options, as given before the command.
struct CliApp::Options
{
    QString backend;
    QString url;
    QString connection;
    QString apiKeyEnv;
    QString auth;
    QString store;
    // The connection options given by their flags (the registry's rows: a connector's own and
    // the common ones), by option key: the flag as given and its value.
    QMap<QString, std::pair<QString, QString>> connectionOptions;
    QString option(QLatin1StringView key) const { return connectionOptions.value(QString(key)).second; }
    bool allowInsecure = false;
};

// "90s", "5m", "1.5h", "500ms", or a bare number of seconds; nullopt unless positive.
std::optional<std::chrono::milliseconds> parseDuration(const QString &text);

// The "run" JSON Lines object (type, run, remote_id, backend, status, title).
QJsonObject runObject(const Run &run);

// How printed primary text moves on after one applied event. Mirrors applyEvent()'s rules for
// PrimaryDelta / PrimarySnapshot on `printed` (the text printed so far), so that a snapshot
// prints only what it adds and a snapshot that is not an extension is printed whole, once.
struct PrimaryUpdate
{
    enum class Kind {
        None,    // nothing new to print
        Append,  // print `text` after what was printed
        Replace, // the text was replaced: `text` is the whole new text
    };
    Kind kind = Kind::None;
    QString text;
};
PrimaryUpdate advancePrinted(RunText &printed, const RunEvent &event);

// The signal (SIGINT, SIGTERM) that asked this process to stop, or 0. Set by the handler that
// installInterruptHandler() puts in place; every wait of a command ends on it, so the command
// returns through run(), which saves what was received before the process exits.
int interruptedBy();
void installInterruptHandler(QObject *owner);

// Runs the event loop until `done()` holds, `timeoutMs` passes (-1: no limit) or the process is
// interrupted. Returns done().
template<typename Pred>
bool spinUntil(Pred done, int timeoutMs)
{
    return runEventLoopUntil([&done] { return interruptedBy() != 0 || done(); },
                             std::chrono::milliseconds(timeoutMs))
           && done();
}

} // namespace Runwatch::Cli
