// SPDX-License-Identifier: GPL-3.0-or-later
// Stuck runs and deadlines in the window, against the jobs simulator: a job with a short
// estimated duration that goes silent shows the "Stuck" badge and is cancelled from the Cancel
// action (the server confirms); "Set Deadline…" with "Cancel the run at the deadline" cancels a
// live job when its budget runs out.
#include "actioncontroller.h"
#include "deadlinedialog.h"
#include "engine/rundeadlines.h"
#include "engine/stuckruns.h"
#include "filterbar.h"
#include "mainwindow.h"
#include "models/runfilterproxy.h"
#include "models/runlistmodel.h"
#include "runtableview.h"
#include "store/runstore.h"
#include "stuckruledialog.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QToolButton>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kWait = 30000;
// An estimate of about a second, then a minute without a word in a status outside the contract.
const QString kSilentJob = u"unknown unknown_ms=60000"_s;
} // namespace

class TestStuckDeadline final : public QObject
{
    Q_OBJECT

    static QVariant statusCell(MainWindow &window, const QString &id, int role)
    {
        RunListModel *model = window.runModel();
        model->flush();
        return model->data(model->index(model->rowOf(id), StatusColumn), role);
    }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }

    void stuckRunShownThenCancelled()
    {
        Engine engine;
        MainWindow window(&engine.manager);
        StuckRunWatcher stuck(&engine.manager);
        // The production floor (2 min) would make the test wait; the rule is the same.
        stuck.setPolicy({.factor = 2.0, .floorMs = 0});
        window.runModel()->setWatchers(&stuck, nullptr);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        const QString id = engine.start(kJobs, kSilentJob);
        QTRY_VERIFY(window.activateRun(id));
        QTRY_VERIFY_WITH_TIMEOUT(statusCell(window, id, RunListModel::StuckRole).toBool(), kWait);
        QCOMPARE(statusCell(window, id, Qt::DisplayRole).toString(), u"Stuck"_s);
        QVERIFY(statusCell(window, id, Qt::ToolTipRole).toString().contains(u"no progress since"_s));
        QVERIFY(!engine.manager.run(id)->isTerminal());
        // The Stuck chip counts it and, clicked, lists it alone; the run is still Active too.
        QToolButton *chip = window.filterBar()->chip(StatusCategory::Stuck);
        QTRY_VERIFY(chip->text().endsWith(u"  1"_s));
        QVERIFY(window.filterBar()->chip(StatusCategory::Active)->text().endsWith(u"  1"_s));
        QTest::mouseClick(chip, Qt::LeftButton);
        QCOMPARE(window.proxy()->filter().category(), StatusCategory::Stuck);
        QCOMPARE(window.proxy()->rowCount(), 1);
        QCOMPARE(window.proxy()->runId(0), id);
        QTRY_VERIFY(window.activateRun(id));

        QAction *cancel = window.actions()->cancelAction();
        QTRY_VERIFY(cancel->isEnabled());
        cancel->trigger();
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = window.actions()->pendingConfirmation()));
        QTest::mouseClick(box->findChild<QPushButton *>(u"confirmButton"_s), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(engine.manager.run(id)->status, RunStatus::Cancelled, kWait);
        QTRY_COMPARE(statusCell(window, id, Qt::DisplayRole).toString(), statusLabel(RunStatus::Cancelled));
        QVERIFY(!statusCell(window, id, RunListModel::StuckRole).toBool());
        // Ended, it leaves the Stuck view, which then says what would put a run there.
        QTRY_COMPARE(window.proxy()->rowCount(), 0);
        QVERIFY(chip->text().endsWith(u"  0"_s));
        QCOMPARE(window.table()->emptyTitle(), u"No stuck runs"_s);
        Engine::stopAll(&engine.manager);
    }

    // Settings › Stuck Runs… sets the rule: the watcher applies it at once, the store keeps it for
    // the CLI and the next start; Cancel changes nothing.
    void stuckRuleDialogSetsTheRule()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        RunStore store;
        QVERIFY(store.open(dir.filePath(u"runs.sqlite"_s)));
        Engine engine;
        engine.manager.setStore(&store);
        MainWindow window(&engine.manager);
        StuckRunWatcher stuck(&engine.manager);
        window.runModel()->setWatchers(&stuck, nullptr);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.stuckRuleAction()->shortcut(), QKeySequence(u"Ctrl+Shift+S"_s));

        window.stuckRuleAction()->trigger();
        auto *dialog = findTopLevel<StuckRuleDialog>();
        QVERIFY(dialog);
        QCOMPARE(dialog->factorBox()->value(), 3.0); // the defaults
        QCOMPARE(dialog->floorBox()->value(), 2);
        dialog->factorBox()->setValue(2.5);
        dialog->floorBox()->setValue(10);
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
        const StuckPolicy wanted{.factor = 2.5, .floorMs = 10 * 60 * 1000};
        QCOMPARE(stuck.policy(), wanted);
        QCOMPARE(StuckPolicy::load(&store), wanted);

        window.stuckRuleAction()->trigger();
        QTRY_VERIFY((dialog = findTopLevel<StuckRuleDialog>()));
        QCOMPARE(dialog->factorBox()->value(), 2.5);
        dialog->factorBox()->setValue(7);
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Cancel)->click();
        QCOMPARE(stuck.policy(), wanted);
        QCOMPARE(StuckPolicy::load(&store), wanted);
        Engine::stopAll(&engine.manager);
    }

    void deadlineDialogCancelsAtTheDeadline()
    {
        Engine engine;
        MainWindow window(&engine.manager);
        DeadlineWatcher deadlines(&engine.manager);
        window.runModel()->setWatchers(nullptr, &deadlines);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        const QString id = engine.start(kJobs, kSilentJob);
        QTRY_VERIFY(window.activateRun(id));
        QTRY_VERIFY_WITH_TIMEOUT(!engine.manager.run(id)->remoteId.isEmpty(), kWait);
        QAction *setDeadline = window.actions()->deadlineAction();
        QTRY_VERIFY(setDeadline->isEnabled());
        QCOMPARE(setDeadline->shortcut(), QKeySequence(u"Ctrl+Shift+D"_s));
        setDeadline->trigger();
        DeadlineDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.actions()->pendingDeadline()));
        auto *ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        dialog->budgetEdit()->setText(u"soon"_s);
        QVERIFY(!ok->isEnabled()); // not a time budget
        dialog->budgetEdit()->setText(u"3s"_s);
        QVERIFY(ok->isEnabled());
        dialog->cancelBox()->setChecked(true);
        QTest::mouseClick(ok, Qt::LeftButton);

        const Run *run = engine.manager.run(id);
        QVERIFY(run->deadlineAt.isValid());
        QVERIFY(run->cancelAtDeadline);
        QTRY_VERIFY(statusCell(window, id, Qt::ToolTipRole).toString().contains(u"cancels then"_s));
        // At the deadline the cancel goes out and the server confirms it.
        QTRY_COMPARE_WITH_TIMEOUT(engine.manager.run(id)->status, RunStatus::Cancelled, kWait);
        QTRY_COMPARE(statusCell(window, id, Qt::DisplayRole).toString(), statusLabel(RunStatus::Cancelled));
        QTRY_VERIFY(!setDeadline->isEnabled()); // only for live runs
        Engine::stopAll(&engine.manager);
    }
};

QTEST_MAIN(TestStuckDeadline)
#include "tst_stuckdeadline.moc"
