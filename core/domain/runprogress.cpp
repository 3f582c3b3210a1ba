// SPDX-License-Identifier: GPL-3.0-or-later
#include "domain/runprogress.h"

#include <QCoreApplication>
#include <QJsonValue>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace Runwatch {

std::optional<double> reportedProgress(const Run &run)
{
    for (auto it = run.secondary.crbegin(); it != run.secondary.crend(); ++it) {
        if (it->kind != SecondaryKind::Progress)
            continue;
        const QString &text = it->text;
        qsizetype digits = 0;
        while (digits < text.size() && digits < 4 && text.at(digits).isDigit())
            ++digits;
        // The newest progress item without a percentage (a message only) says nothing about
        // how far the run is: keep looking for the last one that did.
        if (digits == 0 || digits >= text.size() || text.at(digits) != u'%')
            continue;
        bool ok = false;
        const int percent = text.left(digits).toInt(&ok);
        if (!ok)
            continue;
        return std::clamp(percent / 100.0, 0.0, 1.0);
    }
    return std::nullopt;
}

std::optional<qint64> estimatedDurationMs(const Run &run)
{
    const QJsonValue v = run.token.extra.value(QLatin1StringView(kEstimatedDurationKey));
    if (!v.isDouble())
        return std::nullopt;
    const double seconds = v.toDouble();
    // A week is far beyond any job's estimate; anything larger or negative is not one.
    if (!std::isfinite(seconds) || seconds <= 0 || seconds > 7 * 24 * 3600)
        return std::nullopt;
    return qint64(seconds * 1000.0);
}

std::optional<RunProgress> runProgress(const Run &run, const QDateTime &now)
{
    if (run.isTerminal())
        return std::nullopt;
    const std::optional<double> fraction = reportedProgress(run);
    if (!fraction)
        return std::nullopt;
    RunProgress p;
    p.fraction = *fraction;
    // A run that waits (for a person, a callback or a timer) makes no progress meanwhile: the time
    // it waits says nothing of what is left, so there is no ETA until it works again.
    if (!run.createdAt.isValid() || !now.isValid() || run.status == RunStatus::InputRequired)
        return p;
    const qint64 elapsed = std::max<qint64>(0, run.createdAt.msecsTo(now));
    std::optional<double> byRate;
    if (p.fraction >= 1.0) {
        byRate = 0.0;
    } else if (p.fraction > 0.0 && elapsed > 0) {
        byRate = double(elapsed) * (1.0 - p.fraction) / p.fraction;
    }
    std::optional<double> byEstimate;
    if (const auto estimate = estimatedDurationMs(run))
        byEstimate = double(std::max<qint64>(0, *estimate - elapsed));
    double remaining = 0.0;
    if (byRate && byEstimate) {
        remaining = p.fraction * *byRate + (1.0 - p.fraction) * *byEstimate;
    } else if (byRate) {
        remaining = *byRate;
    } else if (byEstimate) {
        remaining = *byEstimate;
    } else {
        return p;
    }
    p.eta = now.addMSecs(qint64(std::llround(remaining)));
    return p;
}

} // namespace Runwatch
