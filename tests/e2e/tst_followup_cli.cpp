// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli following a run up (issue 16, the seed's Update) as a user runs it: real processes
// against the OpenAI simulator, one store shared between them. `followup RUN --prompt` creates the
// next turn with previous_response_id and prints it like `start`; `status` names the parent; a run
// that is not completed is refused with a usage error and nothing sent; SIGKILL mid-follow-up;
// start --conversation new|ID and a follow-up in that conversation.
#include "cliprocess.h"
#include "openai/openaisim.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace Qt::StringLiterals;
using RunwatchSim::OpenAiEndpoint;
using RunwatchSim::OpenAiSimulator;
using Result = RunwatchTest::CliResult;
using RunwatchTest::firstOfType;
using RunwatchTest::runIdFrom;

class TestFollowUpCli final : public QObject
{
    Q_OBJECT

    OpenAiSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;

    QStringList globals() const
    {
        return QStringList{u"--url"_s, m_sim->baseUrl().toString(), u"--store"_s,
                           m_dir->filePath(u"runs.sqlite"_s)};
    }

    Result cli(const QStringList &args, int ms = 60000)
    {
        return RunwatchTest::runCli(globals() + args, this, {}, ms);
    }

    QList<QJsonObject> creates() const
    {
        QList<QJsonObject> bodies;
        for (const auto &r : m_sim->requests()) {
            if (r.endpoint == OpenAiEndpoint::Create)
                bodies << QJsonDocument::fromJson(r.body).object();
        }
        return bodies;
    }

    // A completed first turn; its local id.
    QString completedParent(const QString &prompt)
    {
        const Result started = cli({u"--json"_s, u"start"_s, u"--prompt"_s, prompt, u"--follow"_s});
        if (started.exitCode != 0)
            return {};
        return runIdFrom(started.out);
    }

private Q_SLOTS:
    void init()
    {
        m_sim = new OpenAiSimulator(this);
        m_sim->setIntervalMs(2);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    // followup --follow: the new run's line names its parent, its text streams to the end, the
    // create carries previous_response_id; `status` of the follow-up shows the parent (JSON and
    // text).
    void followUpAndStatus()
    {
        const QString parent = completedParent(u"normal deltas=6"_s);
        QVERIFY(!parent.isEmpty());
        const QString parentResponse = m_sim->lastResponseId();
        const Result followed = cli({u"--json"_s, u"followup"_s, parent, u"--prompt"_s,
                                     u"normal deltas=4 shorter please"_s, u"--follow"_s});
        QVERIFY2(followed.exitCode == 0, followed.err.constData());
        const QJsonObject line = firstOfType(followed.out, u"run"_s);
        const QString child = line.value(u"run"_s).toString();
        QVERIFY(!child.isEmpty());
        QVERIFY(child != parent);
        QCOMPARE(line.value(u"parent"_s).toString(), parent);
        QCOMPARE(m_sim->response(m_sim->lastResponseId())->text, OpenAiSimulator::tokenText(4));
        const QList<QJsonObject> bodies = creates();
        QCOMPARE(bodies.size(), 2);
        QVERIFY(!bodies.first().contains(u"previous_response_id"_s));
        QCOMPARE(bodies.last().value(u"previous_response_id"_s).toString(), parentResponse);
        QCOMPARE(bodies.last().value(u"input"_s).toString(), u"normal deltas=4 shorter please"_s);

        const Result json = cli({u"--json"_s, u"status"_s, child});
        QCOMPARE(json.exitCode, 0);
        QCOMPARE(firstOfType(json.out, u"run"_s).value(u"parent"_s).toString(), parent);
        const Result text = cli({u"status"_s, child});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains((u"follow-up to: "_s + parent).toUtf8()), text.out.constData());
        // The parent has none.
        const Result parentStatus = cli({u"--json"_s, u"status"_s, parent});
        QVERIFY(!firstOfType(parentStatus.out, u"run"_s).contains(u"parent"_s));
    }

    // Without --follow: the run line once the service has it, then `watch` reads it to the end.
    void followUpThenWatch()
    {
        const QString parent = completedParent(u"normal deltas=3"_s);
        QVERIFY(!parent.isEmpty());
        const Result created
            = cli({u"--json"_s, u"followup"_s, parent, u"--prompt"_s, u"normal deltas=30 interval_ms=5"_s});
        QVERIFY2(created.exitCode == 0, created.err.constData());
        const QString child = runIdFrom(created.out);
        QVERIFY(!child.isEmpty());
        const Result watched = cli({u"watch"_s, child});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(QString::fromUtf8(watched.out), OpenAiSimulator::tokenText(30) + u'\n');
    }

