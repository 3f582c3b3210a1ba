// SPDX-License-Identifier: GPL-3.0-or-later
#include "domain/runevent.h"
#include "domain/runreducer.h"

#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

class TestRunReducer final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Every status has a snake_case name that maps back to itself.
    void statusNamesRoundTrip()
    {
        for (int i = int(RunStatus::Unknown); i <= int(Runwatch::kLastRunStatus); ++i) {
            const auto s = RunStatus(i);
            QCOMPARE(statusFromName(statusName(s)), s);
        }
        QCOMPARE(statusName(RunStatus::InProgress), u"in_progress"_s);
        QCOMPARE(statusName(RunStatus::TimedOut), u"timed_out"_s);
        QCOMPARE(statusFromName(u"no_such_status"), RunStatus::Unknown);
    }

    void terminalFlags()
    {
        QVERIFY(isTerminal(RunStatus::Completed));
        QVERIFY(isTerminal(RunStatus::Deleted));
        QVERIFY(!isTerminal(RunStatus::InputRequired));
        QVERIFY(!isTerminal(RunStatus::Cancelling));
        QVERIFY(!isTerminal(RunStatus::Unknown));
        QVERIFY(isFailureLike(RunStatus::TimedOut));
        QVERIFY(!isFailureLike(RunStatus::Cancelled));
    }

    // Events at or below the cursor are dropped, so a replay never duplicates text.
    void duplicatesDropped()
    {
        Run run;
        QVERIFY(!(applyEvent(run, RunEvent::primaryDelta(u"a"_s, 0)) & RunChange::Dropped));
        QVERIFY(!(applyEvent(run, RunEvent::primaryDelta(u"b"_s, 1)) & RunChange::Dropped));
        QVERIFY(applyEvent(run, RunEvent::primaryDelta(u"b"_s, 1)) & RunChange::Dropped);
        QVERIFY(applyEvent(run, RunEvent::primaryDelta(u"a"_s, 0)) & RunChange::Dropped);
        QVERIFY(!(applyEvent(run, RunEvent::primaryDelta(u"c"_s, 2)) & RunChange::Dropped));
        QCOMPARE(run.primaryText, u"abc"_s);
        QCOMPARE(run.token.sequence, 2);
    }

    // A terminal status is never reopened by a late non-terminal one; terminal → terminal is allowed.
    void terminalIsSticky()
    {
        Run run;
        applyEvent(run, RunEvent::statusChange(RunStatus::InProgress, u"in_progress"_s));
        applyEvent(run, RunEvent::statusChange(RunStatus::Cancelled, u"cancelled"_s));
        QVERIFY(run.finishedAt.isValid());
        applyEvent(run, RunEvent::statusChange(RunStatus::InProgress, u"in_progress"_s));
        QCOMPARE(run.status, RunStatus::Cancelled);
        applyEvent(run, RunEvent::statusChange(RunStatus::Completed, u"completed"_s));
        QCOMPARE(run.status, RunStatus::Completed);
    }

    // Our own "cancelling" survives the server still reporting in_progress.
    void cancellingGuard()
    {
        Run run;
        run.status = RunStatus::InProgress;
        applyEvent(run, RunEvent::statusChange(RunStatus::Cancelling, {}));
        applyEvent(run, RunEvent::statusChange(RunStatus::InProgress, u"in_progress"_s));
        QCOMPARE(run.status, RunStatus::Cancelling);
        QCOMPARE(run.rawStatus, u"in_progress"_s);
    }

    // Status changes land on the secondary timeline with a timestamp.
    void statusTimeline()
    {
        Run run;
        const QDateTime t = QDateTime::fromSecsSinceEpoch(1000, Qt::UTC);
        applyEvent(run, RunEvent::statusChange(RunStatus::InProgress, u"in_progress"_s), t);
        QCOMPARE(run.secondary.size(), 1);
        QCOMPARE(run.secondary.first().kind, SecondaryKind::StatusChange);
        QCOMPARE(run.secondary.first().at, t);
    }

    void snapshots_data()
    {
        QTest::addColumn<QString>("have");
        QTest::addColumn<QString>("snapshot");
        QTest::addColumn<bool>("verify");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<int>("reconciliations");
        QTest::addRow("equal") << u"abc"_s << u"abc"_s << true << u"abc"_s << 0;
        QTest::addRow("poll extends") << u"ab"_s << u"abc"_s << false << u"abc"_s << 0;
        QTest::addRow("stream end extends") << u"ab"_s << u"abc"_s << true << u"abc"_s << 1;
        QTest::addRow("diverges") << u"axc"_s << u"abc"_s << false << u"abc"_s << 1;
        QTest::addRow("empty snapshot keeps text") << u"abc"_s << QString() << true << u"abc"_s << 0;
        QTest::addRow("older snapshot keeps text") << u"abcd"_s << u"ab"_s << false << u"abcd"_s << 0;
    }
    void snapshots()
    {
        QFETCH(QString, have);
        QFETCH(QString, snapshot);
        QFETCH(bool, verify);
        QFETCH(QString, expected);
        QFETCH(int, reconciliations);
        Run run;
        run.primaryText = have;
        RunEvent e = RunEvent::primarySnapshot(snapshot);
        e.verify = verify;
        applyEvent(run, e);
        QCOMPARE(run.primaryText, expected);
        QCOMPARE(run.reconciliations, reconciliations);
    }

    // Secondary deltas append to the item with the same id; a snapshot finalises it.
    void secondaryItems()
    {
        Run run;
        applyEvent(run, RunEvent::secondaryDelta(SecondaryKind::Reasoning, u"rs_1"_s, u"Think"_s));
        applyEvent(run, RunEvent::secondaryDelta(SecondaryKind::ToolCall, u"fc_1"_s, u"{\"a\""_s));
        applyEvent(run, RunEvent::secondaryDelta(SecondaryKind::Reasoning, u"rs_1"_s, u"ing"_s));
        QCOMPARE(run.secondary.size(), 2);
        QCOMPARE(run.secondary.at(0).text, u"Thinking"_s);
        applyEvent(run, RunEvent::secondarySnapshot(SecondaryKind::ToolCall, u"fc_1"_s, u"get_weather"_s,
                                                    u"{\"a\":1}"_s));
        QCOMPARE(run.secondary.at(1).text, u"{\"a\":1}"_s);
        QCOMPARE(run.secondary.at(1).title, u"get_weather"_s);
        QVERIFY(run.secondary.at(1).done);
        QVERIFY(run.primaryText.isEmpty());
    }

    // Among many items a delta or snapshot reaches the item of its id wherever it sits (status
    // lines without an id in between), and nothing else.
    void secondaryItemsAmongMany()
    {
        Run run;
        constexpr int kItems = 5000;
        for (int i = 0; i < kItems; ++i) {
            applyEvent(
                run, RunEvent::secondaryDelta(SecondaryKind::ToolCall, u"item-%1"_s.arg(i), u"%1:"_s.arg(i)));
            if (i % 1000 == 999) {
                applyEvent(run, RunEvent::statusChange(
                                    i % 2000 == 999 ? RunStatus::InProgress : RunStatus::Queued, {}));
            }
        }
        const qsizetype size = run.secondary.size();
        QCOMPARE(size, kItems + 5);
        const QList<int> touched{kItems - 1, 0, 2500, 4321, 999};
        for (const int i : touched) {
            applyEvent(run,
                       RunEvent::secondaryDelta(SecondaryKind::ToolCall, u"item-%1"_s.arg(i), u"more"_s));
        }
        applyEvent(run,
                   RunEvent::secondarySnapshot(SecondaryKind::ToolCall, u"item-77"_s, u"tool"_s, u"done"_s));
        QCOMPARE(run.secondary.size(), size);
        int seen = 0;
        for (const SecondaryItem &item : std::as_const(run.secondary)) {
            if (item.id.isEmpty())
                continue;
            const int i = item.id.mid(5).toInt();
            QCOMPARE(item.id, u"item-%1"_s.arg(i));
            const QString text
                = i == 77 ? u"done"_s : u"%1:"_s.arg(i) + (touched.contains(i) ? u"more"_s : QString());
            QCOMPARE(item.text, text);
            QCOMPARE(item.done, i == 77);
            ++seen;
        }
        QCOMPARE(seen, kItems);
    }

    // Two items with one id (a list edited by hand, an old store): the last one is meant, as a
    // scan from the end found it.
    void repeatedIdMeansTheLastItem()
    {
        Run run;
        SecondaryItem item;
        item.id = u"x"_s;
        item.text = u"first"_s;
        run.secondary << item;
        item.id = u"y"_s;
        run.secondary << item;
        item.id = u"x"_s;
        item.text = u"second"_s;
        run.secondary << item;
        applyEvent(run, RunEvent::secondaryDelta(SecondaryKind::Log, u"x"_s, u"+"_s));
        QCOMPARE(run.secondary.at(0).text, u"first"_s);
        QCOMPARE(run.secondary.at(2).text, u"second+"_s);
    }

    // The index lives in the Run: copies (the store's) go their own way, and a list replaced
    // (RunManager::ensureOutputLoaded, a load), shortened or emptied and refilled is found anew.
    void secondaryIndexAfterCopiesAndReloads()
    {
        const auto item = [](const QString &id, const QString &text) {
            SecondaryItem i;
            i.id = id;
            i.text = text;
            return i;
        };
        const auto textOf = [](const Run &run, const QString &id) {
            for (const SecondaryItem &i : run.secondary) {
                if (i.id == id)
                    return i.text;
            }
            return u"(none)"_s;
        };
        const auto delta = [](const QString &id, const QString &text) {
            return RunEvent::secondaryDelta(SecondaryKind::Log, id, text);
        };
        Run run;
        for (const QString &id : {u"a"_s, u"b"_s, u"c"_s})
            applyEvent(run, delta(id, id.toUpper()));
        Run copy = run;
        applyEvent(copy, delta(u"b"_s, u"+copy"_s));
        applyEvent(run, delta(u"c"_s, u"+run"_s));
        applyEvent(copy, delta(u"d"_s, u"D"_s));
        QCOMPARE(textOf(run, u"b"_s), u"B"_s);
        QCOMPARE(textOf(run, u"c"_s), u"C+run"_s);
        QCOMPARE(textOf(copy, u"b"_s), u"B+copy"_s);
        QCOMPARE(textOf(copy, u"c"_s), u"C"_s);
        QCOMPARE(run.secondary.size(), 3);
        QCOMPARE(copy.secondary.size(), 4);

        // Reloaded: as long as before, in another order.
        run.secondary = {item(u"c"_s, u"C"_s), item(u"b"_s, u"B"_s), item(u"a"_s, u"A"_s)};
        applyEvent(run, delta(u"a"_s, u"!"_s));
        QCOMPARE(run.secondary.at(2).text, u"A!"_s);
        QCOMPARE(run.secondary.size(), 3);
        // Shortened.
        run.secondary = {item(u"b"_s, u"B"_s)};
        applyEvent(run, delta(u"b"_s, u"?"_s));
        applyEvent(run, delta(u"a"_s, u"new"_s));
        QCOMPARE(run.secondary.size(), 2);
        QCOMPARE(run.secondary.at(0).text, u"B?"_s);
        QCOMPARE(run.secondary.at(1).text, u"new"_s);
        // Emptied and refilled in the same buffer.
        run.secondary.clear();
        run.secondary << item(u"x"_s, u"X"_s) << item(u"y"_s, u"Y"_s);
        applyEvent(run, delta(u"x"_s, u"1"_s));
        applyEvent(run, delta(u"b"_s, u"2"_s));
        QCOMPARE(run.secondary.size(), 3);
        QCOMPARE(run.secondary.at(0).text, u"X1"_s);
        QCOMPARE(run.secondary.at(2).text, u"2"_s);
        // A Run put together from a loaded list (a fresh index).
        Run loaded;
        loaded.secondary = copy.secondary;
        applyEvent(loaded, delta(u"d"_s, u"+"_s));
        applyEvent(loaded, delta(u"a"_s, u"+"_s));
        QCOMPARE(textOf(loaded, u"d"_s), u"D+"_s);
        QCOMPARE(textOf(loaded, u"a"_s), u"A+"_s);
        QCOMPARE(textOf(copy, u"d"_s), u"D"_s);
        QCOMPARE(loaded.secondary.size(), 4);
    }

    void inputRequiredAndCleared()
    {
        Run run;
        run.status = RunStatus::InProgress;
        InputRequest req;
        req.reason = InputReason::Approval;
        req.prompt = u"Approve?"_s;
        applyEvent(run, RunEvent::inputRequired(req));
        QCOMPARE(run.status, RunStatus::InputRequired);
        QVERIFY(run.input);
        applyEvent(run, RunEvent::statusChange(RunStatus::InProgress, u"running"_s));
        QVERIFY(!run.input);
    }

    // Tokens survive JSON; damaged JSON gives an invalid token instead of a crash.
    void tokenJson()
    {
        ContinuationToken t;
        t.remoteId = u"resp_1"_s;
        t.sequence = 42;
        t.eventId = u"e7"_s;
        t.streamable = true;
        t.extra.insert(u"context_id"_s, u"ctx"_s);
        QCOMPARE(ContinuationToken::fromJson(t.toJson()), t);
        t.previousRemoteIds = {u"resp_0"_s};
        t.textBase = 12;
        QCOMPARE(ContinuationToken::fromJson(t.toJson()), t);
        QJsonObject bad;
        bad.insert(u"remote_id"_s, 17);
        bad.insert(u"sequence"_s, u"x"_s);
        const ContinuationToken b = ContinuationToken::fromJson(bad);
        QVERIFY(!b.isValid());
        QCOMPARE(b.sequence, -1);
    }

    // A run that goes on in a new remote object (OpenAI previous_response_id): the old id joins
    // the chain, the cursor restarts, and the new object's snapshots extend the text so far.
    void continuationKeepsTextAndChain()
    {
        Run run;
        applyEvent(run, RunEvent::identity(u"resp_1"_s, u"m"_s, true, 0));
        applyEvent(run, RunEvent::primaryDelta(u"Let me check. "_s, 5));
        applyEvent(run, RunEvent::statusChange(RunStatus::InputRequired, u"completed"_s, 9));
        QCOMPARE(run.token.sequence, 9);
        RunEvent next = RunEvent::identity(u"resp_2"_s, u"m"_s, false);
        next.continuation = true;
        applyEvent(run, next);
        QCOMPARE(run.remoteId, u"resp_2"_s);
        QCOMPARE(run.token.remoteId, u"resp_2"_s);
        QCOMPARE(run.token.previousRemoteIds, QStringList{u"resp_1"_s});
        QCOMPARE(run.token.sequence, -1);
        QVERIFY(!run.token.streamable);
        QCOMPARE(run.token.textBase, 14);
        applyEvent(run, RunEvent::statusChange(RunStatus::Queued, u"queued"_s));
        QCOMPARE(run.status, RunStatus::Queued);
        // The new response's own sequence numbers start at 0 again.
        QVERIFY(applyEvent(run, RunEvent::primaryDelta(u"It is "_s, 3)) != RunChanges(RunChange::Dropped));
        applyEvent(run, RunEvent::primarySnapshot(u"It is sunny."_s));
        QCOMPARE(run.primaryText, u"Let me check. It is sunny."_s);
        QCOMPARE(run.reconciliations, 0);
        // The same snapshot again, or a shorter one, changes nothing.
        QCOMPARE(applyEvent(run, RunEvent::primarySnapshot(u"It is sunny."_s)), RunChanges());
        applyEvent(run, RunEvent::primarySnapshot(u"It is"_s));
        QCOMPARE(run.primaryText, u"Let me check. It is sunny."_s);
        // An identity that is not marked as a continuation does not start a chain.
        Run other;
        applyEvent(other, RunEvent::identity(u"a"_s, {}, true));
        applyEvent(other, RunEvent::identity(u"b"_s, {}, true));
        QVERIFY(other.token.previousRemoteIds.isEmpty());
    }

    // `status` reads a snapshot (no cursor) while the stream's cursor stays behind it; `watch`
    // then resumes from the cursor and the service replays deltas the snapshot already has: they
    // are matched, not appended again. Where the stream parts ways with the snapshot, it wins.
    void snapshotAheadOfTheCursor()
    {
        Run run;
        applyEvent(run, RunEvent::primaryDelta(u"Once "_s, 1));
        applyEvent(run, RunEvent::primaryDelta(u"upon "_s, 2));
        applyEvent(run, RunEvent::primarySnapshot(u"Once upon a time"_s));
        QCOMPARE(run.token.textAtCursor, 10);
        QCOMPARE(ContinuationToken::fromJson(run.token.toJson()), run.token); // survives a restart
        QCOMPARE(applyEvent(run, RunEvent::primaryDelta(u"a "_s, 3)), RunChanges(RunChange::Cursor));
        applyEvent(run, RunEvent::primaryDelta(u"ti"_s, 4));
        QCOMPARE(run.primaryText, u"Once upon a time"_s);
        applyEvent(run, RunEvent::primaryDelta(u"me, there"_s, 5)); // past the snapshot's end
        QCOMPARE(run.primaryText, u"Once upon a time, there"_s);
        QCOMPARE(run.token.textAtCursor, -1); // at the end again
        applyEvent(run, RunEvent::primaryDelta(u" was"_s, 6));
        QCOMPARE(run.primaryText, u"Once upon a time, there was"_s);
        QCOMPARE(run.reconciliations, 0);

        Run parted;
        applyEvent(parted, RunEvent::primaryDelta(u"Yes"_s, 1));
        applyEvent(parted, RunEvent::primarySnapshot(u"Yes, and more"_s));
        applyEvent(parted, RunEvent::primaryDelta(u", but"_s, 2));
        QCOMPARE(parted.primaryText, u"Yes, but"_s);
        QCOMPARE(parted.reconciliations, 1);
        // Deltas without a cursor (a poll's) are appended as they come.
        Run polled;
        applyEvent(polled, RunEvent::primarySnapshot(u"ab"_s));
        applyEvent(polled, RunEvent::primaryDelta(u"ab"_s));
        QCOMPARE(polled.primaryText, u"abab"_s);
        QCOMPARE(polled.token.textAtCursor, -1);
    }

    // A resumed stream that starts with a snapshot (A2A's SubscribeToTask: the task as it is
    // now) after a poll read the same text: the stream's cursor is at the end of that snapshot,
    // so its next delta is appended. It replaced the whole answer when the cursor stayed where
    // the poll had left it (tst_a2a_cli followUpWorkingTask: "tok0 " lost).
    void streamSnapshotAfterAPollMovesTheCursor()
    {
        Run run;
        run.token.sequence = 1; // started and streamed: the task, no text yet
        applyEvent(run, RunEvent::primarySnapshot(u"tok0 tok1 "_s)); // `status`, `followup`: a read
        QCOMPARE(run.token.textAtCursor, 0);
        RunEvent resumed = RunEvent::primarySnapshot(u"tok0 tok1 "_s);
        resumed.sequence = 2;
        QCOMPARE(applyEvent(run, resumed), RunChanges(RunChange::Cursor));
        QCOMPARE(run.token.textAtCursor, -1);
        applyEvent(run, RunEvent::primaryDelta(u"[noted] "_s, 3));
        QCOMPARE(run.primaryText, u"tok0 tok1 [noted] "_s);
        QCOMPARE(run.reconciliations, 0);

        // A stream's snapshot behind our text: its next deltas are matched from its end.
        Run behind;
        behind.token.sequence = 1;
        applyEvent(behind, RunEvent::primarySnapshot(u"abc def ghi"_s));
        RunEvent older = RunEvent::primarySnapshot(u"abc "_s);
        older.sequence = 2;
        applyEvent(behind, older);
        QCOMPARE(behind.token.textAtCursor, 4);
        applyEvent(behind, RunEvent::primaryDelta(u"def "_s, 3));
        applyEvent(behind, RunEvent::primaryDelta(u"ghi and more"_s, 4));
        QCOMPARE(behind.primaryText, u"abc def ghi and more"_s);
        QCOMPARE(behind.reconciliations, 0);
    }

    void errorText()
    {
        RunError e{ErrorKind::RateLimited, u"rate_limit_exceeded"_s, u"Slow down"_s, true, 429, u"req_1"_s};
        QCOMPARE(e.toString(), u"rate limited (429, rate_limit_exceeded): Slow down [request req_1]"_s);
        QCOMPARE(RunError::fromJson(e.toJson()), e);
    }
};

QTEST_GUILESS_MAIN(TestRunReducer)
#include "tst_runreducer.moc"
