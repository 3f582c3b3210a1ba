// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Enum values and the names the command line, specs and metadata use for them: one table per enum,
// looked up both ways.

#include <QLatin1StringView>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <array>
#include <cstddef>
#include <optional>
#include <utility>

namespace RunwatchSim {

template<typename Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, QLatin1StringView>, N>;

template<typename Enum, std::size_t N>
std::optional<Enum> valueOfName(const NameTable<Enum, N> &table, QStringView name,
                                Qt::CaseSensitivity sensitivity = Qt::CaseInsensitive)
{
    for (const auto &[value, text] : table) {
        if (name.compare(text, sensitivity) == 0)
            return value;
    }
    return std::nullopt;
}

template<typename Enum, std::size_t N>
QString nameOfValue(const NameTable<Enum, N> &table, Enum value, const QString &fallback = QString())
{
    for (const auto &[v, text] : table) {
        if (v == value)
            return QString(text);
    }
    return fallback;
}

template<typename Enum, std::size_t N>
QStringList namesOf(const NameTable<Enum, N> &table)
{
    QStringList names;
    for (const auto &entry : table)
        names.append(QString(entry.second));
    return names;
}

} // namespace RunwatchSim
