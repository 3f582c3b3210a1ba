// SPDX-License-Identifier: GPL-3.0-or-later
// RunStore's full-text search: the index (schema 7) and the query.
//
// What is searched lives in search_docs, one row per part of a run: `meta` (title, prompt, the
// error), `t<pos>` (a piece of the answer as run_text holds it) and `i<idx>` (a secondary item: its
// title and text; status changes left out). search_fts indexes those rows (FTS5, external content:
// the text is kept once for the index and its snippets). Triggers on runs, run_text and run_items
// keep search_docs in step inside the writing transaction, whoever writes: this process's writer
// thread, the CLI, a second app on the same file, retention's prune. Nothing in C++ has to remember
// to index, and a crash cannot leave the index behind the runs.
//
// A document's id says whose it is: search_runs numbers the runs in the order they were stored
// (n), and a run's documents take the ids n * 2^32 + 1, + 2, … So every document of a run sits in
// one range of ids, and FTS5, which walks its matches in id order, hands them over newest run
// first, run by run: a search for a word in most runs reads the matches of the newest few hundred
// runs and stops, instead of collecting every match and sorting (1 s for 100,000 runs), and asking
// whether another word occurs in a run is a search within its range of ids.
//
// The answer is stored in the pieces it streamed in, and a word can straddle two pieces: each
// piece is indexed with the last kOverlap characters of the one before, so a word or phrase up to
// that long is found across the seam.
#include "store/runstore.h"
#include "store/runwrites.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include <algorithm>
#include <limits>

using namespace Qt::StringLiterals;

Q_DECLARE_LOGGING_CATEGORY(lcStore)

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "RunStore".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(RunStore)
};

constexpr int kOverlap = 40;

// The `meta` part of a runs row (NEW or a table alias): title, prompt and the error's message and
// code. `error` holds JSON or '' (no error): json_extract() of '' would fail the write.
QString metaBody(const QString &row)
{
    // The title is usually the prompt (or its start): said once, a snippet does not repeat it.
    return u"coalesce(%1.title, '') || char(10) || CASE WHEN %1.prompt = %1.title THEN '' ELSE "
           "coalesce(%1.prompt, '') END || char(10) || "
           "CASE WHEN json_valid(%1.error) THEN coalesce(json_extract(%1.error, '$.message'), '') || ' ' || "
           "coalesce(json_extract(%1.error, '$.code'), '') ELSE '' END"_s.arg(row);
}

// The last kOverlap characters of the answer before a run_text row (NEW or an alias): the tails
// of the pieces before it, newest kOverlap at most (no piece is empty, so no more can reach into
// the window), in order. The inner LIMIT keeps it a short walk of the primary key, not a scan of
// every piece before.
QString textBefore(const QString &row)
{
    return u"(SELECT substr(group_concat(tail, ''), -%2) FROM (SELECT tail FROM (SELECT p.pos, "
           u"substr(p.text, -%2) "
           "AS tail FROM run_text p WHERE p.local_id = %1.local_id AND p.pos < %1.pos ORDER BY p.pos DESC "
           "LIMIT %2) ORDER BY pos))"_s.arg(row)
               .arg(kOverlap);
}

// A run_text row's document: the overlap, then the piece. A window that does not reach back to the
// start of the answer starts with its first whole word: a word cut at the window's start would be
// one the run never said.
QString textBody(const QString &row)
{
    const QString before
        = u"replace(replace(replace(coalesce(%1, ''), char(10), ' '), char(13), ' '), char(9), ' ')"_s.arg(
            textBefore(row));
    return u"CASE WHEN length(%1) < %3 THEN %1 WHEN instr(%1, ' ') = 0 THEN '' "
           "ELSE substr(%1, instr(%1, ' ') + 1) END || %2.text"_s.arg(before, row)
               .arg(kOverlap);
}

// The characters a word is cut in, when a piece ends inside one: unicode61 makes tokens of letters
// and digits. Only ASCII can be listed here; a piece cut right after a non-ASCII letter keeps a
// fragment (a search could find "naï" in a run that said "naïve").
constexpr QLatin1StringView kWordChars{"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"};

