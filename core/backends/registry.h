// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/runbackend.h"
#include "connections/connection.h"

namespace Runwatch {

// The connectors this build has, by Connection::backend name ("openai", …). Each connector adds
// one entry in registry.cpp; nothing else in the engine knows concrete connectors.
RunBackend *createBackend(const Connection &connection, QObject *parent);
QStringList knownBackends();

} // namespace Runwatch
