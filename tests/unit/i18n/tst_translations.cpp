// SPDX-License-Identifier: GPL-3.0-or-later
// The translation catalogs: installTranslations() picks ours and Qt's for the locale, and lupdate
// run over the whole tree (scripts/update-translations.sh, into a temporary copy of each .ts)
// leaves no message unfinished, none vanished, and no placeholder lost in a translation.
#include "cliprocess.h"
#include "i18n/translations.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>
#include <QXmlStreamReader>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

const QString kSourceDir = QStringLiteral(RUNWATCH_SOURCE_DIR);
const QString kLupdate = QStringLiteral(RUNWATCH_LUPDATE);

QSet<QString> placeholders(const QString &text)
{
    static const QRegularExpression re(u"%(?:\\d|n)"_s);
    QSet<QString> out;
    for (auto it = re.globalMatch(text); it.hasNext();)
        out.insert(it.next().captured());
    return out;
}

// Every problem of a catalog, one line each ("unfinished: RunList: Needs me").
QStringList catalogProblems(const QString &tsPath)
{
    QFile file(tsPath);
    if (!file.open(QIODevice::ReadOnly))
        return {u"cannot read "_s + tsPath};
    QStringList problems;
    QXmlStreamReader xml(&file);
    QString context;
    QString source;
    QString type;
    QStringList forms;
    bool numerus = false;
    int messages = 0;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto name = xml.name();
            if (name == u"name") {
                context = xml.readElementText();
            } else if (name == u"message") {
                numerus = xml.attributes().value(u"numerus"_s) == u"yes";
                source.clear();
                forms.clear();
                type.clear();
            } else if (name == u"source") {
                source = xml.readElementText();
            } else if (name == u"translation") {
                type = xml.attributes().value(u"type"_s).toString();
                if (!numerus)
                    forms << xml.readElementText();
            } else if (name == u"numerusform") {
                forms << xml.readElementText();
            }
        } else if (xml.isEndElement() && xml.name() == u"message") {
            ++messages;
            const QString where = context + u": "_s + source;
            if (!type.isEmpty()) {
                problems << type + u": "_s + where; // unfinished, vanished or obsolete
                continue;
            }
            if (forms.isEmpty() || (numerus && forms.size() < 2))
                problems << u"missing plural forms: "_s + where;
            for (const QString &form : std::as_const(forms)) {
                if (form.isEmpty()) {
                    problems << u"empty: "_s + where;
                } else if (placeholders(form) != placeholders(source)) {
                    problems << u"placeholders differ: "_s + where + u" → "_s + form;
                }
            }
        }
    }
    if (xml.hasError())
        problems << u"XML error in %1: %2"_s.arg(tsPath, xml.errorString());
    if (messages == 0)
        problems << u"no messages in "_s + tsPath;
    return problems;
}

// scripts/update-translations.sh on the given file, with lupdate from Qt's CMake package.
bool runUpdate(const QString &tsPath, const QString &lupdate, QString *output)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"LUPDATE"_s, lupdate);
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(u"bash"_s, {kSourceDir + u"/scripts/update-translations.sh"_s, tsPath});
    const bool finished = p.waitForFinished(60000);
    *output = QString::fromLocal8Bit(p.readAll());
    return finished && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

} // namespace

