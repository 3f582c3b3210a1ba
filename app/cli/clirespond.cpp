// SPDX-License-Identifier: GPL-3.0-or-later
// `respond RUN RUN…`: one answer to several runs (issue 31). The rule of what may be answered
// together and the sending are core's (models/batchrespond.h), shared with the app's batch dialog;
// here the runs are loaded and one result line is printed per run.
#include "cli.h"
#include "cli_p.h"

#include "models/batchrespond.h"

using namespace Qt::StringLiterals;

namespace Runwatch::Cli {

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
