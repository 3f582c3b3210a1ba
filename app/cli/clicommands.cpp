// SPDX-License-Identifier: GPL-3.0-or-later
// The CLI's commands. Each runs on the shared engine and store and returns the exit code.
#include "cli.h"
#include "cli_p.h"

#include "backends/registry.h"
#include "domain/timebudget.h"
#include "engine/retention.h"
#include "engine/runexport.h"
#include "store/pricebook.h"
#include "json/jsonschema.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QSaveFile>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch::Cli {

std::optional<ActionResult> CliApp::awaitAction(const QString &id, RunManager::Action action,
                                                const std::function<void()> &trigger, int timeoutMs)
{
    std::optional<ActionResult> result;
    auto c = connect(&m_manager, &RunManager::actionFinished, this,
                     [&](const QString &rid, RunManager::Action a, const ActionResult &r) {
                         if (rid == id && a == action)
                             result = r;
                     });
    trigger();
    spinUntil([&] { return result.has_value(); }, timeoutMs);
    disconnect(c);
    return result;
}

const Run *CliApp::loadRunOrReport(const Options &o, const QString &idOrRemote)
{
    QString error;
    const Run *run = loadRun(o, idOrRemote, &error);
    if (!run)
        writeErr(u"runwatch-cli: "_s + error + u'\n');
    return run;
}

const Run *CliApp::runArgument(const Options &o, const QStringList &args, const QString &command,
                               int *exitCode)
{
    if (args.size() != 1) {
        *exitCode = usage(CliApp::tr("%1 needs exactly one RUN").arg(command));
        return nullptr;
    }
    const Run *run = loadRunOrReport(o, args.first());
    if (!run)
        *exitCode = ExitOtherError;
    return run;
}

int CliApp::cmdStart(const Options &o, const QStringList &args)
{
    QString prompt, model, agent, conversation;
    bool stream = true, follow = false, cancelAtDeadline = false;
    std::optional<qint64> budget;
    QJsonValue input(QJsonValue::Undefined); // none unless --input gives one
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (a == u"--prompt" && i + 1 < args.size()) {
            prompt = args.at(++i);
        } else if (a == u"--input" && i + 1 < args.size()) {
            QString why;
            const std::optional<QJsonValue> parsed = parseJsonValue(args.at(++i), &why);
            if (!parsed)
                return usage(CliApp::tr("start: --input: %1").arg(why));
            input = *parsed;
        } else if (a == u"--model" && i + 1 < args.size()) {
            model = args.at(++i);
        } else if (a == u"--agent" && i + 1 < args.size()) {
            agent = args.at(++i);
        } else if (a == u"--conversation" && i + 1 < args.size()) {
            conversation = args.at(++i).trimmed();
            if (conversation.isEmpty())
                return usage(CliApp::tr("start: --conversation needs new or a conversation id"));
        } else if (a == u"--no-stream") {
            stream = false;
        } else if (a == u"--follow") {
            follow = true;
        } else if (a == u"--deadline" && i + 1 < args.size()) {
            budget = parseTimeBudgetMs(args.at(++i));
            if (!budget) {
                return usage(
                    CliApp::tr("start: --deadline needs a time budget such as 90s, 45m, 2h or 1h30m"));
            }
        } else if (a == u"--cancel-at-deadline") {
            cancelAtDeadline = true;
        } else {
            return usage(CliApp::tr("start: unexpected argument %1").arg(a));
        }
    }
    if (prompt.isEmpty() && input.isUndefined())
        return usage(CliApp::tr("start needs --prompt TEXT or --input JSON"));
    // Without --prompt the run is titled by what it runs: the agent (a tool) and its input.
    if (prompt.isEmpty())
        prompt = Run::summarize((agent.isEmpty() ? QString() : agent + u' ') + jsonValueText(input), 200);
    int exitCode = ExitOtherError;
    const auto conn = addCommandConnection(o, &exitCode);
    if (!conn)
        return exitCode;
    if (!input.isUndefined() && !takesStructuredInput(m_manager.backend(conn->name))) {
        return usage(CliApp::tr("start: --input: the %1 backend cannot start a run from structured input")
                         .arg(conn->backend));
    }
    // Refused here rather than ignored by a connector that has no conversations: the operator
    // asked for the run to be a turn of one.
    if (!conversation.isEmpty()
        && !(m_manager.backend(conn->name)
             && m_manager.backend(conn->name)->capabilities().testFlag(Capability::Conversations))) {
        return usage(
            CliApp::tr("start: --conversation: the %1 backend has no conversations").arg(conn->backend));
    }
    // Agent runs use the agent's own model unless one is asked for.
    const ConnectorDescriptor *row = connector(conn->backend);
    if (row && row->needsAgent && agent.isEmpty()
        && conn->options.value(ConnectionOption::Agent).toString().isEmpty()) {
        return usage(
            CliApp::tr("start on %1 needs --agent ID (runwatch-cli agents lists them)").arg(conn->backend));
    }
    StartRequest request;
    request.prompt = prompt;
    request.input = input;
    request.agent = agent;
    request.conversation = conversation;
    request.model = !model.isEmpty()                ? model
                    : !conn->defaultModel.isEmpty() ? conn->defaultModel
                    : row                           ? row->defaultModel
                                                    : QString();
    request.stream = stream;
    const QString id = m_manager.startRun(conn->name, request);
    if (budget)
        m_manager.setDeadline(id, QDateTime::currentDateTimeUtc().addMSecs(*budget), cancelAtDeadline);
    // A run whose stream cannot be resumed is followed by polling in any later command.
    const RunBackend *backend = m_manager.backend(conn->name);
    return reportStarted(id, follow, stream,
                         !backend || !backend->capabilities().testFlag(Capability::ResumeStream));
}

