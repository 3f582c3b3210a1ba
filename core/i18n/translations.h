// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLocale>
#include <QStringList>

namespace Runwatch {

// Loads Runwatch's own catalog (embedded, :/i18n/runwatch_<lang>.qm) and Qt's (qtbase_<lang> from
// QLibraryInfo::path(TranslationsPath), for the standard buttons and dialogs) for the locale's UI
// languages, and installs them on the application. English is the source language: nothing is
// loaded for it. Returns the catalogs that were installed ("runwatch_de", "qtbase_de").
// Call once, after the QCoreApplication exists; the translators are children of it.
QStringList installTranslations(const QLocale &locale = QLocale::system());

} // namespace Runwatch
