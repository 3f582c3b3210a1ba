// SPDX-License-Identifier: GPL-3.0-or-later
// HeavyFrames: one heavy chore per frame of a thread, the next after kFrame; other threads' frames
// are their own.
#include "domain/heavyframes.h"

#include <QElapsedTimer>
#include <QTest>
#include <QThread>

using namespace Runwatch;

namespace {
// Waits until this thread's frame can be claimed, and claims it. (QTRY_VERIFY evaluates its
// expression once more at the end: a claim there would be a second one in the frame.)
bool claimWithin(int ms)
{
    bool claimed = false;
    QElapsedTimer waited;
    waited.start();
    while (!(claimed = HeavyFrames::claim()) && waited.elapsed() < ms)
        QTest::qWait(1);
    return claimed;
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
