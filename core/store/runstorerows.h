// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QDateTime>
#include <QJsonObject>
#include <QSqlQuery>
#include <QString>

#include <memory>

class QSqlDatabase;
class QVariant;

namespace Runwatch::detail {

// How the store reads a run (a listing, a page, one run): one definition of its columns and
// their decoding, so every read gives the same run.

// The column list and FROM clause of a run query (no WHERE). A summary leaves a finished run's
// output, prompt, continuation token and input request on disk.
QString selectRuns(bool summary);
// One row of selectRuns(), without output (RunRowReader adds it). Never fails: a value that does not parse (a damaged JSON column, an
// unknown status, a malformed time) reads as empty/unknown, so one bad row cannot stop a listing.
Run runFromRow(const QSqlQuery &q);
// Column positions in selectRuns() a reader needs without decoding the whole row.
constexpr int kLocalIdColumn = 0;
constexpr int kCreatedAtColumn = 10;
QJsonObject jsonObjectFromText(const QVariant &v);
// A time column as the store writes it (ISO 8601, UTC, milliseconds); invalid when empty.
QDateTime fromIso(const QVariant &v);

// Reads whole runs through one database connection: a row of selectRuns(), then, for a run
// loaded in full, its output from run_text (the primary text in appended pieces) and run_items
// (one row per secondary item). Used on the thread that owns the connection.
class RunRowReader
{
public:
    explicit RunRowReader(const QSqlDatabase &db);
    // `summary`: a finished run is listed without its output (Run::outputLoaded = false) and
    // without a baseline; so is a live one unless `liveOutput`, but with its baseline (Run::stored
    // set to what was read). Every other run is read in full with Run::stored set to what was read.
    Run read(const QSqlQuery &row, bool summary, bool liveOutput = true);
    // The stored output of `run` (by local id) into it; false, leaving it empty, on an SQL error.
    bool readOutput(Run &run);
    QString errorString() const { return m_error; }

private:
    QSqlQuery m_text;
    QSqlQuery m_items;
    bool m_prepared = false;
    QString m_error;
};

// The run as it is now, as the baseline of its next write (Run::stored): without a baseline of its
// own, so baselines never chain.
std::shared_ptr<const Run> baselineOf(const Run &run);

} // namespace Runwatch::detail
