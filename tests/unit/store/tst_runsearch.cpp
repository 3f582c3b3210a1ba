// SPDX-License-Identifier: GPL-3.0-or-later
// The store's full-text search (schema 7: search_docs, search_fts and their triggers) on a real
// SQLite file: every answer is checked against a brute-force scan of the same runs, read back
// whole, with FTS5's own idea of a word (unicode61: letters and digits, case and diacritics
// folded). Answers arrive in pieces cut anywhere, as a stream writes them, so words and phrases
// straddle the pieces' seams.
#include "store/runstore.h"
#include "teststore.h"

#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

const QStringList kWords{u"alpha"_s,  u"beta"_s,     u"gamma"_s,  u"delta"_s,  u"timeout"_s, u"cve"_s,
                         u"2026"_s,   u"1234"_s,     u"kitten"_s, u"kit"_s,    u"catalog"_s, u"cat"_s,
                         u"café"_s,   u"résumé"_s,   u"naïve"_s,  u"Zürich"_s, u"retry"_s,   u"retries"_s,
                         u"deploy"_s, u"rollback"_s, u"x"_s,      u"42"_s};
const QStringList kSeparators{u" "_s, u" "_s, u" "_s, u"\n"_s, u", "_s, u"-"_s, u". "_s};

// FTS5's unicode61 with remove_diacritics 2: tokens are runs of letters and digits, folded.
QStringList tokens(const QString &text)
{
    QStringList out;
    QString word;
    const auto flush = [&] {
        if (word.isEmpty())
            return;
        QString folded;
        for (const QChar c : word.normalized(QString::NormalizationForm_D)) {
            if (c.category() != QChar::Mark_NonSpacing)
                folded += c.toLower();
        }
        out << folded;
        word.clear();
    };
    for (const QChar c : text) {
        if (c.isLetterOrNumber()) {
            word += c;
        } else {
            flush();
        }
    }
    flush();
    return out;
}

// Whether `phrase` (its tokens in order) occurs in `text`; `prefix`: its last token may be the
// start of one.
bool contains(const QStringList &text, const QStringList &phrase, bool prefix)
{
    if (phrase.isEmpty())
        return false;
    for (qsizetype i = 0; i + phrase.size() <= text.size(); ++i) {
        bool all = true;
        for (qsizetype j = 0; j < phrase.size() && all; ++j) {
            const bool last = j == phrase.size() - 1;
            all = prefix && last ? text.at(i + j).startsWith(phrase.at(j)) : text.at(i + j) == phrase.at(j);
        }
        if (all)
            return true;
    }
    return false;
}

// A run's searchable parts, as the index has them: its title, prompt and error (one part, so a
// phrase may run from one into the next); its answer; each item but status changes.
QList<QStringList> partsOf(const Run &run)
{
    // A prompt that is the title is said once.
    const QString prompt = run.prompt == run.title ? QString() : run.prompt;
    QList<QStringList> parts{
        tokens(run.title + u'\n' + prompt + u'\n' + run.error.message + u' ' + run.error.code),
        tokens(run.primaryText.toString())};
    for (const SecondaryItem &item : run.secondary) {
        if (item.kind != SecondaryKind::StatusChange)
            parts << tokens(item.title + u'\n' + item.text);
    }
    return parts;
}

bool matches(const Run &run, const SearchQuery &query)
{
    if (!query.statuses.isEmpty() && !query.statuses.contains(run.status))
        return false;
    if (!query.backends.isEmpty() && !query.backends.contains(run.backend.toLower()))
        return false;
    if (query.since.isValid() && run.createdAt < query.since)
        return false;
    if (query.until.isValid() && run.createdAt >= query.until)
        return false;
    const QList<QStringList> parts = partsOf(run);
    for (const SearchQuery::Term &term : query.terms) {
        const QStringList phrase = tokens(term.text);
        if (std::none_of(parts.cbegin(), parts.cend(),
                         [&](const QStringList &part) { return contains(part, phrase, term.prefix); }))
            return false;
    }
    return true;
}