int CliApp::reportStarted(const QString &id, bool follow, bool stream, bool pollOnly)
{
    if (follow) {
        // The run line goes out before any of the run's events (printEvents announces it).
        m_announceStarts = true;
        return followToEnd(id);
    }

    // Without --follow: stay until the server has the run past its first event (by sequence, or
    // by event id where a service numbers none). Dropping the create stream at the very first
    // event can strand a response in "queued" (protocol §2.3).
    const bool ready = spinUntil(
        [&] {
            const Run *run = m_manager.run(id);
            return !run || run->isTerminal() || run->status == RunStatus::InputRequired
                   || (!run->remoteId.isEmpty()
                       && (run->token.sequence >= 1 || !run->token.eventId.isEmpty() || !stream))
                   // No stream to resume anyway: once the run is known it is followed by
                   // polling in any later command.
                   || (pollOnly && !run->remoteId.isEmpty()) || !m_manager.isFollowing(id);
        },
        60000);
    const Run *run = m_manager.run(id);
    if (!run) {
        writeErr(CliApp::tr("runwatch-cli: the run disappeared\n"));
        return ExitOtherError;
    }
    if (run->remoteId.isEmpty()) {
        printError(id, run->error.isError()
                           ? run->error
                           : RunError{ErrorKind::Timeout,
                                      {},
                                      CliApp::tr("The server did not acknowledge the run in time."),
                                      true,
                                      0,
                                      {}});
        return ExitOtherError;
    }
    Q_UNUSED(ready)
    m_manager.stopFollowing(id);
    m_store.flush();
    printRunLine(*run);
    return ExitCompleted;
}

