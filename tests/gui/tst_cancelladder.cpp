// SPDX-License-Identifier: GPL-3.0-or-later
// The cancel ladder in the main window (issue 31), against the jobs simulator on loopback: a job
// that accepts the cancel and never confirms it shows "Cancelling" and then, past the (shortened)
// bound, the detail pane offers "Stop Watching…" (no stronger cancel: the jobs protocol has
// none); stopping asks for a reason and the run ends "Stopped watching" with the server's last
// word in its timeline. A confirmation that comes later still lands (Refresh).
#include "actioncontroller.h"
#include "cancelladderbanner.h"
#include "detailpane.h"
#include "respondpaneltest.h"
#include "timelineview.h"

#include <QInputDialog>
#include <QLabel>
#include <QPushButton>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

class TestCancelLadderGui final : public RespondPanelTest
{
    Q_OBJECT

    CancelLadderBanner *banner() const { return m_window->detailPane()->cancelLadder(); }

    // Starts a job, selects it once it runs, cancels it through the confirmation.
    QString startAndCancel(const QString &prompt)
    {
        const QString id = m_b->start(kJobs, prompt);
        if (!waitFor([&] {
                return run(id) && run(id)->status == RunStatus::InProgress && !run(id)->remoteId.isEmpty();
            }))
            return {};
        if (!m_window->activateRun(id))
            return {};
        actions()->updateActions();
        actions()->cancelAction()->trigger();
        QMessageBox *box = actions()->pendingConfirmation();
        if (!box)
            return {};
        box->findChild<QPushButton *>(u"confirmButton"_s)->click();
        return id;
    }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void init()
    {
        openWindow();
        FollowPolicy policy = m_b->manager.followPolicy();
        policy.cancelConfirmAfter = 300ms;
        m_b->manager.setFollowPolicy(policy);
    }
    void cleanup()
    {
        if (QInputDialog *dialog = actions()->pendingStopWatching())
            dialog->reject();
        closeWindow();
    }

    void neverConfirmedThenStopWatching()
    {
        const QString id = startAndCancel(u"long interval_ms=20 cancel_ignore=1"_s);
        QVERIFY(!id.isEmpty());
        QVERIFY(waitStatus(id, RunStatus::Cancelling));
        QVERIFY(!banner()->isVisible());
        QVERIFY(!actions()->stopWatchingAction()->isEnabled());
        // Past the bound: the offer, without a stronger cancel for this service.
        QTRY_VERIFY_WITH_TIMEOUT(banner()->isVisible(), kWait);
        QVERIFY(run(id)->cancelUnconfirmed);
        QVERIFY(banner()->stopButton()->isVisible());
        QVERIFY(!banner()->forceButton()->isVisible());
        QVERIFY(!banner()->stopButton()->accessibleName().isEmpty());
        // What the service last said: its answer to the cancel (202, "cancelling") until it says more.
        QVERIFY2(banner()->textLabel()->text().contains(u"“%1”"_s.arg(run(id)->rawStatus)),
                 qPrintable(banner()->textLabel()->text()));
        QTRY_VERIFY(actions()->stopWatchingAction()->isEnabled());
        QVERIFY(!actions()->forceCancelAction()->isEnabled());
        grabForReview(u"cancel-ladder"_s);

        QTest::mouseClick(banner()->stopButton(), Qt::LeftButton);
        QInputDialog *dialog = actions()->pendingStopWatching();
        QVERIFY(dialog);
        QVERIFY(!dialog->textValue().isEmpty()); // a reason is suggested
        dialog->setTextValue(u"ops: the worker is wedged"_s);
        dialog->accept();
        QVERIFY(waitStatus(id, RunStatus::StoppedWatching));
        QVERIFY(!m_b->manager.isFollowing(id));
        QCOMPARE(run(id)->rawStatus, u"running"_s);
        bool recorded = false;
        for (const SecondaryItem &item : run(id)->secondary) {
            recorded = recorded
                       || (item.title == u"stopped watching"_s && item.text.contains(u"“running”"_s)
                           && item.text.contains(u"ops: the worker is wedged"_s));
        }
        QVERIFY(recorded);
        QTRY_VERIFY(!banner()->isVisible());
        // The service still has the job running: nothing was pretended on its side.
        QCOMPARE(m_b->jobs.job(run(id)->remoteId)->status, u"running"_s);
        grabForReview(u"cancel-ladder-stopped"_s);
    }

    // The service confirms after the operator stopped watching: Refresh brings it in.
    void lateConfirmationLands()
    {
        const QString id = startAndCancel(u"long interval_ms=20 cancel_delay_ms=1500"_s);
        QVERIFY(!id.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(banner()->isVisible(), kWait);
        m_b->manager.stopWatching(id, u"tired of waiting"_s);
        QVERIFY(waitStatus(id, RunStatus::StoppedWatching));
        QVERIFY(waitFor([&] { return m_b->jobs.job(run(id)->remoteId)->status == u"canceled"_s; }));
        actions()->refreshAction()->trigger();
        QVERIFY(waitStatus(id, RunStatus::Cancelled));
    }
};

QTEST_MAIN(TestCancelLadderGui)
#include "tst_cancelladder.moc"