QString words(QRandomGenerator &random, int count)
{
    QString text;
    for (int i = 0; i < count; ++i) {
        if (i > 0)
            text += kSeparators.at(random.bounded(int(kSeparators.size())));
        QString word = kWords.at(random.bounded(int(kWords.size())));
        if (random.bounded(5) == 0)
            word = word.toUpper();
        text += word;
    }
    return text;
}

// Two RunStores on one file stand for the app and the CLI: either one's writes are indexed.
struct Process
{
    RunStore store;
    QHash<QString, Run> runs;

    bool open(const QString &path)
    {
        store.setFlushInterval(0);
        if (!store.open(path))
            return false;
        store.setRunSource([this](const QString &id) -> Run * {
            const auto it = runs.find(id);
            return it == runs.end() ? nullptr : &*it;
        });
        return true;
    }
    void save(const QString &id)
    {
        store.scheduleSave(id, runs.value(id).status);
        store.flush();
    }
    ~Process() { store.flush(); }
};

QStringList idsOf(const std::optional<QList<SearchHit>> &hits)
{
    QStringList ids;
    for (const SearchHit &hit : hits.value_or(QList<SearchHit>{}))
        ids << hit.localId;
    return ids;
}

// The index agrees with the runs: FTS5's own check (rank 1: against the content table) and the
// number of documents on SQLite; on PostgreSQL (no index of words) the order table has a row for
// each run and none for a run that is gone.
bool indexIntact(const QString &location, int *documents)
{
    RunwatchTest::RawStore raw(location);
    if (RunwatchTest::onPostgres()) {
        const QVariant orphans = raw.value(
            u"SELECT count(*) FROM search_runs s WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.local_id = "
            "s.local_id) OR (SELECT count(*) FROM runs) != (SELECT count(*) FROM search_runs)"_s);
        *documents = raw.value(u"SELECT count(*) FROM search_runs"_s).toInt();
        return orphans.isValid() && orphans.toInt() == 0;
    }
    const bool ok = raw.exec(u"INSERT INTO search_fts(search_fts, rank) VALUES ('integrity-check', 1)"_s);
    const QVariant count = raw.value(u"SELECT count(*) FROM search_docs"_s);
    *documents = ok && count.isValid() ? count.toInt() : -1;
    return ok && count.isValid();
}

} // namespace

