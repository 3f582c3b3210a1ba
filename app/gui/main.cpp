// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch: the desktop app. Widgets live in ui/ (runwatch_ui); AppController beside this file
// (runwatch_app) wires engine, store, connections and window, so main() only starts Qt.

#include "appcontroller.h"
#include "i18n/translations.h"
#include "icons.h"

#include <QApplication>

#include <cstdio>

using namespace Qt::StringLiterals;

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(u"Runwatch"_s);
    QApplication::setOrganizationDomain(u"runwatch.github.io"_s);
    QApplication::setApplicationName(u"runwatch"_s);
    QApplication::setApplicationDisplayName(u"Runwatch"_s);
    QApplication::setApplicationVersion(QStringLiteral(RUNWATCH_VERSION_STRING));
    QGuiApplication::setDesktopFileName(u"io.github.runwatch.Runwatch"_s);
    QApplication::setWindowIcon(Runwatch::Icons::appIcon());
    Runwatch::installTranslations();

    const Runwatch::AppOptions options = Runwatch::AppController::parseArguments(QApplication::arguments());
    if (!options.error.isEmpty()) {
        std::fprintf(stderr, "runwatch: %s\n\n%s", qPrintable(options.error),
                     qPrintable(Runwatch::AppController::usage()));
        return 2;
    }
    if (options.showHelp) {
        std::fputs(qPrintable(Runwatch::AppController::usage()), stdout);
        return 0;
    }
    if (options.showVersion) {
        std::printf("runwatch %s\n", RUNWATCH_VERSION_STRING);
        return 0;
    }
    Runwatch::AppController::applyPalette(options.palette);

    Runwatch::AppController controller(options);
    QString error;
    if (!controller.start(&error)) {
        std::fprintf(stderr, "runwatch: %s\n", qPrintable(error));
        return 1;
    }
    return QApplication::exec();
}
