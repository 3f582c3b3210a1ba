// SPDX-License-Identifier: GPL-3.0-or-later
#include "translations.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QLibraryInfo>
#include <QTranslator>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// QTranslator::load(QLocale, …) walks the locale's uiLanguages() (LANGUAGE, LC_ALL, LC_MESSAGES,
// LANG on Unix) and takes the first catalog that exists, so "de_AT" finds "runwatch_de".
QString load(const QLocale &locale, const QString &name, const QString &dir)
{
    auto *translator = new QTranslator(QCoreApplication::instance());
    if (!translator->load(locale, name, u"_"_s, dir) || translator->isEmpty()) {
        delete translator;
        return {};
    }
    QCoreApplication::installTranslator(translator);
    return QFileInfo(translator->filePath()).completeBaseName();
}

} // namespace

QStringList installTranslations(const QLocale &locale)
{
    QStringList installed;
    if (!QCoreApplication::instance())
        return installed;
    // Ours first: an installed translator is searched newest first, so Qt's catalog, installed
    // after, could only shadow ours for a context of Qt's own (QDialogButtonBox, QLineEdit…).
    const QString ours = load(locale, u"runwatch"_s, u":/i18n"_s);
    if (ours.isEmpty() || ours.endsWith(u"_en"_s)) {
        // English, or a language we have no catalog for: the source texts with the English plural
        // forms ("1 run", "3 runs" for "%n run(s)"), and not Qt's catalog, which alone would mix
        // two languages in one dialog.
        const QString english
            = ours.isEmpty() ? load(QLocale(QLocale::English), u"runwatch"_s, u":/i18n"_s) : ours;
        if (!english.isEmpty())
            installed << english;
        return installed;
    }
    installed << ours;
    const QString qt = load(locale, u"qtbase"_s, QLibraryInfo::path(QLibraryInfo::TranslationsPath));
    if (!qt.isEmpty())
        installed << qt;
    return installed;
}

} // namespace Runwatch
