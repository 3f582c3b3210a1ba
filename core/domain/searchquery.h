// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runstatus.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Runwatch {

// What an operator typed to find runs, read once for both front ends and every store: words and
// "exact phrases" to find in a run's title, prompt, output, reasoning, tool calls and errors, and
// filters in the syntax operators know from issue trackers and log tools:
//
//   status:failed backend:a2a "exact phrase" since:7d cve-2026*
//
// Filters: status: (a status name, or several with commas), backend:, connection:, model: (exact,
// case-insensitive; commas for several), since: and until: (a span back from now: 30m, 24h, 7d,
// 2w; or a date, 2026-11-01, or a date and time in ISO 8601, UTC unless it says otherwise).
// A word ending in * matches every word it begins. Every word and phrase must occur somewhere in
// the run, not necessarily in the same part of it.
struct SearchQuery
{
    struct Term
    {
        QString text;
        bool phrase = false; // "quoted": the words in this order
        bool prefix = false; // word*: every word that begins with it
        friend bool operator==(const Term &, const Term &) = default;
    };

    QList<Term> terms;
    QList<RunStatus> statuses;
    QStringList backends;    // lower case
    QStringList connections; // as typed; compared case-insensitively
    QStringList models;      // likewise
    QDateTime since;         // created at or after (UTC), invalid: no bound
    QDateTime until;         // created before (UTC), invalid: no bound

    bool isEmpty() const
    {
        return terms.isEmpty() && statuses.isEmpty() && backends.isEmpty() && connections.isEmpty()
               && models.isEmpty() && !since.isValid() && !until.isValid();
    }

    // nullopt with the reason in *error for a query that cannot mean anything (an unknown
    // filter, an unknown status, a time it cannot read, an unclosed quote): a search that quietly
    // ignored part of what was typed would show runs that do not match it.
    static std::optional<SearchQuery> parse(const QString &text, const QDateTime &now, QString *error);

    // The part of `text` around the first word or phrase of the terms found in it, about `words`
    // words long, each match in [ and ], "…" where the text goes on; empty when none is in it.
    // Words as the store's index reads them: runs of letters and digits, case and accents aside.
    QString snippet(const QString &text, int words = 16) const;
};

// One run a search found, and the part of it that matched (the words marked with [ and ], cut
// with … where the part goes on), for a tooltip or a result column.
struct SearchHit
{
    QString localId;
    QString snippet;
};

} // namespace Runwatch
