// SPDX-License-Identifier: GPL-3.0-or-later
#include "foundrysimconfig.h"

#include "server/simnames.h"

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

const std::array kEndpoints{
    std::pair{FoundryEndpoint::CreateThreadRun, "create"_L1},
    std::pair{FoundryEndpoint::CreateThread, "create_thread"_L1},
    std::pair{FoundryEndpoint::GetThread, "get_thread"_L1},
    std::pair{FoundryEndpoint::AddMessage, "add_message"_L1},
    std::pair{FoundryEndpoint::ListMessages, "messages"_L1},
    std::pair{FoundryEndpoint::CreateRun, "create_run"_L1},
    std::pair{FoundryEndpoint::ListRuns, "runs"_L1},
    std::pair{FoundryEndpoint::GetRun, "get"_L1},
    std::pair{FoundryEndpoint::SubmitToolOutputs, "submit"_L1},
    std::pair{FoundryEndpoint::Cancel, "cancel"_L1},
    std::pair{FoundryEndpoint::ListSteps, "steps"_L1},
    std::pair{FoundryEndpoint::ListAgents, "agents"_L1},
    std::pair{FoundryEndpoint::GetAgent, "get_agent"_L1},
    std::pair{FoundryEndpoint::CreateAgent, "create_agent"_L1},
    std::pair{FoundryEndpoint::Unknown, "unknown"_L1},
};

} // namespace

QString foundryEndpointName(FoundryEndpoint endpoint)
{
    return nameOfValue(kEndpoints, endpoint, u"unknown"_s);
}

std::optional<FoundryEndpoint> foundryEndpointFromName(QStringView name)
{
    return valueOfName(kEndpoints, name, Qt::CaseSensitive);
}

std::optional<FoundryHttpFault> foundryHttpFaultFromSpec(QStringView spec, QString *error)
{
    FoundryHttpFault fault;
    const auto fail = [&](const QString &why) -> std::optional<FoundryHttpFault> {
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
            ok = ok && fault.status >= 100 && fault.status <= 599;
        } else if (key == u"count") {
            fault.count = value.toInt(&ok);
            ok = ok && fault.count >= -1;
        } else if (key == u"on") {
            fault.endpoints.clear();
            if (value != u"any") {
                for (const QStringView name : value.split(u'+', Qt::SkipEmptyParts)) {
                    const auto endpoint = foundryEndpointFromName(name);
                    if (!endpoint)
                        return fail(u"fault: unknown endpoint \"%1\""_s.arg(name));
                    fault.endpoints.insert(*endpoint);
                }
            }
        } else if (key == u"retry-after") {
            fault.retryAfterSeconds = value == u"none" ? -1 : value.toInt(&ok);
            ok = ok && fault.retryAfterSeconds >= -1;
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
