// SPDX-License-Identifier: GPL-3.0-or-later
#include "quickanswer.h"

#include "runfilter.h"

#include <algorithm>

namespace Runwatch {

QuickAnswers quickAnswersFor(const Run &run)
{
    QuickAnswers out;
    out.waits = waitsForPerson(run);
    if (!out.waits || !run.input)
        return out;
    const InputRequest &request = *run.input;
    // A typed form or a list of choices needs the panel: one button cannot fill it.
    if (!request.schema.isEmpty() || !request.options.isEmpty())
        return out;
    const auto &calls = request.toolCalls;
    if (request.reason == InputReason::Approval) {
        // Every call must be an approval (a mixed request answers each call by its id), and a
        // decision the service does not take for some call is never offered for all of them.
        if (!std::all_of(calls.cbegin(), calls.cend(), [](const ToolCallRequest &c) { return c.approval; }))
            return out;
        out.approve = std::all_of(calls.cbegin(), calls.cend(),
                                  [](const ToolCallRequest &c) { return c.approveAllowed; });
        out.reject = std::all_of(calls.cbegin(), calls.cend(),
                                 [](const ToolCallRequest &c) { return c.rejectAllowed; });
        return out;
    }
    out.text = request.reason == InputReason::Question && calls.isEmpty();
    return out;
}

InputAnswer approvalAnswer(bool approve)
{
    InputAnswer answer;
    answer.kind = approve ? InputAnswer::Kind::Approve : InputAnswer::Kind::Reject;
    return answer;
}

InputAnswer textAnswer(const QString &text)
{
    InputAnswer answer;
    answer.kind = InputAnswer::Kind::Text;
    answer.text = text;
    return answer;
}

} // namespace Runwatch
