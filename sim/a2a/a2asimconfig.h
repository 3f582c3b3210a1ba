// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Configuration of the A2A agent simulator (A2aSimulator): protocol version, agent card, auth,
// pace, and injected JSON-RPC errors and stream faults. Scenarios and per-task options:
// a2asimoptions.h.

#include "server/simfaults.h"

#include <QList>
#include <QString>

namespace RunwatchSim {

// A JSON-RPC error to answer instead of serving a method (HTTP 200, as the JS SDK does).
struct A2aRpcFault
{
    QString method; // JSON-RPC method name; empty = any
    int code = -32603;
    QString message = QStringLiteral("Simulated error.");
    int count = 1; // -1 = every matching request
    int httpStatus = 200;
};

struct A2aSimConfig
{
    enum class Protocol {
        V10, // A2A 1.0 JSON-RPC; requests must carry A2A-Version: 1.0
        V03, // A2A 0.3 JSON-RPC (kind discriminators, kebab-case states, final flag)
    };
    enum class CardMode {
        Normal,
        LegacyPath, // only at /.well-known/agent.json (0.2-era agents)
        Missing,    // 404 on both paths
        Malformed,  // 200 with truncated JSON
        NoName,     // 200 with a JSON object that is not an agent card
        Html,       // 200 text/html (a proxy's page)
    };
    enum class AuthScheme {
        Bearer,       // card: http bearer; requests: Authorization: Bearer K
        ApiKeyHeader, // card: apiKey in header `apiKeyHeader`
    };

    Protocol protocol = Protocol::V10;
    CardMode cardMode = CardMode::Normal;
    QString agentName = QStringLiteral("Runwatch A2A Simulator");
    bool streaming = true;
    QString apiKey; // empty = no auth
    AuthScheme authScheme = AuthScheme::Bearer;
    QString apiKeyHeader = QStringLiteral("X-API-Key");
    int intervalMs = 20;
    int chunks = 8;
    int longChunks = 100000;
    StreamFaults streamFaults; // connections, dropAfterEvents, dropMode; per-task options override
    QList<A2aRpcFault> rpcFaults;
};

} // namespace RunwatchSim
