// SPDX-License-Identifier: GPL-3.0-or-later
#include "runactions.h"

#include "batchrespond.h"
#include "runfilter.h"

namespace Runwatch {

RunActionState actionStateFor(const Run &run, bool following)
{
    RunActionState s;
    const bool known = !run.remoteId.isEmpty();
    const Capabilities caps = run.capabilities;
    s.cancel = known && caps.testFlag(Capability::Cancel) && !run.isTerminal()
               && run.status != RunStatus::Cancelling;
    const bool unconfirmed = run.status == RunStatus::Cancelling && run.cancelUnconfirmed;
    s.forceCancel = unconfirmed && known && caps.testFlag(Capability::ForceCancel);
    s.stopWatching = unconfirmed;
    s.remove = true;
    s.removeOnServer = known && caps.testFlag(Capability::Delete);
    const bool canReach
        = known && (caps.testFlag(Capability::Get) || caps.testFlag(Capability::ResumeStream));
    // A healthy, followed stream has nothing to resume; a dropped one, one the engine gave up on
    // (error other than the run's own failure) or one nobody follows does.
    const bool gaveUp = run.error.isError() && run.error.kind != ErrorKind::Run;
    // A run waiting for input is not followed on purpose: Respond is its action, not Resume.
    const bool idle = !following && run.status != RunStatus::InputRequired;
    s.resume = canReach && !run.isTerminal() && (run.connectionLost || idle || gaveUp);
    // A timer or a callback resumes the run by itself: there is nothing for a person to answer.
    s.respond = waitsForPerson(run) && run.input.has_value() && caps.testFlag(Capability::Respond);
    if (s.respond)
        s.respondKey = batchKeyFor(run);
    s.copyOutput = !run.primaryText.isEmpty();
    s.followUp = followUpAllowed(run);
    return s;
}

RunActionState actionStateForSelection(const QList<RunActionState> &states)
{
    RunActionState s;
    for (const RunActionState &one : states) {
        s.cancel = s.cancel || one.cancel;
        s.forceCancel = s.forceCancel || one.forceCancel;
        s.stopWatching = s.stopWatching || one.stopWatching;
        s.remove = s.remove || one.remove;
        s.removeOnServer = s.removeOnServer || one.removeOnServer;
        s.resume = s.resume || one.resume;
    }
    if (states.size() == 1) {
        s.respond = states.first().respond;
        s.respondKey = states.first().respondKey;
        s.copyOutput = states.first().copyOutput;
        s.followUp = states.first().followUp;
    } else if (states.size() > 1) {
        const QString key = states.first().respondKey;
        bool same = !key.isEmpty();
        for (const RunActionState &one : states)
            same = same && one.respond && one.respondKey == key;
        s.respond = same;
        s.respondKey = same ? key : QString();
    }
    return s;
}

} // namespace Runwatch