    // A run that did not complete is no conversation to go on with: usage error, nothing sent.
    void refusedUnlessCompleted()
    {
        const Result failed
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"error deltas=4 fail_after=2"_s, u"--follow"_s});
        QCOMPARE(failed.exitCode, 3);
        const QString id = runIdFrom(failed.out);
        QVERIFY(!id.isEmpty());
        const qsizetype before = m_sim->requests().size();
        const Result refused = cli({u"followup"_s, id, u"--prompt"_s, u"again"_s});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("completed"), refused.err.constData());
        QCOMPARE(m_sim->requests().size(), before);
        QCOMPARE(cli({u"followup"_s, id}).exitCode, 2);
        QCOMPARE(cli({u"followup"_s, u"--prompt"_s, u"x"_s}).exitCode, 2);
    }

    // start --conversation new on plain OpenAI: a conversation is created first and the run is a
    // turn of it (with its model); its follow-up goes to the same conversation, not by
    // previous_response_id. start --conversation ID: a turn of that one.
    void conversationNewThenFollowUp()
    {
        const Result started = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=3"_s,
                                    u"--conversation"_s, u"new"_s, u"--follow"_s});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        const QString parent = runIdFrom(started.out);
        QCOMPARE(m_sim->conversationIds().size(), 1);
        const QString conversation = m_sim->conversationIds().constFirst();
        const Result followed
            = cli({u"--json"_s, u"followup"_s, parent, u"--prompt"_s, u"normal deltas=2"_s, u"--follow"_s});
        QVERIFY2(followed.exitCode == 0, followed.err.constData());
        const Result another = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=2"_s,
                                    u"--conversation"_s, conversation, u"--follow"_s});
        QVERIFY2(another.exitCode == 0, another.err.constData());
        QCOMPARE(m_sim->conversationIds().size(), 1);
        const QList<QJsonObject> bodies = creates();
        QCOMPARE(bodies.size(), 3);
        for (const QJsonObject &body : bodies) {
            QCOMPARE(body.value(u"conversation"_s).toString(), conversation);
            QVERIFY(!body.contains(u"previous_response_id"_s));
            QVERIFY(!body.value(u"model"_s).toString().isEmpty());
        }
        QCOMPARE(m_sim->response(m_sim->lastResponseId())->text, OpenAiSimulator::tokenText(2));
    }

    // A backend without conversations refuses --conversation with a usage error, nothing sent.
    void conversationRefusedWithoutConversations()
    {
        const Result refused = cli({u"--backend"_s, u"foundry"_s, u"start"_s, u"--prompt"_s, u"hi"_s,
                                    u"--agent"_s, u"asst_1"_s, u"--conversation"_s, u"new"_s});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("conversation"), refused.err.constData());
        QCOMPARE(cli({u"start"_s, u"--prompt"_s, u"hi"_s, u"--conversation"_s, u" "_s}).exitCode, 2);
        QCOMPARE(m_sim->requests().size(), 0);
    }

    // SIGKILL of the CLI that follows a follow-up, then watch from a new process: the follow-up's
    // whole text, identical, once; the parent is untouched.
    void sigkillMidFollowUp()
    {
        const QString parent = completedParent(u"normal deltas=5"_s);
        QVERIFY(!parent.isEmpty());
        QProcess *following
            = RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH),
                                      globals()
                                          + QStringList{u"--json"_s, u"followup"_s, parent, u"--prompt"_s,
                                                        u"normal deltas=120 interval_ms=15"_s, u"--follow"_s},
                                      this);
        QTRY_VERIFY_WITH_TIMEOUT(m_sim->responseIds().size() == 2
                                     && m_sim->response(m_sim->lastResponseId())->text.size() > 200,
                                 20000);
        ::kill(pid_t(following->processId()), SIGKILL);
        const Result killed = RunwatchTest::finishCli(following, 10000);
        QVERIFY(killed.exitCode != 0);
        QVERIFY(!m_sim->response(m_sim->lastResponseId())->ended);
        // Its output may have died in the killed process's buffer: the store knows the run.
        QString child;
        const Result listed = cli({u"--json"_s, u"list"_s, u"--all"_s});
        for (const QJsonObject &line : RunwatchTest::jsonLines(listed.out)) {
            if (line.value(u"parent"_s).toString() == parent)
                child = line.value(u"run"_s).toString();
        }
        QVERIFY2(!child.isEmpty(), listed.out.constData());
        const Result watched = cli({u"watch"_s, child});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        QCOMPARE(QString::fromUtf8(watched.out), OpenAiSimulator::tokenText(120) + u'\n');
        QCOMPARE(creates().size(), 2);
        const Result parentWatch = cli({u"watch"_s, parent});
        QCOMPARE(QString::fromUtf8(parentWatch.out), OpenAiSimulator::tokenText(5) + u'\n');
    }
};

QTEST_GUILESS_MAIN(TestFollowUpCli)
#include "tst_followup_cli.moc"
