// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/runbackend.h"
#include "domain/connection.h"

#include <QCoroTask>

namespace Runwatch {

// Asks the service behind `connection` (its key in apiKey) the connector's one cheap question
// (RunBackend::probe()). The connector lives only as long as the probe.
QCoro::Task<ConnectionProbe> probeConnection(Connection connection);

} // namespace Runwatch
