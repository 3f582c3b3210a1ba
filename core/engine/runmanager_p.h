// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// RunManager's private state, shared by its three translation units (runmanager.cpp,
// runmanager_follow.cpp, runmanager_commands.cpp).

#include "runmanager.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcEngine)

namespace Runwatch {

struct RunManager::Follower
{
    QPointer<RunStream> stream;
    QTimer *timer = nullptr;
    int failures = 0;           // failed tries since the last progress
    QElapsedTimer troubleSince; // since the first of them (invalid while all is well)
    int idlePolls = 0;          // successful polls in a row that brought nothing new: back off
    bool active = false;        // the operator wants this run followed
    bool polling = false;       // the server will not stream it: poll the JSON object
    bool pollInFlight = false;  // never two status requests in flight for one run
    // Another process holds the run's lease and streams it: this one shows it from the store and
    // takes over when that lease ends (runmanager_leases.cpp).
    bool tailing = false;
    // This process holds the run's lease (RunManager::m_leased has its id): the lease tick looks
    // at every run once instead of looking each leased id up.
    bool leased = false;

    // Followed by this process's own stream or polls: what it holds is newer than the store.
    bool streamsHere() const { return active && !tailing; }
};

struct RunManager::Entry
{
    Run run;
    Follower follower;
    bool actionInFlight = false;
    // Batches of events that changed the run, counted: an action's reply that set out before the
    // newest of them (see doRespond) is older than the run and must not undo it.
    quint64 updates = 0;
    // What persist() last scheduled: the store's queue generation and the status then. Unchanged,
    // the run still waits in the store's queue and need not be scheduled again.
    quint64 queuedIn = 0;
    RunStatus queuedStatus = RunStatus::Unknown;
    // watchDeadline(): the deadline being watched and the reads since it passed.
    QDateTime watchedDeadline;
    int deadlineChecks = 0;
    bool farDeadlineArmed = false; // a day's wait towards a deadline further away than that
    // The cancel ladder: a number per accepted cancel (or force-cancel), so that the check armed
    // for an earlier one does nothing once a later one has restarted the wait.
    quint64 cancelChecks = 0;
};

} // namespace Runwatch
