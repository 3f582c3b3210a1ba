// SPDX-License-Identifier: GPL-3.0-or-later
// Respond on several selected runs (issue 31) against the jobs simulator on loopback: twenty jobs
// waiting for approval are answered from one dialog that says how many and which runs; each job
// gets its own request (the simulator's request log), the one the service refuses keeps waiting
// with the reason on its line, the others go on. Runs that wait for different requests do not
// enable Respond together.
#include "actioncontroller.h"
#include "batchresponddialog.h"
#include "models/runfilterproxy.h"
#include "respondpaneltest.h"

#include <QItemSelectionModel>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTreeWidget>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;
using RunwatchSim::JobsEndpoint;

class TestBatchDialog final : public RespondPanelTest
{
    Q_OBJECT

    bool waitInput(const QStringList &ids)
    {
        return waitFor([&] {
            for (const QString &id : ids) {
                const Run *r = run(id);
                if (!r || r->status != RunStatus::InputRequired || !r->input)
                    return false;
            }
            return true;
        });
    }

    // Selects exactly `ids` in the run table, as a shift/ctrl-click would.
    void select(const QStringList &ids)
    {
        RunTableView *table = m_window->table();
        auto *proxy = qobject_cast<RunFilterProxy *>(table->model());
        QVERIFY(proxy);
        QVERIFY(table->selectRun(ids.first()));
        for (const QString &id : ids.mid(1)) {
            const QModelIndex index = proxy->indexOfRun(id);
            QVERIFY(index.isValid());
            table->selectionModel()->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
        QTRY_COMPARE(table->selectedRunIds().size(), ids.size());
        actions()->updateActions();
    }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void init()
    {
        openWindow();
        m_window->resize(1366, 768);
    }
    void cleanup()
    {
        if (BatchRespondDialog *dialog = actions()->pendingBatch())
            dialog->close();
        closeWindow();
    }

    // Acceptance: 20 approvals in one step from the GUI; the service refuses one.
    void twentyApprovalsOneRefused()
    {
        QStringList ids;
        for (int i = 0; i < 20; ++i) {
            ids << m_b->start(kJobs,
                              i == 4 ? u"approval deltas=4 input_fault=500"_s : u"approval deltas=4"_s);
        }
        QVERIFY(waitInput(ids));
        select(ids);
        QVERIFY(actions()->respondAction()->isEnabled());
        actions()->respondAction()->trigger();
        BatchRespondDialog *dialog = actions()->pendingBatch();
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());
        // How many and which.
        QVERIFY2(dialog->windowTitle().contains(u"20"_s), qPrintable(dialog->windowTitle()));
        QCOMPARE(dialog->runList()->topLevelItemCount(), 20);
        QStringList listed;
        for (int i = 0; i < 20; ++i)
            listed << dialog->runList()->topLevelItem(i)->text(1);
        QCOMPARE(QSet<QString>(listed.cbegin(), listed.cend()), QSet<QString>(ids.cbegin(), ids.cend()));
        QVERIFY(dialog->approveButton()->isEnabled());
        QVERIFY(!dialog->approveButton()->accessibleName().isEmpty());
        QVERIFY(!dialog->runList()->accessibleName().isEmpty());
        grabDialog(dialog, u"batch-respond-before"_s);

        QTest::keyClicks(dialog->commentEdit(), u"quarterly budget"_s);
        QTest::mouseClick(dialog->approveButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->responder()->isFinished(), kWait);
        QVERIFY(!dialog->approveButton()->isEnabled()); // one answer, once
        QCOMPARE(dialog->responder()->failedCount(), 1);
        QVERIFY2(dialog->summaryLabel()->text().contains(u"19"_s),
                 qPrintable(dialog->summaryLabel()->text()));

        // Each run its own request; the refused one is reported on its line and still waits.
        const auto inputs = m_b->jobs.requests(JobsEndpoint::Input);
        QCOMPARE(inputs.size(), 20);
        for (int i = 0; i < 20; ++i) {
            const QString &id = ids.at(i);
            const QTreeWidgetItem *item = dialog->runList()->topLevelItem(int(listed.indexOf(id)));
            if (i == 4) {
                QVERIFY2(item->text(2).contains(u"refused the answer"_s), qPrintable(item->text(2)));
                QCOMPARE(run(id)->status, RunStatus::InputRequired);
                QVERIFY(m_b->jobAnswers(id).isEmpty());
            } else {
                QVERIFY2(item->text(2).contains(u"Answered"_s), qPrintable(item->text(2)));
                QCOMPARE(m_b->jobAnswers(id), (QList<QJsonObject>{{{u"approved"_s, true},
                                                                   {u"comment"_s, u"quarterly budget"_s}}}));
            }
        }
        grabDialog(dialog, u"batch-respond"_s);
        for (int i = 0; i < 20; ++i) {
            if (i != 4)
                QVERIFY(waitStatus(ids.at(i), RunStatus::Completed));
        }
    }