class TestRunSearch : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_path;
    const QDateTime m_now = QDateTime(QDate(2026, 11, 29), QTime(12, 0), Qt::UTC);

    SearchQuery parse(const QString &text)
    {
        QString why;
        const std::optional<SearchQuery> query = SearchQuery::parse(text, m_now, &why);
        if (!query)
            qWarning() << "cannot parse" << text << why;
        return query.value_or(SearchQuery{});
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_path = RunwatchTest::freshStore(m_dir,
                                          u"runs-%1"_s.arg(QLatin1StringView(QTest::currentTestFunction())));
        QVERIFY(!m_path.isEmpty());
    }

    // Random runs, streamed in random pieces, against random queries: the index finds exactly the
    // runs a scan of their whole text finds.
    void matchesBruteForce()
    {
        // A failure names its seed; RUNWATCH_TEST_SEED repeats it.
        const quint32 seed = qEnvironmentVariableIsSet("RUNWATCH_TEST_SEED")
                                 ? quint32(qEnvironmentVariableIntValue("RUNWATCH_TEST_SEED"))
                                 : QRandomGenerator::global()->generate();
        qInfo() << "seed" << seed;
        QRandomGenerator random(seed);
        Process p;
        QVERIFY(p.open(m_path));
        const QStringList backends{u"openai"_s, u"a2a"_s, u"jobs"_s};
        const QList<RunStatus> statuses{RunStatus::Completed, RunStatus::Failed, RunStatus::InProgress};
        for (int r = 0; r < 30; ++r) {
            Run run;
            run.localId = u"run%1"_s.arg(r, 3, 10, QChar(u'0'));
            run.connection = u"local"_s;
            run.backend = backends.at(random.bounded(3));
            run.status = statuses.at(random.bounded(3));
            run.createdAt = m_now.addSecs(-qint64(random.bounded(30 * 24 * 3600)));
            run.updatedAt = run.createdAt;
            run.prompt = words(random, 3 + random.bounded(8));
            run.title = random.bounded(2) ? run.prompt : Run::summarize(run.prompt, 20);
            if (run.status == RunStatus::Failed)
                run.error = RunError::protocol(u"server_error"_s, words(random, 4));
            p.runs.insert(run.localId, run);
            p.save(run.localId);
            // The answer in pieces of 1 to 80 characters, cut anywhere, each saved as it came.
            const QString answer = words(random, 20 + random.bounded(120));
            for (qsizetype at = 0; at < answer.size();) {
                const qsizetype n = std::min<qsizetype>(1 + random.bounded(80), answer.size() - at);
                p.runs[run.localId].primaryText += answer.mid(at, n);
                at += n;
                if (random.bounded(3) == 0 && p.runs[run.localId].secondary.size() < 6) {
                    SecondaryItem item;
                    item.id = u"item%1"_s.arg(p.runs[run.localId].secondary.size());
                    item.kind
                        = random.bounded(4) == 0 ? SecondaryKind::StatusChange : SecondaryKind::ToolCall;
                    item.title = kWords.at(random.bounded(int(kWords.size())));
                    item.text = words(random, 1 + random.bounded(6));
                    p.runs[run.localId].secondary << item;
                }
                p.save(run.localId);
            }
        }
        RunStore reader; // another process reads what this one wrote
        QVERIFY(reader.open(m_path));
        QList<Run> all;
        for (const QString &id : p.runs.keys())
            all << *reader.loadRun(id);
        QCOMPARE(all.size(), 30);

        int nonEmpty = 0;
        for (int q = 0; q < 400; ++q) {
            QString text;
            const int kind = random.bounded(4);
            if (kind == 0) { // a phrase somebody saw in an answer
                const Run &run = all.at(random.bounded(int(all.size())));
                const QStringList t = tokens(run.primaryText.toString());
                const qsizetype at = random.bounded(int(t.size() - 1));
                text = u"\"%1 %2\""_s.arg(t.at(at), t.at(at + 1));
            } else if (kind == 1) { // a word's start
                const QString word = kWords.at(random.bounded(int(kWords.size())));
                text = word.left(std::max<qsizetype>(1, word.size() - 2)) + u'*';
            } else { // one or two words
                text = kWords.at(random.bounded(int(kWords.size())));
                if (kind == 3)
                    text += u' ' + kWords.at(random.bounded(int(kWords.size())));
            }
            if (random.bounded(4) == 0)
                text += u" status:"_s + statusName(statuses.at(random.bounded(3)));
            if (random.bounded(4) == 0)
                text += u" backend:"_s + backends.at(random.bounded(3));
            if (random.bounded(4) == 0)
                text += u" since:%1d"_s.arg(1 + random.bounded(30));
            const SearchQuery query = parse(text);
            QStringList expected;
            for (const Run &run : std::as_const(all)) {
                if (matches(run, query))
                    expected << run.localId;
            }
            QStringList found = idsOf(reader.search(query));
            std::sort(expected.begin(), expected.end());
            std::sort(found.begin(), found.end());
            if (found != expected) {
                qWarning() << "query" << text << "found" << found << "expected" << expected;
                if (qEnvironmentVariableIsSet("RUNWATCH_TEST_KEEP"))
                    QFile::copy(m_path, u"/tmp/runsearch-failed.sqlite"_s);
            }
            QCOMPARE(found, expected);
            nonEmpty += expected.isEmpty() ? 0 : 1;
        }
        int documents = 0;
        QVERIFY(indexIntact(m_path, &documents));
        // SQLite: several documents a run (its parts, its pieces); PostgreSQL: one row a run.
        QVERIFY2(RunwatchTest::onPostgres() ? documents == 30 : documents > 30,
                 qPrintable(QString::number(documents)));
        // The queries found something most of the time: the comparison was not of empty lists.
        QVERIFY2(nonEmpty > 150, qPrintable(QString::number(nonEmpty)));
    }

    // Newest first; a limit; the snippet marks the words.
    void orderLimitAndSnippet()
    {
        Process p;
        QVERIFY(p.open(m_path));
        for (int i = 0; i < 5; ++i) {
            Run run;
            run.localId = u"r%1"_s.arg(i);
            run.backend = u"openai"_s;
            run.status = RunStatus::Completed;
            run.createdAt = m_now.addSecs(-3600 * (5 - i));
            run.title = u"Run %1"_s.arg(i);
            run.prompt = run.title;
            run.primaryText
                = u"The deploy of build %1 hit CVE-2026-1234 in the parser and was rolled back."_s.arg(i);
            p.runs.insert(run.localId, run);
            p.save(run.localId);
        }
        const std::optional<QList<SearchHit>> hits = p.store.search(parse(u"cve-2026-1234"_s), 3, 2);
        QVERIFY(hits);
        QCOMPARE(idsOf(hits), (QStringList{u"r4"_s, u"r3"_s, u"r2"_s}));
        QVERIFY2(hits->at(0).snippet.contains(u"[CVE]-[2026]-[1234]"_s)
                     || hits->at(0).snippet.contains(u"[CVE-2026-1234]"_s),
                 qPrintable(hits->at(0).snippet));
        QVERIFY(!hits->at(1).snippet.isEmpty());
        QVERIFY(hits->at(2).snippet.isEmpty()); // only the first two got one
        // A filter alone needs no text.
        QCOMPARE(idsOf(p.store.search(parse(u"status:completed until:2026-11-29T09:30:00Z"_s))),
                 (QStringList{u"r2"_s, u"r1"_s, u"r0"_s}));
        // Punctuation alone is no word: the filter still applies, nothing fails.
        QCOMPARE(idsOf(p.store.search(parse(u"\"--\" since:150m"_s))), (QStringList{u"r4"_s, u"r3"_s}));
    }

    // The index follows every change: a replaced answer, trimmed items, a new error, a deleted run,
    // a prune, another process's writes.
    void followsEveryWrite()
    {
        Process p;
        QVERIFY(p.open(m_path));
        Run run;
        run.localId = u"r1"_s;
        run.backend = u"a2a"_s;
        run.status = RunStatus::InProgress;
        run.createdAt = m_now;
        run.title = u"Nightly"_s;
        run.prompt = run.title;
        run.primaryText = u"first draft mentions walrus"_s;
        run.secondary << SecondaryItem{
            u"i1"_s, SecondaryKind::ToolCall, u"search"_s, u"looked up narwhal"_s, m_now, true};
        p.runs.insert(run.localId, run);
        p.save(run.localId);
        const auto found = [&](const QString &text) { return idsOf(p.store.search(parse(text))); };
        QCOMPARE(found(u"walrus"_s), QStringList{u"r1"_s});
        QCOMPARE(found(u"narwhal"_s), QStringList{u"r1"_s});

        p.runs[u"r1"_s].primaryText = u"a new answer about dolphins"_s; // a snapshot that disagreed
        p.runs[u"r1"_s].secondary.clear();
        p.runs[u"r1"_s].status = RunStatus::Failed;
        p.runs[u"r1"_s].error = RunError::protocol(u"quota_exceeded"_s, u"Ran out of krill"_s);
        p.save(u"r1"_s);
        QCOMPARE(found(u"walrus"_s), QStringList{});
        QCOMPARE(found(u"narwhal"_s), QStringList{});
        QCOMPARE(found(u"dolphins krill"_s), QStringList{u"r1"_s});
        QCOMPARE(found(u"quota_exceeded"_s), QStringList{u"r1"_s});

        // Another process's run, then its deletion, seen from here.
        {
            Process other;
            QVERIFY(other.open(m_path));
            Run theirs = run;
            theirs.localId = u"r2"_s;
            theirs.primaryText = u"their answer on dolphins"_s;
            other.runs.insert(theirs.localId, theirs);
            other.save(theirs.localId);
        }
        QCOMPARE(found(u"dolphins"_s), (QStringList{u"r2"_s, u"r1"_s}));
        QVERIFY(p.store.removeRun(u"r2"_s));
        QCOMPARE(found(u"dolphins"_s), QStringList{u"r1"_s});
        p.runs[u"r1"_s].finishedAt = m_now.addDays(-40);
        p.save(u"r1"_s);
        QCOMPARE(p.store.removeFinishedBefore(m_now.addDays(-30)), 1);
        QCOMPARE(found(u"dolphins"_s), QStringList{});
        // Nothing left over in the index.
        int documents = -1;
        QVERIFY(indexIntact(m_path, &documents));
        QCOMPARE(documents, 0);
    }

    // A store written before the index (schema 6) is indexed when it opens.
    void olderStoreIsIndexed()
    {
        {
            Process p;
            QVERIFY(p.open(m_path));
            Run run;
            run.localId = u"old1"_s;
            run.backend = u"jobs"_s;
            run.status = RunStatus::Completed;
            run.createdAt = m_now;
            run.title = u"Old"_s;
            run.prompt = u"Old"_s;
            run.primaryText = u"an answer from a year ago about zebras"_s;
            p.runs.insert(run.localId, run);
            p.save(run.localId);
            p.runs[u"old1"_s].primaryText += u" and giraffes"_s;
            p.save(u"old1"_s);
        }
        {
            // Back to schema 6: what an older Runwatch left.
            RunwatchTest::RawStore raw(m_path);
            const QStringList statements
                = RunwatchTest::onPostgres()
                      ? QStringList{u"DROP TRIGGER runs_search_runs ON runs"_s,
                                    u"DROP TRIGGER runs_notify ON runs"_s,
                                    u"DROP TRIGGER run_text_notify ON run_text"_s,
                                    u"DROP TRIGGER run_items_notify ON run_items"_s,
                                    u"DROP TABLE search_runs"_s,
                                    u"UPDATE runwatch_schema SET version = 6"_s}
                      : QStringList{
                          u"DROP TRIGGER runs_search_ai"_s,      u"DROP TRIGGER runs_search_au"_s,
                          u"DROP TRIGGER runs_search_ad"_s,      u"DROP TRIGGER run_text_search_ai"_s,
                          u"DROP TRIGGER run_text_search_ad"_s,  u"DROP TRIGGER run_items_search_ai"_s,
                          u"DROP TRIGGER run_items_search_ad"_s, u"DROP TABLE search_fts"_s,
                          u"DROP TABLE search_docs"_s,           u"DROP TABLE search_runs"_s,
                          u"PRAGMA user_version = 6"_s};
            for (const QString &sql : statements)
                QVERIFY2(raw.exec(sql), qPrintable(raw.error()));
        }
        RunStore store;
        QVERIFY(store.open(m_path));
        QCOMPARE(idsOf(store.search(parse(u"zebras giraffes"_s))), QStringList{u"old1"_s});
        QCOMPARE(idsOf(store.search(parse(u"old"_s))), QStringList{u"old1"_s});
    }
};

QTEST_GUILESS_MAIN(TestRunSearch)
#include "tst_runsearch.moc"
