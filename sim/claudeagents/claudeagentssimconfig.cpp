// SPDX-License-Identifier: GPL-3.0-or-later
#include "claudeagentssimconfig.h"

#include <array>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {
struct Named
{
    ClaudeAgentsEndpoint endpoint;
    QStringView name;
};
constexpr std::array<Named, 10> kNames{{
    {ClaudeAgentsEndpoint::Agents, u"agents"},
    {ClaudeAgentsEndpoint::Environments, u"environments"},
    {ClaudeAgentsEndpoint::CreateSession, u"create"},
    {ClaudeAgentsEndpoint::ListSessions, u"list"},
    {ClaudeAgentsEndpoint::GetSession, u"get"},
    {ClaudeAgentsEndpoint::DeleteSession, u"delete"},
    {ClaudeAgentsEndpoint::SendEvents, u"send"},
    {ClaudeAgentsEndpoint::ListEvents, u"events"},
    {ClaudeAgentsEndpoint::Stream, u"stream"},
    {ClaudeAgentsEndpoint::Unknown, u"unknown"},
}};
} // namespace

QString claudeAgentsEndpointName(ClaudeAgentsEndpoint endpoint)
{
    for (const Named &named : kNames) {
        if (named.endpoint == endpoint)
            return named.name.toString();
    }
    return u"unknown"_s;
}

std::optional<ClaudeAgentsEndpoint> claudeAgentsEndpointFromName(QStringView name)
{
    for (const Named &named : kNames) {
        if (named.name == name)
            return named.endpoint;
    }
    return std::nullopt;
}

std::optional<ClaudeAgentsHttpFault> claudeAgentsHttpFaultFromSpec(QStringView spec, QString *error)
{
    return httpFaultFromSpec(spec, ClaudeAgentsHttpFault(), &claudeAgentsEndpointFromName, u"json", error);
}

} // namespace RunwatchSim
