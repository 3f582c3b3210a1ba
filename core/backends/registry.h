// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/connector.h"
#include "backends/runbackend.h"
#include "domain/connection.h"

namespace Runwatch {

// The connectors this build has: one row each (registry.cpp), in the order the front ends list
// them. The engine, the Connections dialog, runwatch-cli and demo mode learn about connectors only
// from here; nothing outside core/backends/ names one.
const QList<ConnectorDescriptor> &connectors();
// The row of `name` (Connection::backend), nullptr when no connector has it.
const ConnectorDescriptor *connector(const QString &name);
// The connector a connection gets when none is named (the CLI's --url without --backend).
const ConnectorDescriptor &defaultConnector();
QStringList knownBackends();

// Adds a connector at run time, after the built-in ones (a row from elsewhere, e.g. a test's
// connector). A row whose name is taken replaces that row. Not thread-safe: call it at start-up,
// before the front end reads the rows.
void registerConnector(ConnectorDescriptor descriptor);

// The options every connection has, whatever its connector (CA bundle, proxy, default time
// budget, token command), in display order.
const QList<ConnectorOption> &commonConnectionOptions();
// The options of `backend`'s connections: its own, then the common ones. Empty for an unknown
// backend.
QList<ConnectorOption> connectionOptions(const QString &backend);
// The option of any connector (or a common one) with this key or CLI flag; nullptr when none.
const ConnectorOption *anyConnectionOption(QStringView keyOrFlag);

RunBackend *createBackend(const Connection &connection, QObject *parent);

} // namespace Runwatch
