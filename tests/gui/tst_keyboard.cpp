// SPDX-License-Identifier: GPL-3.0-or-later
// Keyboard: every action of the menu bar has a shortcut (shown in its menu), no two share one,
// and the run actions reach the table, where the operator works.
#include "actioncontroller.h"
#include "mainwindow.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QMenu>
#include <QMenuBar>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {
void collect(const QMenu *menu, QList<QAction *> *out)
{
    for (QAction *a : menu->actions()) {
        if (a->isSeparator())
            continue;
        if (a->menu())
            collect(a->menu(), out);
        else
            out->append(a);
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
};

QTEST_MAIN(TestKeyboard)
#include "tst_keyboard.moc"
