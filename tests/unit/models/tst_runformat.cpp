// SPDX-License-Identifier: GPL-3.0-or-later
// How the run list and the CLI word a run's times and state (core/models/runformat): durations and
// the steps they move on by, countdowns, badges and their tooltips.
#include "enginerig.h"
#include "models/runformat.h"

#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::listedRun;

class TestRunFormat final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // A duration moves on by the second below an hour, then by the minute, then by the hour; a
    // clock's step passed when its instant (its origin's millisecond, minute...) came round lately.
    void clockSteps()
    {
        QCOMPARE(durationStepMs(59 * 60'000), 1000);
        QCOMPARE(durationStepMs(2 * 3'600'000), 60'000);
        QCOMPARE(durationStepMs(50 * 3'600'000LL), 3'600'000);
        QVERIFY(stepPassed(0, 10'100, 250, 1000));  // 10 s came 100 ms ago
        QVERIFY(!stepPassed(0, 10'400, 250, 1000)); // 400 ms ago: the last look saw it
        QVERIFY(stepPassed(0, 10'400, 1000, 1000)); // a late look: whatever the phase
        QVERIFY(!stepPassed(0, 130'000 + 59'000, 250, 60'000));
        QVERIFY(stepPassed(0, 180'000 + 200, 250, 60'000));
        // A countdown to 5,000: 3.1 s left shows 4 s (until 2,000), 2.9 s shows 3 s.
        QVERIFY(!stepPassed(5'000, 1'900, 250, 1000));
        QVERIFY(stepPassed(5'000, 2'100, 250, 1000));
    }

    // Durations and timestamps read well.
    void formatting()
    {
        QCOMPARE(formatDuration(850), u"850 ms"_s);
        QCOMPARE(formatDuration(42'000), u"42 s"_s);
        QCOMPARE(formatDuration(185'000), u"3 m 05 s"_s);
        QCOMPARE(formatDuration(7'620'000), u"2 h 07 m"_s);
        QCOMPARE(formatDuration(277'200'000), u"3 d 5 h"_s);
        Run r = listedRun(u"a"_s, RunStatus::InProgress, u"A"_s);
        r.connectionLost = true;
        QCOMPARE(badgeText(r), u"Reconnecting"_s);
        QVERIFY(statusToolTip(r).contains(u"Backend status: in_progress"_s));
        QVERIFY(statusToolTip(r).contains(u"reconnecting"_s));
        // When the next try is due, as the CLI says it; the failed tries and why in the tooltip.
        const QDateTime now = QDateTime::currentDateTimeUtc();
        r.nextTryAt = now.addMSecs(12'200);
        r.failedTries = 3;
        r.lostReason = u"Connection refused"_s;
        QCOMPARE(badgeText(r, BadgeSpace::Wide, now), u"Reconnecting, next try in 13 s"_s);
        QCOMPARE(badgeText(r, BadgeSpace::Narrow, now), u"Reconnecting"_s);
        QCOMPARE(badgeText(r, BadgeSpace::Wide, now.addSecs(13)), u"Reconnecting"_s);
        QVERIFY(statusToolTip(r).contains(u"3 tries failed in a row: Connection refused"_s));
        r.status = RunStatus::Completed;
        QCOMPARE(badgeText(r, BadgeSpace::Wide, now), statusLabel(RunStatus::Completed));
    }

    // A run that must be answered before a deadline: its badge is the time left (a list cell has
    // room for little more), rounded up; the wide form and the tooltip say what for.
    void answerCountdown()
    {
        QCOMPARE(formatCountdown(598'200), u"09:59"_s);
        QCOMPARE(formatCountdown(1), u"00:01"_s);
        QCOMPARE(formatCountdown(0), u"00:00"_s);
        QCOMPARE(formatCountdown(-5000), u"00:00"_s);
        QCOMPARE(formatCountdown(3'723'000), u"1:02:03"_s);
        const QDateTime now = QDateTime::currentDateTimeUtc();
        Run r = listedRun(u"t"_s, RunStatus::InputRequired, u"T"_s);
        r.input = InputRequest{};
        r.input->reason = InputReason::ToolOutput;
        QVERIFY(!answerTimeLeftMs(r, now)); // no deadline: no countdown
        QCOMPARE(badgeText(r, BadgeSpace::Narrow, now), statusLabel(RunStatus::InputRequired));
        r.input->deadline = now.addSecs(600);
        QCOMPARE(*answerTimeLeftMs(r, now), 600'000);
        QCOMPARE(badgeText(r, BadgeSpace::Narrow, now), u"10:00 left"_s);
        QCOMPARE(badgeText(r, BadgeSpace::Narrow, now.addMSecs(1500)), u"09:59 left"_s);
        QCOMPARE(badgeText(r, BadgeSpace::Wide, now.addSecs(540)), u"Needs input, 01:00 left"_s);
        QCOMPARE(badgeText(r, BadgeSpace::Narrow, now.addSecs(601)), u"Time is up"_s);
        // A timer's deadline is the machine's, not the operator's: no countdown badge.
        r.input->reason = InputReason::Timer;
        QVERIFY(!answerTimeLeftMs(r, now));
        QCOMPARE(badgeText(r, BadgeSpace::Narrow, now), u"Waiting"_s);
        // Once the run ends the deadline means nothing.
        r.input->reason = InputReason::ToolOutput;
        r.status = RunStatus::Expired;
        QVERIFY(!answerTimeLeftMs(r, now));
        QCOMPARE(badgeText(r, BadgeSpace::Narrow, now), statusLabel(RunStatus::Expired));
    }
};

QTEST_GUILESS_MAIN(TestRunFormat)
#include "tst_runformat.moc"
