// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connections/connectionregistry.h"
#include "domain/connection.h"
#include "engine/runmanager.h"
#include "store/runstore.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QStringList>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>

namespace Runwatch::Cli {

// Exit codes (README "CLI"): by the run's state when the command ends.
enum ExitCode {
    ExitCompleted = 0,
    ExitOtherError = 1,
    ExitUsage = 2,
    ExitFailed = 3, // failed, expired, rejected, timed out, incomplete
    ExitCancelled = 4,
    ExitInputRequired = 5,
    ExitStillRunning = 6, // `status` of a run that has not finished
};

int exitCodeFor(RunStatus status);

// The headless front end. Parses argv, runs one command on the shared engine and store, and
// returns the process exit code. Output goes to the given streams (stdout / stderr in main).
class CliApp : public QObject
{
    Q_OBJECT
public:
    CliApp(FILE *out, FILE *err, QObject *parent = nullptr);
    // Whatever path run() returned by (--version, --help, a usage error), buffered output goes out.
    ~CliApp() override;

    // Runs the command to completion (spins the event loop). `args` excludes argv[0].
    int run(const QStringList &args);
    // The whole --help text: the fixed parts and the connectors' (the registry's rows).
    static QString helpText();

private:
    struct Options;

    int usage(const QString &message);
    int runCommand(const QString &command, const Options &o, const QStringList &given);
    bool setUpStore(const Options &o);
    // The connection a command talks to: the saved one named by --connection, else the saved
    // one a stored run was started on (unless --url/--backend name another), else the one
    // --backend/--url describe. *usageError tells a bad command line from a missing key.
    std::optional<Connection> connectionFor(const Options &o, const Run *run, QString *error,
                                            bool *usageError = nullptr);
    QString apiKeyFor(const Options &o, const QString &backend) const;
    // Whether the environment's key may go to `url` without --url: the connector's own service.
    bool keyGivenFor(const QString &backend, const QUrl &url) const;
    int connectionError(const QString &error, bool usageError);
    // For commands that name no stored run (start, agent, list --remote, attach): the connection
    // from the command line, added to the engine. nullopt after reporting why, with *exitCode set.
    std::optional<Connection> addCommandConnection(const Options &o, int *exitCode);
    // The saved connections (cliconnections.cpp): the same profiles and keys as the app's.
    ConnectionRegistry &registry();
    // `profile` with its key: --api-key-env, else from where the app keeps it.
    std::optional<Connection> savedConnection(const Options &o, const ConnectionProfile &profile,
                                              QString *error);

    int cmdStart(const Options &o, const QStringList &args);
    int cmdFollowUp(const Options &o, const QStringList &args);
    // After startRun()/followUp(): follows to the end (`follow`), or waits until the service has
    // the run and prints its line. `pollOnly`: a backend without resumable streams (foundry),
    // known once it has a remote id.
    int reportStarted(const QString &id, bool follow, bool stream, bool pollOnly);
    int cmdWatch(const Options &o, const QStringList &args);
    int cmdStatus(const Options &o, const QStringList &args);
    int cmdCancel(const Options &o, const QStringList &given);
    int cmdDelete(const Options &o, const QStringList &args);
    int cmdList(const Options &o, const QStringList &args);
    int cmdListRemote(const Options &o);
    int cmdAttach(const Options &o, const QStringList &args);
    int cmdAgent(const Options &o, const QStringList &args);
    int cmdAgents(const Options &o, const QStringList &args);
    int cmdRespond(const Options &o, const QStringList &args);
    // respond RUN RUN…: one answer to each run (BatchResponder), one result line per run; exit 0
    // when every run took it, 1 otherwise (clirespond.cpp).
    int respondToMany(const Options &o, const QStringList &runs, const InputAnswer &answer);
    int cmdResume(const Options &o, const QStringList &args);
    int cmdExport(const Options &o, const QStringList &args);
    int cmdPrune(const Options &o, const QStringList &args);
    int cmdConnections(const Options &o, const QStringList &args);
    int cmdDeadline(const Options &o, const QStringList &args); // clideadline.cpp
    int cmdStuckRule(const QStringList &args);                  // clideadline.cpp

    // Loads RUN from the store, registers its connection and adopts it (without following).
    const Run *loadRun(const Options &o, const QString &idOrRemote, QString *error);
    const Run *loadRunOrReport(const Options &o, const QString &idOrRemote);
    // For `COMMAND RUN`: the one RUN of `args`, loaded; nullptr after reporting why, *exitCode set.
    const Run *runArgument(const Options &o, const QStringList &args, const QString &command, int *exitCode);
    // Triggers a RunManager action and waits (bounded) for its actionFinished; nullopt on timeout.
    std::optional<ActionResult> awaitAction(const QString &id, RunManager::Action action,
                                            const std::function<void()> &trigger, int timeoutMs = 60000);
    // Follows `id` until terminal / input required / gave up, printing as it goes.
    // A stored run that waits for input, read again from the service (bounded): what it is now.
    const Run *rereadWaitingRun(const QString &id);
    int followToEnd(const QString &id);

    void printRunLine(const Run &run);
    // Prints what the events say. The primary text is printed as it grows, whether it arrives
    // as deltas (streams) or as snapshots (polls, A2A resumes): the new suffix, or a marker and
    // the whole text when the server replaced it with something that does not extend it.
    void printEvents(const Run &run, const QList<RunEvent> &events);
    // What of the run's primary text the user already has (printed, or printed by an earlier
    // session and in the store): the base printPrimary() continues from.
    void setPrinted(const Run &run) { m_printed.insert(run.localId, run.primaryText); }
    void printEnd(const Run &run);
    // "reconnecting, next try in N s" once per scheduled try (stderr, or a JSON `status` line).
    void printReconnecting(const Run &run);
    void printError(const QString &runId, const RunError &error);
    void printNote(const QString &text);
    // stdout is buffered and flushed at least once per 16 ms frame (and at exit); stderr is
    // written at once, after what stdout had buffered.
    // Rare lines (QJsonDocument); hot ones are written into m_outBuffer with JsonObjectWriter
    // and ended with endJsonLine().
    void writeJson(const QJsonObject &object);
    void endJsonLine();
    void writeOut(const QString &text);
    void writeErr(const QString &text);
    void scheduleFlush();
    void flushOut();

    static constexpr qsizetype kOutBufferMax = 256 * 1024;
    FILE *m_out;
    FILE *m_err;
    QByteArray m_outBuffer; // stdout not yet written
    QTimer m_flushTimer;
    bool m_json = false;
    bool m_announceStarts = false; // start --follow: print the run line before its first events
    QSet<QString> m_announced;
    bool m_printPrimary = true;        // `status` prints the run line only, not text a refresh brought
    bool m_printEvents = true;         // `respond RUN RUN…` prints one result line per run, nothing else
    QHash<QString, RunText> m_printed; // run → primary text printed so far
    QHash<QString, QDateTime> m_reconnectPrinted; // run → the next try last announced
    RunStore m_store;
    RunManager m_manager;
    std::unique_ptr<ConnectionRegistry> m_registry; // made on first use, once the store is open
    QHash<QString, Connection> m_savedConnections;  // resolved with their keys, by name
    QString m_outError; // why stdout could not be written (the first failure), empty while fine
    QHash<QString, bool> m_keyWithheld; // origins told once: no environment key for them
};

} // namespace Runwatch::Cli
