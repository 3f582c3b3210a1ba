// SPDX-License-Identifier: GPL-3.0-or-later
#include "simoptions.h"

#include <limits>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

SimOptionValues::SimOptionValues(const QString &prompt, const QJsonObject &metadata, const QStringList &keys,
                                 ScenarioCheck isScenario)
{
    const QStringList words = prompt.simplified().split(u' ', Qt::SkipEmptyParts);
    if (!words.isEmpty()) {
        QString first = words.first();
        while (!first.isEmpty() && QStringView(u":,.;!").contains(first.back()))
            first.chop(1);
        if (isScenario(first))
            m_raw.insert(u"scenario"_s, first);
    }
    for (const QString &word : words) {
        const qsizetype eq = word.indexOf(u'=');
        const QString key = word.left(eq).toLower();
        if (eq > 0 && keys.contains(key))
            m_raw.insert(key, word.mid(eq + 1));
    }
    for (const QString &key : keys) {
        if (metadata.contains(key))
            m_raw.insert(key, metadata.value(key).toString());
    }
}

std::optional<SimOptionError> SimOptionValues::streamFaults(StreamFaults *faults) const
{
    constexpr qint64 kMaxIndex = std::numeric_limits<qint64>::max();
    std::optional<SimOptionError> error;
    if ((error = integer(u"fault_connections"_s, -1, 1000000, &faults->connections))
        || (error = integer(u"drop_after"_s, -1, kMaxIndex, &faults->dropAfterEvents))
        || (error = integer(u"malformed_at"_s, -1, kMaxIndex, &faults->malformedAt))
        || (error = integer(u"drip_ms"_s, 0, 60000, &faults->dripIntervalMs))) {
        return error;
    }
    if (contains(u"drop_mode"_s)) {
        const auto mode = dropModeFromName(value(u"drop_mode"_s));
        if (!mode)
            return bad(u"drop_mode"_s, u"expected close, reset or mid"_s);
        faults->dropMode = *mode;
    }
    return std::nullopt;
}

std::optional<SimOptionError> SimOptionValues::lineEnding(QByteArray *lineEnding) const
{
    if (!contains(u"line_ending"_s))
        return std::nullopt;
    const QString ending = value(u"line_ending"_s).toLower();
    if (ending == "lf"_L1) {
        *lineEnding = QByteArrayLiteral("\n");
    } else if (ending == "crlf"_L1) {
        *lineEnding = QByteArrayLiteral("\r\n");
    } else if (ending == "cr"_L1) {
        *lineEnding = QByteArrayLiteral("\r");
    } else {
        return bad(u"line_ending"_s, u"expected lf, crlf or cr"_s);
    }
    return std::nullopt;
}

SimOptionError SimOptionValues::bad(const QString &key, const QString &why)
{
    return SimOptionError{key, u"Invalid value for simulator option '%1': %2"_s.arg(key, why)};
}

SimOptionError SimOptionValues::outOfRange(const QString &key, qint64 min, qint64 max)
{
    return bad(key, u"expected an integer from %1 to %2"_s.arg(min).arg(max));
}

std::optional<qint64> SimOptionValues::integerValue(const QString &key, qint64 min, qint64 max) const
{
    if (!contains(key))
        return std::nullopt;
    bool ok = false;
    const qint64 number = QStringView(m_raw[key]).trimmed().toLongLong(&ok);
    if (!ok || number < min || number > max)
        return std::nullopt;
    return number;
}

std::optional<SimOptionError> SimOptionValues::boolean(const QString &key, bool *target) const
{
    if (!contains(key))
        return std::nullopt;
    const QString v = value(key).trimmed().toLower();
    if (v == "1"_L1 || v == "true"_L1 || v == "yes"_L1 || v == "on"_L1) {
        *target = true;
    } else if (v == "0"_L1 || v == "false"_L1 || v == "no"_L1 || v == "off"_L1) {
        *target = false;
    } else {
        return bad(key, u"expected 1/0/true/false"_s);
    }
    return std::nullopt;
}

} // namespace RunwatchSim
