// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runevent.h"

#include <QDateTime>

namespace Runwatch {

// What applyEvent changed, so observers repaint only what they must.
enum class RunChange {
    None = 0,
    Status = 0x01,
    Primary = 0x02,
    Secondary = 0x04,
    Error = 0x08,
    Input = 0x10,
    Identity = 0x20,
    Cursor = 0x40,
    Usage = 0x80,    // the reported token usage changed
    Dropped = 0x100, // duplicate / out of order: nothing applied
    // The operator set or cleared the deadline (RunManager::setDeadline).
    Deadline = 0x200,
    // Whether the run's latest state is in the store changed: a write of it failed, or went
    // through again (RunManager::saveProblem). Never from applyEvent.
    Stored = 0x400,
};
Q_DECLARE_FLAGS(RunChanges, RunChange)
Q_DECLARE_OPERATORS_FOR_FLAGS(RunChanges)

// The one reducer. Drops events whose sequence is at or below the run's cursor.
RunChanges applyEvent(Run &run, const RunEvent &event,
                      const QDateTime &now = QDateTime::currentDateTimeUtc());

} // namespace Runwatch

Q_DECLARE_METATYPE(Runwatch::RunChanges)
