// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Command line of the standalone runwatch-sim, kept in the library so that tests can check it.

#include "simconfig.h"

#include <QHostAddress>
#include <QString>
#include <QStringList>

namespace RunwatchSim {

struct ServerOptions
{
    QHostAddress address = QHostAddress(QHostAddress::LocalHost);
    quint16 port = 0;
    bool verbose = false;
    SimulatorConfig config;
};

struct CommandLineResult
{
    enum class Action { Run, Help, Version, Error };
    Action action = Action::Run;
    ServerOptions options;
    QString message; // help text, or the error
};

// arguments[0] is the program name, as in QCoreApplication::arguments().
CommandLineResult parseCommandLine(const QStringList &arguments);

} // namespace RunwatchSim
