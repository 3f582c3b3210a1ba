// SPDX-License-Identifier: GPL-3.0-or-later
// HeavyFrames: one heavy chore per frame of a thread, the next after kFrame; other threads' frames
// are their own.
#include "domain/heavyframes.h"

#include <QElapsedTimer>
#include <QTest>
#include <QThread>

using namespace Runwatch;

namespace {
// Waits until this thread's frame can be claimed, and claims it. (qWaitFor stops at the first
// claim; QTRY_VERIFY would evaluate its expression once more, a second claim in the frame.)
bool claimWithin(int ms)
{
    return QTest::qWaitFor([] { return HeavyFrames::claim(); }, ms);
}
} // namespace

class TestHeavyFrames final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oneClaimAFrame()
    {
        // A claim of an earlier test may still hold: the first that succeeds starts the frame.
        QVERIFY(claimWithin(1000));
        QElapsedTimer frame;
        frame.start();
        const bool second = HeavyFrames::claim();
        if (frame.elapsed() < HeavyFrames::kFrame.count() - 2)
            QVERIFY(!second);
        // The frame passes: the next claim succeeds, and not before kFrame.
        QVERIFY(claimWithin(1000));
        QVERIFY2(frame.elapsed() >= HeavyFrames::kFrame.count() - 1,
                 qPrintable(QString::number(frame.elapsed())));
    }

    void threadsHaveFramesOfTheirOwn()
    {
        QVERIFY(claimWithin(1000));
        bool other = false;
        QThread *thread = QThread::create([&other] { other = HeavyFrames::claim(); });
        thread->start();
        QVERIFY(thread->wait(5000));
        delete thread;
        QVERIFY(other);
    }
};

QTEST_GUILESS_MAIN(TestHeavyFrames)
#include "tst_heavyframes.moc"
