// SPDX-License-Identifier: GPL-3.0-or-later
#include "geminisimconfig.h"

#include "server/simnames.h"

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

const std::array kEndpoints{
    std::pair{GeminiEndpoint::Create, "create"_L1}, std::pair{GeminiEndpoint::Get, "get"_L1},
    std::pair{GeminiEndpoint::Stream, "stream"_L1}, std::pair{GeminiEndpoint::Cancel, "cancel"_L1},
    std::pair{GeminiEndpoint::Delete, "delete"_L1}, std::pair{GeminiEndpoint::Models, "models"_L1},
    std::pair{GeminiEndpoint::Agents, "agents"_L1}, std::pair{GeminiEndpoint::Unknown, "unknown"_L1},
};

} // namespace

QString geminiEndpointName(GeminiEndpoint endpoint)
{
    return nameOfValue(kEndpoints, endpoint, u"unknown"_s);
}

std::optional<GeminiEndpoint> geminiEndpointFromName(QStringView name)
{
    return valueOfName(kEndpoints, name, Qt::CaseSensitive);
}

std::optional<GeminiHttpFault> geminiHttpFaultFromSpec(QStringView spec, QString *error)
{
    return httpFaultFromSpec(spec, GeminiHttpFault{}, &geminiEndpointFromName, u"json", error);
}

} // namespace RunwatchSim
