// SPDX-License-Identifier: GPL-3.0-or-later
#include "mcpsimconfig.h"

#include "server/simnames.h"

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

const std::array kEndpoints{
    std::pair{McpEndpoint::Initialize, "initialize"_L1},
    std::pair{McpEndpoint::Initialized, "initialized"_L1},
    std::pair{McpEndpoint::Notification, "notification"_L1},
    std::pair{McpEndpoint::Response, "response"_L1},
    std::pair{McpEndpoint::Stream, "stream"_L1},
    std::pair{McpEndpoint::Delete, "delete"_L1},
    std::pair{McpEndpoint::Discover, "server/discover"_L1},
    std::pair{McpEndpoint::ToolsList, "tools/list"_L1},
    std::pair{McpEndpoint::ToolsCall, "tools/call"_L1},
    std::pair{McpEndpoint::TasksGet, "tasks/get"_L1},
    std::pair{McpEndpoint::TasksResult, "tasks/result"_L1},
    std::pair{McpEndpoint::TasksCancel, "tasks/cancel"_L1},
    std::pair{McpEndpoint::TasksList, "tasks/list"_L1},
    std::pair{McpEndpoint::TasksUpdate, "tasks/update"_L1},
    std::pair{McpEndpoint::Ping, "ping"_L1},
    std::pair{McpEndpoint::Unknown, "unknown"_L1},
};

} // namespace

QString mcpEndpointName(McpEndpoint endpoint)
{
    return nameOfValue(kEndpoints, endpoint, u"unknown"_s);
}

std::optional<McpEndpoint> mcpEndpointFromName(QStringView name)
{
    return valueOfName(kEndpoints, name, Qt::CaseSensitive);
}

McpEndpoint mcpEndpointOfMethod(const QString &method, bool isResponse)
{
    if (isResponse)
        return McpEndpoint::Response;
    if (method == "notifications/initialized"_L1)
        return McpEndpoint::Initialized;
    if (method.startsWith("notifications/"_L1))
        return McpEndpoint::Notification;
    // The names of the request methods are the endpoints' own.
    const auto endpoint = mcpEndpointFromName(method);
    if (!endpoint || method == "initialized"_L1 || method == "notification"_L1 || method == "response"_L1
        || method == "stream"_L1 || method == "delete"_L1)
        return McpEndpoint::Unknown;
    return *endpoint;
}

std::optional<McpHttpFault> mcpHttpFaultFromSpec(QStringView spec, QString *error)
{
    return httpFaultFromSpec(spec, McpHttpFault{}, &mcpEndpointFromName, u"json", error);
}

} // namespace RunwatchSim
