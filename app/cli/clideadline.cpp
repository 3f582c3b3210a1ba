// SPDX-License-Identifier: GPL-3.0-or-later
// The CLI's time rules. `deadline RUN (--in DURATION [--cancel] | --clear)`: the operator's time
// budget on a stored run, acted on by whichever process follows it (the app, `watch`).
// `stuck-rule [--factor N] [--floor DURATION]`: when a live run counts as stuck, a setting of the
// store that the app, `list` and `status` share.
#include "cli.h"
#include "cli_p.h"

#include "domain/timebudget.h"
#include "engine/rundeadlines.h"
#include "engine/stuckruns.h"
#include "models/runformat.h"

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

int CliApp::cmdStuckRule(const QStringList &args)
{
    StuckPolicy policy = StuckPolicy::load(&m_store);
    bool change = false;
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (a == u"--factor" && i + 1 < args.size()) {
            bool ok = false;
            const double factor = args.at(++i).toDouble(&ok);
            // The same bounds as the stored setting (StuckPolicy::fromJson): below 1 a run would
            // be stuck before it is even due.
            if (!ok || !(factor >= 1.0 && factor <= 1000.0))
                return usage(CliApp::tr("stuck-rule: --factor needs a number from 1 to 1000"));
            policy.factor = factor;
            change = true;
        } else if (a == u"--floor" && i + 1 < args.size()) {
            const QString &value = args.at(++i);
            const std::optional<qint64> floorMs
                = value == u"0" ? std::optional<qint64>(0) : parseTimeBudgetMs(value);
            if (!floorMs || *floorMs > qint64(7) * 24 * 3600 * 1000)
                return usage(CliApp::tr("stuck-rule: --floor needs a duration such as 0, 90s, 2m or 1h"));
            policy.floorMs = *floorMs;
            change = true;
        } else {
            return usage(CliApp::tr("stuck-rule: unexpected argument %1").arg(a));
        }
    }
    if (change && !policy.save(&m_store)) {
        writeErr(CliApp::tr("runwatch-cli: cannot save the stuck rule: %1\n").arg(m_store.errorString()));
        return ExitOtherError;
    }
    if (m_json) {
        QJsonObject obj = policy.toJson();
        obj.insert(u"type"_s, u"stuck_rule"_s);
        writeJson(obj);
    } else {
        writeOut(CliApp::tr("stuck: no progress for %1 × the expected duration, at least %2\n")
                     .arg(QLocale::c().toString(policy.factor), formatDuration(policy.floorMs)));
    }
    return ExitCompleted;
}

} // namespace Runwatch::Cli
