// SPDX-License-Identifier: GPL-3.0-or-later
#include "runformat.h"

#include "runfilter.h"

#include <QCoreApplication>
#include <QHash>
#include <QLocale>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// glibc re-reads /etc/localtime (a stat() per call) when TZ is unset, so QDateTime::toLocalTime()
// costs a syscall per cell of a big list. The offset changes at most on the hour: cache it.
QDateTime toLocalFast(const QDateTime &when)
{
    static thread_local QHash<qint64, int> offsets;
    const qint64 hour = when.toSecsSinceEpoch() / 3600;
    auto it = offsets.constFind(hour);
    if (it == offsets.cend()) {
        if (offsets.size() > 4096)
            offsets.clear();
        it = offsets.insert(hour, when.toLocalTime().offsetFromUtc());
    }
    return when.toOffsetFromUtc(*it);
}

// What a run waits for, in words (inputReasonName() is the stored, untranslated token).
QString inputReasonLabel(InputReason reason)
{
    switch (reason) {
    case InputReason::Question:
        return QCoreApplication::translate("RunList", "an answer");
    case InputReason::Approval:
        return QCoreApplication::translate("RunList", "an approval");
    case InputReason::Options:
        return QCoreApplication::translate("RunList", "a choice");
    case InputReason::ToolOutput:
        return QCoreApplication::translate("RunList", "tool outputs");
    case InputReason::Auth:
        return QCoreApplication::translate("RunList", "authentication");
    case InputReason::Timer:
        return QCoreApplication::translate("RunList", "a timer");
    case InputReason::Webhook:
        return QCoreApplication::translate("RunList", "a callback");
    }
    return inputReasonName(reason);
}

} // namespace

QString shortRunTitle(const Run &run, qsizetype maxChars)
{
    const QString title = run.title.isEmpty() ? run.localId : run.title;
    return title.size() > maxChars ? title.left(maxChars - 1) + u"…"_s : title;
}

QString runColumnTitle(int column)
{
    switch (column) {
    case StatusColumn:
        return QCoreApplication::translate("RunList", "Status");
    case TitleColumn:
        return QCoreApplication::translate("RunList", "Title");
    case ConnectionColumn:
        return QCoreApplication::translate("RunList", "Connection");
    case BackendColumn:
        return QCoreApplication::translate("RunList", "Backend");
    case ModelColumn:
        return QCoreApplication::translate("RunList", "Model");
    case StartedColumn:
        return QCoreApplication::translate("RunList", "Started");
    case DurationColumn:
        return QCoreApplication::translate("RunList", "Duration");
    case LastActivityColumn:
        return QCoreApplication::translate("RunList", "Last activity");
    case InputTokensColumn:
        return QCoreApplication::translate("RunList", "Input tokens");
    case OutputTokensColumn:
        return QCoreApplication::translate("RunList", "Output tokens");
    case CostColumn:
        return QCoreApplication::translate("RunList", "Cost");
    default:
        return {};
    }
}

bool runColumnHiddenByDefault(int column)
{
    return column == InputTokensColumn || column == OutputTokensColumn || column == CostColumn;
}

QString formatTokens(qint64 tokens)
{
    return QLocale().toString(tokens);
}

QString formatTokensShort(qint64 tokens)
{
    const QLocale locale;
    if (tokens < 10000)
        return locale.toString(tokens);
    if (tokens < 1000000) {
        return QCoreApplication::translate("RunFormat", "%1k", "thousands of tokens")
            .arg(locale.toString(double(tokens) / 1e3, 'f', tokens < 100000 ? 1 : 0));
    }
    if (tokens < 1000000000) {
        return QCoreApplication::translate("RunFormat", "%1M", "millions of tokens")
            .arg(locale.toString(double(tokens) / 1e6, 'f', tokens < 100000000 ? 1 : 0));
    }
    return QCoreApplication::translate("RunFormat", "%1G", "billions of tokens")
        .arg(locale.toString(double(tokens) / 1e9, 'f', 1));
}

qint64 runDurationMs(const Run &run, const QDateTime &now)
{
    if (!run.createdAt.isValid())
        return 0;
    const QDateTime end = run.isTerminal() && run.finishedAt.isValid() ? run.finishedAt : now;
    return qMax<qint64>(0, run.createdAt.msecsTo(end));
}

QString formatDuration(qint64 ms)
{
    if (ms < 1000)
        return QCoreApplication::translate("RunFormat", "%1 ms").arg(qMax<qint64>(ms, 0));
    const qint64 s = ms / 1000;
    if (s < 60)
        return QCoreApplication::translate("RunFormat", "%1 s").arg(s);
    const qint64 m = s / 60;
    if (m < 60) {
        return QCoreApplication::translate("RunFormat", "%1 m %2 s", "minutes and seconds")
            .arg(m)
            .arg(s % 60, 2, 10, QChar(u'0'));
    }
    const qint64 h = m / 60;
    if (h < 24) {
        return QCoreApplication::translate("RunFormat", "%1 h %2 m", "hours and minutes")
            .arg(h)
            .arg(m % 60, 2, 10, QChar(u'0'));
    }
    return QCoreApplication::translate("RunFormat", "%1 d %2 h", "days and hours").arg(h / 24).arg(h % 24);
}

qint64 durationStepMs(qint64 ms)
{
    constexpr qint64 kHour = 3'600'000;
    if (ms < kHour)
        return 1000;
    return ms < 24 * kHour ? 60'000 : kHour;
}