int CliApp::cmdCancel(const Options &o, const QStringList &given)
{
    QStringList args;
    std::optional<std::chrono::milliseconds> stopAfter;
    QString stopAfterText;
    for (int i = 0; i < given.size(); ++i) {
        if (given.at(i) != u"--stop-watching-after") {
            args << given.at(i);
            continue;
        }
        if (i + 1 < given.size()) {
            stopAfterText = given.at(++i);
            stopAfter = parseDuration(stopAfterText);
        }
        if (!stopAfter)
            return usage(CliApp::tr("cancel: --stop-watching-after expects a duration such as 30s or 5m"));
    }
    if (stopAfter) {
        // The cancel ladder's wait (the app's is the policy's default).
        FollowPolicy policy = m_manager.followPolicy();
        policy.cancelConfirmAfter = *stopAfter;
        m_manager.setFollowPolicy(policy);
    }
    int exitCode = ExitOtherError;
    const Run *run = runArgument(o, args, u"cancel"_s, &exitCode);
    if (!run)
        return exitCode;
    const QString id = run->localId;
    const std::optional<ActionResult> outcome
        = awaitAction(id, RunManager::Action::Cancel, [&] { m_manager.cancelRun(id); });
    const bool done = outcome.has_value();
    const ActionResult result = outcome.value_or(ActionResult{});
    if (!done || !result.ok()) {
        printError(
            id,
            done ? result.error
                 : RunError{
                     ErrorKind::Timeout, {}, CliApp::tr("The cancel request did not finish."), true, 0, {}});
        m_store.flush();
        return ExitOtherError;
    }
    if (!result.note.isEmpty()) {
        // A note comes with "already finished" (nothing changed) or with an accepted request
        // that is still under way (the run shows cancelling).
        const Run *now = m_manager.run(id);
        const bool underWay = now && now->status == RunStatus::Cancelling;
        printNote(underWay ? u"run %1: %2"_s.arg(id, result.note)
                           : CliApp::tr("run %1: %2; nothing changed").arg(id, result.note));
    }
    // Cancellation is a request: wait (bounded) until the server confirms a terminal state.
    run = m_manager.run(id);
    if (run && !run->isTerminal()) {
        if (!m_manager.isFollowing(id))
            m_manager.follow(id);
        spinUntil(
            [&] {
                const Run *r = m_manager.run(id);
                return !r || r->isTerminal() || (stopAfter && r->cancelUnconfirmed);
            },
            stopAfter ? int(stopAfter->count()) + 30000 : 30000);
        run = m_manager.run(id);
        if (stopAfter && run && run->cancelUnconfirmed) {
            // Not confirmed in time: end the run here, with the server's last word on record.
            const QString reason
                = CliApp::tr("runwatch-cli cancel --stop-watching-after %1").arg(stopAfterText);
            const std::optional<ActionResult> stopped = awaitAction(
                id, RunManager::Action::StopWatching, [&] { m_manager.stopWatching(id, reason); });
            run = m_manager.run(id);
            if (stopped && stopped->ok() && run && run->status == RunStatus::StoppedWatching) {
                printNote(
                    CliApp::tr(
                        "run %1: the service did not confirm the cancel; stopped watching (it last said "
                        "“%2”)")
                        .arg(id, run->rawStatus));
            }
        }
    }
    m_store.flush();
    run = m_manager.run(id);
    if (!run)
        return ExitOtherError;
    printEnd(*run);
    return exitCodeFor(run->status);
}

int CliApp::cmdDelete(const Options &o, const QStringList &args)
{
    QString target;
    bool localOnly = false;
    for (const QString &a : args) {
        if (a == u"--local") {
            localOnly = true;
        } else if (target.isEmpty()) {
            target = a;
        } else {
            return usage(CliApp::tr("delete: unexpected argument %1").arg(a));
        }
    }
    if (target.isEmpty())
        return usage(CliApp::tr("delete needs a RUN"));
    const Run *run = loadRunOrReport(o, target);
    if (!run)
        return ExitOtherError;
    const QString id = run->localId;
    const bool onServer = !localOnly && run->capabilities.testFlag(Capability::Delete);
    const std::optional<ActionResult> outcome
        = awaitAction(id, RunManager::Action::Delete, [&] { m_manager.deleteRun(id, onServer); });
    const bool done = outcome.has_value();
    const ActionResult result = outcome.value_or(ActionResult{});
    if (!done || !result.ok()) {
        printError(
            id,
            done ? result.error
                 : RunError{
                     ErrorKind::Timeout, {}, CliApp::tr("The delete request did not finish."), true, 0, {}});
        return ExitOtherError;
    }
    const QString where = onServer ? CliApp::tr("on the server and locally") : CliApp::tr("locally only");
    if (m_json) {
        writeJson({{u"type"_s, u"deleted"_s},
                   {u"run"_s, id},
                   {u"scope"_s, onServer ? u"server"_s : u"local"_s},
                   {u"note"_s, result.note}});
    } else {
        writeOut(CliApp::tr("Deleted run %1 %2%3\n")
                     .arg(id, where, result.note.isEmpty() ? QString() : u" ("_s + result.note + u')'));
    }
    return ExitCompleted;
}

