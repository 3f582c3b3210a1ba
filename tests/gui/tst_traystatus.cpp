// SPDX-License-Identifier: GPL-3.0-or-later
// The tray's "needs you" count, badge and menu follow the runs that wait for a person, through
// the real jobs connector and simulator; a menu entry shows its run.
#include "i18n/translations.h"
#include "traystatus.h"
#include "uitesthelpers.h"

#include <QMenu>
#include <QSignalSpy>
#include <QSystemTrayIcon>
#include <QtTest>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

class TestTrayStatus final : public QObject
{
    Q_OBJECT

private:
    static QList<QAction *> runEntries(const TrayStatus &tray)
    {
        QList<QAction *> out;
        for (QAction *a : tray.menu()->actions()) {
            if (!a->data().toString().isEmpty())
                out << a;
        }
        return out;
    }

private Q_SLOTS:
    void initTestCase()
    {
        isolateSettings();
        // The English plural forms ("1 run", "2 runs") come from the English catalogue, as in the app.
        QCOMPARE(installTranslations(QLocale(QLocale::English)), QStringList{u"runwatch_en"_s});
    }

    void countFollowsNeedsMe()
    {
        Engine engine;
        QSystemTrayIcon icon;
        TrayStatus tray(&engine.manager, &icon);
        QCOMPARE(tray.count(), 0);
        QCOMPARE(icon.toolTip(), u"Runwatch"_s);
        const QImage plainIcon = icon.icon().pixmap(32, 32).toImage();

        const QString first = engine.start(kJobs, u"Approval: patch the gateway"_s);
        const QString second = engine.start(kJobs, u"ask_user deltas=4"_s);
        const QString busy = engine.start(kJobs, u"timer deltas=4 timer_ms=60000"_s);
        QTRY_COMPARE_WITH_TIMEOUT(tray.count(), 2, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(engine.manager.run(busy)->status, RunStatus::InputRequired, 10000);
        QCOMPARE(tray.count(), 2); // a timer waits for nobody
        QTRY_COMPARE(icon.toolTip(), u"Runwatch — 2 runs need you"_s);
        QVERIFY(icon.icon().pixmap(32, 32).toImage() != plainIcon); // the badge
        QCOMPARE(tray.runIds().size(), 2);
        QVERIFY(tray.runIds().contains(first) && tray.runIds().contains(second));
        QTRY_COMPARE(runEntries(tray).size(), 2);

        QSignalSpy activated(&tray, &TrayStatus::runActivated);
        QAction *entry = runEntries(tray).constFirst();
        QVERIFY(entry->text() == u"Approval: patch the gateway"_s || entry->text() == u"ask_user deltas=4"_s);
        entry->trigger();
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.first().first().toString(), entry->data().toString());

        InputAnswer yes;
        yes.kind = InputAnswer::Kind::Approve;
        engine.manager.respondToRun(first, yes);
        QTRY_COMPARE_WITH_TIMEOUT(tray.count(), 1, 10000);
        QTRY_COMPARE(icon.toolTip(), u"Runwatch — 1 run needs you"_s);
        QTRY_COMPARE(runEntries(tray).size(), 1);
        QCOMPARE(runEntries(tray).constFirst()->data().toString(), second);

        engine.manager.cancelRun(second);
        QTRY_COMPARE_WITH_TIMEOUT(tray.count(), 0, 10000);
        QTRY_COMPARE(icon.toolTip(), u"Runwatch"_s);
        QCOMPARE(icon.icon().pixmap(32, 32).toImage(), plainIcon);
        QVERIFY(runEntries(tray).isEmpty());
    }

    // Past kMenuRuns the menu lists the newest and one entry for the rest, which opens the window.
    void longListIsCut()
    {
        Engine engine;
        QSystemTrayIcon icon;
        TrayStatus tray(&engine.manager, &icon);
        const int n = TrayStatus::kMenuRuns + 2;
        for (int i = 0; i < n; ++i)
            engine.start(kJobs, u"Approval: step %1"_s.arg(i));
        QTRY_COMPARE_WITH_TIMEOUT(tray.count(), n, 20000);
        QTRY_COMPARE(runEntries(tray).size(), TrayStatus::kMenuRuns);
        QSignalSpy show(&tray, &TrayStatus::showWindowRequested);
        const QList<QAction *> all = tray.menu()->actions();
        const auto more
            = std::find_if(all.cbegin(), all.cend(), [](QAction *a) { return a->text() == u"2 more…"_s; });
        QVERIFY(more != all.cend());
        (*more)->trigger();
        QCOMPARE(show.count(), 1);
    }
};

QTEST_MAIN(TestTrayStatus)
#include "tst_traystatus.moc"
