// SPDX-License-Identifier: GPL-3.0-or-later
// The first window fits a small laptop screen, and a geometry saved on a bigger one is clamped.
//
// Runs on a real X server of the screen size under test: ctest starts it under
// `xvfb-run -s "-screen 0 WxHx24"` with RUNWATCH_EXPECT_SCREEN=WxH (tests/gui/CMakeLists.txt), and
// the test fails when it finds another screen (e.g. offscreen, or Xvfb missing). Without a window
// manager nothing moves or shrinks the window for us: what is measured is our own sizing.
// RUNWATCH_SCREENFIT_SHOTS=DIR keeps a screenshot of the whole screen for a look by eye.
#include "appcontroller.h"
#include "detailpane.h"
#include "filterbar.h"
#include "mainwindow.h"
#include "models/runfilterproxy.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QScreen>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolBar>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {

// The window's frame and the parts the issue found cut off, in global coordinates.
QString describe(const MainWindow *w)
{
    const QRect frame = w->frameGeometry();
    return u"frame %1,%2 %3x%4, minimum %5x%6"_s.arg(frame.x())
        .arg(frame.y())
        .arg(frame.width())
        .arg(frame.height())
        .arg(w->minimumSizeHint().width())
        .arg(w->minimumSizeHint().height());
}

QRect globalRect(const QWidget *widget)
{
    return QRect(widget->mapToGlobal(QPoint(0, 0)), widget->size());
}

} // namespace

class TestScreenFit final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QSize m_expected;

    QRect available() const { return QGuiApplication::primaryScreen()->availableGeometry(); }

    // Everything the operator needs is on the screen: the whole frame, the status bar, the
    // toolbar up to its right edge (Connections sits there), and the detail pane.
    void verifyFits(MainWindow *w, const QString &shot)
    {
        QVERIFY(QTest::qWaitForWindowExposed(w));
        // The window system has the window's real position once it is exposed.
        QTRY_VERIFY2(available().contains(w->frameGeometry()), qPrintable(describe(w)));
        QVERIFY(w->statusBar()->isVisible());
        QVERIFY2(available().contains(globalRect(w->statusBar())), qPrintable(describe(w)));
        QToolBar *bar = w->toolBar();
        QVERIFY(bar->isVisible());
        QVERIFY2(available().contains(globalRect(bar)), qPrintable(describe(w)));
        // The last action of the toolbar is shown as a button, not pushed into the overflow menu.
        QAction *last = bar->actions().constLast();
        QWidget *lastButton = bar->widgetForAction(last);
        QVERIFY(lastButton);
        QVERIFY2(lastButton->isVisible(), qPrintable(last->text()));
        QVERIFY(available().contains(globalRect(lastButton)));
        QVERIFY(available().contains(globalRect(w->detailPane())));
        QVERIFY(available().contains(globalRect(w->filterBar())));
        // Usable, not merely squeezed: the run list and the detail pane keep a working width.
        QVERIFY2(w->detailPane()->width() >= 360, qPrintable(QString::number(w->detailPane()->width())));
        QVERIFY2(w->table()->width() >= 400, qPrintable(QString::number(w->table()->width())));
        QVERIFY2(w->table()->viewport()->height() >= 150,
                 qPrintable(QString::number(w->table()->viewport()->height())));
        const QString dir = qEnvironmentVariable("RUNWATCH_SCREENFIT_SHOTS");
        if (!dir.isEmpty()) {
            QCoreApplication::processEvents();
            const QPixmap screen = QGuiApplication::primaryScreen()->grabWindow(0);
            QVERIFY(screen.save(dir + u'/' + shot + u'-' + QString::number(m_expected.width()) + u'x'
                                + QString::number(m_expected.height()) + u".png"_s));
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        isolateSettings();
        QVERIFY(m_dir.isValid());
        const QStringList size = qEnvironmentVariable("RUNWATCH_EXPECT_SCREEN").split(u'x');
        QVERIFY2(size.size() == 2, "RUNWATCH_EXPECT_SCREEN=WxH names the screen this test runs on");
        m_expected = QSize(size.at(0).toInt(), size.at(1).toInt());
        QCOMPARE(QGuiApplication::platformName(), u"xcb"_s);
        QVERIFY(QGuiApplication::primaryScreen());
        QCOMPARE(QGuiApplication::primaryScreen()->size(), m_expected);
    }

    // The first launch: the demo's window, full of runs, one of them streaming into the detail pane.
    void firstLaunchFits()
    {
        QSettings().clear();
        AppOptions options;
        options.storePath = m_dir.filePath(u"first.sqlite"_s);
        AppController app(options);
        QVERIFY(app.start());
        MainWindow *w = app.window();
        QVERIFY(w);
        QTRY_VERIFY(w->runModel()->rowCount() > 0);
        QVERIFY(w->activateRun(w->proxy()->runId(0)));
        verifyFits(w, u"first-launch"_s);
    }

    // A geometry saved on a bigger screen (or by another session) is clamped to this one.
    void restoredGeometryIsClamped()
    {
        QSettings().clear();
        const QRect oversized(300, 200, m_expected.width() + 900, m_expected.height() + 600);
        {
            AppOptions options;
            options.storePath = m_dir.filePath(u"restore.sqlite"_s);
            options.demo = true;
            AppController app(options);
            QVERIFY(app.start());
            MainWindow *w = app.window();
            QVERIFY(QTest::qWaitForWindowExposed(w));
            w->setGeometry(oversized);
            QTRY_COMPARE(w->geometry().size(), oversized.size());
            w->saveState();
        }
        AppOptions options;
        options.storePath = m_dir.filePath(u"restore.sqlite"_s);
        options.demo = true;
        AppController app(options);
        QVERIFY(app.start());
        verifyFits(app.window(), u"restored"_s);
    }
};

QTEST_MAIN(TestScreenFit)
#include "tst_screenfit.moc"
