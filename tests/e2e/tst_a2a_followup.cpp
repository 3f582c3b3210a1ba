// SPDX-License-Identifier: GPL-3.0-or-later
// Follow-ups on A2A (issue 16) through the engine against the A2A simulator over loopback: a
// message to a WORKING task that the agent takes (the same local run goes on, its final text is
// the agent's, the wire carries taskId + contextId), one it refuses (a clear error on the run,
// which is still followed to completion), which states allow a follow-up, and the simulator's
// multi-turn memory (a new task in a context sees the earlier turns).
#include "a2a/a2asim.h"
#include "enginerig.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QtTest>

#include <algorithm>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchSim::A2aSimConfig;
using RunwatchSim::A2aSimulator;
using RunwatchTest::waitFor;
using RunwatchTest::waitStatus;
using RunwatchTest::waitTerminal;

namespace {

constexpr int kWait = RunwatchTest::kEngineWait;

struct Rig : RunwatchTest::ServerRig<A2aSimulator>
{
    Rig()
        : ServerRig(A2aSimConfig{})
    {
        sim.setIntervalMs(2);
        QVERIFY(sim.listen());
        QVERIFY(addConnection(RunwatchTest::plainConnection(u"agent"_s, u"a2a"_s, sim.baseUrl(), {})));
    }

    QList<QJsonObject> messagesOf(const QString &method) const
    {
        QList<QJsonObject> out;
        for (const auto &r : sim.requests()) {
            if (r.rpcMethod == method) {
                out << QJsonDocument::fromJson(r.body)
                           .object()
                           .value(u"params"_s)
                           .toObject()
                           .value(u"message"_s)
                           .toObject();
            }
        }
        return out;
    }

    // The outcome of the follow-up sent to `id` while it works.
    std::optional<ActionResult> followUpWorking(const QString &id, const QString &prompt)
    {
        std::optional<ActionResult> result;
        auto c = QObject::connect(&manager, &RunManager::actionFinished,
                                  [&](const QString &rid, RunManager::Action a, const ActionResult &r) {
                                      if (rid == id && a == RunManager::Action::FollowUp)
                                          result = r;
                                  });
        QString why;
        const QString same = manager.followUp(id, prompt, &why);
        if (same != id) {
            QObject::disconnect(c);
            qWarning("followUp: %s", qPrintable(why));
            return std::nullopt;
        }
        waitFor([&] { return result.has_value(); }, kWait);
        QObject::disconnect(c);
        return result;
    }

    // A streamed task that is working and has streamed some of its answer.
    QString working(const QString &prompt)
    {
        const QString id = start(prompt);
        if (!waitFor([&] {
                const Run *r = manager.run(id);
                return r && r->status == RunStatus::InProgress && !r->primaryText.isEmpty();
            }))
            return {};
        return id;
    }
};

bool hasFollowUpItem(const Run &run, const QString &text)
{
    return std::any_of(run.secondary.cbegin(), run.secondary.cend(), [&](const SecondaryItem &i) {
        return i.kind == SecondaryKind::Log && i.title == kFollowUpItemTitle && i.text == text;
    });
}

} // namespace

