// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMetaType>
#include <QString>

namespace Runwatch {

// One vocabulary for every backend. Connectors map their own labels onto it and keep the raw
// label next to it (Run::rawStatus), so nothing the server said is lost.
enum class RunStatus {
    Unknown = 0,
    Queued,
    InProgress,
    Cancelling,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
    Incomplete,
    Expired,
    Rejected,
    TimedOut,
    Deleted,
    // Ended by the operator, not by the service: a cancel the service never confirmed, after which
    // Runwatch stopped following the run (RunManager::stopWatching). The service's own terminal
    // status replaces it whenever a later read brings one.
    StoppedWatching,
};

// The last value, for loops over every status.
inline constexpr RunStatus kLastRunStatus = RunStatus::StoppedWatching;

bool isTerminal(RunStatus status);
// Terminal statuses that count as "did not finish successfully" (exit code 3 in the CLI).
bool isFailureLike(RunStatus status);

// snake_case names used on the CLI, in JSON output and in the store: "in_progress", "timed_out"…
QString statusName(RunStatus status);
// Inverse of statusName(); anything else is Unknown.
RunStatus statusFromName(QStringView name);
// Human label for the UI ("In progress", "Needs input"…).
QString statusLabel(RunStatus status);

} // namespace Runwatch

Q_DECLARE_METATYPE(Runwatch::RunStatus)
