// SPDX-License-Identifier: GPL-3.0-or-later
// `deadline RUN (--in DURATION [--cancel] | --clear)`: the operator's time budget on a stored
// run, acted on by whichever process follows it (the app, `watch`).
#include "cli.h"
#include "cli_p.h"

#include "domain/timebudget.h"
#include "engine/rundeadlines.h"

#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace Runwatch::Cli {

int CliApp::cmdDeadline(const Options &o, const QStringList &args)
{
    QString runId;
    std::optional<qint64> budget;
    bool cancel = false;
    bool clear = false;
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (a == u"--in" && i + 1 < args.size()) {
            budget = parseTimeBudgetMs(args.at(++i));
            if (!budget)
                return usage(CliApp::tr("deadline: --in needs a time budget such as 90s, 45m, 2h or 1h30m"));
        } else if (a == u"--cancel") {
            cancel = true;
        } else if (a == u"--clear") {
            clear = true;
        } else if (runId.isEmpty() && !a.startsWith(u"--"_s)) {
            runId = a;
        } else {
            return usage(CliApp::tr("deadline: unexpected argument %1").arg(a));
        }
    }
    if (runId.isEmpty() || budget.has_value() == clear)
        return usage(CliApp::tr("deadline needs RUN and either --in DURATION or --clear"));
    const Run *run = loadRunOrReport(o, runId);
    if (!run)
        return ExitOtherError;
    const QString id = run->localId;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QString error;
    if (!m_manager.setDeadline(id, clear ? QDateTime() : now.addMSecs(*budget), cancel, &error)) {
        writeErr(u"runwatch-cli: "_s + error + u'\n');
        return ExitOtherError;
    }
    m_store.flush();
    run = m_manager.run(id);
    if (m_json) {
        writeJson({{u"type"_s, u"deadline"_s},
                   {u"run"_s, id},
                   {u"deadline_at"_s, run->deadlineAt.isValid() ? run->deadlineAt.toString(Qt::ISODateWithMs)
                                                                : QJsonValue(QJsonValue::Null)},
                   {u"cancel_at_deadline"_s, run->cancelAtDeadline}});
    } else {
        writeOut(clear ? CliApp::tr("run %1: no deadline").arg(id) + u'\n'
                       : u"run %1: %2\n"_s.arg(id, deadlineText(*run, now)));
    }
    return ExitCompleted;
}

} // namespace Runwatch::Cli
