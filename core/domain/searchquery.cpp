// SPDX-License-Identifier: GPL-3.0-or-later
#include "searchquery.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "SearchQuery".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(SearchQuery)
};

// One whitespace-separated piece of the query: `key:value` or a bare word, either side possibly
// in quotes (the quotes are gone, `quoted` says whether the value had them).
struct Token
{
    QString key; // empty for text
    QString value;
    bool quoted = false;
};

// Reads a quoted run starting at text[i] == '"'; i ends after the closing quote. "" inside
// stands for one quote, as in CSV and SQL, since a backslash is common in what people search.
bool readQuoted(const QString &text, qsizetype &i, QString &out)
{
    ++i;
    while (i < text.size()) {
        const QChar c = text.at(i++);
        if (c != u'"') {
            out += c;
        } else if (i < text.size() && text.at(i) == u'"') {
            out += c;
            ++i;
        } else {
            return true;
        }
    }
    return false;
}

bool isFilterName(const QString &word)
{
    return !word.isEmpty()
           && std::all_of(word.cbegin(), word.cend(), [](QChar c) { return c.isLetter() || c == u'_'; });
}

std::optional<QList<Token>> tokenize(const QString &text, QString *error)
{
    QList<Token> tokens;
    qsizetype i = 0;
    while (i < text.size()) {
        if (text.at(i).isSpace()) {
            ++i;
            continue;
        }
        Token token;
        QString word;
        bool quoted = false;
        while (i < text.size() && !text.at(i).isSpace()) {
            if (text.at(i) == u'"') {
                if (!readQuoted(text, i, word)) {
                    *error = Text::tr("A quote is not closed: %1").arg(text.mid(text.lastIndexOf(u'"')));
                    return std::nullopt;
                }
                quoted = true;
                continue;
            }
            // The first colon after an unquoted name of letters separates a filter from its
            // value; in "12:30" or "a-b:c" it is text.
            if (text.at(i) == u':' && !quoted && token.key.isEmpty() && isFilterName(word)) {
                token.key = word.toLower();
                word.clear();
                ++i;
                continue;
            }
            word += text.at(i++);
        }
        token.value = word;
        token.quoted = quoted;
        tokens << token;
    }
    return tokens;
}

// "30m", "24h", "7d", "2w" back from now; "2026-11-01" (that day's start, UTC); an ISO 8601 date
// and time (UTC unless it names an offset).
QDateTime readTime(const QString &value, const QDateTime &now)
{
    static const QRegularExpression span(u"^(\\d{1,6})([mhdw])$"_s);
    if (const QRegularExpressionMatch m = span.match(value.toLower()); m.hasMatch()) {
        const qint64 n = m.captured(1).toLongLong();
        const QChar unit = m.captured(2).at(0);
        const qint64 minutes = unit == u'm'   ? n
                               : unit == u'h' ? n * 60
                               : unit == u'd' ? n * 60 * 24
                                              : n * 60 * 24 * 7;
        return now.toUTC().addSecs(-minutes * 60);
    }
    if (const QDate day = QDate::fromString(value, Qt::ISODate); day.isValid() && value.size() == 10)
        return QDateTime(day, QTime(0, 0), Qt::UTC);
    QDateTime at = QDateTime::fromString(value, Qt::ISODateWithMs);
    if (!at.isValid())
        at = QDateTime::fromString(value, Qt::ISODate);
    if (at.isValid() && at.timeSpec() == Qt::LocalTime)
        at.setTimeSpec(Qt::UTC); // no offset written: UTC, as every time Runwatch prints
    return at.toUTC();
}

QStringList listOf(const QString &value)
{
    QStringList out;
    for (const QString &part : value.split(u',', Qt::SkipEmptyParts))
        out << part.trimmed();
    return out;
}

// A word of a text: where it is, and its folded form (FTS5's unicode61 with remove_diacritics:
// lower case, combining marks dropped).
struct Word
{
    qsizetype begin = 0;
    qsizetype end = 0;
    QString folded;
};

QString folded(QStringView word)
{
    QString out;
    for (const QChar c : word.toString().normalized(QString::NormalizationForm_D)) {
        if (c.category() != QChar::Mark_NonSpacing)
            out += c.toLower();
    }
    return out;
}

QList<Word> wordsOf(QStringView text)
{
    QList<Word> words;
    qsizetype i = 0;
    while (i < text.size()) {
        if (!text.at(i).isLetterOrNumber()) {
            ++i;
            continue;
        }
        const qsizetype begin = i;
        while (i < text.size() && text.at(i).isLetterOrNumber())
            ++i;
        words << Word{begin, i, folded(text.sliced(begin, i - begin))};
    }
    return words;
}

} // namespace

