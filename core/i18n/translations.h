// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLocale>
#include <QStringList>

namespace Runwatch {

// Loads Runwatch's own catalog (embedded, :/i18n/runwatch_<lang>.qm) and Qt's (qtbase_<lang> from
// QLibraryInfo::path(TranslationsPath), for the standard buttons and dialogs) for the locale's UI
// languages, and installs them on the application. English is the source language: only its
// plural forms are loaded (runwatch_en), also for a language without a catalog of ours. Returns
// the catalogs that were installed ("runwatch_de", "qtbase_de"; "runwatch_en").
// Call once, after the QCoreApplication exists; the translators are children of it.
QStringList installTranslations(const QLocale &locale = QLocale::system());

} // namespace Runwatch