    // A selection of runs that wait for different requests: Respond stays disabled.
    void differentRequestsNotTogether()
    {
        const QString approval = m_b->start(kJobs, u"approval deltas=4"_s);
        const QString question = m_b->start(kJobs, u"ask_user deltas=4"_s);
        QVERIFY(waitInput({approval, question}));
        select({approval, question});
        QVERIFY(!actions()->respondAction()->isEnabled());
        const QString second = m_b->start(kJobs, u"ask_user deltas=4"_s);
        QVERIFY(waitInput({second}));
        select({question, second});
        QVERIFY(actions()->respondAction()->isEnabled()); // the same question, word for word
        actions()->respondAction()->trigger();
        BatchRespondDialog *dialog = actions()->pendingBatch();
        QVERIFY(dialog);
        QVERIFY(dialog->textEdit());
        QVERIFY(!dialog->sendButton()->isEnabled());
        QTest::keyClicks(dialog->textEdit(), u"EMEA"_s);
        QTest::mouseClick(dialog->sendButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->responder()->isFinished(), kWait);
        QCOMPARE(dialog->responder()->failedCount(), 0);
        QCOMPARE(m_b->jobAnswers(question), (QList<QJsonObject>{{{u"text"_s, u"EMEA"_s}}}));
        QCOMPARE(m_b->jobAnswers(second), (QList<QJsonObject>{{{u"text"_s, u"EMEA"_s}}}));
    }

private:
    // RUNWATCH_GRAB_DIR: the window with the dialog over it, as the operator sees it.
    void grabDialog(QWidget *dialog, const QString &name)
    {
        const QString dir = qEnvironmentVariable("RUNWATCH_GRAB_DIR");
        if (dir.isEmpty())
            return;
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QPixmap shot = m_window->grab();
        QPainter p(&shot);
        const QPoint at = m_window->mapFromGlobal(dialog->mapToGlobal(QPoint(0, 0)));
        // Xvfb has no window manager: draw the frame and title bar a desktop would.
        constexpr int kTitle = 28;
        const QRect frame(at.x() - 1, at.y() - kTitle - 1, dialog->width() + 2,
                          dialog->height() + kTitle + 2);
        p.fillRect(frame.adjusted(3, 3, 5, 5), QColor(0, 0, 0, 60));
        p.fillRect(frame, dialog->palette().color(QPalette::Mid));
        p.fillRect(QRect(at.x(), at.y() - kTitle, dialog->width(), kTitle),
                   dialog->palette().color(QPalette::Button));
        p.setPen(dialog->palette().color(QPalette::ButtonText));
        QFont bold = dialog->font();
        bold.setBold(true);
        p.setFont(bold);
        p.drawText(QRect(at.x(), at.y() - kTitle, dialog->width(), kTitle), Qt::AlignCenter,
                   dialog->windowTitle());
        p.drawPixmap(at, dialog->grab());
        p.end();
        shot.save(dir + u'/' + name + u".png"_s);
    }
};

QTEST_MAIN(TestBatchDialog)
#include "tst_batchdialog.moc"
