// SPDX-License-Identifier: GPL-3.0-or-later
// The progress and ETA rule (core/models/runprogress): which progress item counts, the ETA from
// the observed rate, from the service's estimate, and both blended by the fraction done.
#include "domain/runprogress.h"
#include "models/runformat.h"

#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {
const QDateTime kStart = QDateTime(QDate(2026, 11, 25), QTime(9, 0), Qt::UTC);

Run liveRun()
{
    Run run;
    run.localId = u"r1"_s;
    run.status = RunStatus::InProgress;
    run.createdAt = kStart;
    return run;
}

void addProgress(Run &run, const QString &text, const QString &id = u"progress"_s)
{
    SecondaryItem item;
    item.id = id;
    item.kind = SecondaryKind::Progress;
    item.title = u"progress"_s;
    item.text = text;
    run.secondary.append(item);
}
} // namespace

class TestRunProgress final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fractionFromTheNewestPercentage()
    {
        Run run = liveRun();
        QVERIFY(!reportedProgress(run));
        QVERIFY(!runProgress(run, kStart.addSecs(10)));
        SecondaryItem log;
        log.kind = SecondaryKind::Log;
        log.text = u"50% of nothing"_s; // a log line is not progress
        run.secondary.append(log);
        QVERIFY(!reportedProgress(run));
        addProgress(run, u"25%"_s, u"p1"_s);
        QCOMPARE(*reportedProgress(run), 0.25);
        addProgress(run, u"40% copying shards"_s, u"p2"_s);
        QCOMPARE(*reportedProgress(run), 0.40);
        // A message without a percentage leaves the last fraction standing.
        addProgress(run, u"warming caches"_s, u"p3"_s);
        QCOMPARE(*reportedProgress(run), 0.40);
        addProgress(run, u"%"_s, u"p4"_s);
        addProgress(run, u"12345% nonsense"_s, u"p5"_s);
        QCOMPARE(*reportedProgress(run), 0.40);
        addProgress(run, u"100%"_s, u"p6"_s);
        QCOMPARE(*reportedProgress(run), 1.0);
        // Finished runs show no bar.
        run.status = RunStatus::Completed;
        QVERIFY(!runProgress(run, kStart.addSecs(10)));
    }

    void etaFromTheRate()
    {
        Run run = liveRun();
        addProgress(run, u"25%"_s);
        // 25 % in 60 s: 180 s left.
        const QDateTime now = kStart.addSecs(60);
        const auto p = runProgress(run, now);
        QVERIFY(p);
        QCOMPARE(p->fraction, 0.25);
        QCOMPARE(now.secsTo(p->eta), 180);
        QCOMPARE(formatEta(p->eta, now), u"about 3 m 00 s left"_s);
        // No progress yet and no estimate: no guess.
        Run none = liveRun();
        addProgress(none, u"0%"_s);
        const auto q = runProgress(none, now);
        QVERIFY(q);
        QVERIFY(!q->eta.isValid());
        QVERIFY(formatEta(q->eta, now).isEmpty());
    }

    // A run waiting for input keeps its bar but gives no ETA: waiting is not progress (the demo's
    // jobs at 50 % said "about 7 s left" for as long as they waited for an answer).
    void noEtaWhileWaiting()
    {
        Run run = liveRun();
        addProgress(run, u"50%"_s);
        run.status = RunStatus::InputRequired;
        const QDateTime now = kStart.addSecs(60);
        const auto p = runProgress(run, now);
        QVERIFY(p);
        QCOMPARE(p->fraction, 0.5);
        QVERIFY(!p->eta.isValid());
        QVERIFY(formatEta(p->eta, now).isEmpty());
        // Working again: the rate gives one.
        run.status = RunStatus::InProgress;
        QVERIFY(runProgress(run, now)->eta.isValid());
    }

    void etaFromTheEstimateAndBlended()
    {
        Run run = liveRun();
        run.token.extra.insert(QLatin1StringView(kEstimatedDurationKey), 100);
        QCOMPARE(*estimatedDurationMs(run), 100000);
        addProgress(run, u"0%"_s);
        // Nothing done yet: the estimate alone (100 s − 40 s elapsed).
        auto p = runProgress(run, kStart.addSecs(40));
        QCOMPARE(kStart.addSecs(40).secsTo(p->eta), 60);
        // 50 % after 40 s: the rate says 40 s left, the estimate 60 s; half each.
        addProgress(run, u"50%"_s, u"p2"_s);
        p = runProgress(run, kStart.addSecs(40));
        QCOMPARE(kStart.addSecs(40).secsTo(p->eta), 50);
        // Past the estimate: the estimate says 0, the rate decides the rest.
        p = runProgress(run, kStart.addSecs(200));
        QCOMPARE(kStart.addSecs(200).secsTo(p->eta), 100);
        QCOMPARE(formatEta(kStart, kStart.addSecs(1)), u"finishing"_s);
        // Not an estimate: text, negative, absurd.
        for (const QJsonValue &bad : {QJsonValue(u"90"_s), QJsonValue(-5), QJsonValue(1e12)}) {
            run.token.extra.insert(QLatin1StringView(kEstimatedDurationKey), bad);
            QVERIFY(!estimatedDurationMs(run));
        }
    }
};

QTEST_GUILESS_MAIN(TestRunProgress)
#include "tst_runprogress.moc"
