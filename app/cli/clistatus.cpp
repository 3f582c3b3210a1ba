// SPDX-License-Identifier: GPL-3.0-or-later
// The CLI's commands that report what the store knows: status (after one refresh) and list.
#include "cli.h"
#include "cli_p.h"

#include "domain/runprogress.h"
#include "domain/searchquery.h"
#include "engine/rundeadlines.h"
#include "engine/stuckruns.h"
#include "models/runformat.h"
#include "store/pricebook.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace Runwatch::Cli {

namespace {
QString usageLine(const TokenUsage &usage, std::optional<double> cost, const QString &currency)
{
    QString line = QCoreApplication::translate("Runwatch::Cli", "usage: %1").arg(usageSummary(usage));
    line += cost ? QCoreApplication::translate("Runwatch::Cli", ", cost %1").arg(formatCost(*cost, currency))
                 : QCoreApplication::translate("Runwatch::Cli", ", cost unknown (no price for this model)");
    return line;
}

// "stuck: no progress since 10:42 (expected about 5 min)" — the badge's tooltip, for a terminal.
QString stuckLine(const StuckState &state)
{
    QString line = QCoreApplication::translate("Runwatch::Cli", "stuck: no progress since %1")
                       .arg(state.silentSince.toLocalTime().toString(Qt::ISODate));
    if (state.expectedMs) {
        line += QCoreApplication::translate("Runwatch::Cli", " (expected about %1)")
                    .arg(formatDuration(*state.expectedMs));
    }
    return line;
}

// "stuck" on every live run's JSON object (false when the rule does not apply or holds not),
// with since when and what was expected when it is.
void insertStuck(QJsonObject &object, const Run &run, const StuckState &state)
{
    if (run.isTerminal())
        return;
    object.insert(u"stuck"_s, state.stuck);
    if (!state.stuck)
        return;
    object.insert(u"stuck_since"_s, state.silentSince.toString(Qt::ISODateWithMs));
    if (state.expectedMs)
        object.insert(u"expected_seconds"_s, double(*state.expectedMs) / 1000.0);
}
} // namespace

int CliApp::cmdStatus(const Options &o, const QStringList &args)
{
    int exitCode = ExitOtherError;
    const Run *run = runArgument(o, args, u"status"_s, &exitCode);
    if (!run)
        return exitCode;
    const QString id = run->localId;
    // The output is the run line; text the refresh brings belongs to `watch`.
    m_printPrimary = false;
    // A refresh that fails (network down) still prints what the store knows.
    if (!run->remoteId.isEmpty()) {
        awaitAction(
            id, RunManager::Action::Refresh, [&] { m_manager.refreshRun(id); }, 15000);
    }
    m_store.flush();
    run = m_manager.run(id);
    const PriceTable prices = PriceBook::load(m_store);
    const std::optional<double> cost = costOf(*run, prices);
    // The medians of this run's connection and model only: no pass over the whole history.
    DurationStats durations;
    if (!run->isTerminal() && !estimatedDurationMs(*run)) {
        for (const Run &done : m_store.loadCompletedTimings(run->connection, run->model))
            durations.update(done);
    }
    const StuckState stuck
        = stuckState(*run, durations, StuckPolicy::load(&m_store), QDateTime::currentDateTimeUtc());
    if (m_json) {
        QJsonObject obj = runObject(*run);
        obj.insert(u"raw"_s, run->rawStatus);
        if (run->error.isError())
            obj.insert(u"error"_s, run->error.toJson());
        // Always present, null when the service did not report the count: a script can tell
        // "not reported" from zero without guessing.
        const auto count = [](qint64 n) { return n >= 0 ? QJsonValue(n) : QJsonValue(QJsonValue::Null); };
        obj.insert(u"model"_s, run->model);
        obj.insert(u"input_tokens"_s, count(run->usage.inputTokens));
        obj.insert(u"output_tokens"_s, count(run->usage.outputTokens));
        obj.insert(u"reasoning_tokens"_s, count(run->usage.reasoningTokens));
        if (run->deadlineAt.isValid()) {
            obj.insert(u"deadline_at"_s, run->deadlineAt.toString(Qt::ISODateWithMs));
            obj.insert(u"cancel_at_deadline"_s, run->cancelAtDeadline);
            obj.insert(u"over_deadline"_s, isOverDeadline(*run, QDateTime::currentDateTimeUtc()));
        }
        insertStuck(obj, *run, stuck);
        // The operator journal: who gave which command on the run, when, with what.
        QJsonArray journal;
        for (const RunStore::JournalEntry &j : m_store.journal(run->localId)) {
            journal.append(QJsonObject{{u"at"_s, j.at.toString(Qt::ISODateWithMs)},
                                       {u"operator"_s, j.operatorName},
                                       {u"host"_s, j.host},
                                       {u"action"_s, j.action},
                                       {u"detail"_s, j.detail}});
        }
        obj.insert(u"journal"_s, journal);
        if (const QString by = m_manager.followedElsewhereBy(run->localId); !by.isEmpty())
            obj.insert(u"followed_by"_s, by);
        if (cost) {
            obj.insert(u"cost"_s, *cost);
            obj.insert(u"currency"_s, prices.currency);
        }
        writeJson(obj);
    } else {
        writeOut(u"%1  %2  %3  %4\n"_s.arg(run->localId, run->remoteId, statusName(run->status), run->title));
        if (stuck.stuck)
            writeOut(stuckLine(stuck) + u'\n');
        if (run->usage.isKnown())
            writeOut(usageLine(run->usage, cost, prices.currency) + u'\n');
        if (!run->parentId.isEmpty())
            writeOut(u"follow-up to: "_s + run->parentId + u'\n');
        if (run->error.isError())
            writeOut(u"error: "_s + run->error.toString() + u'\n');
    }
    return exitCodeFor(run->status);
}