QString SearchQuery::snippet(const QString &text, int words) const
{
    const QList<Word> all = wordsOf(text);
    // Each term's words, read once; a match is a run of the text's words equal to them (the last
    // one only beginning like it, for a prefix).
    QList<QList<Word>> wanted;
    for (const Term &term : terms)
        wanted << wordsOf(term.text);
    QList<std::pair<qsizetype, qsizetype>> spans; // [first word, last word] of each match
    for (qsizetype at = 0; at < all.size(); ++at) {
        for (qsizetype t = 0; t < terms.size(); ++t) {
            const Term &term = terms.at(t);
            const QList<Word> &want = wanted.at(t);
            if (want.isEmpty() || at + want.size() > all.size())
                continue;
            bool same = true;
            for (qsizetype j = 0; j < want.size() && same; ++j) {
                const QString &have = all.at(at + j).folded;
                same = term.prefix && j == want.size() - 1 ? have.startsWith(want.at(j).folded)
                                                           : have == want.at(j).folded;
            }
            if (same) {
                spans.emplaceBack(at, at + want.size() - 1);
                break;
            }
        }
    }
    if (spans.isEmpty())
        return {};
    // A window of `words` words that starts a few words before the first match.
    const qsizetype first = std::max<qsizetype>(0, spans.first().first - std::max(1, words / 4));
    const qsizetype last = std::min(all.size() - 1, first + std::max(1, words) - 1);
    QString out = first > 0 ? u"…"_s : QString();
    qsizetype from = all.at(first).begin;
    for (const auto &[a, b] : std::as_const(spans)) {
        if (a < first || b > last || all.at(a).begin < from)
            continue; // outside the window, or inside the match before
        out += QStringView(text).sliced(from, all.at(a).begin - from);
        out += u'[' + QStringView(text).sliced(all.at(a).begin, all.at(b).end - all.at(a).begin) + u']';
        from = all.at(b).end;
    }
    out += QStringView(text).sliced(from, all.at(last).end - from);
    if (last < all.size() - 1)
        out += u"…"_s;
    return out.simplified();
}

std::optional<SearchQuery> SearchQuery::parse(const QString &text, const QDateTime &now, QString *error)
{
    QString why;
    const std::optional<QList<Token>> tokens = tokenize(text, &why);
    if (!tokens) {
        if (error)
            *error = why;
        return std::nullopt;
    }
    const auto fail = [error](const QString &message) {
        if (error)
            *error = message;
        return std::nullopt;
    };
    SearchQuery query;
    for (const Token &token : *tokens) {
        if (token.key.isEmpty()) {
            if (token.value.isEmpty())
                continue; // "" finds nothing more than no term
            Term term;
            term.text = token.value;
            term.phrase = token.quoted;
            if (!token.quoted && term.text.endsWith(u'*') && term.text.size() > 1) {
                term.text.chop(1);
                term.prefix = true;
            }
            query.terms << term;
            continue;
        }
        if (token.value.isEmpty()) {
            return fail(Text::tr("The filter %1: needs a value (for example %1:%2)")
                            .arg(token.key, token.key == u"since" ? u"7d"_s : u"…"_s));
        }
        if (token.key == u"status") {
            for (const QString &name : listOf(token.value)) {
                const RunStatus status = statusFromName(name.toLower());
                if (status == RunStatus::Unknown && name.toLower() != u"unknown") {
                    return fail(
                        Text::tr("Unknown status \"%1\" (for example: failed, completed, in_progress, "
                                 "input_required, cancelled)")
                            .arg(name));
                }
                query.statuses << status;
            }
        } else if (token.key == u"backend") {
            for (const QString &name : listOf(token.value))
                query.backends << name.toLower();
        } else if (token.key == u"connection") {
            query.connections << listOf(token.value);
        } else if (token.key == u"model") {
            query.models << listOf(token.value);
        } else if (token.key == u"since" || token.key == u"until") {
            const QDateTime at = readTime(token.value, now);
            if (!at.isValid()) {
                return fail(Text::tr("Cannot read the time \"%1\" (use 30m, 24h, 7d, 2w or a date such as "
                                     "2026-11-01)")
                                .arg(token.value));
            }
            (token.key == u"since" ? query.since : query.until) = at;
        } else {
            return fail(
                Text::tr("Unknown filter \"%1:\" (filters: status, backend, connection, model, since, "
                         "until). To search for the text, put it in quotes: \"%1:%2\"")
                    .arg(token.key, token.value));
        }
    }
    return query;
}

} // namespace Runwatch
