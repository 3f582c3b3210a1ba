// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/optionchecks.h"

#include <QCoreApplication>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace Runwatch {

QString checkHeaderValue(const QString &value)
{
    for (const QChar ch : value) {
        if (ch.unicode() < 0x20 || ch.unicode() == 0x7f)
            return QCoreApplication::translate("ConnectionOptions", "Must be a single line.");
    }
    return {};
}

QString checkApiVersion(const QString &value)
{
    static const QRegularExpression versionSyntax(u"^[A-Za-z0-9._-]+$"_s);
    if (!versionSyntax.match(value).hasMatch()) {
        return QCoreApplication::translate(
            "ConnectionOptions", "An API version looks like 2025-04-01-preview (letters, digits, '.', '-').");
    }
    return {};
}

} // namespace Runwatch
