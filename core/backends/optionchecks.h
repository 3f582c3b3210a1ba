// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonValue>
#include <QString>

namespace Runwatch {

// Checks of option values that several connectors' rows use (ConnectorOption::validate): the
// operator-facing problem, or an empty string when the value is fine.

// A value sent verbatim as a header: one line of printable characters.
QString checkHeaderValue(const QString &value);
// An API version sent as ?api-version=: letters, digits, '.', '-', '_'.
QString checkApiVersion(const QString &value);
// A yes/no option: yes, no, true, false (any case); optionIsYes() reads it.
QString checkYesNo(const QString &value);
bool optionIsYes(const QJsonValue &value);

} // namespace Runwatch
