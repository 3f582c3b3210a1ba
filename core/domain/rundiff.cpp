// SPDX-License-Identifier: GPL-3.0-or-later
#include "domain/rundiff.h"

namespace Runwatch {

RunChanges runDifferences(const Run &before, const Run &after)
{
    RunChanges changes;
    // RunText compares two copies of one buffer in O(1); a text read again from the store
    // extends the held copy's buffer, so the usual case costs nothing.
    if (after.primaryText != before.primaryText || after.reconciliations != before.reconciliations)
        changes |= RunChange::Primary;
    if (after.secondary != before.secondary)
        changes |= RunChange::Secondary;
    if (after.usage != before.usage)
        changes |= RunChange::Usage;
    if (after.deadlineAt != before.deadlineAt || after.cancelAtDeadline != before.cancelAtDeadline)
        changes |= RunChange::Deadline;
    if (after.error != before.error)
        changes |= RunChange::Error;
    if (after.input != before.input)
        changes |= RunChange::Input;
    if (after.token != before.token)
        changes |= RunChange::Cursor;
    // The time of the last activity follows the output (the views' activity cell is kept with
    // it); moved on its own it is a change of the row.
    const bool outputMoved = changes & (RunChange::Primary | RunChange::Secondary);
    if (after.status != before.status || after.rawStatus != before.rawStatus || after.title != before.title
        || after.prompt != before.prompt || after.startInput != before.startInput
        || after.model != before.model || after.remoteId != before.remoteId
        || after.connection != before.connection || after.backend != before.backend
        || after.baseUrl != before.baseUrl || after.createdAt != before.createdAt
        || after.finishedAt != before.finishedAt || after.parentId != before.parentId
        || after.capabilities != before.capabilities || after.connectionLost != before.connectionLost
        || after.outputLoaded != before.outputLoaded
        || (!outputMoved && after.updatedAt != before.updatedAt)) {
        changes |= RunChange::Status;
    }
    return changes;
}

} // namespace Runwatch