// When a piece goes on with the word the piece before ended in, that piece's document drops the
// fragment it ends with: the new document, whose overlap holds the whole word, has it.
QString trimPreviousFragment()
{
    return u"UPDATE search_docs SET body = rtrim(body, '%1') WHERE local_id = new.local_id "
           "AND part = 't' || (SELECT p.pos FROM run_text p WHERE p.local_id = new.local_id AND p.pos < "
           "new.pos "
           "ORDER BY p.pos DESC LIMIT 1) AND substr(new.text, 1, 1) GLOB '[A-Za-z0-9]' "
           "AND rtrim(body, '%1') != body"_s.arg(kWordChars);
}

// The text of a run_items row: an item's title and text. A status change ("Running → Done") is
// no content, and every run has them.
QString itemBody(const QString &row)
{
    return u"coalesce(json_extract(%1.item, '$.title'), '') || char(10) || "
           "coalesce(json_extract(%1.item, '$.text'), '')"_s.arg(row);
}

QString itemIndexed(const QString &row)
{
    return u"json_valid(%1.item) AND coalesce(json_extract(%1.item, '$.kind'), '') != 'status'"_s.arg(row);
}

// An FTS5 string for one term: in quotes (so that "-", ":" or AND in it are text, and the words
// of a phrase or of "cve-2026-1234" must follow each other), quotes inside doubled.
QString ftsTerm(const SearchQuery::Term &term)
{
    QString quoted = term.text;
    quoted.replace(u'"', u"\"\""_s);
    return u'"' + quoted + u'"' + (term.prefix ? u"*"_s : QString());
}

// Whether FTS5's tokenizer finds a word in the term: one of only punctuation is no query at all
// (FTS5 refuses an empty phrase).
bool hasWord(const QString &text)
{
    return std::any_of(text.cbegin(), text.cend(), [](QChar c) { return c.isLetterOrNumber(); });
}

// Writes the document `part` of run `localId` (SQL expressions over a trigger's row), `body` its
// text, when `where` holds: a known part keeps its id and gets the new text (search_docs_au
// re-indexes it), a new one takes the next id of the run's range. No statement here may meet a
// conflict: an outer INSERT OR REPLACE (the writer's for run_text and run_items) imposes REPLACE on
// every statement of its triggers, and a REPLACE would renumber the run or drop a document behind
// FTS5's back.
QString upsertDoc(const QString &localId, const QString &part, const QString &body,
                  const QString &where = u"1"_s)
{
    return u"INSERT INTO search_runs(local_id) SELECT %1 WHERE NOT EXISTS "
           "(SELECT 1 FROM search_runs WHERE local_id = %1); "
           "UPDATE search_docs SET body = %3 WHERE local_id = %1 AND part = %2 AND (%4); "
           "INSERT INTO search_docs(id, local_id, part, body) SELECT coalesce((SELECT max(d.id) FROM "
           "search_docs d "
           "WHERE d.id BETWEEN s.n << 32 AND (s.n << 32) + 4294967295), s.n << 32) + 1, %1, %2, %3 "
           "FROM search_runs s WHERE s.local_id = %1 AND (%4) AND NOT EXISTS "
           "(SELECT 1 FROM search_docs WHERE local_id = %1 AND part = %2)"_s.arg(localId, part, body, where);
}

} // namespace

