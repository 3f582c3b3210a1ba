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

#include <algorithm>

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
                         [this](const QString &id, const QList<RunEvent> &applied) {
                             Pace &p = pace[id];
                             ++p.batches;
                             p.deltas
                                 += std::count_if(applied.cbegin(), applied.cend(), [](const RunEvent &e) {
                                        return e.type == RunEvent::Type::PrimaryDelta;
                                    });
                         });
    }
    // Hand-overs that brought a run news, and the deltas they brought. Deltas per hand-over is
    // what the pace sets, whatever the speed of the machine: the simulator sends them at one
    // rate, and a relaxed stream gathers the deltas of fifteen turns into one.
    struct Pace
    {
        int batches = 0;
        qsizetype deltas = 0;
        double perBatch() const { return batches ? double(deltas) / batches : 0; }
    };
    QHash<QString, Pace> pace;
};

// The most hand-overs a relaxed stream makes in `ms`: one per turn (a frame in kRelaxedFrames),
// besides the ones that do not wait — its first, a turn that comes early after it, its headers
// and its end.
int relaxedBound(qint64 ms)
{
    return int(ms / (16 * detail::StreamPump::kRelaxedFrames)) + 4;
}

QString describe(const Rig::Pace &p)
{
    return u"%1 deltas in %2 hand-overs"_s.arg(p.deltas).arg(p.batches);
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
        const Rig::Pace relaxed = rig.pace.value(other);
        const Rig::Pace everyFrame = rig.pace.value(shown);
        QVERIFY2(relaxed.batches <= relaxedBound(ms),
                 qPrintable(u"%1 in %2 ms, at most %3 hand-overs"_s.arg(describe(relaxed))
                                .arg(ms)
                                .arg(relaxedBound(ms))));
        QVERIFY2(relaxed.perBatch() >= 3 * everyFrame.perBatch(),
                 qPrintable(u"in view %1, out of view %2"_s.arg(describe(everyFrame), describe(relaxed))));
    }

    // Before a front end names any run, every stream hands over every frame (the CLI prints each
    // run as it comes); a run brought into view does so from then on.
    void paceFollowsTheView()
    {
        Rig rig;
        const QString unnamed = rig.start(u"normal deltas=100"_s);
        QVERIFY(waitTerminal(rig.manager, unnamed));
        const Rig::Pace everyFrame = rig.pace.value(unnamed);

        rig.manager.setRunsInView({});
        const QString id = rig.start(u"normal deltas=400"_s);
        QVERIFY(waitFor([&] { return rig.run(id).primaryText.size() > 0; }));
        QElapsedTimer clock;
        clock.start();
        QVERIFY(waitFor([&] { return clock.elapsed() >= 600; }, 5000));
        const Rig::Pace relaxed = rig.pace.value(id);
        const qint64 relaxedMs = clock.elapsed();
        QVERIFY2(relaxed.batches <= relaxedBound(relaxedMs),
                 qPrintable(u"%1 in %2 ms"_s.arg(describe(relaxed)).arg(relaxedMs)));
        QVERIFY2(
            relaxed.perBatch() >= 3 * everyFrame.perBatch(),
            qPrintable(u"no view named %1, out of view %2"_s.arg(describe(everyFrame), describe(relaxed))));

        rig.manager.setRunsInView({id});
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).primaryText, RunwatchSim::OpenAiSimulator::tokenText(400));
        Rig::Pace inView = rig.pace.value(id);
        inView.batches -= relaxed.batches;
        inView.deltas -= relaxed.deltas;
        QVERIFY2(relaxed.perBatch() >= 3 * inView.perBatch(),
                 qPrintable(u"out of view %1, then in view %2"_s.arg(describe(relaxed), describe(inView))));
    }
};

QTEST_GUILESS_MAIN(TestStreamPace)
#include "tst_streampace.moc"
