// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline shows the run's operator journal (who gave which command, when) after its items;
// items that arrive later go before the journal, and a new journal replaces the old rows.
#include "timelineview.h"

#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {
SecondaryItem item(const QString &id, const QString &text)
{
    SecondaryItem s;
    s.id = id;
    s.kind = SecondaryKind::ToolCall;
    s.title = u"tool"_s;
    s.text = text;
    s.done = true;
    s.at = QDateTime::fromSecsSinceEpoch(1700000000, Qt::UTC);
    return s;
}

RunStore::JournalEntry entry(const QString &who, const QString &action, const QString &detail)
{
    return {.at = QDateTime::fromSecsSinceEpoch(1700000100, Qt::UTC),
            .operatorName = who,
            .host = u"ws1"_s,
            .action = action,
            .detail = detail};
}
} // namespace

class TestTimelineView final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void journalAfterItems()
    {
        TimelineView view;
        Run run;
        run.localId = u"run1"_s;
        run.secondary = {item(u"a"_s, u"one"_s), item(u"b"_s, u"two"_s)};
        view.showRun(&run);
        view.setJournal({entry(u"carol"_s, u"respond"_s, u"12C"_s), entry(u"dora"_s, u"cancel"_s, {})});
        QCOMPARE(view.topLevelItemCount(), 4);
        QCOMPARE(view.topLevelItem(2)->text(1), u"Operator"_s);
        QCOMPARE(view.topLevelItem(2)->text(2), u"carol@ws1: respond (12C)"_s);
        QCOMPARE(view.topLevelItem(3)->text(2), u"dora@ws1: cancel"_s);
        // A new item goes before the journal.
        run.secondary.append(item(u"c"_s, u"three"_s));
        view.showRun(&run);
        QCOMPARE(view.topLevelItemCount(), 5);
        QCOMPARE(view.topLevelItem(2)->text(2), u"tool: three"_s);
        QCOMPARE(view.topLevelItem(4)->text(2), u"dora@ws1: cancel"_s);
        // Replaced, not added to.
        view.setJournal({entry(u"erin"_s, u"deadline"_s, u"2030-01-01T00:00:00Z"_s)});
        QCOMPARE(view.topLevelItemCount(), 4);
        QCOMPARE(view.topLevelItem(3)->text(2), u"erin@ws1: deadline (2030-01-01T00:00:00Z)"_s);
        // Another run: its own items, no journal until it is read for it.
        Run other;
        other.localId = u"run2"_s;
        other.secondary = {item(u"x"_s, u"x"_s)};
        view.showRun(&other);
        QCOMPARE(view.topLevelItemCount(), 1);
    }
};

QTEST_MAIN(TestTimelineView)
#include "tst_timelineview.moc"
