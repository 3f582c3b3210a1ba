// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobssimconfig.h"

#include "server/simnames.h"

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

const std::array kEndpoints{
    std::pair{JobsEndpoint::Kickoff, "kickoff"_L1}, std::pair{JobsEndpoint::List, "list"_L1},
    std::pair{JobsEndpoint::Status, "status"_L1},   std::pair{JobsEndpoint::Events, "events"_L1},
    std::pair{JobsEndpoint::Cancel, "cancel"_L1},   std::pair{JobsEndpoint::Input, "input"_L1},
    std::pair{JobsEndpoint::Result, "result"_L1},   std::pair{JobsEndpoint::Webhook, "webhook"_L1},
    std::pair{JobsEndpoint::Unknown, "unknown"_L1},
};

} // namespace

QString jobsEndpointName(JobsEndpoint endpoint)
{
    return nameOfValue(kEndpoints, endpoint, u"unknown"_s);
}

std::optional<JobsEndpoint> jobsEndpointFromName(QStringView name)
{
    return valueOfName(kEndpoints, name, Qt::CaseSensitive);
}

std::optional<JobsHttpFault> jobsHttpFaultFromSpec(QStringView spec, QString *error)
{
    JobsHttpFault fault;
    const auto fail = [&](const QString &why) -> std::optional<JobsHttpFault> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    for (const QStringView part : spec.split(u',', Qt::SkipEmptyParts)) {
        const qsizetype eq = part.indexOf(u'=');
        if (eq <= 0)
            return fail(u"fault \"%1\": expected key=value"_s.arg(part));
        const QStringView key = part.left(eq).trimmed();
        const QStringView value = part.mid(eq + 1).trimmed();
        bool ok = true;
        if (key == u"status") {
            fault.status = value.toInt(&ok);
            ok = ok && (fault.status == 0 || (fault.status >= 100 && fault.status <= 599));
        } else if (key == u"count") {
            fault.count = value.toInt(&ok);
            ok = ok && fault.count >= -1;
        } else if (key == u"on") {
            fault.endpoints.clear();
            if (value != u"any") {
                for (const QStringView name : value.split(u'+', Qt::SkipEmptyParts)) {
                    const auto endpoint = jobsEndpointFromName(name);
                    if (!endpoint)
                        return fail(u"fault: unknown endpoint \"%1\""_s.arg(name));
                    fault.endpoints.insert(*endpoint);
                }
            }
        } else if (key == u"retry-after") {
            fault.retryAfter = value == u"none" ? QByteArray() : value.toLatin1();
        } else if (key == u"body") {
            ok = value == u"html" || value == u"error";
            fault.htmlBody = value == u"html";
        } else {
            return fail(u"fault: unknown key \"%1\""_s.arg(key));
        }
        if (!ok)
            return fail(u"fault: bad value for %1: \"%2\""_s.arg(key, value));
    }
    return fault;
}

} // namespace RunwatchSim
