// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobssimwire.h"

#include <array>
#include <cmath>
#include <utility>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

const std::array kAlternateStatuses{
    std::pair{"queued"_L1, "PENDING"_L1},         std::pair{"running"_L1, "WORKING"_L1},
    std::pair{"input_required"_L1, "WAITING"_L1}, std::pair{"succeeded"_L1, "DONE"_L1},
    std::pair{"failed"_L1, "ERROR"_L1},           std::pair{"canceled"_L1, "ABORTED"_L1},
    std::pair{"timed_out"_L1, "EXPIRED"_L1},
};

} // namespace

QString shapeStatus(const QString &status, JobsShape shape)
{
    if (shape == JobsShape::Standard)
        return status;
    for (const auto &[standard, alternate] : kAlternateStatuses) {
        if (status == standard)
            return alternate;
    }
    return status;
}

QJsonObject shapeJobObject(const QJsonObject &s, JobsShape shape)
{
    if (shape == JobsShape::Standard)
        return s;
    QJsonObject task;
    const auto copy = [&](const char *from, const char *to) {
        const QJsonValue v = s.value(QLatin1StringView(from));
        if (!v.isUndefined())
            task.insert(QLatin1StringView(to), v);
    };
    copy("job_id", "uid");
    if (s.contains(u"status"_s))
        task.insert(u"state"_s, shapeStatus(s.value(u"status"_s).toString(), shape));
    if (s.contains(u"progress"_s)) {
        const QJsonValue p = s.value(u"progress"_s);
        task.insert(u"percent"_s, p.isDouble() ? QJsonValue(std::round(p.toDouble() * 1000.0) / 10.0) : p);
    }
    copy("created_at", "created");
    copy("timeout_seconds", "limit_s");
    if (s.contains(u"result"_s)) {
        const QJsonValue r = s.value(u"result"_s);
        task.insert(u"output"_s,
                    r.isNull() ? QJsonValue(QJsonValue::Null) : QJsonValue(QJsonObject{{u"text"_s, r}}));
    }
    copy("error", "problem");
    copy("input_request", "pending");
    copy("idempotency_key", "idem");
    copy("metadata", "meta");
    QJsonObject out{{u"task"_s, task}};
    QJsonObject links;
    if (s.contains(u"status_url"_s))
        links.insert(u"self"_s, s.value(u"status_url"_s));
    if (s.contains(u"events_url"_s))
        links.insert(u"stream"_s, s.value(u"events_url"_s));
    if (s.contains(u"result_url"_s))
        links.insert(u"output"_s, s.value(u"result_url"_s));
    if (!links.isEmpty())
        out.insert(u"links"_s, links);
    return out;
}

} // namespace RunwatchSim
