// SPDX-License-Identifier: GPL-3.0-or-later
// SearchQuery::parse: what an operator types into the search box or `list --search`.
#include "domain/searchquery.h"

#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

using Term = SearchQuery::Term;

class TestSearchQuery : public QObject
{
    Q_OBJECT

    const QDateTime m_now = QDateTime(QDate(2026, 11, 29), QTime(12, 0), Qt::UTC);

    SearchQuery parsed(const QString &text)
    {
        QString why;
        const std::optional<SearchQuery> query = SearchQuery::parse(text, m_now, &why);
        if (!query)
            qWarning() << text << why;
        return query.value_or(SearchQuery{});
    }

private Q_SLOTS:
    void wordsPhrasesAndPrefixes()
    {
        const SearchQuery q
            = parsed(u"  timeout \"exact  phrase\" cve-2026-1234 retr* 12:30 \"say \"\"hi\"\"\" "_s);
        QCOMPARE(q.terms, (QList<Term>{{u"timeout"_s, false, false},
                                       {u"exact  phrase"_s, true, false},
                                       {u"cve-2026-1234"_s, false, false},
                                       {u"retr"_s, false, true},
                                       {u"12:30"_s, false, false}, // a colon after digits is text
                                       {u"say \"hi\""_s, true, false}}));
        QVERIFY(q.statuses.isEmpty() && !q.since.isValid());
        QVERIFY(parsed(u"   "_s).isEmpty());
        QVERIFY(parsed(u"\"\""_s).isEmpty());
        // A lone * is a word, not a prefix of nothing; a quoted one is never a prefix.
        QCOMPARE(parsed(u"*"_s).terms, (QList<Term>{{u"*"_s, false, false}}));
        QCOMPARE(parsed(u"\"retr*\""_s).terms, (QList<Term>{{u"retr*"_s, true, false}}));
        // Quoted, a filter's name is text.
        QCOMPARE(parsed(u"\"status:failed\""_s).terms, (QList<Term>{{u"status:failed"_s, true, false}}));
    }

    void filters()
    {
        const SearchQuery q = parsed(
            u"Status:failed,CANCELLED backend:A2A connection:\"Team agents\" model:gpt-5 model:o3 since:7d until:2026-11-28"_s);
        QCOMPARE(q.statuses, (QList<RunStatus>{RunStatus::Failed, RunStatus::Cancelled}));
        QCOMPARE(q.backends, QStringList{u"a2a"_s});
        QCOMPARE(q.connections, QStringList{u"Team agents"_s});
        QCOMPARE(q.models, (QStringList{u"gpt-5"_s, u"o3"_s}));
        QCOMPARE(q.since, m_now.addDays(-7));
        QCOMPARE(q.until, QDateTime(QDate(2026, 11, 28), QTime(0, 0), Qt::UTC));
        QVERIFY(q.terms.isEmpty());
        QVERIFY(!q.isEmpty());
        QCOMPARE(parsed(u"since:30m"_s).since, m_now.addSecs(-30 * 60));
        QCOMPARE(parsed(u"since:24h"_s).since, m_now.addSecs(-24 * 3600));
        QCOMPARE(parsed(u"since:2w"_s).since, m_now.addDays(-14));
        QCOMPARE(parsed(u"since:2026-11-01T08:30:00Z"_s).since,
                 QDateTime(QDate(2026, 11, 1), QTime(8, 30), Qt::UTC));
        QCOMPARE(parsed(u"since:2026-11-01T08:30:00+02:00"_s).since,
                 QDateTime(QDate(2026, 11, 1), QTime(6, 30), Qt::UTC));
        QCOMPARE(parsed(u"status:input_required"_s).statuses, QList<RunStatus>{RunStatus::InputRequired});
    }

    void refusals_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("unknown filter") << u"foo:bar"_s << u"\"foo:bar\""_s;
        QTest::newRow("url") << u"https://example.com"_s << u"Unknown filter \"https:\""_s;
        QTest::newRow("unknown status") << u"status:broken"_s << u"broken"_s;
        QTest::newRow("bad time") << u"since:yesterday"_s << u"yesterday"_s;
        QTest::newRow("bad date") << u"until:2026-13-45"_s << u"2026-13-45"_s;
        QTest::newRow("no value") << u"since:"_s << u"since:7d"_s;
        QTest::newRow("unclosed quote") << u"alpha \"beta gamma"_s << u"\"beta gamma"_s;
    }

    void refusals()
    {
        QFETCH(QString, text);
        QFETCH(QString, says);
        QString why;
        QVERIFY(!SearchQuery::parse(text, m_now, &why));
        QVERIFY2(why.contains(says), qPrintable(why));
    }
};

QTEST_GUILESS_MAIN(TestSearchQuery)
#include "tst_searchquery.moc"
