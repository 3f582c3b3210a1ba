// SPDX-License-Identifier: GPL-3.0-or-later
// The app in German: started with LANG=de_DE.UTF-8 (ctest's ENVIRONMENT), installTranslations()
// loads our catalog and Qt's, and the demo window, every run's detail pane and respond panel,
// every menu and every dialog shows no string of ours in English (EnglishFinder compares against
// the catalog's sources; the dialogs: New Run, Connections for every backend, Remove Old, Retention,
// About, Prices, Stuck Runs, Browse Runs, Set Deadline and the cancel, delete and export
// confirmations). The last test removes the catalogs and finds the same window English:
// the check can fail.
#include "actioncontroller.h"
#include "appcontroller.h"
#include "cliprocess.h"
#include "connectionsdialog.h"
#include "demomode.h"
#include "detailpane.h"
#include "englishfinder.h"
#include "filterbar.h"
#include "i18n/translations.h"
#include "mainwindow.h"
#include "runhousekeeping.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QMenuBar>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <QTranslator>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

class TestGerman final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    EnglishFinder m_finder;
    std::unique_ptr<AppController> m_app;
    QStringList m_installed;

    MainWindow *window() const { return m_app->window(); }

    // Triggers something that opens a dialog (open() or exec(): a timer watches either way),
    // checks the dialog (after `inspect` has had its turn) and closes it.
    void checkDialog(const std::function<void()> &trigger, QList<EnglishString> *found, QString *title,
                     const std::function<void(QWidget *)> &inspect = {})
    {
        QSet<QWidget *> before;
        for (QWidget *w : QApplication::topLevelWidgets()) {
            if (w->isVisible())
                before.insert(w);
        }
        bool done = false;
        QTimer poll;
        poll.setInterval(20);
        connect(&poll, &QTimer::timeout, this, [&] {
            if (done)
                return;
            for (QWidget *w : QApplication::topLevelWidgets()) {
                auto *dialog = qobject_cast<QDialog *>(w);
                if (!dialog || !dialog->isVisible() || before.contains(w))
                    continue;
                done = true;
                if (inspect)
                    inspect(dialog);
                *title = dialog->windowTitle();
                *found += m_finder.find(dialog);
                dialog->reject();
                return;
            }
        });
        poll.start();
        trigger();
        QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        isolateSettings();
        // What main() does, with the locale ctest gave the process.
        QCOMPARE(QLocale::system().language(), QLocale::German);
        m_installed = installTranslations();
        QCOMPARE(m_installed, QStringList({u"runwatch_de"_s, u"qtbase_de"_s}));
        QVERIFY(m_finder.load(QStringLiteral(RUNWATCH_TS_DE)));
        QVERIFY(m_dir.isValid());
        AppOptions options;
        options.demo = true;
        options.storePath = m_dir.filePath(u"runs.sqlite"_s);
        m_app = std::make_unique<AppController>(options);
        QVERIFY(m_app->start());
        window()->resize(1366, 768);
        window()->show();
        QVERIFY(QTest::qWaitForWindowExposed(window()));
        RunManager *m = m_app->manager();
        QTRY_COMPARE_WITH_TIMEOUT(m_app->demo()->seededRunIds().size(), int(DemoMode::seeds().size()), 30000);
        const auto waiting = [m] {
            int n = 0;
            for (const QString &id : m->runIds())
                n += m->run(id)->status == RunStatus::InputRequired ? 1 : 0;
            return n;
        };
        // Every run that waits for someone has got there: each shows its own Respond panel.
        const QList<DemoMode::Seed> seeds = DemoMode::seeds();
        const auto waits = std::count_if(seeds.cbegin(), seeds.cend(), [](DemoMode::Seed seed) {
            return DemoMode::intendedStatus(seed) == RunStatus::InputRequired;
        });
        QTRY_VERIFY_WITH_TIMEOUT(waiting() == waits, 30000);
    }

    // The finder itself: English sources are found, in patterns and tooltips too; German is not.
    void finderFindsEnglish()
    {
        QCOMPARE(m_finder.match(u"No runs yet"_s), u"No runs yet"_s);
        QCOMPARE(m_finder.match(u"&Quit"_s), u"&Quit"_s);
        QCOMPARE(m_finder.match(u"Start a new run (Ctrl+N)"_s), u"Start a new run"_s);
        QCOMPARE(m_finder.match(u"Reconnecting, next try in 12 s"_s), u"Reconnecting, next try in %1 s"_s);
        QCOMPARE(m_finder.match(u"Queued\nBackend status: queued"_s), u"Queued"_s);
        QVERIFY(m_finder.match(u"Noch keine Läufe"_s).isEmpty());
        QVERIFY(m_finder.match(u"Status"_s).isEmpty()); // the same word in both languages
        QLabel label(u"Select a run to see its live output,\ntimeline and actions."_s);
        QCOMPARE(m_finder.find(&label).size(), 1);
    }

    void mainWindowAndEveryRun()
    {
        QList<EnglishString> found = m_finder.find(window());
        // Each demo run shows its own detail pane and respond panel page (question, approval,
        // options, webhook, timer, tool outputs; completed, failed, cancelled, streaming).
        for (const QString &id : m_app->demo()->seededRunIds()) {
            QVERIFY(window()->activateRun(id));
            QTRY_VERIFY(!window()->detailPane()->isHidden());
            QTest::qWait(0);
            found += m_finder.find(window());
        }
        // Several selected: the summary page.
        window()->table()->selectAll();
        found += m_finder.find(window());
        QVERIFY2(found.isEmpty(), qPrintable(EnglishFinder::describe(found)));
        QCOMPARE(window()->menuBar()->actions().constFirst()->text(), u"&Datei"_s);
    }

    void everyMenu()
    {
        QList<EnglishString> found;
        for (QAction *top : window()->menuBar()->actions()) {
            QVERIFY(top->menu());
            top->menu()->popup(window()->mapToGlobal(QPoint(20, 20)));
            QTRY_VERIFY(top->menu()->isVisible());
            found += m_finder.find(top->menu());
            top->menu()->hide();
        }
        QVERIFY2(found.isEmpty(), qPrintable(EnglishFinder::describe(found)));
    }

    void everyDialog()
    {
        QList<EnglishString> found;
        QStringList titles;
        QString title;
        ActionController *actions = window()->actions();
        checkDialog([&] { actions->newRunAction()->trigger(); }, &found, &title);
        titles << title;
        // Every backend's options in the Connections dialog.
        checkDialog([&] { window()->openConnectionsDialog(); }, &found, &title,
                    [&](QWidget *dialog) {
                        auto *backend = dialog->findChild<QComboBox *>(u"connectionBackend"_s);
                        QVERIFY(backend);
                        for (int i = 0; i < backend->count(); ++i) {
                            backend->setCurrentIndex(i);
                            found += m_finder.find(dialog);
                        }
                    });
        titles << title;
        RunHousekeeping *housekeeping = window()->housekeeping();
        for (QAction *a : window()->findChildren<QAction *>()) {
            if (a->objectName() == u"actionRemoveOld" || a->objectName() == u"actionRetention"
                || a->objectName() == u"actionAbout" || a->objectName() == u"actionPrices"
                || a->objectName() == u"actionStuckRule" || a->objectName() == u"actionBrowseRuns") {
                checkDialog([a] { a->trigger(); }, &found, &title);
                titles << title;
            }
        }
        // Confirmations: cancel the streaming run, delete the completed one, export it.
        // A run that can still be cancelled: on a slow machine (ASan) the streaming one may have
        // finished by now, so any live run of the demo will do.
        QVERIFY(window()->activateRun(m_app->demo()->streamingRunId()));
        RunListModel *model = window()->runModel();
        for (int row = 0; row < model->rowCount() && !actions->cancelAction()->isEnabled(); ++row)
            window()->activateRun(model->index(row, 0).data(RunListModel::IdRole).toString());
        QVERIFY(actions->cancelAction()->isEnabled());
        QVERIFY(actions->deadlineAction()->isEnabled());
        checkDialog([&] { actions->deadlineAction()->trigger(); }, &found, &title);
        titles << title;
        checkDialog([&] { actions->cancelAction()->trigger(); }, &found, &title);
        titles << title;
        checkDialog([&] { actions->deleteAction()->trigger(); }, &found, &title);
        titles << title;
        checkDialog([&] { housekeeping->exportAction()->trigger(); }, &found, &title);
        titles << title;
        QVERIFY2(found.isEmpty(), qPrintable(EnglishFinder::describe(found)));
        QCOMPARE(titles.size(), 12);
        titles.removeDuplicates();
        QVERIFY2(titles.size() == 12, qPrintable(titles.join(u", "_s))); // twelve dialogs, not one twice
        QVERIFY2(titles.contains(u"Verbindungen"_s) && titles.contains(u"Lauf abbrechen"_s)
                     && titles.contains(u"Lauf exportieren"_s),
                 qPrintable(titles.join(u", "_s)));
    }

    // What the CLI says to a person, in German: its help, a run that is not there, no saved
    // connection, the stuck rule, an option without its value. No output, whole or line by line,
    // is an English source of ours; in English every one of them is found (the check can fail).
    // Returns, per command, what was found in English.
    QList<QList<EnglishString>> cliStrings(const QString &lang)
    {
        QTemporaryDir tmp;
        const QString store = tmp.filePath(u"runs.sqlite"_s);
        const QList<QStringList> commands{{u"--help"_s},
                                          {u"--store"_s, store, u"status"_s, u"nosuchrun"_s},
                                          {u"--store"_s, store, u"connections"_s},
                                          {u"--store"_s, store, u"stuck-rule"_s},
                                          {u"--store"_s, store, u"start"_s, u"--prompt"_s}};
        QList<QList<EnglishString>> found;
        for (const QStringList &args : commands) {
            QProcess cli;
            cli.setProcessEnvironment(RunwatchTest::environmentInLanguage(lang));
            cli.start(QStringLiteral(RUNWATCH_CLI_PATH), args);
            const bool finished = cli.waitForFinished(30000);
            const QString said = QString::fromUtf8(cli.readAllStandardOutput())
                                 + QString::fromUtf8(cli.readAllStandardError());
            const QString where = u"runwatch-cli "_s + args.join(u' ');
            QList<EnglishString> english;
            if (!finished || said.trimmed().isEmpty())
                english << EnglishString{where, said, u"(did not finish or said nothing)"_s};
            if (const QString source = m_finder.match(said); !source.isEmpty())
                english << EnglishString{where, said.left(200), source};
            for (const QString &line : said.split(u'\n')) {
                if (const QString source = m_finder.match(line); !source.isEmpty())
                    english << EnglishString{where, line, source};
            }
            found << english;
        }
        return found;
    }

    void cliInGerman()
    {
        const QList<QList<EnglishString>> german = cliStrings(u"de_DE.UTF-8"_s);
        for (const QList<EnglishString> &command : german)
            QVERIFY2(command.isEmpty(), qPrintable(EnglishFinder::describe(command)));
        const QList<QList<EnglishString>> english = cliStrings(u"C.UTF-8"_s);
        for (const QList<EnglishString> &command : english)
            QVERIFY(!command.isEmpty());
    }

    // The check can fail: without the catalogs the same window is English, and found so.
    void withoutTheCatalogItIsEnglish()
    {
        const auto translators = QCoreApplication::instance()->findChildren<QTranslator *>();
        QCOMPARE(translators.size(), m_installed.size());
        for (QTranslator *t : translators)
            QCoreApplication::removeTranslator(t);
        {
            MainWindow english(m_app->manager());
            const QList<EnglishString> found = m_finder.find(&english);
            QVERIFY2(found.size() > 40, qPrintable(QString::number(found.size())));
            QStringList sources;
            for (const EnglishString &e : found)
                sources << e.source;
            QVERIFY(sources.contains(u"&File"_s));
            QVERIFY(
                sources.contains(u"Search runs: words, \"a phrase\", status:failed since:7d  (Ctrl+F)"_s));
        }
        for (QTranslator *t : translators)
            QCoreApplication::installTranslator(t);
    }

    void cleanupTestCase()
    {
        m_app.reset(); // ~AppController shuts the engine down before the demo simulators stop
    }
};

QTEST_MAIN(TestGerman)
#include "tst_german.moc"
