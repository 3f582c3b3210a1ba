// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QDateTime>
#include <QJsonObject>
#include <QString>

class QSqlQuery;
class QVariant;

namespace Runwatch::detail {

// How the store's readers (RunStore on its thread, RunHistoryReader on its own) select and decode
// a run: one definition, so a listing read on another thread is the same run as one read here.

// The column list and FROM clause of a run query (no WHERE). A summary leaves a finished run's
// output, prompt, continuation token and input request on disk.
QString selectRuns(bool summary);
// One row of selectRuns(). Never fails: a value that does not parse (a damaged JSON column, an
// unknown status, a malformed time) reads as empty/unknown, so one bad row cannot stop a listing.
Run runFromRow(const QSqlQuery &q);
// Column positions in selectRuns() a reader needs without decoding the whole row.
constexpr int kLocalIdColumn = 0;
constexpr int kCreatedAtColumn = 10;
QJsonObject jsonObjectFromText(const QVariant &v);
// A time column as the store writes it (ISO 8601, UTC, milliseconds); invalid when empty.
QDateTime fromIso(const QVariant &v);

} // namespace Runwatch::detail
