// SPDX-License-Identifier: GPL-3.0-or-later
// Desktop notifications through org.freedesktop.Notifications, against python3-dbusmock's
// notification daemon on a private session bus (run-with-notification-mock.sh): a run that
// needs input, completes or fails sends one notification; clicking it selects the run.
#include "demoagentbackend.h"
#include "mainwindow.h"
#include "notifier.h"
#include "runtableview.h"

#include <QDBusArgument>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusReply>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

const QString kService = u"org.freedesktop.Notifications"_s;
const QString kPath = u"/org/freedesktop/Notifications"_s;
const QString kMock = u"org.freedesktop.DBus.Mock"_s;

struct NotifyCall
{
    QString summary;
    QString body;
    QStringList actions;
};

// What the mock daemon received: GetMethodCalls("Notify") → a(tav).
QList<NotifyCall> notifyCalls()
{
    QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kMock, u"GetMethodCalls"_s);
    call << u"Notify"_s;
    const QDBusMessage reply = QDBusConnection::sessionBus().call(call);
    QList<NotifyCall> out;
    if (reply.type() != QDBusMessage::ReplyMessage || reply.arguments().isEmpty())
        return out;
    const QDBusArgument arg = reply.arguments().first().value<QDBusArgument>();
    arg.beginArray();
    while (!arg.atEnd()) {
        qulonglong when = 0;
        QVariantList args;
        arg.beginStructure();
        arg >> when;
        arg.beginArray();
        while (!arg.atEnd()) {
            QDBusVariant v;
            arg >> v;
            args << v.variant();
        }
        arg.endArray();
        arg.endStructure();
        NotifyCall c;
        c.summary = args.value(3).toString();
        c.body = args.value(4).toString();
        const QVariant actions = args.value(5);
        if (actions.canConvert<QDBusArgument>()) {
            const QDBusArgument a = actions.value<QDBusArgument>();
            a >> c.actions;
        } else {
            c.actions = actions.toStringList();
        }
        out << c;
    }
    arg.endArray();
    return out;
}

void clearCalls()
{
    QDBusConnection::sessionBus().call(
        QDBusMessage::createMethodCall(kService, kPath, kMock, u"ClearCalls"_s));
}

// Makes the mock emit ActionInvoked(id, "default"), as a click on the notification does.
void clickNotification(uint id)
{
    QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kMock, u"EmitSignal"_s);
    call << kService << u"ActionInvoked"_s << u"us"_s
         << QVariant::fromValue(QVariantList{QVariant::fromValue(id), u"default"_s});
    const QDBusMessage reply = QDBusConnection::sessionBus().call(call);
    QVERIFY2(reply.type() == QDBusMessage::ReplyMessage, qPrintable(reply.errorMessage()));
}

} // namespace

class TestNotifier final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<RunManager> m_manager;

    QString start(const QString &prompt)
    {
        StartRequest r;
        r.prompt = prompt;
        return m_manager->startRun(u"agent"_s, r);
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (qgetenv("RUNWATCH_NOTIFY_MOCK") == "missing")
            QSKIP("dbus-run-session is not installed: cannot start a private bus with a notification mock "
                  "(install the dbus package).");
        if (qgetenv("RUNWATCH_NOTIFY_MOCK") != "1")
            QSKIP("Run through tests/run-with-notification-mock.sh (ctest does) to get the D-Bus mock.");
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY2(QDBusConnection::sessionBus().isConnected(), "no session bus inside dbus-run-session");
        QTRY_VERIFY2_WITH_TIMEOUT(QDBusConnection::sessionBus().interface()->isServiceRegistered(kService),
                                  "the dbusmock notification daemon did not come up", 10000);
    }

    void init()
    {
        clearCalls();
        m_manager = std::make_unique<RunManager>();
        m_manager->setBackendFactory(&createBackendWithDemo);
        Connection c;
        c.name = u"agent"_s;
        c.backend = u"demo-agent"_s;
        QVERIFY(m_manager->addConnection(c));
        qobject_cast<DemoAgentBackend *>(m_manager->backend(u"agent"_s))->setStepIntervalMs(2);
    }

    void cleanup() { m_manager.reset(); }

    // "Needs input" and "completed" each send one notification naming the run; a click on the
    // notification asks to show that run.
    void notifiesAndActivates()
    {
        Notifier notifier(m_manager.get());
        QCOMPARE(notifier.channel(), Notifier::Channel::DBus);
        QSignalSpy sent(&notifier, &Notifier::notified);
        QSignalSpy activated(&notifier, &Notifier::runActivated);
        const QString id = start(u"Patch the gateway (approval)"_s);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 1, 10000);
        QCOMPARE(sent.first().at(0).toString(), id);
        QCOMPARE(sent.first().at(2).value<Notifier::Channel>(), Notifier::Channel::DBus);
        QList<NotifyCall> calls = notifyCalls();
        QCOMPARE(calls.size(), 1);
        QCOMPARE(calls.first().summary, u"Run needs approval"_s);
        QCOMPARE(calls.first().body, u"Patch the gateway (approval)"_s);
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
        Notifier notifier(m_manager.get());
        QSignalSpy sent(&notifier, &Notifier::notified);
        const QString cancelled = start(u"noinput long job"_s);
        QTRY_VERIFY(!m_manager->run(cancelled)->remoteId.isEmpty());
        m_manager->cancelRun(cancelled);
        QTRY_COMPARE(m_manager->run(cancelled)->status, RunStatus::Cancelled);
        const QString rejected = start(u"restart (approval)"_s);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 1, 10000); // needs approval
        InputAnswer no;
        no.kind = InputAnswer::Kind::Reject;
        m_manager->respondToRun(rejected, no);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 2, 10000);
        QCOMPARE(notifyCalls().at(1).summary, u"Run rejected"_s);

        notifier.setEnabled(false);
        const QString quiet = start(u"noinput"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(quiet)->status, RunStatus::Completed, 10000);
        QTest::qWait(200);
        QCOMPARE(sent.count(), 2);
        QCOMPARE(notifyCalls().size(), 2);
    }

    // A run that waits for a timer waits for nobody: no notification until it asks a person or
    // ends (here: the timer elapses and the run completes).
    void timerDoesNotNotify()
    {
        Notifier notifier(m_manager.get());
        QSignalSpy sent(&notifier, &Notifier::notified);
        const QString id = start(u"wait for the timer=1 window"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(id)->status, RunStatus::InputRequired, 10000);
        QCOMPARE(m_manager->run(id)->input->reason, InputReason::Timer);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(id)->status, RunStatus::Completed, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(sent.count(), 1, 10000);
        const QList<NotifyCall> calls = notifyCalls();
        QCOMPARE(calls.size(), 1);
        QCOMPARE(calls.first().summary, u"Run completed"_s);
    }

    // Clicking a notification selects the run in the window (through MainWindow::activateRun).
    void clickSelectsRunInWindow()
    {
        MainWindow window(m_manager.get());
        Notifier notifier(m_manager.get());
        window.setNotifier(&notifier);
        window.show();
        const QString other = start(u"noinput first"_s);
        const QString id = start(u"which branch?"_s);
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
