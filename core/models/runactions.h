// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QList>

namespace Runwatch {

// Which operator actions a run allows. Derived from the backend's capabilities *and* the run's
// status (RunBackend::capabilities(), RunStatus), never from the backend's type. Plain logic so the
// rules are tested without widgets; the GUI re-checks them after every confirmation dialog.
struct RunActionState
{
    bool cancel = false; // not terminal, not already cancelling, backend can cancel
    // The cancel ladder, once a cancel has not been confirmed in time (Run::cancelUnconfirmed):
    bool forceCancel = false;    // the backend has a stronger cancel (Capability::ForceCancel)
    bool stopWatching = false;   // always offered then: end the run locally, with a record
    bool remove = false;         // always possible: at least locally
    bool removeOnServer = false; // the backend can delete and the run has a server id
    bool resume = false;         // reconnect a lost stream, re-poll a run nobody follows
                                 // (not one that waits for input: that one needs Respond)
    bool respond = false;        // waiting for input and the backend accepts answers
    bool copyOutput = false;     // there is primary output
    bool followUp
        = false; // followUpAllowed(): a completed run (or working, FollowUpWorking) of a backend that takes follow-ups
    // With respond: batchKeyFor() — runs with the same non-empty key are answered in one step.
    QString respondKey;

    friend bool operator==(const RunActionState &, const RunActionState &) = default;
};

// `following`: RunManager::isFollowing() for this run.
RunActionState actionStateFor(const Run &run, bool following);

// Actions on a selection: bulk cancel / delete / resume apply to every run that allows them;
// copy and follow up need exactly one run; respond one run, or several that all wait for the same
// kind of request (the same respondKey: a batch, BatchResponder).
RunActionState actionStateForSelection(const QList<RunActionState> &states);

} // namespace Runwatch
