// SPDX-License-Identifier: GPL-3.0-or-later
#include "echoconnector.h"

#include "backends/registry.h"
#include "fakebackend.h"

#include <QFileInfo>

using namespace Qt::StringLiterals;
using namespace Runwatch;

namespace RunwatchTest {

namespace {

QString checkDepth(const QString &value)
{
    bool ok = false;
    const int depth = value.toInt(&ok);
    return ok && depth >= 1 && depth <= 9 ? QString() : u"The echo depth is a number from 1 to 9."_s;
}

QString checkScript(const QString &path)
{
    return QFileInfo(path).isReadable() ? QString() : u"Cannot read the echo script %1."_s.arg(path);
}

RunBackend *create(const Connection &, QObject *parent)
{
    return new FakeBackend(parent);
}

} // namespace

ConnectorDescriptor echoConnector()
{
    ConnectorDescriptor row;
    row.name = "echo"_L1;
    row.displayName = "Echo (a test connector)";
    row.urlHelp = "where the echo service listens";
    row.urlPlaceholder = "http://127.0.0.1:9/echo";
    row.options = {
        {EchoOption::Depth, "--echo-depth"_L1, "N"_L1, ConnectorOption::Kind::Text, "Echo &depth:", "1–9",
         "How many times the service repeats a prompt.", &checkDepth},
        {EchoOption::Script, "--echo-script"_L1, "FILE"_L1, ConnectorOption::Kind::File,
         "Echo &script:", "/path/to/script", "What the echo service plays.", &checkScript},
    };
    row.create = &create;
    return row;
}

void registerEchoConnector()
{
    registerConnector(echoConnector());
}

} // namespace RunwatchTest
