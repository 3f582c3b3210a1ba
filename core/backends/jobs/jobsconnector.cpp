// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/jobs/jobsconnector.h"

#include "backends/jobs/jobsbackend.h"

#include <QCoreApplication>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// The words the jobs simulator streams as the output of every demo job (so the jobs' prompts are
// all about the same cost report). Jobs that wait stop halfway, after 12 of the 24 words: each
// half reads as a sentence of its own.
const char *const kDemoReply = "Read the usage and cost figures of all 14 services for Q3. "
                               "Storage grew by 31 percent and two batch jobs run twice nightly.";
// How long the demo's timer run waits before it resumes by itself.
constexpr int kDemoTimerMs = 5 * 60 * 1000;

// The connector's own reading of the file: the same errors, with the JSON pointer of the value.
QString checkProfileFile(const QString &path)
{
    if (!QFileInfo(path).isAbsolute())
        return QCoreApplication::translate("ConnectionOptions", "Give the profile file's full path.");
    Connection probe;
    probe.options.insert(JobsOption::ProfileFile, path);
    QString error;
    if (!JobsBackend::profileFor(probe, &error))
        return error;
    return {};
}

// A profile that only adds fixed kickoff metadata: the simulator reads from it the words to
// stream and how long the timer waits (a connection profile is how a real service would get
// fixed members too, see docs/jobs-profile.md).
QJsonObject demoOptions()
{
    const QJsonObject metadata{{u"reply"_s, QString::fromUtf8(kDemoReply)},
                               {u"timer_ms"_s, QString::number(kDemoTimerMs)}};
    return {{JobsOption::Profile,
             QJsonObject{{u"name"_s, u"demo-jobs"_s},
                         {u"request"_s, QJsonObject{{u"body"_s, QJsonObject{{u"metadata"_s, metadata}}}}}}}};
}

} // namespace

ConnectorDescriptor jobsConnector()
{
    using Seed = ConnectorDemo::Seed;
    ConnectorDescriptor row;
    row.name = "jobs"_L1;
    row.displayName = QT_TRANSLATE_NOOP("Runwatch::Connector", "HTTP job API (202 + polling, SSE)");
    row.urlHelp = QT_TRANSLATE_NOOP("Runwatch::Connector", "the base the job paths hang off");
    row.urlPlaceholder = "https://jobs.example.com/api";
    row.options = {
        {JobsOption::ProfileFile, "--profile"_L1, "FILE"_L1, ConnectorOption::Kind::File,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "Jobs &profile:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "/path/to/profile.json (optional)"),
         QT_TRANSLATE_NOOP("Runwatch::Connector",
                           "The connection profile that fits this job API to the contract (see "
                           "docs/jobs-profile.md). It is read as you type; its errors name the JSON pointer "
                           "of the bad value."),
         &checkProfileFile, true},
    };
    row.cliNotes = QT_TRANSLATE_NOOP(
        "Runwatch::Connector",
        "start --input: the job's input. respond: --text to a question, --approve/--reject to an "
        "approval, --choice to options, --value to a form.");
    row.create = &makeBackend<JobsBackend>;
    row.demo.connectionName = QT_TRANSLATE_NOOP("Runwatch::DemoMode", "Demo jobs");
    row.demo.options = &demoOptions;
    row.demo.runs = {
        {Seed::Completed, {}, QT_TRANSLATE_NOOP("Runwatch::DemoMode", "Summarise Q3 usage and costs")},
        {Seed::Timer, "Timer"_L1, QT_TRANSLATE_NOOP("Runwatch::DemoMode", "export the Q3 billing data")},
        {Seed::Webhook, "Webhook"_L1,
         QT_TRANSLATE_NOOP("Runwatch::DemoMode", "rebuild the Q3 cost dashboards")},
        {Seed::Options, "Options"_L1, QT_TRANSLATE_NOOP("Runwatch::DemoMode", "analyse the Q3 cost drivers")},
        {Seed::Approval, "Two-step"_L1,
         QT_TRANSLATE_NOOP("Runwatch::DemoMode", "approve the Q3 compute budget")},
        {Seed::Form, "Form"_L1, QT_TRANSLATE_NOOP("Runwatch::DemoMode", "release the Q3 cost report")},
    };
    return row;
}

} // namespace Runwatch
