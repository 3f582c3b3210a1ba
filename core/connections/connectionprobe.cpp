// SPDX-License-Identifier: GPL-3.0-or-later
#include "connections/connectionprobe.h"

#include "backends/registry.h"

#include <QScopedPointer>

#include <memory>

namespace Runwatch {

QCoro::Task<ConnectionProbe> probeConnection(Connection connection)
{
    // Deleted later, never under a coroutine of its own that may still be unwinding.
    const std::unique_ptr<RunBackend, QScopedPointerDeleteLater> backend(createBackend(connection, nullptr));
    if (!backend) {
        ConnectionProbe probe;
        probe.kind = ConnectionProbe::Kind::UnknownBackend;
        co_return probe;
    }
    co_return co_await backend->probe();
}

} // namespace Runwatch
