// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"

#include <QCoreApplication>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("Runwatch"));
    QCoreApplication::setApplicationName(QStringLiteral("runwatch"));
    QCoreApplication::setApplicationVersion(QStringLiteral(RUNWATCH_VERSION_STRING));
    Runwatch::Cli::CliApp cli(stdout, stderr);
    return cli.run(app.arguments().mid(1));
}
