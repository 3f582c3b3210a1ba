// SPDX-License-Identifier: GPL-3.0-or-later
// RunStore's search where the engine has no full-text index of ours (PostgreSQL): the filters in
// SQL, the runs that pass them read newest first (search_runs: the order they were stored in),
// and their words matched here, with FTS5's idea of a word — runs of letters and digits, case and
// diacritics folded (unicode61, remove_diacritics 2) — so both engines answer a query alike.
//
// Why not PostgreSQL's own text search: its parser keeps an e-mail address, a URL or a path as
// one token and splits hyphenated words its own way, so a tsvector can miss a word FTS5 finds; an
// index that must answer "exactly as on SQLite" would need a tokenizer of ours on the server.
// The cost is a read of every candidate's text until `limit` runs are found: fine for a team's
// history of thousands of runs, the next increment's work for a million (README, Team store).
#include "store/runstore.h"
#include "store/runstorerows.h"

#include <QCoreApplication>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "RunStore".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(RunStore)
};

// unicode61 with remove_diacritics 2: runs of letters and digits, lower case, accents dropped.
QStringList wordsOf(const QString &text)
{
    QStringList out;
    QString word;
    const auto flush = [&] {
        if (word.isEmpty())
            return;
        QString folded;
        folded.reserve(word.size());
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

// Whether `phrase` (its words in order) occurs in `words`; `prefix`: its last word may be the
// start of one.
bool containsPhrase(const QStringList &words, const QStringList &phrase, bool prefix)
{
    if (phrase.isEmpty())
        return false;
    for (qsizetype i = 0; i + phrase.size() <= words.size(); ++i) {
        bool all = true;
        for (qsizetype j = 0; j < phrase.size() && all; ++j) {
            const bool last = j == phrase.size() - 1;
            all = prefix && last ? words.at(i + j).startsWith(phrase.at(j)) : words.at(i + j) == phrase.at(j);
        }
        if (all)
            return true;
    }
    return false;
}

// A run's searchable parts as schema 7's documents on SQLite hold them: title, prompt (when not
// the title) and error in one; the answer; each item but status changes.
QStringList partsOf(const Run &run)
{
    const QString prompt = run.prompt == run.title ? QString() : run.prompt;
    QStringList parts{run.title + u'\n' + prompt + u'\n' + run.error.message + u' ' + run.error.code,
                      run.primaryText.toString()};
    for (const SecondaryItem &item : run.secondary) {
        if (item.kind != SecondaryKind::StatusChange)
            parts << item.title + u'\n' + item.text;
    }
    return parts;
}

} // namespace

std::optional<QList<SearchHit>> RunStore::searchByScan(const SearchQuery &query, const QString &filter,
                                                       const QVariantList &values, int limit,
                                                       int snippets) const
{
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    struct Phrase
    {
        QStringList words;
        bool prefix;
    };
    QList<Phrase> phrases;
    for (const SearchQuery::Term &term : query.terms) {
        // A term of punctuation alone is no word (FTS5 refuses it; the SQLite search drops it).
        if (QStringList words = wordsOf(term.text); !words.isEmpty())
            phrases << Phrase{std::move(words), term.prefix};
    }
    QSqlQuery q(db);
    q.setForwardOnly(true);
    const bool limited = phrases.isEmpty() && limit >= 0;
    if (!q.prepare(u"SELECT r.local_id, r.title, r.prompt, r.error FROM runs r JOIN search_runs s ON "
                   "s.local_id = r.local_id WHERE %1 ORDER BY s.n DESC%2"_s.arg(
                       filter, limited ? u" LIMIT %1"_s.arg(limit) : QString()))) {
        m_error = Text::tr("Cannot search the run store: %1").arg(q.lastError().text());
        return std::nullopt;
    }
    for (const QVariant &value : values)
        q.addBindValue(value);
    if (!q.exec()) {
        m_error = Text::tr("Cannot search the run store: %1").arg(q.lastError().text());
        return std::nullopt;
    }
    // The candidates first, then their text: one statement open at a time on this connection.
    QList<Run> candidates;
    while (q.next()) {
        Run &run = candidates.emplaceBack();
        run.localId = q.value(0).toString();
        run.title = q.value(1).toString();
        run.prompt = q.value(2).toString();
        run.error = RunError::fromJson(detail::jsonObjectFromText(q.value(3)));
    }
    q.finish();
    QList<SearchHit> hits;
    if (phrases.isEmpty()) {
        for (const Run &run : std::as_const(candidates))
            hits << SearchHit{run.localId, {}};
        return hits;
    }
    detail::RunRowReader reader(db);
    for (Run &run : candidates) {
        if (limit >= 0 && hits.size() >= limit)
            break;
        if (!reader.readOutput(run)) {
            m_error = Text::tr("Cannot search the run store: %1").arg(reader.errorString());
            return std::nullopt;
        }
        const QStringList parts = partsOf(run);
        QList<QStringList> words;
        words.reserve(parts.size());
        for (const QString &part : parts)
            words << wordsOf(part);
        // Every term somewhere in the run; the snippet from the part the first one is in.
        qsizetype snippetPart = -1;
        const bool all = std::all_of(phrases.cbegin(), phrases.cend(), [&](const Phrase &phrase) {
            for (qsizetype i = 0; i < words.size(); ++i) {
                if (containsPhrase(words.at(i), phrase.words, phrase.prefix)) {
                    if (snippetPart < 0)
                        snippetPart = i;
                    return true;
                }
            }
            return false;
        });
        if (!all)
            continue;
        SearchHit hit{run.localId, {}};
        if (snippets < 0 || hits.size() < snippets)
            hit.snippet = query.snippet(parts.at(snippetPart));
        hits << hit;
    }
    return hits;
}

} // namespace Runwatch
