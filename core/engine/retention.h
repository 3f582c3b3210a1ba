// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDateTime>
#include <QStringList>

namespace Runwatch {

class RunManager;
class RunStore;
struct Run;

// Retention of finished runs, one rule for every front end: `runwatch-cli prune`, the GUI's
// "Remove finished runs older than…" and the "Keep finished runs for N days" sweep at startup
// all call removeFinishedBefore().
namespace Retention {

constexpr int MaxDays = 36500;

// The "Keep finished runs for N days" setting (QSettings); 0 keeps them forever.
int keepDays();
void setKeepDays(int days);

// `days` (fractions allowed) before `now`.
QDateTime cutoffFor(double days, const QDateTime &now = QDateTime::currentDateTimeUtc());
// The rule: a terminal run that finished before `cutoff`. RunStore::removeFinishedBefore()
// applies the same rule to the stored rows.
bool isFinishedBefore(const Run &run, const QDateTime &cutoff);
// The runs of `manager` the rule takes.
QStringList finishedBefore(const RunManager *manager, const QDateTime &cutoff);
// Removes them from `manager` (a local delete: it stops following them and tells its views) and
// from `store`, including runs only the store holds (another process wrote them, or this one
// never loaded them). Either may be nullptr. Returns how many runs went.
int removeFinishedBefore(RunManager *manager, RunStore *store, const QDateTime &cutoff);

} // namespace Retention
} // namespace Runwatch
