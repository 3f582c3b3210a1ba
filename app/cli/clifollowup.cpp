// SPDX-License-Identifier: GPL-3.0-or-later
// `runwatch-cli followup`: the next turn of a conversation (the seed's "Update").
#include "cli.h"
#include "cli_p.h"

#include <optional>

using namespace Qt::StringLiterals;

namespace Runwatch::Cli {

int CliApp::cmdFollowUp(const Options &o, const QStringList &args)
{
    if (args.isEmpty() || args.first().startsWith(u"--"_s))
        return usage(u"followup needs a RUN"_s);
    QString prompt;
    bool follow = false;
    for (int i = 1; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (a == u"--prompt" && i + 1 < args.size()) {
            prompt = args.at(++i);
        } else if (a == u"--follow") {
            follow = true;
        } else {
            return usage(u"followup: unexpected argument %1"_s.arg(a));
        }
    }
    if (prompt.trimmed().isEmpty())
        return usage(u"followup needs --prompt TEXT"_s);
    const Run *parent = loadRunOrReport(o, args.first());
    if (!parent)
        return ExitOtherError;
    const QString parentId = parent->localId;
    if (!parent->isTerminal() && !parent->remoteId.isEmpty()) {
        // The store has the run as its last process left it: whether it is working now (and so
        // takes a follow-up) is the service's to say. As `status` does, a failed read keeps it.
        awaitAction(
            parentId, RunManager::Action::Refresh, [&] { m_manager.refreshRun(parentId); }, 15000);
        parent = m_manager.run(parentId);
        if (!parent)
            return ExitOtherError;
    }
    const bool pollOnly = !parent->capabilities.testFlag(Capability::ResumeStream);
    // A working run that takes follow-ups gets the message itself (the same id comes back): its
    // answer arrives as Action::FollowUp, possibly before followUp() returns.
    std::optional<ActionResult> sent;
    auto c = connect(&m_manager, &RunManager::actionFinished, this,
                     [&](const QString &rid, RunManager::Action a, const ActionResult &r) {
                         if (rid == parentId && a == RunManager::Action::FollowUp)
                             sent = r;
                     });
    QString why;
    const QString id = m_manager.followUp(parentId, prompt, &why);
    if (id.isEmpty()) {
        disconnect(c);
        // Refused before anything was sent (a run that is neither completed nor working, a
        // backend without follow-ups): the operator's request does not fit, as a usage error says.
        return usage(u"followup: "_s + why);
    }
    bool refused = false;
    if (id == parentId) {
        spinUntil([&] { return sent.has_value(); }, 60000);
        m_store.flush();
        if (!sent || !sent->ok()) {
            // The run itself goes on (and --follow still follows it): only the message was not taken.
            printError(id, sent ? sent->error
                                : RunError{ErrorKind::Timeout,
                                           {},
                                           CliApp::tr("The follow-up was not acknowledged."),
                                           true,
                                           0,
                                           {}});
            refused = true;
        }
    }
    disconnect(c);
    const Run *run = m_manager.run(id);
    const int code
        = reportStarted(id, follow, run && run->capabilities.testFlag(Capability::Stream), pollOnly);
    return refused ? ExitOtherError : code;
}

} // namespace Runwatch::Cli
