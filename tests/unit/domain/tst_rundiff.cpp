// SPDX-License-Identifier: GPL-3.0-or-later
// runDifferences(): a run read again from a shared store is told to the views as what changed —
// a grown answer is text, not a status change that redraws the whole row.
#include "domain/rundiff.h"

#include <QTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {
Run liveRun()
{
    Run run;
    run.localId = u"run1"_s;
    run.connection = u"team"_s;
    run.backend = u"openai"_s;
    run.remoteId = u"resp_1"_s;
    run.title = u"Research"_s;
    run.prompt = u"Research the topic"_s;
    run.status = RunStatus::InProgress;
    run.rawStatus = u"in_progress"_s;
    run.createdAt = QDateTime::fromMSecsSinceEpoch(1700000000000, Qt::UTC);
    run.updatedAt = run.createdAt.addSecs(1);
    run.primaryText = RunText(u"The answer"_s);
    run.token.sequence = 4;
    return run;
}
} // namespace

class TestRunDiff final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void nothingChanged()
    {
        const Run held = liveRun();
        Run read = held;
        QCOMPARE(runDifferences(held, read), RunChanges());
        // Equal values in other buffers (read from the database) are no change either.
        read.title = QString::fromLatin1("Research"); // a buffer of its own
        read.primaryText = RunText(u"The answer"_s);
        QCOMPARE(runDifferences(held, read), RunChanges());
    }

    // The usual case: a colleague's stream moved the answer on, with its cursor and its time.
    void grownAnswerIsText()
    {
        const Run held = liveRun();
        Run read = held;
        read.primaryText += u" grows";
        read.token.sequence = 9;
        read.updatedAt = held.updatedAt.addSecs(2);
        QCOMPARE(runDifferences(held, read), RunChanges(RunChange::Primary) | RunChange::Cursor);
        SecondaryItem item;
        item.id = u"rs_1"_s;
        item.kind = SecondaryKind::Reasoning;
        item.text = u"thinking"_s;
        read.secondary << item;
        QCOMPARE(runDifferences(held, read),
                 RunChanges(RunChange::Primary) | RunChange::Secondary | RunChange::Cursor);
    }

    void eachKindOfChange_data()
    {
        QTest::addColumn<int>("field");
        QTest::addColumn<RunChanges>("expected");
        QTest::newRow("status") << 0 << RunChanges(RunChange::Status);
        QTest::newRow("title") << 1 << RunChanges(RunChange::Status);
        QTest::newRow("usage") << 2 << RunChanges(RunChange::Usage);
        QTest::newRow("deadline") << 3 << RunChanges(RunChange::Deadline);
        QTest::newRow("error") << 4 << RunChanges(RunChange::Error);
        QTest::newRow("input") << 5 << RunChanges(RunChange::Input);
        // The time of the last activity moved on its own: the row's activity cell is news.
        QTest::newRow("updated alone") << 6 << RunChanges(RunChange::Status);
        QTest::newRow("finished") << 7 << RunChanges(RunChange::Status);
        // The server's text replaced ours (same length): text, whatever its size.
        QTest::newRow("text replaced") << 8 << RunChanges(RunChange::Primary);
    }
    void eachKindOfChange()
    {
        QFETCH(int, field);
        QFETCH(RunChanges, expected);
        const Run held = liveRun();
        Run read = held;
        switch (field) {
        case 0:
            read.status = RunStatus::Completed;
            break;
        case 1:
            read.title = u"Renamed"_s;
            break;
        case 2:
            read.usage.inputTokens = 12;
            break;
        case 3:
            read.deadlineAt = held.createdAt.addSecs(3600);
            break;
        case 4:
            read.error = RunError::protocol(u"bad"_s, u"Bad event"_s);
            break;
        case 5:
            read.input = InputRequest{};
            break;
        case 6:
            read.updatedAt = held.updatedAt.addSecs(5);
            break;
        case 7:
            read.finishedAt = held.updatedAt;
            break;
        case 8:
            read.primaryText = RunText(u"An answer"_s.leftJustified(held.primaryText.size(), u'!'));
            break;
        default:
            QFAIL("no such field");
        }
        QCOMPARE(runDifferences(held, read), expected);
    }
};

QTEST_GUILESS_MAIN(TestRunDiff)
#include "tst_rundiff.moc"