int CliApp::cmdList(const Options &o, const QStringList &args)
{
    Q_UNUSED(o)
    bool all = false, remote = false, stuckOnly = false;
    std::optional<QString> searchText;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (a == u"--all") {
            all = true;
        } else if (a == u"--remote") {
            remote = true;
        } else if (a == u"--stuck") {
            stuckOnly = true;
        } else if (a == u"--search") {
            if (i + 1 >= args.size()) {
                return usage(
                    CliApp::tr("list: --search needs a query (e.g. --search 'status:failed \"timeout\"')"));
            }
            searchText = args.at(++i);
        } else {
            return usage(CliApp::tr("list: unexpected argument %1").arg(a));
        }
    }
    if (remote) {
        return all || stuckOnly || searchText ? usage(CliApp::tr("list: --remote goes alone"))
                                              : cmdListRemote(o);
    }
    // The runs a search found, newest first, with the part of each that matched.
    std::optional<QHash<QString, QString>> snippets;
    QStringList order;
    if (searchText) {
        QString why;
        const std::optional<SearchQuery> query
            = SearchQuery::parse(*searchText, QDateTime::currentDateTimeUtc(), &why);
        if (!query)
            return usage(CliApp::tr("list: --search: %1").arg(why));
        const std::optional<QList<SearchHit>> hits = m_store.search(*query);
        if (!hits) {
            writeErr(u"runwatch-cli: "_s + m_store.errorString() + u'\n');
            return ExitOtherError;
        }
        snippets.emplace();
        for (const SearchHit &hit : *hits) {
            snippets->insert(hit.localId, hit.snippet);
            order << hit.localId;
        }
    }
    QList<Run> runs = m_store.loadRuns(RunStore::Load::Summary);
    // The stuck rule needs the medians of the finished runs: they are all loaded here anyway.
    DurationStats durations;
    for (const Run &run : std::as_const(runs))
        durations.update(run);
    if (snippets) {
        // In the search's order (newest first), only what it found.
        QHash<QString, qsizetype> rank;
        for (qsizetype i = 0; i < order.size(); ++i)
            rank.insert(order.at(i), i);
        runs.removeIf([&rank](const Run &run) { return !rank.contains(run.localId); });
        std::stable_sort(runs.begin(), runs.end(), [&rank](const Run &a, const Run &b) {
            return rank.value(a.localId) < rank.value(b.localId);
        });
    }
    const StuckPolicy policy = StuckPolicy::load(&m_store);
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const Run &run : std::as_const(runs)) {
        if (!all && run.isTerminal())
            continue;
        const StuckState stuck = run.isTerminal() ? StuckState{} : stuckState(run, durations, policy, now);
        if (stuckOnly && !stuck.stuck)
            continue;
        const QString snippet = snippets ? snippets->value(run.localId) : QString();
        if (m_json) {
            QJsonObject obj = runObject(run);
            insertStuck(obj, run, stuck);
            if (snippets)
                obj.insert(u"snippet"_s, snippet);
            writeJson(obj);
        } else {
            // Like the app's badge: "stuck" where the status would be (status --json has both).
            const QString shown = stuck.stuck ? u"stuck"_s : statusName(run.status);
            writeOut(u"%1  %2  %3  %4  %5\n"_s.arg(run.localId, shown.leftJustified(14), run.backend,
                                                   run.remoteId, run.title));
            if (!snippet.isEmpty())
                writeOut(u"    "_s + snippet + u'\n');
        }
    }
    return ExitCompleted;
}

} // namespace Runwatch::Cli