class TestA2aFollowUp final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // A message to a working task that takes it: no new run, the message is on the run, the
    // text the agent streams afterwards (with the message folded in) ends up in the same run,
    // identical to what the simulator produced; the message carried the task's ids.
    void workingTaskTakesTheMessage()
    {
        Rig rig;
        const QString id = rig.working(u"listen chunks=30 interval_ms=40"_s);
        QVERIFY(!id.isEmpty());
        QVERIFY(followUpAllowed(rig.run(id)));
        QVERIFY(followUpContinuesRun(rig.run(id)));
        const QString task = rig.run(id).remoteId;

        const std::optional<ActionResult> sent = rig.followUpWorking(id, u"also the 2025 figures"_s);
        QVERIFY(sent.has_value());
        QVERIFY2(sent->ok(), qPrintable(sent->error.message));
        QVERIFY(hasFollowUpItem(rig.run(id), u"also the 2025 figures"_s));

        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(rig.manager.runIds().size(), 1);
        QCOMPARE(run.remoteId, task);
        const auto info = rig.sim.task(task);
        QVERIFY(info.has_value());
        QVERIFY2(info->text.contains(u"[noted: also the 2025 figures] "_s), qPrintable(info->text));
        QCOMPARE(run.primaryText, info->text);
        QVERIFY(!run.error.isError());
        QVERIFY(hasFollowUpItem(run, u"also the 2025 figures"_s));

        const QList<QJsonObject> sends = rig.messagesOf(u"SendMessage"_s);
        QCOMPARE(sends.size(), 1);
        QCOMPARE(sends.first().value(u"taskId"_s).toString(), task);
        QCOMPARE(sends.first().value(u"contextId"_s).toString(), info->contextId);
        QCOMPARE(sends.first().value(u"parts"_s).toArray().first().toObject().value(u"text"_s).toString(),
                 u"also the 2025 figures"_s);
    }

    // An agent that does not take messages while working: the refusal is a clear error on the
    // run and on the action, nothing else changes, and the run is followed to its end.
    void workingTaskRefusesTheMessage()
    {
        Rig rig;
        const QString id = rig.working(u"normal chunks=25 interval_ms=40"_s);
        QVERIFY(!id.isEmpty());
        QVERIFY(followUpAllowed(rig.run(id)));

        const std::optional<ActionResult> sent = rig.followUpWorking(id, u"stop early"_s);
        QVERIFY(sent.has_value());
        QVERIFY(!sent->ok());
        QVERIFY2(sent->error.message.contains(u"does not take messages while this task is working"_s),
                 qPrintable(sent->error.message));
        QCOMPARE(rig.run(id).error.message, sent->error.message);
        QVERIFY(!rig.run(id).isTerminal());
        QVERIFY(rig.manager.isFollowing(id));
        QVERIFY(!hasFollowUpItem(rig.run(id), u"stop early"_s));

        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(rig.manager.runIds().size(), 1);
        QCOMPARE(run.primaryText, rig.sim.task(run.remoteId)->text);
        QCOMPARE(run.primaryText, A2aSimulator::chunkText(25));
    }

    // Which states take a follow-up on A2A: working and completed, not waiting for input (that
    // is Respond's), not failed; refused ones send nothing.
    void followUpAllowedByState()
    {
        Rig rig;
        const QString asking = rig.start(u"input"_s);
        QVERIFY(waitStatus(rig.manager, asking, RunStatus::InputRequired, kWait));
        QVERIFY(!followUpAllowed(rig.run(asking)));
        QString why;
        QVERIFY(rig.manager.followUp(asking, u"hello"_s, &why).isEmpty());
        QVERIFY(why.contains(u"completed or working"_s));

        const QString failed = rig.start(u"fail chunks=2"_s);
        QVERIFY(waitTerminal(rig.manager, failed, kWait));
        QVERIFY(!followUpAllowed(rig.run(failed)));
        QVERIFY(rig.manager.followUp(failed, u"hello"_s, &why).isEmpty());
        QVERIFY(rig.messagesOf(u"SendMessage"_s).isEmpty());

        // Without the capability a working run is not offered one (an OpenAI or Foundry run).
        Run probe = rig.run(failed);
        probe.status = RunStatus::InProgress;
        QVERIFY(followUpAllowed(probe));
        probe.capabilities.setFlag(Capability::FollowUpWorking, false);
        QVERIFY(!followUpAllowed(probe));
        probe.status = RunStatus::Completed;
        QVERIFY(followUpAllowed(probe));
        QVERIFY(!followUpContinuesRun(probe));
    }

    // The simulator's multi-turn memory: each new task in the context names the earlier turns
    // and quotes the previous prompt; a task in a fresh context has none.
    void simulatorRemembersTheContext()
    {
        Rig rig;
        const QString first = rig.start(u"recall first"_s);
        QVERIFY(waitTerminal(rig.manager, first, kWait));
        QCOMPARE(rig.run(first).primaryText, u"Earlier turns in this context: 0. No earlier turns."_s);

        QString why;
        const QString second = rig.manager.followUp(first, u"recall what did I ask?"_s, &why);
        QVERIFY2(!second.isEmpty(), qPrintable(why));
        QVERIFY(waitTerminal(rig.manager, second, kWait));
        QCOMPARE(rig.run(second).primaryText,
                 u"Earlier turns in this context: 1. Previous prompt: recall first."_s);

        const QString third = rig.manager.followUp(second, u"recall and once more"_s, &why);
        QVERIFY2(!third.isEmpty(), qPrintable(why));
        QVERIFY(waitTerminal(rig.manager, third, kWait));
        QCOMPARE(rig.run(third).primaryText,
                 u"Earlier turns in this context: 2. Previous prompt: recall what did I ask?."_s);
        QCOMPARE(rig.run(third).primaryText, rig.sim.task(rig.run(third).remoteId)->text);

        // Another conversation does not see this one.
        const QString other = rig.start(u"recall elsewhere"_s);
        QVERIFY(waitTerminal(rig.manager, other, kWait));
        QCOMPARE(rig.run(other).primaryText, u"Earlier turns in this context: 0. No earlier turns."_s);
    }
};

QTEST_GUILESS_MAIN(TestA2aFollowUp)
#include "tst_a2a_followup.moc"
