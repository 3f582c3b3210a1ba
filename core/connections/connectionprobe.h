// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/runbackend.h"
#include "connections/connection.h"

#include <QCoroTask>

namespace Runwatch {

// What "Test connection" found out. The rule — which question each kind of service is asked —
// lives here, in core; the front end only words the result.
struct ConnectionProbe
{
    enum class Kind {
        UnknownBackend, // no connector of that name (ok is false)
        Models,         // an OpenAI-compatible service answered GET /models (httpStatus)
        Described,      // the service described itself (info: an A2A agent card)
        Listed,         // a plain service listed its runs (runsListed)
        Failed,         // error says why
    };
    Kind kind = Kind::Failed;
    bool ok = false;
    int httpStatus = 0;
    ConnectionInfo info;
    int runsListed = 0;
    RunError error;
};

// Asks the service behind `connection` (its key in apiKey) one cheap question, without retries:
// a service that describes itself (an A2A agent card) is asked for that, since its name and skills
// tell the operator they reached the agent they meant; OpenAI-compatible services for their model
// list (the Responses API has no describing or listing call); other services for their run list.
// The connector lives only as long as the probe.
QCoro::Task<ConnectionProbe> probeConnection(Connection connection);

} // namespace Runwatch
