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
    return httpFaultFromSpec(spec, LangGraphHttpFault{}, &langGraphEndpointFromName, u"text", error);
}

} // namespace RunwatchSim
