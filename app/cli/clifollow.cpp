// SPDX-License-Identifier: GPL-3.0-or-later
// The CLI's commands that follow runs to their end: watch, resume (and start --follow through
// followToEnd). Each runs on the shared engine and store and returns the exit code.
#include "cli.h"
#include "cli_p.h"

#include "engine/rundeadlines.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;

namespace Runwatch::Cli {

int CliApp::followToEnd(const QString &id)
{
    // The run's deadline acts while this process follows it (a cancel at the deadline is sent
    // from here; the engine holds only this run).
    const DeadlineWatcher deadlines(&m_manager);
    bool stopped = false;
    auto c = connect(&m_manager, &RunManager::followingStopped, this, [&](const QString &rid) {
        if (rid == id)
            stopped = true;
    });
    spinUntil(
        [&] {
            const Run *run = m_manager.run(id);
            // Where the engine stops following, so do we: a timer or webhook suspension resumes by
            // itself and is followed through; a question for the operator ends the command (exit 5).
            return !run || stopped || !RunManager::needsFollowing(*run)
                   || (!m_manager.isFollowing(id) && run->remoteId.isEmpty());
        },
        -1);
    disconnect(c);
    m_store.flush();
    const Run *run = m_manager.run(id);
    if (!run) {
        // Let go (RunManager::letGoDeletedRuns): `delete --local` or `prune` in another process.
        printError(id, RunError{ErrorKind::NotFound,
                                {},
                                CliApp::tr("The run was deleted from the store by another process; "
                                           "stopped following it."),
                                false,
                                0,
                                {}});
        return ExitOtherError;
    }
    if (stopped && !run->isTerminal()) {
        // The engine applied the reason to the run as an error event: printed already.
        return ExitOtherError;
    }
    printEnd(*run);
    if (run->status == RunStatus::Failed && run->rawStatus == u"start_failed")
        return ExitOtherError;
    return exitCodeFor(run->status);
}

int CliApp::cmdWatch(const Options &o, const QStringList &args)
{
    int exitCode = ExitOtherError;
    const Run *run = runArgument(o, args, u"watch"_s, &exitCode);
    if (!run)
        return exitCode;
    const QString id = run->localId;
    if (m_json)
        writeJson(runObject(*run));
    // Output that earlier sessions already received comes from the store; the stream resumes
    // after it, so every byte is printed once.
    if (!run->primaryText.isEmpty()) {
        if (m_json) {
            QJsonObject d{{u"type"_s, u"delta"_s}, {u"run"_s, id}, {u"text"_s, run->primaryText.toString()}};
            writeJson(d);
        } else {
            writeOut(run->primaryText.toString());
        }
    }
    if (!RunManager::needsFollowing(*run) && !run->isTerminal()) {
        // A waiting run as stored may be old news: answered from another client, expired, or
        // cancelled since. The service says what it is now (as `status` does).
        run = rereadWaitingRun(id);
        if (!run)
            return ExitOtherError;
        if (RunManager::needsFollowing(*run)) {
            m_manager.follow(id);
            return followToEnd(id);
        }
    }
    if (!RunManager::needsFollowing(*run)) {
        // Another process may have seen the suspension arrive (a respond that stayed to follow
        // the resumed run): say what the run waits for, as if it had arrived now.
        if (run->status == RunStatus::InputRequired && run->input)
            printEvents(*run, {RunEvent::inputRequired(*run->input)});
        printEnd(*run);
        return exitCodeFor(run->status);
    }
    m_manager.follow(id);
    return followToEnd(id);
}

const Run *CliApp::rereadWaitingRun(const QString &id)
{
    const Run *run = m_manager.run(id);
    if (run && !run->remoteId.isEmpty()) {
        // A refresh that fails (network down) leaves what the store knows, said as such below.
        awaitAction(
            id, RunManager::Action::Refresh, [&] { m_manager.refreshRun(id); }, 15000);
        m_store.flush();
        run = m_manager.run(id);
    }
    return run;
}

int CliApp::cmdResume(const Options &o, const QStringList &args)
{
    if (!args.isEmpty())
        return usage(CliApp::tr("resume takes no arguments"));
    // Reattach every unfinished run: each continues from its persisted position (stream resume
    // from the stored sequence, or polling), so nothing is duplicated and nothing is missing.
    QStringList ids;
    const QList<Run> runs = m_store.loadRuns(RunStore::Load::Summary);
    for (const Run &stored : runs) {
        if (stored.isTerminal() || stored.remoteId.isEmpty())
            continue;
        QString error;
        const Run *run = loadRun(o, stored.localId, &error);
        if (!run) {
            writeErr(CliApp::tr("runwatch-cli: run %1: %2\n").arg(stored.localId, error));
            continue;
        }
        // Decided on the full run: a summary lacks the input request that says whether a
        // suspension (timer, webhook) resumes by itself. A waiting run is read again first: it
        // may have been answered elsewhere (then it is followed) or have expired meanwhile.
        if (!RunManager::needsFollowing(*run)) {
            const QString localId = run->localId;
            run = rereadWaitingRun(localId);
            if (run && run->isTerminal())
                printEnd(*run);
            if (!run || !RunManager::needsFollowing(*run))
                continue;
        }
        ids << run->localId;
    }
    if (ids.isEmpty()) {
        printNote(CliApp::tr("no unfinished runs to resume"));
        return ExitCompleted;
    }
    QSet<QString> stopped;
    auto c
        = connect(&m_manager, &RunManager::followingStopped, this, [&](const QString &id, const RunError &e) {
              stopped.insert(id);
              printError(id, e);
          });
    for (const QString &id : std::as_const(ids))
        m_manager.follow(id);
    spinUntil(
        [&] {
            for (const QString &id : std::as_const(ids)) {
                const Run *run = m_manager.run(id);
                if (run && RunManager::needsFollowing(*run) && !stopped.contains(id))
                    return false;
            }
            return true;
        },
        -1);
    disconnect(c);
    m_store.flush();
    int worst = ExitCompleted;
    for (const QString &id : std::as_const(ids)) {
        const Run *run = m_manager.run(id);
        if (!run)
            continue;
        printEnd(*run);
        const int code
            = stopped.contains(id) && !run->isTerminal() ? int(ExitOtherError) : exitCodeFor(run->status);
        if (code != ExitCompleted && (worst == ExitCompleted || code == ExitOtherError))
            worst = code;
    }
    return worst;
}

} // namespace Runwatch::Cli
