// SPDX-License-Identifier: GPL-3.0-or-later
// `respond`: one run's answer, checked before anything is sent, or (`respond RUN RUN…`, issue 31)
// one answer to several runs. The rule of what may be answered together and the sending are
// core's (models/batchrespond.h), shared with the app's batch dialog; here the runs are loaded and
// one result line is printed per run.
#include "cli.h"
#include "cli_p.h"

#include "models/batchrespond.h"
#include "json/jsonschema.h"

using namespace Qt::StringLiterals;

namespace Runwatch::Cli {

int CliApp::cmdRespond(const Options &o, const QStringList &args)
{
    if (args.isEmpty() || args.first().startsWith(u"--"_s))
        return usage(CliApp::tr("respond needs a RUN"));
    QStringList runs;
    InputAnswer answer;
    bool haveAnswer = false;
    bool typed = false; // --value or --output: particular to one run's request
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (!a.startsWith(u"--"_s)) {
            runs.append(a);
            continue;
        }
        if (a == u"--text" && i + 1 < args.size()) {
            answer.kind = InputAnswer::Kind::Text;
            answer.text = args.at(++i);
            haveAnswer = true;
        } else if (a == u"--approve") {
            answer.kind = InputAnswer::Kind::Approve;
            haveAnswer = true;
        } else if (a == u"--reject") {
            answer.kind = InputAnswer::Kind::Reject;
            haveAnswer = true;
        } else if (a == u"--comment" && i + 1 < args.size()) {
            answer.comment = args.at(++i);
        } else if (a == u"--choice" && i + 1 < args.size()) {
            answer.kind = InputAnswer::Kind::Choice;
            answer.choice = args.at(++i);
            haveAnswer = true;
        } else if (a == u"--value" && i + 1 < args.size()) {
            QString why;
            const std::optional<QJsonValue> parsed = parseJsonValue(args.at(++i), &why);
            if (!parsed)
                return usage(CliApp::tr("respond: --value: %1").arg(why));
            answer.kind = InputAnswer::Kind::Value;
            answer.value = *parsed;
            haveAnswer = true;
            typed = true;
        } else if (a == u"--output" && i + 1 < args.size()) {
            const QString &value = args.at(++i);
            const qsizetype eq = value.indexOf(u'=');
            if (eq <= 0)
                return usage(CliApp::tr("respond: --output expects CALL_ID=TEXT"));
            answer.toolAnswers.append({value.left(eq), value.mid(eq + 1), false});
            haveAnswer = true;
            typed = true;
        } else {
            return usage(CliApp::tr("respond: unexpected argument %1").arg(a));
        }
    }
    if (!haveAnswer)
        return usage(CliApp::tr("respond needs --text, --approve, --reject, --choice, --value or --output"));
    if (!answer.toolAnswers.isEmpty() && answer.kind != InputAnswer::Kind::Text)
        return usage(CliApp::tr("respond: --output goes alone (one per pending tool call)"));
    if (runs.size() > 1) {
        if (typed) {
            return usage(CliApp::tr("respond: --value and --output answer one run; several runs take "
                                    "--approve, --reject, --text or --choice"));
        }
        return respondToMany(o, runs, answer);
    }
    const Run *run = loadRunOrReport(o, runs.first());
    if (!run)
        return ExitOtherError;
    const QString id = run->localId;
    // An answer that cannot fit the calls the run waits on (text for several calls, an unknown
    // call id, one left out) is the operator's mistake: say so and send nothing. A raw --value is
    // the connector's to judge (a LangGraph review resumes with any value, e.g. an edit decision).
    if (run->status == RunStatus::InputRequired && run->input && !run->input->toolCalls.isEmpty()
        && answer.kind != InputAnswer::Kind::Value) {
        QString why;
        if (!answersForToolCalls(*run->input, answer, &why))
            return usage(u"respond: "_s + why);
    }
    // A typed answer is checked against the form the run asked for before anything is sent; each
    // problem names its field.
    if (answer.kind == InputAnswer::Kind::Value && run->input && !run->input->schema.isEmpty()) {
        if (const QStringList problems = validateJson(run->input->schema, answer.value);
            !problems.isEmpty()) {
            writeErr(u"runwatch-cli: "_s
                     + CliApp::tr("respond: --value does not fit the form the run asks for:\n  %1\n")
                           .arg(problems.join(u"\n  "_s)));
            return ExitUsage;
        }
    }
    const std::optional<ActionResult> outcome
        = awaitAction(id, RunManager::Action::Respond, [&] { m_manager.respondToRun(id, answer); });
    const bool done = outcome.has_value();
    const ActionResult result = outcome.value_or(ActionResult{});
    m_store.flush();
    if (!done || !result.ok()) {
        printError(
            id, done
                    ? result.error
                    : RunError{
                        ErrorKind::Timeout, {}, CliApp::tr("The answer was not acknowledged."), true, 0, {}});
        return ExitOtherError;
    }
    run = m_manager.run(id);
    if (run)
        printEnd(*run);
    return run ? exitCodeFor(run->status) : ExitOtherError;
}

