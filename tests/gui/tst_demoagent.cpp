// SPDX-License-Identifier: GPL-3.0-or-later
// The demo agent is a real RunBackend: through the RunManager its runs stream, pause for input,
// accept answers, resume from the continuation token, cancel and delete.
#include "demoagentbackend.h"

#include <QSignalSpy>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

Q_DECLARE_METATYPE(Runwatch::InputReason)

namespace {

struct Rig
{
    RunManager manager;
    DemoAgentBackend *agent = nullptr;

    Rig()
    {
        manager.setBackendFactory(&createBackendWithDemo);
        Connection c;
        c.name = u"agent"_s;
        c.backend = u"demo-agent"_s;
        QVERIFY(manager.addConnection(c));
        agent = qobject_cast<DemoAgentBackend *>(manager.backend(u"agent"_s));
        QVERIFY(agent);
        agent->setStepIntervalMs(2);
    }
    QString start(const QString &prompt)
    {
        StartRequest r;
        r.prompt = prompt;
        return manager.startRun(u"agent"_s, r);
    }
    const Run &run(const QString &id) { return *manager.run(id); }
};

} // namespace

class TestDemoAgent final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Other connection types still get the regular connectors.
    void factoryFallsBack()
    {
        Connection openai;
        openai.backend = u"openai"_s;
        openai.baseUrl = QUrl(u"http://127.0.0.1:9/v1"_s);
        std::unique_ptr<RunBackend> b(createBackendWithDemo(openai, nullptr));
        QVERIFY(b);
        QCOMPARE(b->kind(), u"openai"_s);
        Connection bogus;
        bogus.backend = u"bogus"_s;
        QVERIFY(!createBackendWithDemo(bogus, nullptr));
        QVERIFY(guiBackends().contains(u"demo-agent"_s));
        QVERIFY(guiBackends().contains(u"openai"_s));
    }

    void pausesAndResumes_data()
    {
        QTest::addColumn<QString>("prompt");
        QTest::addColumn<InputReason>("reason");
        QTest::addColumn<int>("answerKind");
        QTest::addColumn<RunStatus>("final");
        QTest::addRow("question") << u"Upgrade the base image"_s << InputReason::Question
                                  << int(InputAnswer::Kind::Text) << RunStatus::Completed;
        QTest::addRow("approve") << u"restart (approval)"_s << InputReason::Approval
                                 << int(InputAnswer::Kind::Approve) << RunStatus::Completed;
        QTest::addRow("reject") << u"restart (approval)"_s << InputReason::Approval
                                << int(InputAnswer::Kind::Reject) << RunStatus::Rejected;
        QTest::addRow("options") << u"choose a strategy"_s << InputReason::Options
                                 << int(InputAnswer::Kind::Choice) << RunStatus::Completed;
        QTest::addRow("timer skipped") << u"timer=600 wait for the window"_s << InputReason::Timer
                                       << int(InputAnswer::Kind::Approve) << RunStatus::Completed;
    }
    // Each kind of request pauses the run; the answer resumes it by re-streaming from the token.
    void pausesAndResumes()
    {
        QFETCH(QString, prompt);
        QFETCH(InputReason, reason);
        QFETCH(int, answerKind);
        QFETCH(RunStatus, final);
        Rig rig;
        const QString id = rig.start(prompt);
        QTRY_COMPARE(rig.run(id).status, RunStatus::InputRequired);
        const Run &run = rig.run(id);
        QVERIFY(run.input);
        QCOMPARE(run.input->reason, reason);
        QVERIFY(!run.input->prompt.isEmpty());
        QVERIFY(run.capabilities.testFlag(Capability::Respond));
        QVERIFY(!rig.manager.isFollowing(id) || run.status == RunStatus::InputRequired);
        if (reason == InputReason::Options)
            QCOMPARE(run.input->options.size(), 3);
        if (reason == InputReason::Timer)
            QVERIFY(run.input->deadline > QDateTime::currentDateTimeUtc().addSecs(500));
        const QString before = run.primaryText;
        QVERIFY(before.contains(u"three services"_s));

        InputAnswer answer;
        answer.kind = InputAnswer::Kind(answerKind);
        answer.text = u"main"_s;
        answer.choice = run.input->options.value(0);
        QSignalSpy finished(&rig.manager, &RunManager::actionFinished);
        rig.manager.respondToRun(id, answer);
        QTRY_COMPARE(finished.count(), 1);
        QVERIFY(finished.first().at(2).value<ActionResult>().ok());
        QTRY_COMPARE(rig.run(id).status, final);
        // Nothing was duplicated or lost across the pause: the text only grew.
        QVERIFY(rig.run(id).primaryText.startsWith(before));
        QVERIFY(rig.run(id).primaryText.size() > before.size());
        QVERIFY(!rig.run(id).input);
        QCOMPARE(rig.run(id).reconciliations, 0);
    }

    // Answering a run that is not waiting is refused with a clear error.
    void respondWhenNotWaiting()
    {
        Rig rig;
        const QString id = rig.start(u"noinput quick job"_s);
        QTRY_COMPARE(rig.run(id).status, RunStatus::Completed);
        QSignalSpy finished(&rig.manager, &RunManager::actionFinished);
        InputAnswer a;
        a.text = u"late"_s;
        rig.manager.respondToRun(id, a);
        QTRY_COMPARE(finished.count(), 1);
        const auto result = finished.first().at(2).value<ActionResult>();
        QVERIFY(!result.ok());
        QCOMPARE(result.error.kind, ErrorKind::Conflict);
    }

    // Cancel stops a run for good; delete removes it on the "server".
    void cancelAndDelete()
    {
        Rig rig;
        rig.agent->setStepIntervalMs(50);
        const QString id = rig.start(u"Upgrade the base image"_s);
        QTRY_VERIFY(!rig.run(id).remoteId.isEmpty());
        rig.manager.cancelRun(id);
        QTRY_COMPARE(rig.run(id).status, RunStatus::Cancelled);
        QTest::qWait(200);
        QCOMPARE(rig.run(id).status, RunStatus::Cancelled);
        QCOMPARE(rig.agent->taskCount(), 1);
        rig.manager.deleteRun(id, true);
        QTRY_VERIFY(!rig.manager.run(id));
        QCOMPARE(rig.agent->taskCount(), 0);
    }

    // A stream dropped mid-run is resumed from the token without duplicates.
    void followReplaysFromToken()
    {
        Rig rig;
        rig.agent->setStepIntervalMs(10);
        const QString id = rig.start(u"Upgrade the base image"_s);
        QTRY_VERIFY(rig.run(id).primaryText.size() > 10);
        rig.manager.stopFollowing(id);
        QTest::qWait(100); // the task goes on without us
        rig.manager.follow(id);
        QTRY_COMPARE(rig.run(id).status, RunStatus::InputRequired);
        QVERIFY(rig.run(id).primaryText.startsWith(u"I searched the repository"_s));
        QCOMPARE(rig.run(id).primaryText.count(u"I searched"_s), 1);
    }
};

QTEST_GUILESS_MAIN(TestDemoAgent)
#include "tst_demoagent.moc"