// Schema 7 on SQLite (StoreEngine::searchSchema()).
QStringList detail::sqliteSearchSchema()
{
    return {
        // A store this step was begun on before (a build of this version that stopped short, a
        // copy taken mid-upgrade) starts again from nothing: the index is derived data.
        u"DROP TRIGGER IF EXISTS runs_search_ai"_s,
        u"DROP TRIGGER IF EXISTS runs_search_au"_s,
        u"DROP TRIGGER IF EXISTS runs_search_ad"_s,
        u"DROP TRIGGER IF EXISTS run_text_search_ai"_s,
        u"DROP TRIGGER IF EXISTS run_text_search_ad"_s,
        u"DROP TRIGGER IF EXISTS run_items_search_ai"_s,
        u"DROP TRIGGER IF EXISTS run_items_search_ad"_s,
        u"DROP TABLE IF EXISTS search_fts"_s,
        u"DROP TABLE IF EXISTS search_docs"_s,
        u"DROP TABLE IF EXISTS search_runs"_s,
        u"CREATE TABLE search_runs (n INTEGER PRIMARY KEY, local_id TEXT NOT NULL UNIQUE)"_s,
        u"CREATE TABLE search_docs (id INTEGER PRIMARY KEY, local_id TEXT NOT NULL, part TEXT NOT NULL, "
        "body TEXT NOT NULL)"_s,
        u"CREATE UNIQUE INDEX search_docs_part ON search_docs(local_id, part)"_s,
        // unicode61 with diacritics folded: "resume" finds "résumé", as operators expect. No prefix
        // indexes: they doubled the index (bench_search), and a walk that stops at the newest
        // matches reads little of a prefix's terms anyway.
        u"CREATE VIRTUAL TABLE search_fts USING fts5(body, content='search_docs', content_rowid='id', "
        "tokenize='unicode61 remove_diacritics 2')"_s,
        u"CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs BEGIN "
        "INSERT INTO search_fts(rowid, body) VALUES (new.id, new.body); END"_s,
        u"CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs BEGIN "
        "INSERT INTO search_fts(search_fts, rowid, body) VALUES ('delete', old.id, old.body); END"_s,
        u"CREATE TRIGGER search_docs_au AFTER UPDATE ON search_docs BEGIN "
        "INSERT INTO search_fts(search_fts, rowid, body) VALUES ('delete', old.id, old.body); "
        "INSERT INTO search_fts(rowid, body) VALUES (new.id, new.body); END"_s,
        // INSERT ... ON CONFLICT DO NOTHING fires no insert trigger when the row was there.
        u"CREATE TRIGGER runs_search_ai AFTER INSERT ON runs BEGIN %1; END"_s.arg(
            upsertDoc(u"new.local_id"_s, u"'meta'"_s, metaBody(u"new"_s))),
        u"CREATE TRIGGER runs_search_au AFTER UPDATE OF title, prompt, error ON runs BEGIN %1; END"_s.arg(
            upsertDoc(u"new.local_id"_s, u"'meta'"_s, metaBody(u"new"_s))),
        u"CREATE TRIGGER runs_search_ad AFTER DELETE ON runs BEGIN "
        "DELETE FROM search_docs WHERE local_id = old.local_id; DELETE FROM search_runs WHERE local_id = "
        "old.local_id; "
        "END"_s,
        // INSERT OR REPLACE of a piece fires no delete trigger for the row it replaces (recursive
        // triggers are off): the upsert gives the part its new text.
        u"CREATE TRIGGER run_text_search_ai AFTER INSERT ON run_text BEGIN %1; %2; END"_s.arg(
            upsertDoc(u"new.local_id"_s, u"'t' || new.pos"_s, textBody(u"new"_s)), trimPreviousFragment()),
        u"CREATE TRIGGER run_text_search_ad AFTER DELETE ON run_text BEGIN "
        "DELETE FROM search_docs WHERE local_id = old.local_id AND part = 't' || old.pos; END"_s,
        u"CREATE TRIGGER run_items_search_ai AFTER INSERT ON run_items BEGIN "
        "DELETE FROM search_docs WHERE local_id = new.local_id AND part = 'i' || new.idx AND NOT (%1); %2; END"_s
            .arg(itemIndexed(u"new"_s), upsertDoc(u"new.local_id"_s, u"'i' || new.idx"_s, itemBody(u"new"_s),
                                                  itemIndexed(u"new"_s))),
        u"CREATE TRIGGER run_items_search_ad AFTER DELETE ON run_items BEGIN "
        "DELETE FROM search_docs WHERE local_id = old.local_id AND part = 'i' || old.idx; END"_s,
        // What an older store holds already: its runs numbered in the order they were created, then
        // their documents, each run's in one range.
        u"INSERT INTO search_runs(local_id) SELECT local_id FROM runs ORDER BY created_at, local_id"_s,
        u"INSERT INTO search_docs(id, local_id, part, body) SELECT (s.n << 32) + row_number() OVER "
        "(PARTITION BY s.n ORDER BY doc.part), doc.local_id, doc.part, doc.body FROM ("
        "SELECT r.local_id, 'meta' AS part, %1 AS body FROM runs r "
        // As the triggers would have written them, the fragments trimmed.
        "UNION ALL SELECT t.local_id, 't' || t.pos, CASE WHEN (SELECT substr(n.text, 1, 1) FROM run_text n "
        "WHERE n.local_id = t.local_id AND n.pos > t.pos ORDER BY n.pos LIMIT 1) GLOB '[A-Za-z0-9]' "
        "THEN rtrim(%2, '%3') ELSE %2 END FROM run_text t "
        "UNION ALL SELECT i.local_id, 'i' || i.idx, %4 FROM run_items i WHERE %5"
        ") doc JOIN search_runs s ON s.local_id = doc.local_id"_s.arg(
            metaBody(u"r"_s), textBody(u"t"_s), kWordChars, itemBody(u"i"_s), itemIndexed(u"i"_s)),
    };
}

