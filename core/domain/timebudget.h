// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>

namespace Runwatch {

// A time budget (a run's deadline from now, a connection's default) as an operator types it:
// "90s", "45m", "1.5h", "2d", "1h30m", or a bare number of minutes; nullopt unless positive and
// at most a year.
std::optional<qint64> parseTimeBudgetMs(const QString &text);
// The reverse for display and the option field: "1h30m", "45m", "90s".
QString formatTimeBudget(qint64 ms);

} // namespace Runwatch
