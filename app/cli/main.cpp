// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"
#include "i18n/translations.h"

#include <QCoreApplication>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("Runwatch"));
    QCoreApplication::setApplicationName(QStringLiteral("runwatch"));
    QCoreApplication::setApplicationVersion(QStringLiteral(RUNWATCH_VERSION_STRING));
    // Human-readable messages follow the locale; --json, status names and exit codes do not.
    Runwatch::installTranslations();
    Runwatch::Cli::CliApp cli(stdout, stderr);
    return cli.run(QCoreApplication::arguments().mid(1));
}
