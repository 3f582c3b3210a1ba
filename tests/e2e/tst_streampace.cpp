// SPDX-License-Identifier: GPL-3.0-or-later
// The pace of a run's events (RunManager::setRunsInView, StreamPump::setRelaxed) over the real
// stream pump: the OpenAI connector and the engine against the simulator over loopback. A run a
// front end shows closely gets its events every frame; once a front end has named what it shows,
// every other run's stream hands over a few times a second, and nothing is lost either way.
#include "enginerig.h"
#include "net/streampump.h"
#include "openai/openaisim.h"

#include <QElapsedTimer>
#include <QHash>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::waitFor;
using RunwatchTest::waitTerminal;

namespace {

// A delta every 5 ms: faster than a frame, so every frame has something to hand over.
struct Rig : RunwatchTest::ServerRig<RunwatchSim::OpenAiSimulator>
{
    Rig()
    {
        sim.setIntervalMs(5);
        QVERIFY(sim.listen());
        model = u"runwatch-sim-1"_s;
        QVERIFY(addConnection(RunwatchTest::plainConnection(u"sim"_s, u"openai"_s, sim.baseUrl())));
        QObject::connect(&manager, &RunManager::runEventsApplied, &manager,
                         [this](const QString &id, const QList<RunEvent> &) { ++batches[id]; });
    }
    QHash<QString, int> batches; // hand-overs that brought a run news
};

// The most hand-overs a relaxed stream makes in `ms`: one per turn (a frame in kRelaxedFrames),
// besides the ones that do not wait — its first, a turn that comes early after it, its headers
// and its end.
int relaxedBound(qint64 ms)
{
    return int(ms / (16 * detail::StreamPump::kRelaxedFrames)) + 4;
}

} // namespace

class TestStreamPace final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        // The pace is the stream pump's: make sure it is what reads the streams here.
        qunsetenv("RUNWATCH_STREAM_TRANSPORT");
    }

    // Two runs stream the same answer at once; the one in view gets it every frame, the other
    // a few times a second, and both whole.
    void relaxedOutsideTheView()
    {
        Rig rig;
        rig.manager.setRunsInView({}); // a front end that shows no run closely yet
        const QString shown = rig.start(u"normal deltas=200"_s);
        const QString other = rig.start(u"normal deltas=200"_s);
        rig.manager.setRunsInView({shown});
        QElapsedTimer clock;
        clock.start();
        QVERIFY(waitTerminal(rig.manager, shown));
        QVERIFY(waitTerminal(rig.manager, other));
        const qint64 ms = clock.elapsed();
        for (const QString &id : {shown, other}) {
            QCOMPARE(rig.run(id).status, RunStatus::Completed);
            QCOMPARE(rig.run(id).primaryText, RunwatchSim::OpenAiSimulator::tokenText(200));
        }
        const int relaxed = rig.batches.value(other);
        const int everyFrame = rig.batches.value(shown);
        QVERIFY2(
            relaxed <= relaxedBound(ms),
            qPrintable(u"%1 hand-overs in %2 ms, at most %3"_s.arg(relaxed).arg(ms).arg(relaxedBound(ms))));
        QVERIFY2(everyFrame > 2 * relaxed,
                 qPrintable(u"in view %1 hand-overs, out of view %2"_s.arg(everyFrame).arg(relaxed)));
    }

    // A run brought into view gets its events every frame from then on; before a front end names
    // any run, every stream does (the CLI prints each run as it comes).
    void paceFollowsTheView()
    {
        Rig rig;
        const QString unnamed = rig.start(u"normal deltas=100"_s);
        QVERIFY(waitTerminal(rig.manager, unnamed));
        QVERIFY2(rig.batches.value(unnamed) > relaxedBound(500) * 2,
                 qPrintable(u"%1 hand-overs"_s.arg(rig.batches.value(unnamed))));

        rig.manager.setRunsInView({});
        const QString id = rig.start(u"normal deltas=400"_s);
        QVERIFY(waitFor([&] { return rig.run(id).primaryText.size() > 0; }));
        QElapsedTimer clock;
        clock.start();
        QVERIFY(waitFor([&] { return clock.elapsed() >= 600; }, 5000));
        const int before = rig.batches.value(id);
        const qint64 relaxedMs = clock.elapsed();
        QVERIFY2(before <= relaxedBound(relaxedMs),
                 qPrintable(u"%1 hand-overs in %2 ms"_s.arg(before).arg(relaxedMs)));
        rig.manager.setRunsInView({id});
        clock.restart();
        QVERIFY(waitFor([&] { return clock.elapsed() >= 600 || rig.run(id).isTerminal(); }, 5000));
        const int after = rig.batches.value(id) - before;
        QVERIFY2(after > 2 * relaxedBound(clock.elapsed()),
                 qPrintable(u"%1 hand-overs in %2 ms in view"_s.arg(after).arg(clock.elapsed())));
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).primaryText, RunwatchSim::OpenAiSimulator::tokenText(400));
    }
};

QTEST_GUILESS_MAIN(TestStreamPace)
#include "tst_streampace.moc"
