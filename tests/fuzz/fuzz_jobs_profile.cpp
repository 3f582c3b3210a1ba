// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the jobs connector's configuration and mapping: connection profiles,
// JSON pointers, URI templates, the status table, job objects and the SSE event mapper.
//
// Input: NUL-separated parts.
//   0  a profile (JSON text; empty = the defaults)
//   1  a job object (JSON text), read through the profile and applied to a run
//   2  a string used as a JSON pointer, a URI template and a status label
//   3… SSE events, each "type\nid\ndata", mapped in order and applied to a run
// Properties:
//   - nothing crashes, UBSan included; a rejected profile always says why;
//   - a profile survives toJson/fromJson unchanged;
//   - a JSON pointer survives toString/parse unchanged;
//   - every status string of the table maps to its state;
//   - progress is within 0…1; the run's sequence cursor never goes back.
//
//   fuzz_jobs_profile -dict=tests/fuzz/jobs_profile.dict tests/fuzz/corpus/jobs_profile
#include "backends/jobs/jobsmapper.h"
#include "backends/jobs/jobsprofile.h"
#include "domain/runreducer.h"
#include "fuzzsupport.h"
#include "json/jsonpointer.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace Runwatch;
using namespace Runwatch::Jobs;

const char *const RunwatchFuzz::kTarget = "jobs";
using RunwatchFuzz::violation;

namespace {

QByteArray compact(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

JobsProfile checkProfile(const QByteArray &text)
{
    if (text.isEmpty())
        return JobsProfile::defaults();
    QString error;
    const auto profile = JobsProfile::fromJsonText(text, &error);
    if (!profile) {
        if (error.isEmpty())
            violation("a rejected profile gave no reason");
        return JobsProfile::defaults();
    }
    const auto again = JobsProfile::fromJson(profile->toJson(), &error);
    if (!again)
        violation("toJson() of a valid profile is rejected");
    if (compact(again->toJson()) != compact(profile->toJson()))
        violation("profile toJson/fromJson round trip changed it");
    for (auto it = profile->statusMap.constBegin(); it != profile->statusMap.constEnd(); ++it) {
        if (profile->mapStatus(it.key()) != it.value())
            violation("a status string of the table does not map to its state");
    }
    return *profile;
}

void checkString(const QString &s, const JobsProfile &profile, const QJsonObject &job)
{
    QString error;
    if (const auto pointer = JsonPointer::parse(s, &error)) {
        const auto back = JsonPointer::parse(pointer->toString());
        if (!back || back->tokens() != pointer->tokens())
            violation("JSON pointer toString/parse round trip changed it");
        (void)pointer->evaluate(job);
        QJsonObject target = job;
        (void)pointer->set(target, QJsonValue(1));
    } else if (error.isEmpty()) {
        violation("a rejected JSON pointer gave no reason");
    }
    for (const bool needsId : {true, false}) {
        if (const auto t = UriTemplate::parse(s, needsId)) {
            (void)t->resolve(QUrl(QStringLiteral("http://127.0.0.1:8080/api")), s);
            (void)t->expand(s);
        }
    }
    (void)profile.mapStatus(s);
    (void)mapInputRequest(QJsonValue(s));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    const QList<QByteArray> parts = input.split('\0');

    const JobsProfile profile = checkProfile(parts.value(0));

    const QJsonObject job = QJsonDocument::fromJson(parts.value(1)).object();
    const JobView view = readJob(job, profile);
    if (view.progress && (*view.progress < 0.0 || *view.progress > 1.0))
        violation("progress outside 0…1");
    Run run;
    run.status = RunStatus::InProgress;
    for (const RunEvent &e : eventsForJob(view, true))
        applyEvent(run, e);
    (void)mapJobError(view.error, view.state, view.timeoutSeconds);

    checkString(QString::fromUtf8(parts.value(2)), profile, job);

    JobsMapper mapper(profile, -1);
    Run streamed;
    streamed.status = RunStatus::InProgress;
    for (qsizetype i = 3; i < parts.size(); ++i) {
        const QByteArray &part = parts.at(i);
        const qsizetype first = part.indexOf('\n');
        const qsizetype second = first < 0 ? -1 : part.indexOf('\n', first + 1);
        const QByteArray type = first < 0 ? part : part.left(first);
        const QByteArray id
            = first < 0 ? QByteArray() : part.mid(first + 1, second < 0 ? -1 : second - first - 1);
        const QByteArray body = second < 0 ? QByteArray() : part.mid(second + 1);
        if (i == 3 + (parts.size() - 3) / 2)
            mapper.startConnection(); // a reconnect halfway
        QList<RunEvent> out;
        const qint64 before = streamed.token.sequence;
        const JobsMapper::Outcome outcome = mapper.map(type, body, id, out);
        if (outcome == JobsMapper::Outcome::Malformed && mapper.error().message.isEmpty())
            violation("a malformed event gave no reason");
        out << mapper.takeHeldBack();
        for (const RunEvent &e : out)
            applyEvent(streamed, e);
        if (streamed.token.sequence < before)
            violation("the run's sequence cursor went back");
        if (outcome == JobsMapper::Outcome::Malformed)
            break;
    }
    return 0;
}