class TestTranslations final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // A missing lupdate is a failure, never a skip: the catalog check would prove nothing.
        QVERIFY2(QFileInfo(kLupdate).isExecutable(),
                 qPrintable(kLupdate + u" not found: install qt6-l10n-tools (scripts/setup-deps.sh)"_s));
        QVERIFY(!QDir(kSourceDir + u"/resources/translations"_s).entryList({u"*.ts"_s}).isEmpty());
    }

    // English is the source: only its plural forms are loaded ("%n run(s)" → "1 run", "3 runs"),
    // not Qt's catalog; a language we have no catalog for gets the same.
    void englishLoadsItsPluralForms_data()
    {
        QTest::addColumn<QLocale>("locale");
        QTest::newRow("en_US") << QLocale(QLocale::English, QLocale::UnitedStates);
        QTest::newRow("fr_FR") << QLocale(QLocale::French, QLocale::France);
    }
    void englishLoadsItsPluralForms()
    {
        QFETCH(QLocale, locale);
        QCOMPARE(installTranslations(locale), QStringList{u"runwatch_en"_s});
        QCOMPARE(QCoreApplication::translate("RunStatus", "Completed"), u"Completed"_s);
        QCOMPARE(QCoreApplication::translate("UsageTotals", "%n run(s)", nullptr, 1), u"1 run"_s);
        QCOMPARE(QCoreApplication::translate("UsageTotals", "%n run(s)", nullptr, 10), u"10 runs"_s);
        QCOMPARE(QCoreApplication::translate("Runwatch::ActionController", "Cancel %n runs?", nullptr, 1),
                 u"Cancel 1 run?"_s);
        QCOMPARE(QCoreApplication::translate("QPlatformTheme", "Cancel"), u"Cancel"_s);
    }
    void cleanup()
    {
        // Each test installs its own: the translators of the one before must not answer for it.
        for (QTranslator *t : QCoreApplication::instance()->findChildren<QTranslator *>()) {
            QCoreApplication::removeTranslator(t);
            delete t;
        }
    }

    // German (any country) finds the embedded catalog and Qt's own, from the Qt installation.
    void germanLoadsOursAndQts()
    {
        const QStringList installed = installTranslations(QLocale(QLocale::German, QLocale::Austria));
        QCOMPARE(installed, QStringList({u"runwatch_de"_s, u"qtbase_de"_s}));
        QCOMPARE(QCoreApplication::translate("RunStatus", "Completed"), u"Abgeschlossen"_s);
        QCOMPARE(QCoreApplication::translate("RunList", "%n tries failed in a row: %1", nullptr, 1),
                 u"1 Versuch in Folge fehlgeschlagen: %1"_s);
        QCOMPARE(QCoreApplication::translate("RunList", "%n tries failed in a row: %1", nullptr, 3),
                 u"3 Versuche in Folge fehlgeschlagen: %1"_s);
        // Qt's catalog: the standard buttons of QDialogButtonBox/QMessageBox.
        QCOMPARE(QCoreApplication::translate("QPlatformTheme", "Cancel"), u"Abbrechen"_s);
    }

    void catalogsAreComplete_data()
    {
        QTest::addColumn<QString>("ts");
        const QDir dir(kSourceDir + u"/resources/translations"_s);
        for (const QString &name : dir.entryList({u"*.ts"_s}))
            QTest::newRow(qPrintable(name)) << dir.filePath(name);
    }
    // lupdate over core/, ui/ and app/ into a copy: a string added without a translation shows up
    // as unfinished, a stale one as gone (the copy would differ), a lost %1 as a placeholder problem.
    void catalogsAreComplete()
    {
        QFETCH(QString, ts);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString copy = tmp.filePath(QFileInfo(ts).fileName());
        QVERIFY(QFile::copy(ts, copy));
        QString output;
        QVERIFY2(runUpdate(copy, kLupdate, &output), qPrintable(output));
        const QStringList problems = catalogProblems(copy);
        QVERIFY2(problems.isEmpty(),
                 qPrintable(u"%1 problem(s); run scripts/update-translations.sh and translate:\n  "_s.arg(
                                problems.size())
                            + problems.join(u"\n  "_s)));
    }

    // The check can fail: an empty catalog updated from the tree has every message unfinished.
    void emptyCatalogFails()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString ts = tmp.filePath(u"runwatch_de.ts"_s);
        QFile f(ts);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE TS>\n"
                "<TS version=\"2.1\" language=\"de_DE\" sourcelanguage=\"en\">\n</TS>\n");
        f.close();
        QString output;
        QVERIFY2(runUpdate(ts, kLupdate, &output), qPrintable(output));
        const QStringList problems = catalogProblems(ts);
        QVERIFY(problems.size() > 300);
        QVERIFY(problems.contains(u"unfinished: RunFilter: Needs me"_s));
    }

    // The CLI speaks the locale's language in its messages and keeps its exit codes.
    void cliFollowsTheLocale_data()
    {
        QTest::addColumn<QString>("lang");
        QTest::addColumn<QString>("unknownCommand");
        QTest::addColumn<QString>("usage");
        QTest::newRow("German") << u"de_DE.UTF-8"_s << u"unbekannter Befehl „frobnicate“"_s
                                << u"Aufruf: runwatch-cli [GLOBALE OPTIONEN]"_s;
        QTest::newRow("English") << u"C.UTF-8"_s << u"unknown command \"frobnicate\""_s
                                 << u"Usage: runwatch-cli [GLOBAL OPTIONS]"_s;
    }
    void cliFollowsTheLocale()
    {
        QFETCH(QString, lang);
        QFETCH(QString, unknownCommand);
        QFETCH(QString, usage);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        QProcess p;
        p.setProcessEnvironment(RunwatchTest::environmentInLanguage(lang));
        p.start(QStringLiteral(RUNWATCH_CLI_PATH),
                {u"--store"_s, tmp.filePath(u"runs.sqlite"_s), u"frobnicate"_s});
        QVERIFY(p.waitForFinished(30000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitCode(), 2); // usage, in every language
        QVERIFY2(err.contains(unknownCommand), qPrintable(err));
        QVERIFY2(err.contains(usage), qPrintable(err));
    }

    // The script says so and fails when it has no lupdate.
    void updateFailsWithoutLupdate()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        QString output;
        QVERIFY(!runUpdate(tmp.filePath(u"x_de.ts"_s), tmp.filePath(u"no-lupdate"_s), &output));
        QVERIFY2(output.contains(u"lupdate not found"_s), qPrintable(output));
    }
};

QTEST_GUILESS_MAIN(TestTranslations)
#include "tst_translations.moc"
