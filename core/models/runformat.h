// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QDateTime>
#include <QString>

#include <optional>

namespace Runwatch {

// Columns of the run list, in their default visual order.
enum RunColumn {
    StatusColumn = 0,
    TitleColumn,
    ConnectionColumn,
    BackendColumn,
    ModelColumn,
    StartedColumn,
    DurationColumn,
    LastActivityColumn,
    // Appended after the first eight so that a header state saved before they existed still
    // restores (sections are saved by logical index); hidden until the operator shows them
    // (runColumnHiddenByDefault, docs/architecture.md "Usage and cost").
    InputTokensColumn,
    OutputTokensColumn, // reasoning tokens, counted within, in its tooltip
    CostColumn,
    RunColumnCount,
};

// A run's title (its local id when it has none) in at most `maxChars` characters, cut with "…":
// where a line of text names a run (the tray menu, the screen-reader announcements).
QString shortRunTitle(const Run &run, qsizetype maxChars);

QString runColumnTitle(int column);
// The columns a first window (or a header state saved before they existed) leaves hidden.
bool runColumnHiddenByDefault(int column);

// A token count with the locale's digit grouping: "12,345".
QString formatTokens(qint64 tokens);
// A large count, short, for the status bar's totals: "950", "12.3k", "1.2M".
QString formatTokensShort(qint64 tokens);

// Milliseconds the run has been going (or went, when it finished); 0 without a start time.
qint64 runDurationMs(const Run &run, const QDateTime &now);
// "850 ms", "42 s", "3 m 05 s", "2 h 07 m", "3 d 4 h".
QString formatDuration(qint64 ms);
// The step by which formatDuration(ms) moves on: a second below an hour, a minute below a day,
// then an hour.
qint64 durationStepMs(qint64 ms);
// Whether a clock counted from `originMs` in steps of `stepMs` (a duration since it, a countdown
// to it) passed a step in the `sinceMs` milliseconds up to `nowMs`: its text may have changed.
bool stepPassed(qint64 originMs, qint64 nowMs, qint64 sinceMs, qint64 stepMs);
// "about 3 m 05 s left", or "finishing" once the ETA has passed; empty for an invalid ETA.
QString formatEta(const QDateTime &eta, const QDateTime &now);

// Local time; the date is left out for today: "14:03:21", "Mar 2 14:03".
QString formatTimestamp(const QDateTime &when, const QDateTime &now);
// Time left for a person to answer a run that waits for one before a deadline (the request's
// deadline, e.g. Foundry's expires_at: the run expires unanswered); nullopt when the run waits for
// no person or has no deadline. Negative once the deadline has passed.
std::optional<qint64> answerTimeLeftMs(const Run &run, const QDateTime &now);
// A countdown: "09:58", "1:02:03"; rounded up, so "00:00" only once the time is up.
QString formatCountdown(qint64 ms);
// A tooltip is shown as rich text whenever Qt::mightBeRichText() guesses so, and a run's title,
// a server's status or message can look like markup ("<b>", "<img src=…>"). Text that may come
// from a server goes into a tooltip through this: escaped, in a paragraph that keeps its line
// breaks, so it always shows as the characters it is. (Labels get Qt::PlainText instead.)
QString plainToolTip(const QString &text);
// How much room a badge has: a list cell (Narrow) or the detail pane's header (Wide).
enum class BadgeSpace { Narrow, Wide };
// The badge text: the status label; "Waiting" for a run suspended on a timer or a callback
// (Wide: "Waiting for timer" / "Waiting for callback"); "Reconnecting" for a run whose following
// is being restored (Wide, as the CLI says it: "Reconnecting, next try in N s" while it waits);
// "09:58 left" for a run that must be answered before a deadline (Wide: "Needs input, 09:58
// left"); "Time is up" once it passed and the service has not yet said `expired`.
QString badgeText(const Run &run, BadgeSpace space = BadgeSpace::Narrow,
                  const QDateTime &now = QDateTime::currentDateTimeUtc());
// Tooltip of the status: label, the backend's raw label, connection state, error.
QString statusToolTip(const Run &run);

} // namespace Runwatch
