// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QDateTime>
#include <QString>

#include <optional>

namespace Runwatch {

// How far a live run is and when it will likely finish, for the progress bar of the run list and
// the detail pane (and any other front-end).
struct RunProgress
{
    double fraction = 0.0; // 0…1, as the service last reported it
    // When the run will likely finish; invalid when nothing allows a guess (no progress yet and
    // no estimated duration).
    QDateTime eta;
};

// The fraction a run last reported: its newest Progress item whose text begins with a
// percentage ("42%", "42% copying shards" — the connectors' progress text). nullopt when it
// reported none.
std::optional<double> reportedProgress(const Run &run);

// What the service estimated the run to take when it was created (the jobs API's
// estimated_duration_seconds, kept in the continuation token's extra as
// kEstimatedDurationKey); nullopt when it gave none.
inline constexpr auto kEstimatedDurationKey = "estimated_duration_seconds";
std::optional<qint64> estimatedDurationMs(const Run &run);

// The progress of a live run that reports one, nullopt for a terminal run or one without
// progress. The ETA blends two guesses by the fraction done: early on the service's estimate
// (elapsed vs estimated duration) counts most, later the observed rate (the time so far scaled by
// what is left); either alone when only one is known. A run waiting for input has none.
std::optional<RunProgress> runProgress(const Run &run, const QDateTime &now);

} // namespace Runwatch
