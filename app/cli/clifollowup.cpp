// SPDX-License-Identifier: GPL-3.0-or-later
// `runwatch-cli followup`: the next turn of a conversation (the seed's "Update").
#include "cli.h"
#include "cli_p.h"

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
        if (a == u"--prompt" && i + 1 < args.size())
            prompt = args.at(++i);
        else if (a == u"--follow")
            follow = true;
        else
            return usage(u"followup: unexpected argument %1"_s.arg(a));
    }
    if (prompt.trimmed().isEmpty())
        return usage(u"followup needs --prompt TEXT"_s);
    const Run *parent = loadRunOrReport(o, args.first());
    if (!parent)
        return ExitOtherError;
    const QString parentId = parent->localId;
    const bool pollOnly = !parent->capabilities.testFlag(Capability::ResumeStream);
    QString why;
    const QString id = m_manager.followUp(parentId, prompt, &why);
    if (id.isEmpty()) {
        // Refused before anything was sent (a run that is not completed, a backend without
        // follow-ups): the operator's request does not fit, as a usage error says.
        return usage(u"followup: "_s + why);
    }
    const Run *run = m_manager.run(id);
    return reportStarted(id, follow, run && run->capabilities.testFlag(Capability::Stream), pollOnly);
}

} // namespace Runwatch::Cli