bool RunStore::migrateTo7()
{
    for (const QString &sql : m_engine->searchSchema()) {
        if (!exec(sql))
            return false;
    }
    return true;
}

namespace {

// Prepares and runs one search's statements on the store's connection, keeping the first error.
class SearchWalk
{
public:
    explicit SearchWalk(const QSqlDatabase &db)
        : m_db(db)
    {}

    QString error() const { return m_error; }

    bool prepare(QSqlQuery &q, const QString &sql)
    {
        q = QSqlQuery(m_db);
        q.setForwardOnly(true);
        if (q.prepare(sql))
            return true;
        m_error = q.lastError().text();
        return false;
    }

    bool run(QSqlQuery &q)
    {
        if (q.exec())
            return true;
        m_error = q.lastError().text();
        return false;
    }

    // How many documents match `match`: FTS5 counts them without reading them.
    std::optional<qint64> count(const QString &match)
    {
        QSqlQuery q;
        if (!prepare(q, u"SELECT count(*) FROM search_fts WHERE search_fts MATCH ?"_s))
            return std::nullopt;
        q.addBindValue(match);
        if (!run(q) || !q.next())
            return std::nullopt;
        return q.value(0).toLongLong();
    }

private:
    QSqlDatabase m_db;
    QString m_error;
};

} // namespace

