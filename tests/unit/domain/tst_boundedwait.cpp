// SPDX-License-Identifier: GPL-3.0-or-later
// boundedWait() at its edges (a wait a server names can be any 64-bit number) and the spread of
// fullJitter() (reconnects of runs dropped together must not arrive in one burst).
#include "domain/boundedwait.h"

#include <QRegularExpression>
#include <QTest>
#include <QTimer>

#include <limits>

using namespace Runwatch;
using namespace std::chrono_literals;

class TestBoundedWait final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void clampsToWhatATimerTakes_data()
    {
        QTest::addColumn<qint64>("ms");
        QTest::addColumn<qint64>("expected");
        const qint64 day = 24LL * 3600 * 1000;
        QTest::newRow("negative") << qint64(-5) << qint64(0);
        QTest::newRow("most negative") << std::numeric_limits<qint64>::min() << qint64(0);
        QTest::newRow("zero") << qint64(0) << qint64(0);
        QTest::newRow("1.5 s") << qint64(1500) << qint64(1500);
        QTest::newRow("a day") << day << day;
        QTest::newRow("a day and 1 ms") << day + 1 << day;
        QTest::newRow("INT_MAX ms") << qint64(std::numeric_limits<int>::max()) << day;
        QTest::newRow("2^32 ms") << (qint64(1) << 32) << day; // int: 0, a tight loop
        QTest::newRow("30 days") << 30 * day << day;          // int: negative, never fires
        QTest::newRow("largest") << std::numeric_limits<qint64>::max() << day;
    }
    void clampsToWhatATimerTakes()
    {
        QFETCH(qint64, ms);
        QFETCH(qint64, expected);
        QCOMPARE(boundedWait(ms).count(), expected);
        QCOMPARE(boundedWait(std::chrono::milliseconds(ms)).count(), expected);
        // And a QTimer takes it as it is: no narrowing to int on the way.
        QTimer timer;
        QTest::failOnWarning(QRegularExpression(QStringLiteral(".*")));
        timer.start(boundedWait(ms));
        QCOMPARE(timer.intervalAsDuration(), std::chrono::milliseconds(expected));
    }

    void fullJitterSpreadsOverTheWholeWindow()
    {
        constexpr int kSamples = 4000;
        const auto ceiling = 10s;
        qint64 low = std::numeric_limits<qint64>::max();
        qint64 high = -1;
        double sum = 0;
        int firstTenth = 0;
        for (int i = 0; i < kSamples; ++i) {
            const qint64 ms = fullJitter(ceiling).count();
            QVERIFY2(ms >= 0 && ms <= 10000, qPrintable(QString::number(ms)));
            low = std::min(low, ms);
            high = std::max(high, ms);
            sum += double(ms);
            if (ms < 1000)
                ++firstTenth;
        }
        // Uniform over [0, 10 s]: some within the first second (the old jitter never went below
        // 7.5 s), some near the top, the mean near the middle. Each bound fails by chance with a
        // probability far below 1e-9 for 4000 samples.
        QVERIFY2(low < 100, qPrintable(QString::number(low)));
        QVERIFY2(high > 9900, qPrintable(QString::number(high)));
        QVERIFY2(firstTenth > 250 && firstTenth < 560, qPrintable(QString::number(firstTenth)));
        QVERIFY(std::abs(sum / kSamples - 5000.0) < 400.0);
        QCOMPARE(fullJitter(0ms).count(), 0);
        QVERIFY(fullJitter(std::chrono::milliseconds(qint64(1) << 40)) <= kMaxTimerWait);
    }
};

QTEST_GUILESS_MAIN(TestBoundedWait)
#include "tst_boundedwait.moc"
