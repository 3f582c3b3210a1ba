// SPDX-License-Identifier: GPL-3.0-or-later
#include "langgraphsimconfig.h"

#include "server/simnames.h"

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

const std::array kEndpoints{
    std::pair{LangGraphEndpoint::Ok, "ok"_L1},
    std::pair{LangGraphEndpoint::Info, "info"_L1},
    std::pair{LangGraphEndpoint::SearchAssistants, "assistants"_L1},
    std::pair{LangGraphEndpoint::GetAssistant, "assistant"_L1},
    std::pair{LangGraphEndpoint::CreateThread, "create_thread"_L1},
    std::pair{LangGraphEndpoint::SearchThreads, "threads"_L1},
    std::pair{LangGraphEndpoint::GetThread, "thread"_L1},
    std::pair{LangGraphEndpoint::DeleteThread, "delete_thread"_L1},
    std::pair{LangGraphEndpoint::GetState, "state"_L1},
    std::pair{LangGraphEndpoint::CreateRun, "create"_L1},
    std::pair{LangGraphEndpoint::ListRuns, "runs"_L1},
    std::pair{LangGraphEndpoint::GetRun, "get"_L1},
    std::pair{LangGraphEndpoint::DeleteRun, "delete_run"_L1},
    std::pair{LangGraphEndpoint::JoinStream, "join"_L1},
    std::pair{LangGraphEndpoint::Cancel, "cancel"_L1},
    std::pair{LangGraphEndpoint::Unknown, "unknown"_L1},
};

} // namespace

QString langGraphEndpointName(LangGraphEndpoint endpoint)
{
    return nameOfValue(kEndpoints, endpoint, u"unknown"_s);
}

std::optional<LangGraphEndpoint> langGraphEndpointFromName(QStringView name)
{
    return valueOfName(kEndpoints, name, Qt::CaseSensitive);
}

std::optional<LangGraphHttpFault> langGraphHttpFaultFromSpec(QStringView spec, QString *error)
{
    LangGraphHttpFault fault;
    const auto fail = [&](const QString &why) -> std::optional<LangGraphHttpFault> {
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
                    const auto endpoint = langGraphEndpointFromName(name);
                    if (!endpoint)
                        return fail(u"fault: unknown endpoint \"%1\""_s.arg(name));
                    fault.endpoints.insert(*endpoint);
                }
            }
        } else if (key == u"retry-after") {
            fault.retryAfterSeconds = value == u"none" ? -1 : value.toInt(&ok);
            ok = ok && fault.retryAfterSeconds >= -1;
        } else if (key == u"body") {
            ok = value == u"html" || value == u"text";
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
