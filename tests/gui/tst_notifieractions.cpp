// SPDX-License-Identifier: GPL-3.0-or-later
// Answering a run from its notification, against python3-dbusmock's notification daemon with the
// capabilities of a desktop that shows buttons and inline replies (run-with-notification-mock.sh,
// RUNWATCH_NOTIFY_CAPS): Approve and Reject send the approval to the jobs simulator through the
// window's own respond command; an inline reply answers a question; "Answer…" opens the Respond
// panel; the notification is withdrawn however the run was answered, and a stale button never
// answers a newer request.
#include "actioncontroller.h"
#include "detailpane.h"
#include "inputpanel.h"
#include "mainwindow.h"
#include "notificationmock.h"
#include "notifier.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QDBusConnectionInterface>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace RunwatchNotifyMock;
using namespace Qt::StringLiterals;

class TestNotifierActions final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<Engine> m_engine;
    RunManager *m_manager = nullptr;
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<Notifier> m_notifier;

    // Starts a jobs run and waits for the notification that asks for it: its server id.
    uint startAndAwaitAsking(const QString &prompt, QString *runId)
    {
        *runId = m_engine->start(kJobs, prompt);
        [&] { QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(*runId)->status, RunStatus::InputRequired, 10000); }();
        uint id = 0;
        [&] { QTRY_VERIFY_WITH_TIMEOUT((id = m_notifier->notificationId(*runId)) > 0, 10000); }();
        return id;
    }

    // The answers the jobs simulator received for a job (POST /api/jobs/{id}/input).
    QList<QJsonObject> answersOf(const QString &runId) const
    {
        const Run *run = m_manager->run(runId);
        const auto info = m_engine->jobs.job(run->remoteId);
        return info ? info->answers : QList<QJsonObject>{};
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
        QTRY_VERIFY2_WITH_TIMEOUT(QDBusConnection::sessionBus().interface()->isServiceRegistered(kService),
                                  "the dbusmock notification daemon did not come up", 10000);
    }

    void init()
    {
        clearCalls();
        m_engine = std::make_unique<Engine>();
        m_manager = &m_engine->manager;
        m_window = std::make_unique<MainWindow>(m_manager);
        m_notifier = std::make_unique<Notifier>(m_manager);
        m_window->setNotifier(m_notifier.get());
        m_window->show();
        QTRY_VERIFY_WITH_TIMEOUT(m_notifier->serverCapabilities().contains(u"actions"_s), 10000);
    }

    void cleanup()
    {
        m_notifier.reset();
        m_window.reset();
        m_manager = nullptr;
        m_engine.reset();
    }

    // Approve from the notification: the simulator receives {"approved": true} for that job, the
    // run continues to the end, and the notification that asked is taken back.
    void approveFromNotification()
    {
        QString run;
        const uint id = startAndAwaitAsking(u"Approval: patch the gateway"_s, &run);
        const NotifyCall asked = notifyCalls().constFirst();
        QCOMPARE(asked.summary, u"Run needs approval"_s);
        QCOMPARE(asked.actions, (QStringList{u"default"_s, u"Show run"_s, u"approve"_s, u"Approve"_s,
                                             u"reject"_s, u"Reject"_s}));
        QSignalSpy withdrawn(m_notifier.get(), &Notifier::withdrawn);
        invokeAction(id, u"approve"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(run)->status, RunStatus::Completed, 10000);
        QCOMPARE(answersOf(run), (QList<QJsonObject>{QJsonObject{{u"approved"_s, true}}}));
        QVERIFY2(m_manager->run(run)->primaryText.contains(u"approved]"_s),
                 qPrintable(m_manager->run(run)->primaryText.toString()));
        QTRY_VERIFY_WITH_TIMEOUT(closedIds().contains(id), 10000);
        QCOMPARE(withdrawn.count(), 1);
    }

    // Reject ends the approval the same way with {"approved": false}.
    void rejectFromNotification()
    {
        QString run;
        const uint id = startAndAwaitAsking(u"Approval: drop the table"_s, &run);
        invokeAction(id, u"reject"_s);
        QTRY_VERIFY_WITH_TIMEOUT(!answersOf(run).isEmpty(), 10000);
        QCOMPARE(answersOf(run).constFirst().value(u"approved"_s), QJsonValue(false));
        QTRY_VERIFY_WITH_TIMEOUT(m_manager->run(run)->isTerminal(), 10000);
        QVERIFY(m_manager->run(run)->primaryText.contains(u"rejected]"_s));
    }

    // A plain question offers an inline reply; the typed text is the run's answer.
    void inlineReplyAnswersQuestion()
    {
        QString run;
        const uint id = startAndAwaitAsking(u"ask_user deltas=4"_s, &run);
        const NotifyCall asked = notifyCalls().constFirst();
        QCOMPARE(asked.summary, u"Run needs input"_s);
        QVERIFY2(asked.actions.contains(u"inline-reply"_s), qPrintable(asked.actions.join(u',')));
        QVERIFY(!asked.actions.contains(u"approve"_s));
        QVERIFY(asked.hints.contains(u"x-kde-reply-placeholder-text"_s));
        replyInline(id, u"EMEA"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(run)->status, RunStatus::Completed, 10000);
        QCOMPARE(answersOf(run), (QList<QJsonObject>{QJsonObject{{u"text"_s, u"EMEA"_s}}}));
        QVERIFY(m_manager->run(run)->primaryText.contains(u"[answer: EMEA]"_s));
        QTRY_VERIFY_WITH_TIMEOUT(closedIds().contains(id), 10000);
    }

    // A choice needs the panel: "Answer…" shows the run with its Respond panel focused, and
    // nothing is sent until the operator answers there.
    void answerOpensRespondPanel()
    {
        const QString other = m_engine->start(kJobs, u"normal deltas=4"_s);
        QString run;
        const uint id = startAndAwaitAsking(u"options deltas=4"_s, &run);
        QTRY_VERIFY(m_window->activateRun(other));
        const QList<NotifyCall> calls = notifyCalls();
        const auto asking = std::find_if(calls.cbegin(), calls.cend(),
                                         [](const NotifyCall &c) { return c.summary == u"Run needs input"; });
        QVERIFY(asking != calls.cend());
        const NotifyCall asked = *asking;
        QVERIFY2(asked.actions.contains(u"answer"_s), qPrintable(asked.actions.join(u',')));
        QVERIFY(!asked.actions.contains(u"inline-reply"_s));
        invokeAction(id, u"answer"_s);
        QTRY_COMPARE(m_window->table()->selectedRunIds(), QStringList{run});
        QTRY_VERIFY(m_window->detailPane()->inputPanel()->isVisible());
        QVERIFY(answersOf(run).isEmpty());
    }

    // Answered elsewhere (here straight on the service, as the CLI or a teammate would): the run
    // moves on and the notification that asked is withdrawn; its button, pressed late, sends
    // nothing.
    void withdrawnWhenAnsweredElsewhere()
    {
        QString run;
        const uint id = startAndAwaitAsking(u"Approval: rotate the keys"_s, &run);
        QNetworkAccessManager nam;
        QNetworkRequest request(QUrl(m_engine->jobs.baseUrl().toString() + u"/jobs/"_s
                                     + m_manager->run(run)->remoteId + u"/input"_s));
        request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
        QNetworkReply *reply = nam.post(request, QByteArray(R"({"approved": true})"));
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10000);
        QCOMPARE(reply->error(), QNetworkReply::NoError);
        reply->deleteLater();
        QTRY_VERIFY_WITH_TIMEOUT(!waitsForPerson(*m_manager->run(run)), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(closedIds().contains(id), 10000);
        invokeAction(id, u"approve"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->run(run)->status, RunStatus::Completed, 10000);
        QCOMPARE(answersOf(run).size(), 1); // only the one given on the service
    }
};

QTEST_MAIN(TestNotifierActions)
#include "tst_notifieractions.moc"