int CliApp::respondToMany(const Options &o, const QStringList &runs, const InputAnswer &answer)
{
    // Each run's line, in the order given. A run that cannot be loaded or does not fit the
    // answer is a line of its own (ok: false), never a usage error: one wrong id in twenty must
    // not keep the other nineteen from their answer.
    struct Line
    {
        QString given;
        QString id; // empty when the run could not be loaded
        QString error;
    };
    QList<Line> lines;
    QStringList ids;
    for (const QString &given : runs) {
        QString why;
        const Run *run = loadRun(o, given, &why);
        Line line{given, run ? run->localId : QString(), why};
        if (run && ids.contains(run->localId))
            continue; // named twice (by local and remote id): one answer, one line
        if (run)
            ids.append(run->localId);
        lines.append(line);
    }

    // One line per run: what the runs do after their answer is `watch`'s to print.
    m_printEvents = false;
    BatchResponder responder(&m_manager);
    // The engine follows a run that took its answer; this command ends here.
    connect(&responder, &BatchResponder::runAnswered, this,
            [this](const BatchOutcome &outcome) { m_manager.stopFollowing(outcome.runId); });
    responder.start(ids, answer);
    // Every run has its own request in flight at once; each ends within the HTTP client's own
    // bounds, so this limit only guards against an engine that never reports.
    const bool finished = spinUntil([&] { return responder.isFinished(); }, 120000);
    Q_UNUSED(finished)
    m_store.flush();

    QHash<QString, BatchOutcome> outcomes;
    for (const BatchOutcome &outcome : responder.outcomes())
        outcomes.insert(outcome.runId, outcome);
    bool allOk = true;
    for (const Line &line : std::as_const(lines)) {
        const QString shown = line.id.isEmpty() ? line.given : line.id;
        bool ok = false;
        QString error = line.error;
        if (!line.id.isEmpty()) {
            const BatchOutcome outcome = outcomes.value(line.id);
            ok = outcome.done && outcome.ok;
            if (!ok) {
                error = outcome.done ? outcome.error.message : CliApp::tr("The answer was not acknowledged.");
            }
        }
        allOk = allOk && ok;
        const Run *run = line.id.isEmpty() ? nullptr : m_manager.run(line.id);
        if (m_json) {
            QJsonObject object{{u"type"_s, u"respond"_s},
                               {u"run"_s, shown},
                               {u"ok"_s, ok},
                               {u"error"_s, ok ? QJsonValue() : QJsonValue(error)}};
            if (run)
                object.insert(u"status"_s, statusName(run->status));
            writeJson(object);
        } else if (ok) {
            writeOut(CliApp::tr("%1: answered (%2)\n").arg(shown, run ? statusName(run->status) : QString()));
        } else {
            writeOut(CliApp::tr("%1: not answered: %2\n").arg(shown, error));
        }
    }
    return allOk ? ExitCompleted : ExitOtherError;
}

} // namespace Runwatch::Cli
