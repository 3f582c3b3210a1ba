// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QHash>
#include <QString>

#include <array>
#include <functional>
#include <optional>

namespace Runwatch {

// The filter chips of the run list. Every status belongs to exactly one category besides All
// and Stuck. Stuck is a view across them, not a status: a live run StuckRunWatcher flags (it stays
// Active too), counted by the watcher, matched through RunFilter's stuck test.
enum class StatusCategory {
    All = 0,
    Active,     // queued, in progress, cancelling, unknown
    NeedsInput, // "needs me": waits for a person (not for a timer or a callback)
    Completed,
    Failed,    // failed, incomplete, expired, rejected, timed out
    Cancelled, // cancelled, deleted
    Stuck,     // flagged by StuckRunWatcher (no progress for too long)
};
inline constexpr int kStatusCategoryCount = 7;

StatusCategory categoryOf(RunStatus status);
// The category of a run: like categoryOf(status), except that a run suspended on a timer or on
// an external callback waits for a machine, not for the operator, and so counts as Active.
StatusCategory categoryOf(const Run &run);
// The run waits for a person's answer (question, approval, choice, tool output, credentials).
bool waitsForPerson(const Run &run);
// "All", "Active", "Needs input", …
QString categoryLabel(StatusCategory category);
// "all", "active", "needs_input", … (settings, command line; "needs_me" is read as needs_input)
QString categoryName(StatusCategory category);
StatusCategory categoryFromName(QStringView name);

// Live counts per category; All is the total of the status categories (Stuck is not one).
struct RunCounts
{
    std::array<int, kStatusCategoryCount> values{};

    int value(StatusCategory c) const { return values.at(std::size_t(c)); }
    void add(StatusCategory c, int delta);
    void setStuck(int count) { values.at(std::size_t(StatusCategory::Stuck)) = count; }
    friend bool operator==(const RunCounts &, const RunCounts &) = default;
};

// What the run list shows: one status category, a text search, and one connection (empty: all).
// The text finds a run by its title, ids or connection as typed, and, once the store's full-text
// search has answered it (setSearchHits), by anything that search found in the run (prompt,
// answer, reasoning, tool calls, error; status:/since: filters). Setters return whether anything
// changed, so the proxy re-filters only when it must.
class RunFilter
{
public:
    bool setCategory(StatusCategory category);
    bool setText(const QString &text);
    bool setConnection(const QString &connection);
    // The runs the store's search found for the current text, with the part of each that matched
    // (may be empty); nullopt: no search answered it (none asked, or the query did not parse).
    bool setSearchHits(std::optional<QHash<QString, QString>> hits);
    // The part of the run the search found, for a tooltip; empty when none.
    QString snippet(const QString &localId) const;
    // What the Stuck category asks of a run (StuckRunWatcher::isStuck); without it nothing is stuck.
    using StuckTest = std::function<bool(const QString &localId)>;
    void setStuckTest(StuckTest test) { m_isStuck = std::move(test); }

    StatusCategory category() const { return m_category; }
    QString text() const { return m_text; }
    QString connection() const { return m_connection; }
    // The store's search answered the current text (setSearchHits with a value).
    bool hasSearchHits() const { return m_hits.has_value(); }
    bool isEmpty() const;

    bool matches(const Run &run) const;

private:
    StatusCategory m_category = StatusCategory::All;
    QString m_text; // simplified
    QString m_connection;
    std::optional<QHash<QString, QString>> m_hits;
    StuckTest m_isStuck;
};

// Sort order of the run list's columns (RunListModel::Column), ascending. Ties fall back to the
// start time and then the local id, so the order is total and stable across updates.
// `now` is the reference for the duration of runs still going.
bool runLessThan(const Run &a, const Run &b, int column, const QDateTime &now);
// Status order for sorting: what needs the operator first, then what is running, then the rest.
int statusSortRank(RunStatus status);

} // namespace Runwatch
