// SPDX-License-Identifier: GPL-3.0-or-later
// Keyboard: every action of the menu bar has a shortcut (shown in its menu), no two share one,
// and the run actions reach the table, where the operator works. Keyboard alone, no mouse event:
// typing in the list filters it and Esc clears; Tab and Shift+Tab reach the list, the filter bar,
// the detail pane and the respond panel; every action fires from its shortcut.
#include "actioncontroller.h"
#include "detailpane.h"
#include "filterbar.h"
#include "inputpanel.h"
#include "mainwindow.h"
#include "models/runfilterproxy.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTimer>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {
void collect(const QMenu *menu, QList<QAction *> *out)
{
    for (QAction *a : menu->actions()) {
        if (a->isSeparator())
            continue;
        if (a->menu()) {
            collect(a->menu(), out);
        } else {
            out->append(a);
        }
    }
}
} // namespace

class TestKeyboard final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }

    void everyMenuActionHasItsOwnShortcut()
    {
        Engine engine;
        MainWindow window(&engine.manager);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QList<QAction *> actions;
        for (QAction *top : window.menuBar()->actions()) {
            QVERIFY(top->menu());
            collect(top->menu(), &actions);
        }
        QVERIFY(actions.size() >= 15);
        QHash<QString, QString> owner;
        for (const QAction *a : std::as_const(actions)) {
            const QString name = a->text().remove(u'&');
            QVERIFY2(!a->shortcut().isEmpty(), qPrintable(name + u" has no shortcut"_s));
            // QMenu shows an action's shortcut beside it unless told not to.
            QVERIFY2(a->isShortcutVisibleInContextMenu()
                         || !QCoreApplication::testAttribute(Qt::AA_DontShowShortcutsInContextMenus),
                     qPrintable(name));
            const QString keys = a->shortcut().toString(QKeySequence::PortableText);
            QVERIFY2(!owner.contains(keys) || owner.value(keys) == name,
                     qPrintable(u"%1 is the shortcut of %2 and %3"_s.arg(keys, owner.value(keys), name)));
            owner.insert(keys, name);
        }
        // Every run action is in the table's context menu as well, with the same shortcut.
        for (QAction *a : window.actions()->runActions())
            QVERIFY2(window.table()->actions().contains(a), qPrintable(a->text()));
        Engine::stopAll(&engine.manager);
    }

    // Type-to-filter: letters typed in the list land in the search field and filter the list;
    // Esc clears the search and gives the list the focus back; Esc in the list clears it too.
    void typingInTheListFilters()
    {
        Engine engine;
        const QString id = engine.start(kJobs, u"ask_user deltas=4"_s);
        MainWindow window(&engine.manager);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTRY_COMPARE(window.proxy()->rowCount(), 1);
        window.table()->setFocus();
        QTRY_VERIFY(window.table()->hasFocus());
        QLineEdit *search = window.filterBar()->searchField();
        QTest::keyClicks(window.table(), u"zz"_s);
        QTRY_VERIFY(search->hasFocus());
        QCOMPARE(search->text(), u"zz"_s);
        QTRY_COMPARE(window.proxy()->rowCount(), 0);
        QTest::keyClick(search, Qt::Key_Escape);
        QCOMPARE(search->text(), QString());
        QTRY_VERIFY(window.table()->hasFocus());
        QTRY_COMPARE(window.proxy()->rowCount(), 1);
        // Typed on: the next letters append to what is there.
        QTest::keyClicks(window.table(), u"ask"_s);
        QTRY_VERIFY(search->hasFocus());
        QTest::keyClicks(search, u"_user"_s);
        QCOMPARE(search->text(), u"ask_user"_s);
        QTRY_COMPARE(window.proxy()->rowCount(), 1);
        // Back to the list (Ctrl+L), Esc there clears the search as well.
        QTest::keySequence(&window, QKeySequence(u"Ctrl+L"_s));
        QTRY_VERIFY(window.table()->hasFocus());
        QTest::keyClick(window.table(), Qt::Key_Escape);
        QCOMPARE(search->text(), QString());
        QVERIFY(!id.isEmpty());
        Engine::stopAll(&engine.manager);
    }

    // Tab goes round the list, the filter bar (every chip, search, connection filter), the detail
    // pane and the respond panel of a run that waits for an answer; Shift+Tab goes the same
    // round backwards.
    void tabReachesEveryPanel()
    {
        Engine engine;
        const QString id = engine.start(kJobs, u"ask_user deltas=4"_s);
        QTRY_COMPARE_WITH_TIMEOUT(engine.status(id), RunStatus::InputRequired, 20000);
        MainWindow window(&engine.manager);
        window.resize(1366, 768);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(window.activateRun(id));
        InputPanel *panel = window.detailPane()->inputPanel();
        QTRY_VERIFY(panel->isVisible());
        const auto round = [&](Qt::Key key) {
            window.table()->setFocus();
            QStringList names;
            for (int i = 0; i < 80; ++i) {
                QWidget *now = QApplication::focusWidget();
                if (!now)
                    break;
                names << (now->objectName().isEmpty() ? QString::fromLatin1(now->metaObject()->className())
                                                      : now->objectName());
                QTest::keyClick(now, key);
                if (QApplication::focusWidget() == window.table())
                    return names;
            }
            return names + QStringList{u"(never back to the list)"_s};
        };
        const QStringList forward = round(Qt::Key_Tab);
        const QStringList backward = round(Qt::Key_Backtab);
        // The chips are one exclusive group: Tab enters it at one chip and the arrow keys move
        // between chips (as between radio buttons); Send is disabled until there is an answer.
        const QStringList expected{u"runTable"_s, u"searchField"_s, u"connectionFilter"_s, u"outputView"_s,
                                   u"inputAnswer"_s};
        for (const QString &name : expected) {
            QVERIFY2(forward.contains(name), qPrintable(name + u" not in "_s + forward.join(u", "_s)));
            QVERIFY2(backward.contains(name), qPrintable(name + u" not in "_s + backward.join(u", "_s)));
        }
        QVERIFY2(!forward.contains(u"(never back to the list)"_s), qPrintable(forward.join(u", "_s)));
        const auto chip = std::find_if(forward.cbegin(), forward.cend(),
                                       [](const QString &name) { return name.startsWith(u"chip_"_s); });
        QVERIFY2(chip != forward.cend(), qPrintable(forward.join(u", "_s)));
        // The arrow keys go from chip to chip.
        auto *first = window.filterBar()->findChild<QWidget *>(*chip);
        first->setFocus();
        QTRY_VERIFY(first->hasFocus());
        QTest::keyClick(first, Qt::Key_Right);
        QTRY_VERIFY(QApplication::focusWidget() != first);
        QVERIFY(QApplication::focusWidget()->objectName().startsWith(u"chip_"_s));
        QCOMPARE(QSet<QString>(forward.cbegin(), forward.cend()),
                 QSet<QString>(backward.cbegin(), backward.cend()));
        // The answer goes out by keyboard as well: typed, Tab to Send, Space.
        QTRY_VERIFY(panel->isVisible());
        auto *answer = panel->findChild<QWidget *>(u"inputAnswer"_s);
        QVERIFY(answer);
        answer->setFocus();
        QTRY_VERIFY(answer->hasFocus());
        QTest::keyClicks(answer, u"Lisbon"_s);
        QTest::keyClick(answer, Qt::Key_Tab);
        QTRY_COMPARE(QApplication::focusWidget()->objectName(), u"inputSend"_s);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
        QTRY_COMPARE_WITH_TIMEOUT(engine.jobAnswers(id).size(), 1, 20000);
        Engine::stopAll(&engine.manager);
    }

    // Every action of the menu bar fires from its shortcut, typed in the list (dialogs it opens
    // are closed as they come). Actions the selection disables are enabled for the key press:
    // what is checked here is the key binding; each action's own effect has its own test.
    void everyActionFiresFromItsShortcut()
    {
        Engine engine;
        MainWindow window(&engine.manager);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QList<QAction *> actions;
        for (QAction *top : window.menuBar()->actions())
            collect(top->menu(), &actions);
        QAction *quit = window.findChild<QAction *>(u"actionQuit"_s);
        QVERIFY(quit);
        actions.removeAll(quit);
        actions.append(quit); // last: it closes the window
        QTimer closer;
        closer.setInterval(20);
        connect(&closer, &QTimer::timeout, this, [] {
            for (QWidget *w : QApplication::topLevelWidgets()) {
                if (auto *d = qobject_cast<QDialog *>(w); d && d->isVisible())
                    d->reject();
            }
            // A popup (the command palette) takes the keys as a dialog does.
            if (QWidget *popup = QApplication::activePopupWidget())
                popup->hide();
        });
        closer.start();
        const auto dialogOpen = [] {
            const QWidgetList widgets = QApplication::topLevelWidgets();
            return QApplication::activePopupWidget()
                   || std::any_of(widgets.cbegin(), widgets.cend(),
                                  [](QWidget *w) { return qobject_cast<QDialog *>(w) && w->isVisible(); });
        };
        for (QAction *a : std::as_const(actions)) {
            QSignalSpy fired(a, &QAction::triggered);
            // The dialog of the previous action (open()ed, window-modal) must be gone: it takes
            // the keys while it is up.
            QTRY_VERIFY(!dialogOpen());
            QApplication::setActiveWindow(&window);
            QTRY_VERIFY(window.isActiveWindow());
            window.table()->setFocus();
            QTRY_VERIFY(window.table()->hasFocus());
            a->setEnabled(true);
            QTest::keySequence(&window, a->shortcut());
            QTRY_VERIFY2(fired.size() == 1, qPrintable(a->text() + u" "_s + a->shortcut().toString()));
        }
        QTRY_VERIFY(!window.isVisible());
        Engine::stopAll(&engine.manager);
    }
};

QTEST_MAIN(TestKeyboard)
#include "tst_keyboard.moc"