int CliApp::cmdExport(const Options &o, const QStringList &args)
{
    Q_UNUSED(o)
    QString target, format = u"md"_s, output;
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (a == u"--format" && i + 1 < args.size()) {
            format = args.at(++i);
        } else if (a == u"--output" && i + 1 < args.size()) {
            output = args.at(++i);
        } else if (target.isEmpty() && !a.startsWith(u"--"_s)) {
            target = a;
        } else {
            return usage(CliApp::tr("export: unexpected argument %1").arg(a));
        }
    }
    if (target.isEmpty())
        return usage(CliApp::tr("export needs a RUN"));
    if (format != u"md" && format != u"json")
        return usage(CliApp::tr("export --format must be md or json"));
    const std::optional<Run> run = m_store.findRun(target);
    if (!run) {
        writeErr(CliApp::tr("runwatch-cli: no run \"%1\" in the store %2\n").arg(target, m_store.path()));
        return ExitOtherError;
    }
    // The document holds the whole conversation, earlier and later turns from the store.
    const auto lookup = [this](const QString &id) { return m_store.loadRun(id); };
    const QList<Run> earlier = conversationBefore(*run, lookup);
    QStringList order;
    QHash<QString, QString> parents;
    // Oldest first: a follow-up is created after its parent (conversationAfter()).
    QList<Run> summaries = m_store.loadRuns(RunStore::Load::Summary);
    std::stable_sort(summaries.begin(), summaries.end(),
                     [](const Run &a, const Run &b) { return a.createdAt < b.createdAt; });
    for (const Run &r : std::as_const(summaries)) {
        order << r.localId;
        parents.insert(r.localId, r.parentId);
    }
    const QList<Run> later = conversationAfter(
        *run, order, [&parents](const QString &id) { return parents.value(id); }, lookup);
    const QByteArray doc = exportRun(*run, format == u"md" ? ExportFormat::Markdown : ExportFormat::Json,
                                     PriceBook::load(m_store), earlier, later, m_store.journal(run->localId));
    if (output.isEmpty()) {
        // Checked at exit: a full disk or a closed pipe on stdout fails the command (run()).
        m_outBuffer += doc;
        flushOut();
        return ExitCompleted;
    }
    if (const QFileInfo where(output); where.exists() && !where.isFile()) {
        // A device or a pipe (/dev/stdout, a FIFO): written in place, every step checked.
        QFile device(output);
        const bool written
            = device.open(QIODevice::WriteOnly) && device.write(doc) == doc.size() && device.flush();
        device.close();
        if (!written || device.error() != QFileDevice::NoError) {
            writeErr(CliApp::tr("runwatch-cli: cannot write %1: %2\n").arg(output, device.errorString()));
            return ExitOtherError;
        }
        return ExitCompleted;
    }
    // All or nothing: a full disk leaves the previous file (or none), never half a document.
    QSaveFile file(output);
    if (!file.open(QIODevice::WriteOnly) || file.write(doc) != doc.size() || !file.commit()) {
        writeErr(CliApp::tr("runwatch-cli: cannot write %1: %2\n").arg(output, file.errorString()));
        return ExitOtherError;
    }
    return ExitCompleted;
}

int CliApp::cmdPrune(const Options &o, const QStringList &args)
{
    Q_UNUSED(o)
    if (args.size() != 2 || args.first() != u"--older-than")
        return usage(CliApp::tr("prune needs --older-than DAYS"));
    bool ok = false;
    const double days = args.at(1).toDouble(&ok);
    if (!ok || days < 0)
        return usage(CliApp::tr("prune: DAYS must be a number ≥ 0"));
    // The rule the app applies too; this process follows no runs, so the store's go.
    const int removed = Retention::removeFinishedBefore(&m_manager, &m_store, Retention::cutoffFor(days));
    if (m_json) {
        writeJson({{u"type"_s, u"pruned"_s}, {u"removed"_s, removed}});
    } else {
        writeOut(CliApp::tr("Removed %n finished run(s) older than %1 day(s).\n", nullptr, removed)
                     .arg(args.at(1)));
    }
    return ExitCompleted;
}

} // namespace Runwatch::Cli
