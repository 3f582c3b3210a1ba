// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"
#include "domain/runreducer.h"

namespace Runwatch {

// What taking `after` in place of `before` changes, as the flags the reducer reports for the
// events that would have brought it: a run another process moved on (read from a shared store)
// is told to the views as what it is — a colleague's answer that grew is Primary, not a status
// change for which every view redraws the run's whole row and recounts its filters. Anything a
// view shows of the run besides its output, usage, deadline and cursor (status, title, times,
// identity, capabilities) counts as Status; an empty result means nothing changed.
RunChanges runDifferences(const Run &before, const Run &after);

} // namespace Runwatch
