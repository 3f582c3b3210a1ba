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
    return httpFaultFromSpec(spec, FoundryHttpFault{}, &foundryEndpointFromName, u"error", error);
}

} // namespace RunwatchSim
