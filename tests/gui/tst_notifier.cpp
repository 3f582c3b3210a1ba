// SPDX-License-Identifier: GPL-3.0-or-later
// Desktop notifications through org.freedesktop.Notifications, against python3-dbusmock's
// notification daemon on a private session bus (run-with-notification-mock.sh): a run that
// needs input, completes or fails sends one notification; clicking it selects the run. The runs
// are jobs and A2A tasks on their simulators, through the real connectors.
#include "engine/stuckruns.h"
#include "mainwindow.h"
#include "notificationmock.h"
#include "notifier.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace RunwatchNotifyMock;
using namespace Qt::StringLiterals;

class TestNotifier final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<Engine> m_engine;
    RunManager *m_manager = nullptr;

    QString start(const QString &prompt, const QString &connection = kJobs)
    {
        return m_engine->start(connection, prompt);
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (qgetenv("RUNWATCH_NOTIFY_MOCK") == "missing") {
            QFAIL("dbus-run-session is not installed: cannot start a private bus with a notification mock "
                  "(install the dbus package).");
        }
        if (qgetenv("RUNWATCH_NOTIFY_MOCK") != "1")
            QFAIL("Run through tests/gui/run-with-notification-mock.sh (ctest does) to get the D-Bus mock.");
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY2(QDBusConnection::sessionBus().isConnected(), "no session bus inside dbus-run-session");
        QTRY_VERIFY2_WITH_TIMEOUT(QDBusConnection::sessionBus().interface()->isServiceRegistered(kService),
                                  "the dbusmock notification daemon did not come up", 10000);
    }

    void init()
    {
        clearCalls();
        m_engine = std::make_unique<Engine>();
        m_manager = &m_engine->manager;
    }

    void cleanup()
    {
        m_manager = nullptr;
        m_engine.reset();
    }

    // "Needs input" and "completed" each send one notification naming the run; a click on the
    // notification asks to show that run.
    void notifiesAndActivates()
    {
        Notifier notifier(m_manager);
        QCOMPARE(notifier.channel(), Notifier::Channel::DBus);
        QSignalSpy sent(&notifier, &Notifier::notified);
        QSignalSpy activated(&notifier, &Notifier::runActivated);
        const QString id = start(u"Approval: patch the gateway"_s);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 1, 10000);
        QCOMPARE(sent.first().at(0).toString(), id);
        QCOMPARE(sent.first().at(2).value<Notifier::Channel>(), Notifier::Channel::DBus);
        QList<NotifyCall> calls = notifyCalls();
        QCOMPARE(calls.size(), 1);
        QCOMPARE(calls.first().summary, u"Run needs approval"_s);
        QCOMPARE(calls.first().body, u"Approval: patch the gateway"_s);
        QVERIFY(calls.first().actions.contains(u"default"_s));

        QVERIFY(notifier.notificationId(id) > 0);
        clickNotification(notifier.notificationId(id));
        QTRY_COMPARE(activated.count(), 1);
        QCOMPARE(activated.first().first().toString(), id);

        InputAnswer yes;
        yes.kind = InputAnswer::Kind::Approve;
        m_manager->respondToRun(id, yes);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 2, 10000);
        calls = notifyCalls();
        QCOMPARE(calls.size(), 2);
        QCOMPARE(calls.at(1).summary, u"Run completed"_s);
    }

    // Failures notify; cancellations (the operator's own doing) and runs already finished when
    // first seen do not; the setting turns everything off.
    void whatNotifies()
    {
        Notifier notifier(m_manager);
        QSignalSpy sent(&notifier, &Notifier::notified);
        const QString cancelled = start(u"long job"_s);
        QTRY_VERIFY(!m_manager->run(cancelled)->remoteId.isEmpty());
        m_manager->cancelRun(cancelled);
        QTRY_COMPARE(m_manager->run(cancelled)->status, RunStatus::Cancelled);
        const QString rejected = start(u"reject the task"_s, kA2a);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(rejected)->status, RunStatus::Rejected, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 1, 10000);
        QCOMPARE(notifyCalls().at(0).summary, u"Run rejected"_s);
        const QString failed = start(u"fail deltas=4"_s);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 2, 10000);
        QCOMPARE(sent.at(1).at(0).toString(), failed);
        QCOMPARE(notifyCalls().at(1).summary, u"Run failed"_s);

        notifier.setEnabled(false);
        const QString quiet = start(u"normal deltas=4"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(quiet)->status, RunStatus::Completed, 10000);
        QTest::qWait(200);
        QCOMPARE(sent.count(), 2);
        QCOMPARE(notifyCalls().size(), 2);
    }

    // A follow-up's notification names the conversation it continues.
    void followUpNamesItsParent()
    {
        Notifier notifier(m_manager);
        QSignalSpy sent(&notifier, &Notifier::notified);
        const QString parent = start(u"normal deltas=4 summarise the report"_s, kSim);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 1, 10000);
        QCOMPARE(notifyCalls().at(0).summary, u"Run completed"_s);
        const QString child = m_manager->followUp(parent, u"normal deltas=3 now shorter"_s);
        QVERIFY(!child.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 2, 10000);
        QCOMPARE(sent.at(1).at(0).toString(), child);
        QCOMPARE(notifyCalls().at(1).summary,
                 u"Follow-up to “normal deltas=4 summarise the report” completed"_s);
        QCOMPARE(notifyCalls().at(1).body, u"normal deltas=3 now shorter"_s);
    }

    // A job that goes silent past twice its estimate (about a second) looks stuck: one
    // notification naming it, on the watcher's word, however long the silence lasts; the cancel
    // that ends it (the operator's own doing) adds none. With notifications off, the watcher still
    // flags the run but nothing is sent.
    void stuckRunNotifiesOnce()
    {
        Notifier notifier(m_manager);
        StuckRunWatcher stuck(m_manager);
        stuck.setPolicy({.factor = 2.0, .floorMs = 0}); // the production floor is two minutes
        notifier.watch(&stuck, nullptr);
        QSignalSpy flagged(&stuck, &StuckRunWatcher::runStuck);
        const QString id = start(u"unknown unknown_ms=60000"_s);
        QTRY_COMPARE_WITH_TIMEOUT(flagged.count(), 1, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(notifyCalls().size(), 1, 10000);
        const NotifyCall call = notifyCalls().constFirst();
        QCOMPARE(call.summary, u"Run looks stuck"_s);
        QCOMPARE(call.body, u"unknown unknown_ms=60000"_s);
        // The server's id arrives with its answer to Notify, after the mock recorded the call.
        QTRY_VERIFY_WITH_TIMEOUT(notifier.notificationId(id) > 0, 10000);

        m_manager->cancelRun(id);
        QTRY_VERIFY_WITH_TIMEOUT(m_manager->run(id)->isTerminal(), 30000);
        QCOMPARE(m_manager->run(id)->status, RunStatus::Cancelled);
        QCOMPARE(flagged.count(), 1);
        QCOMPARE(notifyCalls().size(), 1);

        notifier.setEnabled(false);
        const QString quiet = start(u"unknown unknown_ms=60000"_s);
        QTRY_COMPARE_WITH_TIMEOUT(flagged.count(), 2, 30000);
        QCOMPARE(flagged.last().constFirst().toString(), quiet);
        m_manager->cancelRun(quiet);
        QTRY_VERIFY_WITH_TIMEOUT(m_manager->run(quiet)->isTerminal(), 30000);
        QCOMPARE(notifyCalls().size(), 1);
    }

    // A run that waits for a timer waits for nobody: no notification until it asks a person or
    // ends (here: the timer elapses and the run completes).
    void timerDoesNotNotify()
    {
        Notifier notifier(m_manager);
        QSignalSpy sent(&notifier, &Notifier::notified);
        const QString id = start(u"timer deltas=4 timer_ms=1000"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(id)->status, RunStatus::InputRequired, 10000);
        QCOMPARE(m_manager->run(id)->input->reason, InputReason::Timer);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(id)->status, RunStatus::Completed, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 1, 10000);
        const QList<NotifyCall> calls = notifyCalls();
        QCOMPARE(calls.size(), 1);
        QCOMPARE(calls.first().summary, u"Run completed"_s);
    }

    // A run that must be answered before a deadline (Foundry's expires_at): "needs input" when
    // it asks, once more shortly before the deadline, then "expired" when nobody answered.
    void remindsBeforeExpiry()
    {
        Notifier notifier(m_manager);
        notifier.setExpiryWarningLead(std::chrono::milliseconds(2500));
        QSignalSpy sent(&notifier, &Notifier::notified);
        const QString id = start(u"expire expires_ms=6000"_s, kFoundry);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 1, 10000);
        QCOMPARE(notifyCalls().at(0).summary, u"Run needs input"_s);
        QVERIFY(m_manager->run(id)->input->deadline.isValid());
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 2, 10000);
        QVERIFY2(notifyCalls().at(1).summary.startsWith(u"Run expires in 00:0"_s),
                 qPrintable(notifyCalls().at(1).summary));
        QVERIFY(notifyCalls().at(1).summary.endsWith(u" unless answered"_s));
        QCOMPARE(m_manager->run(id)->status, RunStatus::InputRequired);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(id)->status, RunStatus::Expired, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 3, 10000);
        QCOMPARE(notifyCalls().at(2).summary, u"Run expired"_s);
        QTest::qWait(300);
        QCOMPARE(notifyCalls().size(), 3); // one reminder, not one per tick
    }

    // An answered run is not reminded.
    void noReminderOnceAnswered()
    {
        Notifier notifier(m_manager);
        notifier.setExpiryWarningLead(std::chrono::milliseconds(9000));
        QSignalSpy sent(&notifier, &Notifier::notified);
        const QString id = start(u"expire expires_ms=10000 deltas=2"_s, kFoundry);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 1, 10000);
        InputAnswer answer;
        answer.kind = InputAnswer::Kind::Text;
        answer.text = u"sunny"_s;
        m_manager->respondToRun(id, answer);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(id)->status, RunStatus::Completed, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 2, 10000);
        QCOMPARE(notifyCalls().at(1).summary, u"Run completed"_s);
        QTest::qWait(1500); // past the time the reminder would have gone out
        QCOMPARE(notifyCalls().size(), 2);
    }

    // Clicking a notification selects the run in the window (through MainWindow::activateRun).
    void clickSelectsRunInWindow()
    {
        MainWindow window(m_manager);
        Notifier notifier(m_manager);
        window.setNotifier(&notifier);
        window.show();
        const QString other = start(u"normal deltas=4"_s);
        const QString id = start(u"ask_user deltas=4"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(id)->status, RunStatus::InputRequired, 10000);
        QTRY_VERIFY(notifier.notificationId(id) > 0);
        QTRY_VERIFY(window.activateRun(other));
        QCOMPARE(window.table()->selectedRunIds(), QStringList{other});
        clickNotification(notifier.notificationId(id));
        QTRY_COMPARE(window.table()->selectedRunIds(), QStringList{id});
    }
};

QTEST_MAIN(TestNotifier)
#include "tst_notifier.moc"
