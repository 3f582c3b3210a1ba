// SPDX-License-Identifier: GPL-3.0-or-later
#include "timebudget.h"

#include <QRegularExpression>

#include <cmath>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
constexpr qint64 kMaxBudgetMs = 366LL * 24 * 3600 * 1000;
} // namespace

std::optional<qint64> parseTimeBudgetMs(const QString &text)
{
    const QString t = text.trimmed().toLower();
    if (t.isEmpty())
        return std::nullopt;
    bool bare = false;
    const double minutes = t.toDouble(&bare);
    double total = 0;
    if (bare) {
        total = minutes * 60'000.0;
    } else {
        static const QRegularExpression part(u"\\G\\s*(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d)"_s);
        qsizetype pos = 0;
        auto it = part.globalMatch(t);
        while (it.hasNext()) {
            const QRegularExpressionMatch m = it.next();
            const double value = m.captured(1).toDouble();
            const QString unit = m.captured(2);
            const double scale = unit == u"ms"  ? 1.0
                                 : unit == u"s" ? 1000.0
                                 : unit == u"m" ? 60'000.0
                                 : unit == u"h" ? 3'600'000.0
                                                : 86'400'000.0;
            total += value * scale;
            pos = m.capturedEnd();
        }
        if (pos != t.size())
            return std::nullopt;
    }
    if (!std::isfinite(total) || total < 1.0 || total > double(kMaxBudgetMs))
        return std::nullopt;
    return qint64(std::llround(total));
}

QString formatTimeBudget(qint64 ms)
{
    if (ms <= 0)
        return {};
    if (ms % 1000)
        return QString::number(ms) + u"ms"_s;
    qint64 s = ms / 1000;
    QString out;
    if (s >= 86400 && s % 3600 == 0 && (s / 3600) % 24 == 0)
        return QString::number(s / 86400) + u'd';
    if (s >= 3600) {
        out += QString::number(s / 3600) + u'h';
        s %= 3600;
    }
    if (s >= 60) {
        out += QString::number(s / 60) + u'm';
        s %= 60;
    }
    if (s > 0)
        out += QString::number(s) + u's';
    return out;
}

} // namespace Runwatch