std::optional<QList<SearchHit>> RunStore::search(const SearchQuery &query, int limit, int snippets) const
{
    QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    if (!db.isOpen()) {
        m_error = Text::tr("The run store is not open.");
        return std::nullopt;
    }
    SearchWalk walk(db);
    const auto failed = [this, &walk] {
        m_error = Text::tr("Cannot search the run store: %1").arg(walk.error());
        return std::nullopt;
    };
    // The filters, as one condition on `r` (runs) and its values.
    QStringList where;
    QVariantList values;
    const auto anyOf = [&](const QString &column, const QStringList &list, bool caseless) {
        if (list.isEmpty())
            return;
        QStringList marks;
        for (qsizetype i = 0; i < list.size(); ++i)
            marks << (caseless ? m_engine->caseless(u"?"_s) : u"?"_s);
        where << u"%1 IN (%2)"_s.arg(caseless ? m_engine->caseless(column) : column, marks.join(u','));
        for (const QString &value : list)
            values << value;
    };
    QStringList statuses;
    for (RunStatus status : query.statuses)
        statuses << statusName(status);
    anyOf(u"r.status"_s, statuses, false);
    anyOf(u"r.backend"_s, query.backends, true);
    anyOf(u"r.connection"_s, query.connections, true);
    anyOf(u"r.model"_s, query.models, true);
    if (query.since.isValid()) {
        where << u"r.created_at >= ?"_s;
        values << query.since.toUTC().toString(Qt::ISODateWithMs);
    }
    if (query.until.isValid()) {
        where << u"r.created_at < ?"_s;
        values << query.until.toUTC().toString(Qt::ISODateWithMs);
    }
    const QString filter = where.isEmpty() ? u"1 = 1"_s : where.join(u" AND "_s);
    if (!m_engine->hasTextIndex())
        return searchByScan(query, filter, values, limit, snippets);

    // Each term, with how many documents it is in: the rarest drives the walk. A prefix is not
    // counted when a word is there to drive: counting "ba*" merges every word it begins (0.3 s
    // over 100,000 runs), and the walk needs no count.
    QList<SearchQuery::Term> usable;
    for (const SearchQuery::Term &term : query.terms) {
        if (hasWord(term.text))
            usable << term;
    }
    const bool anyWord = std::any_of(usable.cbegin(), usable.cend(), [](const auto &t) { return !t.prefix; });
    QList<std::pair<qint64, QString>> terms;
    for (const SearchQuery::Term &term : std::as_const(usable)) {
        const QString match = ftsTerm(term);
        std::optional<qint64> n = std::numeric_limits<qint64>::max();
        if ((!term.prefix || !anyWord) && usable.size() > 1)
            n = walk.count(match);
        if (!n)
            return failed();
        if (*n == 0)
            return QList<SearchHit>{}; // a word in no run: no run has every word
        terms.emplaceBack(*n, match);
    }
    QList<SearchHit> hits;
    if (terms.isEmpty()) {
        QSqlQuery q;
        if (!walk.prepare(
                q, u"SELECT r.local_id FROM runs r JOIN search_runs s ON s.local_id = r.local_id WHERE %1 "
                   "ORDER BY s.n DESC%2"_s.arg(filter, limit >= 0 ? u" LIMIT %1"_s.arg(limit) : QString())))
            return failed();
        for (const QVariant &value : std::as_const(values))
            q.addBindValue(value);
        if (!walk.run(q))
            return failed();
        while (q.next())
            hits << SearchHit{q.value(0).toString(), {}};
        return hits;
    }
    std::sort(terms.begin(), terms.end());

    // The driving term's matches, newest run first; each run once (its documents are adjacent).
    QSqlQuery matches, run, other;
    if (!walk.prepare(matches, u"SELECT rowid FROM search_fts WHERE search_fts MATCH ? ORDER BY rowid DESC"_s)
        || !walk.prepare(run, u"SELECT r.local_id FROM search_runs s JOIN runs r ON r.local_id = s.local_id "
                              "WHERE s.n = ? AND %1"_s.arg(filter))
        || !walk.prepare(
            other,
            u"SELECT 1 FROM search_fts WHERE search_fts MATCH ? AND rowid BETWEEN ? AND ? LIMIT 1"_s)) {
        return failed();
    }
    matches.addBindValue(terms.first().second);
    if (!walk.run(matches))
        return failed();
    qint64 previous = -1;
    QList<qint64> documents; // a document of each hit that matched
    while ((limit < 0 || hits.size() < limit) && matches.next()) {
        const qint64 document = matches.value(0).toLongLong();
        const qint64 n = document >> 32;
        if (n == previous)
            continue;
        previous = n;
        run.addBindValue(n);
        for (const QVariant &value : std::as_const(values))
            run.addBindValue(value);
        if (!walk.run(run))
            return failed();
        if (!run.next())
            continue; // filtered out
        const QString localId = run.value(0).toString();
        run.finish();
        bool all = true;
        for (qsizetype t = 1; t < terms.size() && all; ++t) {
            other.addBindValue(terms.at(t).second);
            other.addBindValue(n << 32);
            other.addBindValue((n << 32) + 0xFFFFFFFFLL);
            if (!walk.run(other))
                return failed();
            all = other.next();
            other.finish();
        }
        if (all) {
            hits << SearchHit{localId, {}};
            documents << document;
        }
    }
    matches.finish();
    if (snippets == 0)
        return hits;

    // The snippet comes from the document the walk matched, marked here: FTS5's snippet() runs the
    // match again for each run (13 ms a run for a prefix without a prefix index, 1.4 ms to rank a
    // common word: bench_search).
    QSqlQuery body;
    if (!walk.prepare(body, u"SELECT body FROM search_docs WHERE id = ?"_s))
        return failed();
    for (qsizetype i = 0; i < hits.size() && (snippets < 0 || i < snippets); ++i) {
        body.addBindValue(documents.at(i));
        if (!walk.run(body))
            return failed();
        if (body.next())
            hits[i].snippet = query.snippet(body.value(0).toString());
        body.finish();
    }
    return hits;
}

} // namespace Runwatch
