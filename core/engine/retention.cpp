// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/retention.h"

#include "engine/runmanager.h"
#include "store/runstore.h"

#include <QSettings>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch::Retention {

namespace {
const QString kKeepDaysKey = u"retention/keepFinishedDays"_s;
} // namespace

int keepDays()
{
    return std::clamp(QSettings().value(kKeepDaysKey, 0).toInt(), 0, MaxDays);
}

void setKeepDays(int days)
{
    QSettings().setValue(kKeepDaysKey, std::clamp(days, 0, MaxDays));
}

QDateTime cutoffFor(double days, const QDateTime &now)
{
    // Milliseconds, not calendar days: the CLI takes fractions, and in UTC a day is 86,400 s.
    return now.addMSecs(-qint64(days * 86400000.0));
}

bool isFinishedBefore(const Run &run, const QDateTime &cutoff)
{
    return run.isTerminal() && run.finishedAt.isValid() && run.finishedAt < cutoff;
}

QStringList finishedBefore(const RunManager *manager, const QDateTime &cutoff)
{
    QStringList ids;
    if (!manager)
        return ids;
    const QStringList all = manager->runIds();
    for (const QString &id : all) {
        const Run *run = manager->run(id);
        if (run && isFinishedBefore(*run, cutoff))
            ids.append(id);
    }
    return ids;
}

int removeFinishedBefore(RunManager *manager, RunStore *store, const QDateTime &cutoff)
{
    const QStringList ids = finishedBefore(manager, cutoff);
    // A local delete: stops following, drops the run from the manager's store and emits
    // runRemoved, which takes it out of the views, exactly like Delete ▸ "this computer only".
    for (const QString &id : ids)
        manager->deleteRun(id, false);
    // Runs the store holds but the manager does not know.
    const int storeOnly = store && store->isOpen() ? store->removeFinishedBefore(cutoff) : 0;
    return int(ids.size()) + storeOnly;
}

} // namespace Runwatch::Retention
