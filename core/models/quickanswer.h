// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

namespace Runwatch {

// What a run that waits for a person can be answered with without opening its Respond panel: a
// desktop notification's buttons and inline reply. The rule lives in core so every front end
// offers the same thing, and only what the panel itself would send in one click: a decision on
// every pending approval, or one free-text answer to a plain question. Choices, typed forms,
// tool outputs and mixed requests need the panel ("Answer…").
struct QuickAnswers
{
    bool waits = false;   // the run waits for a person at all
    bool approve = false; // one Approve answers every pending approval
    bool reject = false;  // one Reject answers every pending approval
    bool text = false;    // one line of text answers the question

    bool any() const { return approve || reject || text; }
    friend bool operator==(const QuickAnswers &, const QuickAnswers &) = default;
};

QuickAnswers quickAnswersFor(const Run &run);

// The answers the quick actions send: the same InputAnswer the panel builds for that click.
InputAnswer approvalAnswer(bool approve);
InputAnswer textAnswer(const QString &text);

} // namespace Runwatch
