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

QString checkYesNo(const QString &value)
{
    static const QStringList words{u"yes"_s, u"no"_s, u"true"_s, u"false"_s};
    if (!words.contains(value.trimmed().toLower()))
        return QCoreApplication::translate("ConnectionOptions", "Either yes or no.");
    return {};
}

bool optionIsYes(const QJsonValue &value)
{
    if (value.isBool())
        return value.toBool();
    const QString word = value.toString().trimmed().toLower();
    return word == u"yes" || word == u"true";
}

} // namespace Runwatch
