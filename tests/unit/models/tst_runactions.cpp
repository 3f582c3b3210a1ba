// SPDX-License-Identifier: GPL-3.0-or-later
// The rules for what an operator may do with a run (core/models/runactions.h): cancel, resume,
// respond, delete, copy and follow up follow the backend's capabilities and the run's status, never
// the backend's name; a selection allows a bulk action if any of its runs does.
#include "enginerig.h"
#include "models/runactions.h"

#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::listedRun;

class TestRunActions final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Actions follow capabilities and status, never the backend's name.
    void actionRules()
    {
        Run r = listedRun(u"a"_s, RunStatus::InProgress, u"A"_s);
        RunActionState s = actionStateFor(r, true);
        QVERIFY(s.cancel);
        QVERIFY(!s.resume); // followed and healthy
        QVERIFY(!s.respond);
        QVERIFY(s.remove && s.removeOnServer);
        QVERIFY(!s.copyOutput);

        r.connectionLost = true;
        QVERIFY(actionStateFor(r, true).resume);
        r.connectionLost = false;
        QVERIFY(actionStateFor(r, false).resume);

        r.capabilities &= ~Capabilities(Capability::Cancel);
        QVERIFY(!actionStateFor(r, true).cancel);
        r.capabilities &= ~Capabilities(Capability::Delete);
        s = actionStateFor(r, true);
        QVERIFY(s.remove);
        QVERIFY(!s.removeOnServer);

        Run done = listedRun(u"b"_s, RunStatus::Completed, u"B"_s);
        done.primaryText = u"answer"_s;
        s = actionStateFor(done, false);
        QVERIFY(!s.cancel);
        QVERIFY(!s.resume);
        QVERIFY(s.copyOutput);

        Run cancelling = listedRun(u"c"_s, RunStatus::Cancelling, u"C"_s);
        QVERIFY(!actionStateFor(cancelling, true).cancel);

        Run waiting = listedRun(u"w"_s, RunStatus::InputRequired, u"W"_s);
        waiting.input = InputRequest{};
        QVERIFY(!actionStateFor(waiting, false).respond); // the backend cannot respond
        waiting.capabilities |= Capability::Respond;
        QVERIFY(actionStateFor(waiting, false).respond);

        Run unknown = listedRun(u"u"_s, RunStatus::Queued, u"U"_s);
        unknown.remoteId.clear();
        s = actionStateFor(unknown, true);
        QVERIFY(!s.cancel);
        QVERIFY(!s.removeOnServer);

        // Selections: bulk actions if any run allows them, respond/copy only for one run.
        const RunActionState multi
            = actionStateForSelection({actionStateFor(done, false), actionStateFor(waiting, false)});
        QVERIFY(multi.cancel); // the waiting run can be cancelled, the completed one not
        QVERIFY(multi.remove);
        QVERIFY(!multi.respond);
        QVERIFY(!multi.copyOutput);
        QVERIFY(actionStateForSelection({actionStateFor(waiting, false)}).respond);
    }

    // Follow up: the backend's capability AND a completed (or, with FollowUpWorking, working) run
    // the service knows; one run only.
    void followUpRule()
    {
        Run done = listedRun(u"d"_s, RunStatus::Completed, u"D"_s);
        done.capabilities &= ~Capabilities(Capability::FollowUp);
        QVERIFY(!actionStateFor(done, false).followUp); // e.g. generic jobs: never
        QVERIFY(!followUpAllowed(done));
        done.capabilities |= Capability::FollowUp;
        QVERIFY(actionStateFor(done, false).followUp);
        QVERIFY(followUpAllowed(done));
        for (RunStatus status : {RunStatus::Queued, RunStatus::InProgress, RunStatus::InputRequired,
                                 RunStatus::Failed, RunStatus::Cancelled, RunStatus::Cancelling}) {
            Run other = done;
            other.status = status;
            QVERIFY2(!actionStateFor(other, false).followUp, qPrintable(statusName(status)));
        }
        // FollowUpWorking (A2A): a working run takes one too, as a message to that same run;
        // still not a queued one, one waiting for input (Respond's) or one that ended badly.
        Run working = done;
        working.capabilities |= Capability::FollowUpWorking;
        QVERIFY(!followUpContinuesRun(working));
        for (RunStatus status : {RunStatus::Queued, RunStatus::InProgress, RunStatus::InputRequired,
                                 RunStatus::Failed, RunStatus::Cancelled, RunStatus::Cancelling}) {
            working.status = status;
            QVERIFY2(actionStateFor(working, false).followUp == (status == RunStatus::InProgress),
                     qPrintable(statusName(status)));
        }
        working.status = RunStatus::InProgress;
        QVERIFY(followUpContinuesRun(working));
        Run local = done;
        local.remoteId.clear(); // never reached the service: nothing to continue from
        QVERIFY(!actionStateFor(local, false).followUp);
        QVERIFY(actionStateForSelection({actionStateFor(done, false)}).followUp);
        QVERIFY(
            !actionStateForSelection({actionStateFor(done, false), actionStateFor(done, false)}).followUp);
    }
};

QTEST_MAIN(TestRunActions)
#include "tst_runactions.moc"