bool stepPassed(qint64 originMs, qint64 nowMs, qint64 sinceMs, qint64 stepMs)
{
    if (sinceMs >= stepMs)
        return true;
    // Where in its step the clock is now; a step began within the last sinceMs ms.
    const qint64 into = ((nowMs - originMs) % stepMs + stepMs) % stepMs;
    return into < sinceMs;
}

QString formatTimestamp(const QDateTime &when, const QDateTime &now)
{
    if (!when.isValid())
        return {};
    const QDateTime local = toLocalFast(when);
    if (local.date() == toLocalFast(now).date())
        return local.toString(u"HH:mm:ss"_s);
    return QLocale().toString(
        local,
        QCoreApplication::translate("RunFormat", "MMM d HH:mm", "QDateTime format of a time on another day"));
}

std::optional<qint64> answerTimeLeftMs(const Run &run, const QDateTime &now)
{
    // waitsForPerson: input required, and not by a timer or a callback.
    if (!waitsForPerson(run) || !run.input || !run.input->deadline.isValid())
        return std::nullopt;
    return now.msecsTo(run.input->deadline);
}

QString formatCountdown(qint64 ms)
{
    // Rounded up: "0:00" while time is still left would read as "too late".
    const qint64 s = ms <= 0 ? 0 : (ms + 999) / 1000;
    if (s < 3600)
        return u"%1:%2"_s.arg(s / 60, 2, 10, QChar(u'0')).arg(s % 60, 2, 10, QChar(u'0'));
    return u"%1:%2:%3"_s.arg(s / 3600).arg((s / 60) % 60, 2, 10, QChar(u'0')).arg(s % 60, 2, 10, QChar(u'0'));
}

QString badgeText(const Run &run, BadgeSpace space, const QDateTime &now)
{
    const bool wide = space == BadgeSpace::Wide;
    if (const auto left = answerTimeLeftMs(run, now); left && !run.connectionLost) {
        // Narrow: the amber badge and its icon already say "needs input", and a list cell has
        // room for about ten characters: the time left is what must not be cut off.
        if (*left <= 0) {
            return wide ? QCoreApplication::translate("RunList", "Needs input, time is up")
                        : QCoreApplication::translate("RunList", "Time is up");
        }
        return (wide ? QCoreApplication::translate("RunList", "Needs input, %1 left")
                     : QCoreApplication::translate("RunList", "%1 left"))
            .arg(formatCountdown(*left));
    }
    if (!run.connectionLost || run.isTerminal()) {
        // A run suspended on a timer or a callback waits for a machine: "Needs input" would send
        // the operator looking for a question that is not there.
        if (run.status == RunStatus::InputRequired && !waitsForPerson(run)) {
            if (!wide)
                return QCoreApplication::translate("RunList", "Waiting");
            return run.input && run.input->reason == InputReason::Webhook
                       ? QCoreApplication::translate("RunList", "Waiting for callback")
                       : QCoreApplication::translate("RunList", "Waiting for timer");
        }
        // The cancel ladder: the service accepted the cancel and has not confirmed it in time.
        if (run.status == RunStatus::Cancelling && run.cancelUnconfirmed) {
            return wide ? QCoreApplication::translate("RunList", "Cancelling, not confirmed")
                        : QCoreApplication::translate("RunList", "Not confirmed");
        }
        if (run.status == RunStatus::StoppedWatching && wide)
            return QCoreApplication::translate("RunList", "Stopped watching, not confirmed");
        return statusLabel(run.status);
    }
    const qint64 ms = run.nextTryAt.isValid() ? now.msecsTo(run.nextTryAt) : 0;
    if (!wide || ms <= 0)
        return QCoreApplication::translate("RunList", "Reconnecting");
    // Rounded up: "in 0 s" would read as "now" while the wait is still going.
    return QCoreApplication::translate("RunList", "Reconnecting, next try in %1 s").arg((ms + 999) / 1000);
}

QString statusToolTip(const Run &run)
{
    QStringList lines;
    lines << statusLabel(run.status);
    // What a list cell's badge has no room for ("Reconnecting, next try in 12 s").
    if (const QString wide = badgeText(run, BadgeSpace::Wide); wide != lines.constFirst())
        lines << wide;
    if (!run.rawStatus.isEmpty())
        lines << QCoreApplication::translate("RunList", "Backend status: %1").arg(run.rawStatus);
    if (run.connectionLost && !run.isTerminal()) {
        lines << QCoreApplication::translate("RunList", "Connection lost — reconnecting…");
        if (run.failedTries > 0) {
            lines << QCoreApplication::translate("RunList", "%n tries failed in a row: %1", nullptr,
                                                 run.failedTries)
                         .arg(run.lostReason);
        }
    }
    if (run.status == RunStatus::InputRequired && run.input) {
        lines << QCoreApplication::translate("RunList", "Waiting for: %1")
                     .arg(inputReasonLabel(run.input->reason));
    }
    if (run.error.isError())
        lines << run.error.toString();
    return lines.join(u'\n');
}

QString formatEta(const QDateTime &eta, const QDateTime &now)
{
    if (!eta.isValid())
        return {};
    const qint64 left = now.msecsTo(eta);
    if (left < 1000)
        return QCoreApplication::translate("RunList", "finishing");
    return QCoreApplication::translate("RunList", "about %1 left").arg(formatDuration(left));
}

QString plainToolTip(const QString &text)
{
    if (text.isEmpty())
        return {};
    return u"<p style='white-space:pre-wrap'>"_s + text.toHtmlEscaped() + u"</p>"_s;
}

} // namespace Runwatch
