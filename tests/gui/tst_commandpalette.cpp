// SPDX-License-Identifier: GPL-3.0-or-later
// The command palette (Ctrl+K, issue 31) in the main window, keyboard only: it lists the window's
// enabled commands and finds runs by title or id; Enter on a run selects it in the list, Enter on
// a command runs it, arrows move, Esc closes; a disabled command is not offered; its widgets
// have accessible names.
#include "actioncontroller.h"
#include "commandpalettepopup.h"
#include "enginerig.h"
#include "mainwindow.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QListView>
#include <QPainter>
#include <QSettings>
#include <QTest>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;
using RunwatchTest::listedRun;

class TestCommandPalette final : public QObject
{
    Q_OBJECT

    std::unique_ptr<RunManager> m_manager;
    std::unique_ptr<MainWindow> m_window;

    CommandPalettePopup *openPalette()
    {
        QTest::keyClick(m_window.get(), Qt::Key_K, Qt::ControlModifier);
        CommandPalettePopup *palette = m_window->commandPalette();
        // Not QTRY_VERIFY: a helper that returns a value; the callers check the result.
        const bool shown = palette && QTest::qWaitFor([palette] { return palette->isVisible(); }, 5000);
        return shown ? palette : nullptr;
    }

    QStringList listed(const CommandPalettePopup *palette) const
    {
        QStringList texts;
        const QAbstractItemModel *model = palette->listView()->model();
        for (int row = 0; row < model->rowCount(); ++row)
            texts << model->index(row, 0).data().toString();
        return texts;
    }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void init()
    {
        QSettings().clear();
        m_manager = std::make_unique<RunManager>();
        for (int i = 0; i < 30; ++i) {
            m_manager->adoptRun(listedRun(u"run-%1"_s.arg(i), RunStatus::Completed,
                                          u"Daily digest %1"_s.arg(i), u"c"_s, 3600 - i),
                                false);
        }
        m_manager->adoptRun(listedRun(u"run-cve"_s, RunStatus::Completed, u"Check CVE-2026-1234 exposure"_s),
                            false);
        m_window = std::make_unique<MainWindow>(m_manager.get());
        m_window->resize(1366, 768);
        m_window->show();
        // Under a bare X server (no window manager) nothing activates the window by itself.
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->activateWindow();
        QApplication::setActiveWindow(m_window.get());
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_window->runModel()->flush();
    }
    void cleanup()
    {
        m_window.reset();
        m_manager.reset();
    }

    // Ctrl+K, a few letters of a run's title, Enter: the run is selected in the list.
    void runByTitle()
    {
        CommandPalettePopup *palette = openPalette();
        QVERIFY(palette);
        QVERIFY(palette->filterEdit()->hasFocus());
        QVERIFY(!palette->filterEdit()->accessibleName().isEmpty());
        QVERIFY(!palette->listView()->accessibleName().isEmpty());
        QVERIFY(!palette->accessibleName().isEmpty());
        QTest::keyClicks(palette->filterEdit(), u"cve 1234"_s);
        QCOMPARE(listed(palette), QStringList{u"Check CVE-2026-1234 exposure"_s});
        QTest::keyClick(palette->filterEdit(), Qt::Key_Return);
        QTRY_VERIFY(!palette->isVisible());
        QTRY_COMPARE(m_window->table()->selectedRunIds(), QStringList{u"run-cve"_s});
    }

    // Arrows move through the matches; the run chosen is the one under the cursor.
    void arrowsChoose()
    {
        CommandPalettePopup *palette = openPalette();
        QVERIFY(palette);
        QTest::keyClicks(palette->filterEdit(), u"digest"_s);
        QCOMPARE(palette->listView()->model()->rowCount(), 30);
        // Newest first: "Daily digest 29" was created last.
        QCOMPARE(palette->listView()->currentIndex().row(), 0);
        QCOMPARE(palette->listView()->currentIndex().data().toString(), u"Daily digest 29"_s);
        QTest::keyClick(palette->filterEdit(), Qt::Key_Down);
        QTest::keyClick(palette->filterEdit(), Qt::Key_Down);
        QTest::keyClick(palette->filterEdit(), Qt::Key_Up);
        QCOMPARE(palette->listView()->currentIndex().row(), 1);
        QVERIFY(palette->filterEdit()->hasFocus()); // typing goes on where it was
        grabForReview(palette, u"command-palette-runs"_s);
        QTest::keyClick(palette->filterEdit(), Qt::Key_Enter);
        QTRY_COMPARE(m_window->table()->selectedRunIds(), QStringList{u"run-28"_s});
    }

    // A command by its name runs its QAction; a disabled one is not listed; Esc closes.
    void commands()
    {
        CommandPalettePopup *palette = openPalette();
        QVERIFY(palette);
        // Nothing selected: "Cancel Run" is disabled, so not offered; the raw log is.
        QVERIFY(!m_window->actions()->cancelAction()->isEnabled());
        QTest::keyClicks(palette->filterEdit(), u"cancel run"_s);
        QVERIFY2(!listed(palette).contains(u"Cancel Run"_s), qPrintable(listed(palette).join(u", "_s)));
        palette->filterEdit()->clear();
        QVERIFY(listed(palette).contains(u"Raw Event Log"_s)); // every command, no run
        QVERIFY(!listed(palette).contains(u"Command Palette…"_s));
        QTest::keyClicks(palette->filterEdit(), u"raw event"_s);
        QCOMPARE(palette->listView()->currentIndex().data().toString(), u"Raw Event Log"_s);
        QVERIFY(!m_window->findChild<QAction *>(u"actionRawLog"_s)->isChecked());
        QTest::keyClick(palette->filterEdit(), Qt::Key_Return);
        QTRY_VERIFY(!palette->isVisible());
        QVERIFY(m_window->findChild<QAction *>(u"actionRawLog"_s)->isChecked());

        // Enabled again once a run is selected: offered then.
        QVERIFY(m_window->activateRun(u"run-3"_s));
        palette = openPalette();
        QVERIFY(palette);
        QTest::keyClicks(palette->filterEdit(), u"delete"_s);
        QVERIFY(listed(palette).contains(u"Delete…"_s));
        // Commands and runs in one list: "re" begins commands and is inside a run's title.
        palette->filterEdit()->clear();
        QTest::keyClicks(palette->filterEdit(), u"re"_s);
        QVERIFY(listed(palette).contains(u"Refresh"_s));
        QVERIFY(listed(palette).contains(u"Check CVE-2026-1234 exposure"_s));
        QVERIFY(listed(palette).indexOf(u"Refresh"_s)
                < listed(palette).indexOf(u"Check CVE-2026-1234 exposure"_s));
        grabForReview(palette, u"command-palette"_s);
        QTest::keyClick(palette->filterEdit(), Qt::Key_Escape);
        QTRY_VERIFY(!palette->isVisible());
        QCOMPARE(m_window->table()->selectedRunIds(), QStringList{u"run-3"_s}); // nothing ran
    }

private:
    // RUNWATCH_GRAB_DIR: the window with the popup over it, as the operator sees it.
    void grabForReview(QWidget *popup, const QString &name)
    {
        const QString dir = qEnvironmentVariable("RUNWATCH_GRAB_DIR");
        if (dir.isEmpty())
            return;
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QPixmap shot = m_window->grab();
        QPainter p(&shot);
        p.drawPixmap(m_window->mapFromGlobal(popup->mapToGlobal(QPoint(0, 0))), popup->grab());
        p.end();
        shot.save(dir + u'/' + name + u".png"_s);
    }
};

QTEST_MAIN(TestCommandPalette)
#include "tst_commandpalette.moc"
